// SPDX-License-Identifier: Apache-2.0
// chsim: simulate and benchmark consistent hashing.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "chsim/simd.h"
#include "sim/base/errors.h"
#include "sim/cli/commands.h"
#include "sim/results/provenance.h"

int main(int argc, char** argv) {
  CLI::App app{"chsim: simulate and benchmark consistent hashing (Ketama and its successors)",
               "chsim"};
  app.require_subcommand(1);
  // "chsim 0.1.0+<commit>[-dirty]": the version and commit a result file's provenance names.
  app.set_version_flag("--version", "chsim " + chsim::sim::ToolVersion(),
                       "Print the version and git commit and exit");
  try {
    chsim::cli::AddLocateCommand(app);
    chsim::cli::AddRingCommand(app);
    chsim::cli::AddListCommand(app);
    chsim::cli::AddTuneCommand(app);
    chsim::cli::AddDiffCommand(app);
    chsim::cli::AddRunCommands(app, argc, argv);
  } catch (const CLI::OptionAlreadyAdded& e) {
    // Every parameter of a registered algorithm is a flag of locate and diff, and of a replica
    // strategy one of locate: a parameter named like a command's own flag would make a second
    // --NAME. Said in one line, at every start, rather than an abort.
    std::fprintf(stderr,
                 "chsim: error: %s: a parameter of an algorithm or replica strategy has the name "
                 "of a command's own flag; rename the parameter (docs/extending.md)\n",
                 e.what());
    return chsim::sim::kExitRuntime;
  }
  // A full disk or a file-size limit (ulimit -f) must give a write error that
  // the writer reports (the temporary file removed), not a SIGXFSZ death.
  std::signal(SIGXFSZ, SIG_IGN);
  if (const char* error = chsim::SimdOverrideError()) {  // CHSIM_SIMD names a level the CPU lacks
    std::fprintf(stderr, "chsim: error: %s\n", error);
    return chsim::sim::kExitUsage;
  }
  try {
    if (argc > 1 && argv[1][0] != '-') {  // name a mistyped subcommand (CLI11 would not)
      std::string valid;
      bool known = false;
      for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        known = known || sub->get_name() == argv[1];
        valid += (valid.empty() ? "" : ", ") + sub->get_name();
      }
      if (!known) {
        throw chsim::sim::UsageError("unknown subcommand '" + std::string(argv[1]) +
                                     "'; valid: " + valid);
      }
    }
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "chsim: error: %s (see chsim --help)\n", e.what());
    return chsim::sim::kExitUsage;
  } catch (const chsim::sim::UsageError& e) {
    std::fprintf(stderr, "chsim: error: %s\n", e.what());
    return chsim::sim::kExitUsage;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "chsim: error: %s\n", e.what());
    return chsim::sim::kExitUsage;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "chsim: error: out of memory\n");
    return chsim::sim::kExitRuntime;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "chsim: error: %s\n", e.what());
    return chsim::sim::kExitRuntime;
  }
  return 0;
}
