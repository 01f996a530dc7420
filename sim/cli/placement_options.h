// SPDX-License-Identifier: Apache-2.0
// The flags that choose how keys are placed, shared by `chsim locate`, `ring`
// and `diff`: a peer profile and its options (--profile, --hash-algorithm,
// --hasher, --points-per-weight), or an algorithm of the registry
// (--algorithm) with its parameters as flags made from the specs.
#ifndef CHSIM_SIM_CLI_PLACEMENT_OPTIONS_H_
#define CHSIM_SIM_CLI_PLACEMENT_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "chsim/ring.h"
#include "sim/scenario/server_config.h"
#include "sim/scenario/server_list.h"

namespace chsim::cli {

struct RingOptions {
  std::string servers;
  std::string servers_format;  // --servers-format: "" = by the file name
  std::string profile = "spymemcached";
  std::string hash_algorithm;
  std::string hasher;
  // --points-per-weight as given (checked by the ketama parameter of that
  // name); empty: `replicas`.
  std::string points_per_weight;
  uint32_t replicas = 0;  // a configuration's own; 0: the profile's (varnish 67)
  // --min-ring-size, --max-ring-size, --maglev-table-size as given (checked
  // by the ketama parameters min_ring_size and maglev_table_size, and 1..8M
  // for the maximum); empty: `envoy`'s.
  std::string min_ring_size, max_ring_size, table_size;
  ProfileOptions envoy;  // an Envoy cluster's sizes (0: Envoy's defaults)
};

// --profile, --hash-algorithm, --hasher and --points-per-weight (not --servers).
void AddProfileOptions(CLI::App* cmd, RingOptions& o);

// --servers-format, for every server option of the command.
void AddServersFormatOption(CLI::App* cmd, RingOptions& o);

// The servers `spec` names (a server list, or a block of a proxy's
// configuration: sim/scenario/server_config.h), read in --servers-format;
// what the reader ignored and noted goes to stderr. Throws UsageError.
sim::ServerSource LoadServerSource(const std::string& spec, const RingOptions& o);

// The profile options for a list: --profile when given, else the profile
// the configuration implies (refused, saying why, when it implies none),
// else the default; the configuration's own options (hash function,
// replicas) unless a flag sets them or another profile is used.
RingOptions OptionsFor(const CLI::App* cmd, const RingOptions& o, const sim::ServerSource& src);

// ProfileOptions from the options, --points-per-weight checked by the ketama
// parameter of its name (its range and message). Throws UsageError.
ProfileOptions ProfileOptionsOf(const RingOptions& o);

// The profile the options name. Throws UsageError.
Profile ProfileFromOptions(const RingOptions& o);

// The profile's ring over the list; `where` names the list in messages.
// Throws UsageError.
Ring BuildRing(const Profile& p, const sim::ServerList& list, const std::string& where);

// A parameter's flag: "--" and its name with '-' for '_'.
std::string FlagOf(std::string_view param);

// Each parameter the specs declare -> "doc; accepted (WHAT name, name...": a
// flag's help, closed by the caller with ")".
template <class Specs>
std::map<std::string, std::string> ParamHelp(const Specs& specs, const std::string& what) {
  std::map<std::string, std::string> help;
  for (const auto* spec : specs) {
    for (const ParamSpec& p : spec->params) {
      std::string& h = help[std::string(p.name)];
      h += (h.empty() ? std::string(p.doc) + "; " + p.Accepted() + " (" + what : ", ") +
           std::string(spec->name);
    }
  }
  return help;
}

// --algorithm NAME and the parameters of every algorithm as flags
// (points_per_node is --points-per-node, alias --points).
struct AlgorithmFlags {
  std::string name;
  std::map<std::string, std::string, std::less<>> given;  // parameter -> flag text
};
void AddAlgorithmFlags(CLI::App* cmd, AlgorithmFlags& a);

// Rejects algorithm parameters without --algorithm, and any flag the
// algorithm does not declare. Throws UsageError.
void CheckOptionMix(const CLI::App* cmd, const AlgorithmFlags& a);

// The algorithm --algorithm names, built over the list with the flags given,
// and the hasher its keys take (--key-hasher, else --hasher, else the
// algorithm's default). Throws UsageError naming `where` for the list.
struct BuiltAlgorithm {
  std::unique_ptr<Algorithm> algorithm;
  const Hasher* key_hasher = nullptr;
};
BuiltAlgorithm BuildAlgorithm(const CLI::App* cmd, const RingOptions& o, const AlgorithmFlags& a,
                              const sim::ServerList& list, const std::string& where);

}  // namespace chsim::cli

#endif  // CHSIM_SIM_CLI_PLACEMENT_OPTIONS_H_
