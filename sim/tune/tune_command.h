// SPDX-License-Identifier: Apache-2.0
// What `chsim tune` takes and writes, shared by the command line and the
// Python module (chsim.tune): the options as given, the TuneRequest made from
// them (every refusal with the command's one-line message), and the JSON
// document `chsim tune --json` writes.
//
// Thread-safety: reentrant.
#ifndef CHSIM_SIM_TUNE_TUNE_COMMAND_H_
#define CHSIM_SIM_TUNE_TUNE_COMMAND_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "chsim/profile.h"
#include "sim/scenario/server_list.h"
#include "sim/tune/tune.h"

namespace chsim::sim {

// The options, named after the flags (--max-over-mean is max_over_mean). 0
// and "" mean "not given".
struct TuneOptions {
  uint32_t nodes = 0;
  std::string servers;  // a server-list file (or the name of server_list)
  // A list already read (the Python module's lists); `servers` names it.
  std::optional<ServerList> server_list;
  std::string profile;
  // The profile's options when a proxy's configuration set them (its hash
  // function, replicas); else {hash_algorithm}.
  std::optional<ProfileOptions> profile_options;
  std::string algorithm;
  std::string hasher;
  double max_excess_churn = 0;
  std::string hash_algorithm;
  // Envoy's sizes (0: the configuration's, else Envoy's default):
  // envoy-ring's minimum_ring_size (the setting compared with the answer)
  // and maximum_ring_size (the answer's bound); envoy-maglev's table_size.
  uint64_t min_ring_size = 0;
  uint64_t max_ring_size = 0;
  uint64_t maglev_table_size = 0;
  double max_over_mean = 0;
  double confidence = 0.95;
  std::string metric = "structural";
  uint64_t keys = 1'000'000;
  uint32_t draws = 2000;
  double time_budget = 20;
  uint64_t seed = 1;
  int threads = 0;        // 0: every core
  uint32_t replicas = 0;  // copies per key (0: primaries only)
  std::string strategy;   // with replicas: "" is the first that applies
  uint32_t racks = 0;
};

// Most keys --metric sampled takes.
inline constexpr uint64_t kTuneMaxKeys = 1'000'000'000;

// The request the options describe. Throws UsageError with the command's
// message for a missing or contradictory option, an unknown name, a value out
// of range or a bad server list.
TuneRequest MakeTuneRequest(const TuneOptions& options);

// "ring (points_per_node; the default), maglev (table_size), ...": the
// algorithms whose spec names a tuned parameter (--algorithm's help).
std::string TunableAlgorithmsText();

// The document `chsim tune --json` writes (format: results/README.md), keys
// sorted.
nlohmann::json TuneDocument(const TuneOptions& options, const TuneRequest& request,
                            const TuneResult& result);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_TUNE_TUNE_COMMAND_H_
