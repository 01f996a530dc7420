// chsim: simulate and benchmark consistent hashing.
#include <cstdio>
#include <exception>
#include <new>

#include <CLI/CLI.hpp>

#include "chsim/sim/errors.h"
#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"chsim: simulate and benchmark consistent hashing (Ketama and its successors)",
               "chsim"};
  app.require_subcommand(1);
  chsim::cli::AddLocateCommand(app);
  chsim::cli::AddRingCommand(app);
  chsim::cli::AddListCommand(app);
  chsim::cli::AddTuneCommand(app);
  chsim::cli::AddRunCommands(app, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
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
