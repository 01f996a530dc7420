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
#include "chsim/topology.h"
#include "sim/base/errors.h"
#include "sim/base/text_file.h"
#include "sim/cli/commands.h"
#include "sim/cli/key_lines.h"
#include "sim/cli/placement_options.h"
#include "sim/scenario/server_list.h"

namespace chsim::cli {
namespace {

void AddRingOptions(CLI::App* cmd, RingOptions& o) {
  cmd->add_option("--servers", o.servers,
                  "server list file: HOST[:PORT] [WEIGHT [NAME]] [host=H] [rack=R] [zone=Z] per "
                  "line; or a proxy's "
                  "configuration, FILE[:BLOCK] (nginx upstream, HAProxy backend, Varnish shard "
                  "director, Envoy cluster), whose profile is then the default")
      ->required();
  AddServersFormatOption(cmd, o);
  AddProfileOptions(cmd, o);
}

// The peer's structure: a 32-bit Ring, or a ProfileMap (Profile::engine).
struct BuiltRing {
  sim::ServerList list;
  Ring ring;
  std::optional<ProfileMap> map;
  std::string profile;  // the profile's name
};

// The peer's ring over the list. `remove`: labels to leave out, as the peer
// does when a server is removed (a Ketama ring is rebuilt from its list).
BuiltRing BuildFromOptions(const CLI::App* cmd, const RingOptions& o,
                           const std::vector<std::string>& remove = {}) {
  BuiltRing b;
  const sim::ServerSource src = LoadServerSource(o.servers, o);
  b.list = src.list;
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
  const Profile p = ProfileFromOptions(OptionsFor(cmd, o, src));
  b.profile = p.name;
  if (p.engine == Engine::kRing) {
    b.ring = BuildRing(p, b.list, o.servers);
    return b;
  }
  try {
    b.map = ProfileMap::Build(p, b.list.nodes);
  } catch (const std::invalid_argument& e) {
    throw sim::UsageError(o.servers + ": " + e.what());
  }
  return b;
}

// `chsim locate --algorithm NAME`: any algorithm of the registry (chsim
// list), its parameters as flags made from the specs, and removals applied
// after building.
struct AlgorithmOptions : AlgorithmFlags {
  std::vector<std::string> remove;                                 // labels, in order
  std::string replicas;                                            // --replicas K, as given
  std::string strategy;                                            // --strategy NAME
  std::string domain;                                              // --domain LEVEL
  std::string crush_map;                                           // --crush-map FILE
  std::map<std::string, std::string, std::less<>> strategy_given;  // strategy parameter -> text
};

void AddAlgorithmOptions(CLI::App* cmd, AlgorithmOptions& a) {
  AddAlgorithmFlags(cmd, a);
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
                  "(default: the first that applies to the algorithm, and places by domain "
                  "with --domain)");
  for (const auto& [param, text] : ParamHelp(AllReplicaStrategies(), "strategy ")) {
    cmd->add_option(FlagOf(param), a.strategy_given[param], "with --replicas: " + text + ")");
  }
  cmd->add_option("--domain", a.domain,
                  "with --replicas: spread the copies over this failure-domain level (host, "
                  "rack or zone), read from the server list's host=/rack=/zone= columns");
  cmd->add_option("--crush-map", a.crush_map,
                  "with --replicas and a strategy that reads one (crush): a CRUSH map in "
                  "crushtool's text form (crushtool -d); server i of --servers is device i");
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
  std::vector<const ReplicaStrategy*> fit = ReplicaStrategiesFor(spec);
  if (!a.domain.empty() && a.strategy.empty()) {
    std::erase_if(fit, [](const ReplicaStrategy* s) { return !s->UsesDomains(); });
  }
  std::string fit_names;
  for (const ReplicaStrategy* s : fit)
    fit_names += (fit_names.empty() ? "" : ", ") + std::string(s->name);
  if (a.strategy.empty()) {
    if (fit.empty()) {
      throw sim::UsageError("--replicas: no replica strategy " +
                            std::string(a.domain.empty() ? "" : "that places by domain ") +
                            "applies to " + std::string(spec.name));
    }
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

// --domain LEVEL: a level the list's columns give.
std::optional<DomainLevel> DomainOption(const AlgorithmOptions& a, const sim::ServerList& list,
                                        const std::string& servers) {
  if (a.domain.empty()) return std::nullopt;
  const std::optional<DomainLevel> level = FindDomainLevel(a.domain);
  if (!level) {
    throw sim::UsageError("--domain: found '" + a.domain + "'; accepted: " + DomainLevelNames());
  }
  if (!list.topology.Has(*level)) {
    throw sim::UsageError("--domain " + a.domain + ": " + servers + " gives no " + a.domain +
                          " (its domain columns: " + list.topology.LevelNames() +
                          "); accepted: a level its lines give as " + a.domain + "=NAME");
  }
  return level;
}

// The strategy's parameters from the flags given; a flag of another
// strategy's parameter is refused, naming the strategy's own.
Params StrategyParams(const CLI::App* cmd, const AlgorithmOptions& a, const ReplicaStrategy& s,
                      size_t live) {
  Params p;
  for (const auto& [param, text] : a.strategy_given) {
    if (cmd->count(FlagOf(param)) == 0) continue;
    const auto ps = std::find_if(s.params.begin(), s.params.end(),
                                 [&, &param = param](const ParamSpec& q) { return q.name == param; });
    if (ps == s.params.end()) {
      std::string own;
      for (const ParamSpec& q : s.params) own += (own.empty() ? "" : ", ") + FlagOf(q.name);
      throw sim::UsageError(FlagOf(param) + ": strategy " + std::string(s.name) +
                            " has no parameter '" + param +
                            "'; its flags: " + (own.empty() ? "none" : own));
    }
    try {
      const ParamValue v = ps->Parse(text, live);
      ps->Check(s.name, v);
      p.Set(param, v);
    } catch (const std::invalid_argument& e) {
      throw sim::UsageError(FlagOf(param) + ": " + e.what());
    }
  }
  return p;
}

void LocateReplicas(const CLI::App* cmd, const Algorithm& algo, const AlgorithmSpec& spec,
                    const Hasher& hasher, const sim::ServerList& list, const AlgorithmOptions& a,
                    const std::string& servers, const std::string& keys) {
  const std::optional<DomainLevel> domain = DomainOption(a, list, servers);
  const ReplicaStrategy& strategy = StrategyFor(a, spec);
  const uint32_t k = ReplicaCount(a, algo.num_nodes());
  const Params given = StrategyParams(cmd, a, strategy, algo.num_nodes());
  const std::string map = a.crush_map.empty() ? "" : sim::ReadFileOrStdin(a.crush_map);
  std::unique_ptr<ReplicaSelector> selector;
  try {
    selector = strategy.Make(ReplicaInput{.algorithm = &algo,
                                          .k = k,
                                          .topology = &list.topology,
                                          .domain = domain,
                                          .map = {a.crush_map, map}},
                             given);
  } catch (const std::exception& e) {  // std::invalid_argument, Unsupported
    throw sim::UsageError(std::string("--replicas: ") + e.what());
  }
  WriteKeyReplicas(keys, list.nodes, hasher, *selector);
}

void LocateWithAlgorithm(const CLI::App* cmd, const RingOptions& o, const AlgorithmOptions& a,
                         const std::string& keys) {
  sim::ServerList list = LoadServerSource(o.servers, o).list;
  BuiltAlgorithm built = BuildAlgorithm(cmd, o, a, list, o.servers);
  std::unique_ptr<Algorithm>& algo = built.algorithm;
  const Hasher* hasher = built.key_hasher;
  RemoveServers(*algo, list, a, o.servers);
  if (!a.replicas.empty()) {
    return LocateReplicas(cmd, *algo, GetAlgorithm(a.name), *hasher, list, a, o.servers, keys);
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
      "         chsim locate --servers servers.txt --replicas 3 keys.txt\n"
      "         chsim locate --servers racks.txt --replicas 3 --domain rack keys.txt\n"
      "         chsim locate --servers haproxy.cfg:be_cache keys.txt   # its backend, as HAProxy");
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
    if (!algo->crush_map.empty() && algo->replicas.empty()) {
      throw sim::UsageError("--crush-map needs --replicas K");
    }
    if (!algo->domain.empty() && algo->replicas.empty()) {
      throw sim::UsageError("--domain needs --replicas K");
    }
    for (const auto& [param, text] : algo->strategy_given) {
      if (cmd->count(FlagOf(param)) > 0 && algo->replicas.empty()) {
        throw sim::UsageError(FlagOf(param) + " needs --replicas K");
      }
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
    BuiltRing b = BuildFromOptions(cmd, *o, algo->remove);
    sim::WriteKeyOwners(*keys, b.list.nodes, [&](auto block, std::span<uint32_t> owners) {
      if (b.map) return b.map->LocateBatch(block, owners);
      b.ring.LocateBatch(block, owners);
    });
  });
}

// A ProfileMap's points (envoy-ring: unsigned; jedis: Java's signed longs) or
// maglev's table (ENTRY<TAB>SERVER), as the program orders them.
void PrintMap(const ProfileMap& map, const BuiltRing& b) {
  if (map.engine() == Engine::kRendezvous) {
    throw sim::UsageError("profile '" + b.profile +
                          "' is rendezvous hashing: it has no ring to print (chsim locate "
                          "maps keys)");
  }
  sim::StdoutBuffer out;
  auto line = [&](auto value, uint32_t owner) {
    const std::string& label = b.list.nodes[owner].label;
    char* p = out.Reserve(label.size() + 24);
    p = std::to_chars(p, p + 21, value).ptr;
    *p++ = '\t';
    std::memcpy(p, label.data(), label.size());
    p[label.size()] = '\n';
    out.Commit(p + label.size() + 1);
  };
  const auto table = map.table();
  for (size_t i = 0; i < table.size(); ++i) line(i, table[i]);
  const auto points = map.points();
  const auto owners = map.point_owners();
  for (size_t i = 0; i < points.size(); ++i) {
    if (map.engine() == Engine::kJedis) {
      line(static_cast<int64_t>(points[i] ^ (uint64_t{1} << 63)), owners[i]);
    } else {
      line(points[i], owners[i]);
    }
  }
  out.Flush();
}

void AddRingCommand(CLI::App& app) {
  static RingOptions options;
  auto* o = &options;
  CLI::App* cmd = app.add_subcommand(
      "ring",
      "Print the ring in order: POINT<TAB>SERVER for every point the peer keeps (haproxy: "
      "each point, then the last hash nearer to it than to the next; nginx-hash, "
      "pecl-memcache: the last value of each run; envoy-ring 64-bit, jedis signed 64-bit "
      "points; envoy-maglev: ENTRY<TAB>SERVER of its table; pymemcache has no ring).\n"
      "Example: chsim ring --servers servers.txt --profile twemproxy");
  AddRingOptions(cmd, *o);
  cmd->callback([cmd, o] {
    BuiltRing b = BuildFromOptions(cmd, *o);
    if (b.map) return PrintMap(*b.map, b);
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
