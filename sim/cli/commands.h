// SPDX-License-Identifier: Apache-2.0
// The chsim subcommands. Each Add*Command registers one subcommand on the
// app; its callback throws UsageError (exit 2) or RuntimeError (exit 1).
#ifndef CHSIM_SIM_CLI_COMMANDS_H_
#define CHSIM_SIM_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>

namespace chsim::cli {

void AddLocateCommand(CLI::App& app);
void AddRingCommand(CLI::App& app);
void AddListCommand(CLI::App& app);
void AddTuneCommand(CLI::App& app);
void AddDiffCommand(CLI::App& app);
// run, validate and merge (cmd_run.cc); argv is recorded in result provenance.
void AddRunCommands(CLI::App& app, int argc, char** argv);

}  // namespace chsim::cli

#endif  // CHSIM_SIM_CLI_COMMANDS_H_
