// `chsim list`: the profiles, hashers (and later algorithms) chsim offers.
#include <cstdio>

#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "commands.h"

namespace chsim::cli {

void AddListCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "list", "List profiles and hashers, each with a one-line description.\nExample: chsim list");
  cmd->callback([] {
    std::printf("profiles:\n");
    for (const ProfileInfo& p : AllProfiles()) {
      std::printf("  %-26s %.*s\n", std::string(p.name).c_str(), static_cast<int>(p.description.size()),
                  p.description.data());
    }
    std::printf("hashers:\n");
    for (const Hasher& h : AllHashers()) {
      std::printf("  %-26s %.*s\n", std::string(h.name).c_str(), static_cast<int>(h.description.size()),
                  h.description.data());
    }
  });
}

}  // namespace chsim::cli
