// SPDX-License-Identifier: Apache-2.0
// `chsim locate` and `chsim ring`: map keys to servers, and print the ring,
// exactly as a chosen peer client would; `locate --replicas K` prints each
// key's K copies (chsim/replica.h) in replica order.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "chsim/profile_map.h"
#include "chsim/replica.h"
#include "chsim/ring.h"
#include "sim/base/errors.h"
#include "sim/cli/commands.h"
#include "sim/cli/key_lines.h"
#include "sim/scenario/server_list.h"

namespace chsim::cli {
namespace {

struct RingOptions {
  std::string servers;
  std::string profile = "spymemcached";
  std::string hash_algorithm;
  std::string hasher;
  // --points-per-weight as given (the ketama parameter of the same name):
  // empty = the program's default.
  std::string points_per_weight;
};

void AddRingOptions(CLI::App* cmd, RingOptions& o) {
  cmd->add_option("--servers", o.servers, "server list file: HOST[:PORT] [WEIGHT [NAME]] per line")
      ->required();
  cmd->add_option("--profile", o.profile, "compatibility profile (chsim list)")
      ->capture_default_str();
  cmd->add_option("--hash-algorithm", o.hash_algorithm,
                  "spymemcached DefaultHashAlgorithm (KETAMA_HASH, FNV1A_64_HASH, ...)");
  cmd->add_option("--hasher", o.hasher, "key hasher where the peer lets you choose");
  cmd->add_option("--points-per-weight", o.points_per_weight,
                  "varnish: points per unit of weight, its reconfigure(replicas=...) (default "
                  "67); groupcache: points per peer, HTTPPoolOptions.Replicas (default 50)");
}

// ProfileOptions from the flags, --points-per-weight checked by the ketama
// parameter of its name (its range and message).
ProfileOptions ProfileOptionsOf(const RingOptions& o) {
  ProfileOptions p{o.hash_algorithm, o.hasher};
  const std::string& text = o.points_per_weight;
  if (text.empty()) return p;
  const ParamSpec& ps = *GetAlgorithm("ketama").FindParam("points_per_weight");
  try {
    const ParamValue v = ps.Parse(text);
    ps.Check("ketama", v);
    p.replicas = static_cast<uint32_t>(std::get<uint64_t>(v));
    if (p.replicas == 0) {
      throw std::invalid_argument("found '0'; accepted: an integer 1.." +
                                  std::to_string(static_cast<uint64_t>(ps.max)) +
                                  " (leave the flag out for the program's default)");
    }
  } catch (const std::invalid_argument& e) {
    throw sim::UsageError("--points-per-weight: " + std::string(e.what()));
  }
  return p;
}

// The peer's structure: a 32-bit Ring, or a ProfileMap (Profile::engine).
struct BuiltRing {
  sim::ServerList list;
  Ring ring;
  std::optional<ProfileMap> map;
};

// The peer's ring over the list. `remove`: labels to leave out, as the peer
// does when a server is removed (a Ketama ring is rebuilt from its list).
BuiltRing BuildFromOptions(const RingOptions& o, const std::vector<std::string>& remove = {}) {
  BuiltRing b;
  b.list = sim::LoadServerList(o.servers);
  for (const std::string& label : remove) {
    auto it = std::find_if(b.list.nodes.begin(), b.list.nodes.end(),
                           [&](const Node& n) { return n.label == label; });
    if (it == b.list.nodes.end()) {
      throw sim::UsageError("--remove '" + label + "': found no such server in " + o.servers +
                            " (or it was removed already); accepted: a label of the list");
    }
    b.list.nodes.erase(it);
  }
  if (b.list.nodes.empty())
    throw sim::UsageError("--remove: every server removed; keep at least one");
  Profile p;
  try {
    p = MakeProfile(o.profile, ProfileOptionsOf(o));
  } catch (const std::invalid_argument& e) {
    throw sim::UsageError(e.what());
  }
  try {
    if (p.engine == Engine::kRing) {
      b.ring = Ring::Build(p, b.list.nodes, b.list.weighted);
    } else {
      b.map = ProfileMap::Build(p, b.list.nodes);
    }
  } catch (const std::invalid_argument& e) {
    throw sim::UsageError(o.servers + ": " + e.what());
  }
  return b;
}

// `chsim locate --algorithm NAME`: any algorithm of the registry (chsim
// list), its parameters as flags made from the specs (points_per_node is
// --points-per-node, alias --points), and removals applied after building.
struct AlgorithmOptions {
  std::string name;
  std::map<std::string, std::string, std::less<>> given;  // parameter -> flag text
  std::vector<std::string> remove;                        // labels, in order
  std::string replicas;                                   // --replicas K, as given
  std::string strategy;                                   // --strategy NAME
};

// Parameters the peer-profile options (AddRingOptions) already declare.
bool IsRingOption(std::string_view param) {
  return param == "profile" || param == "hash_algorithm" || param == "hasher" ||
         param == "points_per_weight";
}

std::string FlagOf(std::string_view param) {
  std::string flag = "--" + std::string(param);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

// The flag as messages name it, with its alias ("--points-per-node/--points").
std::string FlagName(std::string_view param) {
  return FlagOf(param) + (param == "points_per_node" ? "/--points" : "");
}

void AddAlgorithmOptions(CLI::App* cmd, AlgorithmOptions& a) {
  cmd->add_option("--algorithm", a.name,
                  "an algorithm of chsim list instead of a peer profile; keys are hashed with "
                  "--key-hasher, else --hasher, else the algorithm's default");
  std::map<std::string, std::string> help;  // parameter -> "doc (algorithms)"
  for (const AlgorithmSpec* spec : AllAlgorithms()) {
    for (const ParamSpec& p : spec->params) {
      std::string& h = help[std::string(p.name)];
      h += (h.empty() ? std::string(p.doc) + "; " + p.Accepted() + " (" : ", ") +
           std::string(spec->name);
    }
  }
  for (const auto& [param, text] : help) {
    if (IsRingOption(param)) continue;
    std::string names = FlagOf(param) + (param == "points_per_node" ? ",--points" : "");
    cmd->add_option(names, a.given[param], text + ")");
  }
  cmd->add_option("--remove", a.remove,
                  "remove this server (a label of --servers) after building, as the algorithm "
                  "removes nodes (capability arbitrary_removal in chsim list, else only the last "
                  "added); repeatable, applied in order")
      ->allow_extra_args(false);  // one label each time; the keys file stays positional
  cmd->add_option("--replicas", a.replicas,
                  "copies per key: print KEY<TAB>SERVER1<TAB>SERVER2... with K distinct servers "
                  "in replica order (the first is the one plain locate prints), after --remove");
  cmd->add_option("--strategy", a.strategy,
                  "with --replicas: how the copies are chosen, a replica strategy of chsim list "
                  "(default: the first that applies to the algorithm)");
}

// Rejects algorithm parameters without --algorithm, and any flag the
// algorithm does not declare.
void CheckOptionMix(const CLI::App* cmd, const AlgorithmOptions& a) {
  if (a.name.empty()) {
    for (const auto& [param, text] : a.given) {
      if (cmd->count(FlagOf(param)) > 0) {
        throw sim::UsageError(FlagName(param) + " needs --algorithm NAME (see chsim list)");
      }
    }
    return;
  }
  const AlgorithmSpec& spec = GetAlgorithm(a.name);
  for (const char* param : {"profile", "hash_algorithm", "points_per_weight"}) {
    if (cmd->count(FlagOf(param)) > 0 && !spec.FindParam(param)) {
      throw sim::UsageError(FlagOf(param) +
                            " selects a peer profile; it cannot be combined with --algorithm " +
                            a.name + " (use --algorithm ketama)");
    }
  }
  for (const auto& [param, text] : a.given) {
    if (cmd->count(FlagOf(param)) > 0 && !spec.FindParam(param)) {
      throw sim::UsageError(FlagName(param) + ": " + a.name + " has no parameter '" + param +
                            "' (chsim list)");
    }
  }
}

// The algorithm's parameters from the flags given.
Params FlagParams(const CLI::App* cmd, const RingOptions& o, const AlgorithmOptions& a,
                  const AlgorithmSpec& spec, const sim::ServerList& list) {
  Params p;
  p.weighted_list = list.weighted;
  for (const auto& [param, text] : a.given) {
    if (cmd->count(FlagOf(param)) == 0) continue;
    const ParamSpec& ps = *spec.FindParam(param);
    try {  // the spec's message, naming the flag
      const ParamValue v = ps.Parse(text, list.nodes.size());
      ps.Check(spec.name, v);
      p.Set(param, v);
    } catch (const std::invalid_argument& e) {
      throw sim::UsageError(FlagName(param) + ": " + e.what());
    }
  }
  const std::pair<const char*, const std::string*> ring_options[] = {
      {"profile", &o.profile}, {"hash_algorithm", &o.hash_algorithm}, {"hasher", &o.hasher}};
  for (const auto& [param, value] : ring_options) {
    if (cmd->count(FlagOf(param)) > 0 && spec.FindParam(param)) p.Set(param, *value);
  }
  if (const ParamSpec* ps = spec.FindParam("points_per_weight");
      ps != nullptr && cmd->count("--points-per-weight") > 0) {
    try {  // the spec's message, naming the flag
      const ParamValue v = ps->Parse(o.points_per_weight, list.nodes.size());
      ps->Check(spec.name, v);
      p.Set("points_per_weight", v);
    } catch (const std::invalid_argument& e) {
      throw sim::UsageError("--points-per-weight: " + std::string(e.what()));
    }
  }
  return p;
}

// Applies --remove in order; the ids of the list are its positions.
void RemoveServers(Algorithm& algo, const sim::ServerList& list, const AlgorithmOptions& a,
                   const std::string& servers) {
  for (const std::string& label : a.remove) {
    uint32_t id = 0;
    while (id < list.nodes.size() && list.nodes[id].label != label) ++id;
    if (id == list.nodes.size()) {
      throw sim::UsageError("--remove '" + label + "': found no such server in " + servers +
                            "; accepted: a label of the list");
    }
    try {
      algo.Remove(id);
    } catch (const std::exception& e) {  // Unsupported, std::invalid_argument (removed twice)
      throw sim::UsageError("--remove '" + label + "': " + e.what());
    }
  }
}

// --replicas K: 1..the live servers (after --remove).
uint32_t ReplicaCount(const AlgorithmOptions& a, size_t live) {
  uint64_t k = 0;
  const auto [end, ec] =
      std::from_chars(a.replicas.data(), a.replicas.data() + a.replicas.size(), k);
  if (ec != std::errc() || end != a.replicas.data() + a.replicas.size() || k == 0 || k > live) {
    throw sim::UsageError("--replicas: found '" + a.replicas + "'; accepted: an integer 1.." +
                          std::to_string(live) + " (the live servers; copies are distinct)");
  }
  return static_cast<uint32_t>(k);
}

// The strategy --strategy names (default: the first that applies), refused
// in one line when unknown or not for this algorithm, naming the choices.
const ReplicaStrategy& StrategyFor(const AlgorithmOptions& a, const AlgorithmSpec& spec) {
  const std::vector<const ReplicaStrategy*> fit = ReplicaStrategiesFor(spec);
  std::string fit_names;
  for (const ReplicaStrategy* s : fit)
    fit_names += (fit_names.empty() ? "" : ", ") + std::string(s->name);
  if (a.strategy.empty()) {
    if (fit.empty())
      throw sim::UsageError("--replicas: no replica strategy applies to " + std::string(spec.name));
    return *fit.front();
  }
  const ReplicaStrategy* s = FindReplicaStrategy(a.strategy);
  if (s == nullptr) {
    std::string all;
    for (const ReplicaStrategy* r : AllReplicaStrategies())
      all += (all.empty() ? "" : ", ") + std::string(r->name);
    throw sim::UsageError("--strategy: unknown replica strategy '" + a.strategy +
                          "'; accepted: " + all);
  }
  if (!s->AppliesTo(spec)) {
    throw sim::UsageError("--strategy " + a.strategy + " does not apply to " +
                          std::string(spec.name) + " (it needs " + std::string(s->applies_doc) +
                          "); strategies for " + std::string(spec.name) + ": " +
                          (fit_names.empty() ? "none" : fit_names));
  }
  return *s;
}

// Writes "KEY<TAB>LABEL1<TAB>LABEL2...\n" per key line, the copies of a
// block of keys selected at once.
void WriteKeyReplicas(const std::string& path, std::span<const Node> nodes, const Hasher& hasher,
                      const ReplicaSelector& selector) {
  const uint32_t k = selector.k();
  sim::KeyLineReader reader(path);
  sim::StdoutBuffer out;
  std::vector<uint64_t> hashes(sim::kLocateBlockKeys);
  std::vector<uint32_t> ids(sim::kLocateBlockKeys * k), counts(sim::kLocateBlockKeys);
  for (;;) {
    const std::span<const std::string_view> keys = reader.Next(sim::kLocateBlockKeys);
    if (keys.empty()) break;
    HashBatch(hasher, keys, hashes);
    selector.SelectBatch({hashes.data(), keys.size()}, ids, counts);
    for (size_t i = 0; i < keys.size(); ++i) {
      out.Append(keys[i]);
      for (uint32_t j = 0; j < counts[i]; ++j) {
        out.Append("\t");
        out.Append(nodes[ids[i * k + j]].label);
      }
      out.Append("\n");
    }
  }
  out.Flush();
}

void LocateReplicas(const Algorithm& algo, const AlgorithmSpec& spec, const Hasher& hasher,
                    const sim::ServerList& list, const AlgorithmOptions& a,
                    const std::string& keys) {
  const ReplicaStrategy& strategy = StrategyFor(a, spec);
  const uint32_t k = ReplicaCount(a, algo.num_nodes());
  std::unique_ptr<ReplicaSelector> selector;
  try {
    selector = strategy.Make(ReplicaInput{.algorithm = &algo, .k = k});
  } catch (const std::exception& e) {  // std::invalid_argument, Unsupported
    throw sim::UsageError(std::string("--replicas: ") + e.what());
  }
  WriteKeyReplicas(keys, list.nodes, hasher, *selector);
}

void LocateWithAlgorithm(const CLI::App* cmd, const RingOptions& o, const AlgorithmOptions& a,
                         const std::string& keys) {
  sim::ServerList list = sim::LoadServerList(o.servers);
  std::unique_ptr<Algorithm> algo;
  const Hasher* hasher = nullptr;
  try {
    const AlgorithmSpec& spec = GetAlgorithm(a.name);
    const Params given = FlagParams(cmd, o, a, spec, list);
    const Params resolved = spec.Resolve(given);
    std::string_view key_hasher = spec.KeyHasher(resolved);
    if (!given.Has("key_hasher") && cmd->count("--hasher") > 0) key_hasher = o.hasher;
    hasher = &GetHasher(key_hasher);
    algo = spec.Make(list.nodes, given);
  } catch (const Unsupported& e) {
    throw sim::UsageError(o.servers + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    throw sim::UsageError(e.what());
  }
  RemoveServers(*algo, list, a, o.servers);
  if (!a.replicas.empty()) {
    return LocateReplicas(*algo, GetAlgorithm(a.name), *hasher, list, a, keys);
  }
  const bool stateful = algo->capabilities().stateful;
  std::vector<uint64_t> hashes(sim::kLocateBlockKeys);
  sim::WriteKeyOwners(keys, list.nodes, [&](auto block, std::span<uint32_t> owners) {
    if (algo->LocateKeys(block, owners)) return;
    HashBatch(*hasher, block, hashes);
    if (!stateful) return algo->LocateBatch({hashes.data(), block.size()}, owners);
    for (size_t i = 0; i < block.size(); ++i) owners[i] = algo->Assign(hashes[i]);  // file order
  });
}

}  // namespace

void AddLocateCommand(CLI::App& app) {
  // Static storage: the callbacks below run after this function returns.
  static RingOptions options;
  static std::string keys_path = "-";
  auto* o = &options;
  auto* keys = &keys_path;
  CLI::App* cmd = app.add_subcommand(
      "locate",
      "Map keys to servers as a peer client would; prints KEY<TAB>SERVER per key line.\n"
      "Example: chsim locate --servers servers.txt --profile libmemcached keys.txt\n"
      "         chsim locate --servers servers.txt --algorithm maglev keys.txt\n"
      "         chsim locate --servers servers.txt --algorithm anchor --remove 10.0.0.2:11211 "
      "keys.txt\n"
      "         chsim locate --servers servers.txt --replicas 3 keys.txt");
  AddRingOptions(cmd, *o);
  static AlgorithmOptions algorithm_options;
  auto* algo = &algorithm_options;
  AddAlgorithmOptions(cmd, *algo);
  cmd->add_option("keys", *keys, "key file, one key per line, bytes verbatim ('-' = stdin)")
      ->capture_default_str();
  cmd->callback([cmd, o, algo, keys] {
    CheckOptionMix(cmd, *algo);
    if (!algo->strategy.empty() && algo->replicas.empty()) {
      throw sim::UsageError("--strategy needs --replicas K");
    }
    if (algo->name.empty() && !algo->replicas.empty()) {
      // The peer's ring is the one the ketama algorithm builds from the same
      // profile options, with the same key hash and removals.
      algo->name = "ketama";
    }
    if (!algo->name.empty()) {
      LocateWithAlgorithm(cmd, *o, *algo, *keys);
      return;
    }
    BuiltRing b = BuildFromOptions(*o, algo->remove);
    sim::WriteKeyOwners(*keys, b.list.nodes, [&](auto block, std::span<uint32_t> owners) {
      if (b.map) return b.map->LocateBatch(block, owners);
      b.ring.LocateBatch(block, owners);
    });
  });
}

void AddRingCommand(CLI::App& app) {
  static RingOptions options;
  auto* o = &options;
  CLI::App* cmd = app.add_subcommand(
      "ring",
      "Print the ring in order: POINT<TAB>SERVER for every point the peer keeps (haproxy: "
      "each point, then the last hash nearer to it than to the next; nginx-hash, "
      "pecl-memcache: the last value of each run; pymemcache has no ring).\n"
      "Example: chsim ring --servers servers.txt --profile twemproxy");
  AddRingOptions(cmd, *o);
  cmd->callback([o] {
    BuiltRing b = BuildFromOptions(*o);
    if (b.map) {
      throw sim::UsageError("profile '" + o->profile +
                            "' is rendezvous hashing: it has no ring to print (chsim locate "
                            "maps keys)");
    }
    sim::StdoutBuffer out;
    auto points = b.ring.points();
    auto owners = b.ring.owners();
    for (size_t i = 0; i < points.size(); ++i) {
      const std::string& label = b.list.nodes[owners[i]].label;
      char* p = out.Reserve(label.size() + 12);
      p = std::to_chars(p, p + 10, points[i]).ptr;
      *p++ = '\t';
      std::memcpy(p, label.data(), label.size());
      p[label.size()] = '\n';
      out.Commit(p + label.size() + 1);
    }
    out.Flush();
  });
}

}  // namespace chsim::cli
