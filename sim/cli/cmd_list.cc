// `chsim list`: the profiles, hashers (and later algorithms) chsim offers.
#include <cstdio>
#include <string>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "chsim/sim/metrics.h"
#include "commands.h"

namespace chsim::cli {

void AddListCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "list",
      "List profiles, hashers, algorithms, scenario workloads and result metrics, each with a\n"
      "one-line description.\n"
      "Example: chsim list");
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
    std::printf("algorithms:\n");
    for (const AlgorithmInfo& a : AllAlgorithms()) {
      const Capabilities& c = a.capabilities;
      std::string caps;
      auto add = [&caps](bool on, const char* what) {
        if (!on) return;
        if (!caps.empty()) caps += ", ";
        caps += what;
      };
      add(c.weights, "weights");
      add(c.arbitrary_removal, "arbitrary removal");
      add(!c.arbitrary_removal && c.lifo_removal, "last-in-first-out removal only");
      add(c.incremental, "incremental");
      add(!c.incremental, "rebuilds on change");
      add(c.minimal_disruption, "minimal disruption");
      add(c.exact_shares, "exact shares");
      add(c.stateful, "stateful (order-dependent)");
      add(c.history_free, "restored nodes get their keys back in any order");
      add(!c.history_free && c.minimal_disruption && c.incremental,
          "restored nodes get their keys back only in reverse removal order");
      std::printf("  %-26s %.*s\n", std::string(a.name).c_str(),
                  static_cast<int>(a.description.size()), a.description.data());
      std::printf("  %-26s parameters: %.*s\n", "", static_cast<int>(a.parameters.size()),
                  a.parameters.data());
      std::printf("  %-26s capabilities: %s\n", "", caps.c_str());
    }
    std::printf("  %-26s %s\n", "ketama",
                "in scenarios: a compatibility profile as an algorithm, keys hashed as the peer does");
    std::printf("  %-26s parameters: profile (above), hash_algorithm, hasher\n", "");
    std::printf("workloads: (scenario \"workload\": {\"type\": NAME, ...})\n");
    std::printf("  %-26s %s\n", "uniform", "random keys of a shape: \"user:{n}\", \"{alnum:8-32}\", \"{bytes:16}\"");
    std::printf("  %-26s %s\n", "sequential", "numbered keys start + i*step in a shape: \"user:{i}\", \"k{i:08}\"");
    std::printf("  %-26s %s\n", "zipf", "requests drawn over keys with P(rank k) ~ 1/k^exponent; load counts requests");
    std::printf("  %-26s %s\n", "file", "one key per line (bytes verbatim), or KEY WEIGHT with \"weighted\": true");
    std::printf("metrics: (result rows; see results/README.md)\n");
    for (const sim::MetricInfo& m : sim::AllMetrics()) {
      std::printf("  %-42s %-11.*s %.*s\n", std::string(m.name).c_str(),
                  static_cast<int>(m.unit.size()), m.unit.data(),
                  static_cast<int>(m.description.size()), m.description.data());
    }
  });
}

}  // namespace chsim::cli
