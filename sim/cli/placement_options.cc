// SPDX-License-Identifier: Apache-2.0
#include "sim/cli/placement_options.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <stdexcept>

#include "sim/base/errors.h"

namespace chsim::cli {
namespace {

// Parameters the profile options (AddProfileOptions) already declare.
bool IsRingOption(std::string_view param) {
  return param == "profile" || param == "hash_algorithm" || param == "hasher" ||
         param == "points_per_weight" || param == "min_ring_size" || param == "maglev_table_size";
}

// A ketama integer parameter given as a flag: its spec's check, then 1.. (0
// is the program's default: leave the flag out).
uint64_t SizeFlag(std::string_view param, const std::string& text) {
  const ParamSpec& ps = *GetAlgorithm("ketama").FindParam(param);
  try {
    const ParamValue v = ps.Parse(text);
    ps.Check("ketama", v);
    const uint64_t n = std::get<uint64_t>(v);
    if (n == 0) {
      throw std::invalid_argument("found '0'; accepted: an integer 1.." +
                                  std::to_string(static_cast<uint64_t>(ps.max)) +
                                  " (leave the flag out for the program's default)");
    }
    return n;
  } catch (const std::invalid_argument& e) {
    throw sim::UsageError(FlagOf(param) + ": " + e.what());
  }
}

// The flag as messages name it, with its alias ("--points-per-node/--points").
std::string FlagName(std::string_view param) {
  return FlagOf(param) + (param == "points_per_node" ? "/--points" : "");
}

// The algorithm's parameters from the flags given.
Params FlagParams(const CLI::App* cmd, const RingOptions& o, const AlgorithmFlags& a,
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
  const std::pair<const char*, const std::string*> sizes[] = {{"min_ring_size", &o.min_ring_size},
                                                              {"maglev_table_size", &o.table_size}};
  for (const auto& [param, text] : sizes) {
    if (cmd->count(FlagOf(param)) > 0 && spec.FindParam(param))
      p.Set(param, SizeFlag(param, *text));
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

// --max-ring-size: 1..8388608 (envoy-ring's maximum_ring_size; a profile
// option, not a simulator parameter).
uint64_t MaxRingFlag(const std::string& text) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v == 0 || v > kEnvoyMaxRingSize) {
    throw sim::UsageError("--max-ring-size: found '" + text +
                          "'; accepted: an integer 1..8388608 (leave the flag out for Envoy's "
                          "default)");
  }
  return v;
}

}  // namespace

std::string FlagOf(std::string_view param) {
  std::string flag = "--" + std::string(param);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

void AddProfileOptions(CLI::App* cmd, RingOptions& o) {
  cmd->add_option("--profile", o.profile, "compatibility profile (chsim list)")
      ->capture_default_str();
  cmd->add_option("--hash-algorithm", o.hash_algorithm,
                  "spymemcached DefaultHashAlgorithm (KETAMA_HASH, FNV1A_64_HASH, ...)");
  cmd->add_option("--hasher", o.hasher, "key hasher where the peer lets you choose");
  cmd->add_option("--points-per-weight", o.points_per_weight,
                  "varnish: points per unit of weight, its reconfigure(replicas=...) (default "
                  "67); groupcache: points per peer, HTTPPoolOptions.Replicas (default 50)");
  cmd->add_option("--min-ring-size", o.min_ring_size,
                  "envoy-ring: minimum_ring_size, 1..8388608 (default 1024)");
  cmd->add_option("--max-ring-size", o.max_ring_size,
                  "envoy-ring: maximum_ring_size, 1..8388608 (default 8388608)");
  cmd->add_option("--maglev-table-size", o.table_size,
                  "envoy-maglev: table_size, a prime up to 5000011 (default 65537)");
}

void AddServersFormatOption(CLI::App* cmd, RingOptions& o) {
  cmd->add_option("--servers-format", o.servers_format,
                  "how to read the server files: " + sim::ServerFormatNames() +
                      " (default: by the extension: .conf nginx, .cfg haproxy, .vcl varnish, "
                      ".yaml/.yml/.json envoy, else list); FILE:BLOCK names a block "
                      "(docs/proxies.md)");
}

sim::ServerSource LoadServerSource(const std::string& spec, const RingOptions& o) {
  sim::ServerSource src = sim::LoadServers(spec, o.servers_format);
  const std::string notes = sim::ServerSourceNotes(src);
  if (!notes.empty()) std::fputs(notes.c_str(), stderr);
  return src;
}

RingOptions OptionsFor(const CLI::App* cmd, const RingOptions& o, const sim::ServerSource& src) {
  RingOptions r = o;
  if (cmd->count("--profile") > 0 || src.format == sim::ServerFormat::kList) return r;
  if (src.profile.empty()) {
    throw sim::UsageError(src.path + ":" + src.block + ": " + src.why_no_profile +
                          "; name a --profile to map it anyway");
  }
  r.profile = src.profile;
  if (cmd->count("--hasher") == 0) r.hasher = src.options.hasher;
  if (cmd->count("--points-per-weight") == 0) r.replicas = src.options.replicas;
  r.envoy = src.options;
  return r;
}

ProfileOptions ProfileOptionsOf(const RingOptions& o) {
  ProfileOptions p{o.hash_algorithm, o.hasher, o.replicas};
  p.min_ring_size =
      o.min_ring_size.empty() ? o.envoy.min_ring_size : SizeFlag("min_ring_size", o.min_ring_size);
  p.max_ring_size = o.max_ring_size.empty() ? o.envoy.max_ring_size : MaxRingFlag(o.max_ring_size);
  p.table_size =
      o.table_size.empty() ? o.envoy.table_size : SizeFlag("maglev_table_size", o.table_size);
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

Profile ProfileFromOptions(const RingOptions& o) {
  const ProfileOptions options = ProfileOptionsOf(o);
  try {
    return MakeProfile(o.profile, options);
  } catch (const std::invalid_argument& e) {
    throw sim::UsageError(e.what());
  }
}

Ring BuildRing(const Profile& p, const sim::ServerList& list, const std::string& where) {
  try {
    return Ring::Build(p, list.nodes, list.weighted);
  } catch (const std::invalid_argument& e) {
    throw sim::UsageError(where + ": " + e.what());
  }
}

void AddAlgorithmFlags(CLI::App* cmd, AlgorithmFlags& a) {
  cmd->add_option("--algorithm", a.name,
                  "an algorithm of chsim list instead of a peer profile; keys are hashed with "
                  "--key-hasher, else --hasher, else the algorithm's default");
  for (const auto& [param, text] : ParamHelp(AllAlgorithms(), "")) {
    if (IsRingOption(param)) continue;
    std::string names = FlagOf(param) + (param == "points_per_node" ? ",--points" : "");
    cmd->add_option(names, a.given[param], text + ")");
  }
}

void CheckOptionMix(const CLI::App* cmd, const AlgorithmFlags& a) {
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

BuiltAlgorithm BuildAlgorithm(const CLI::App* cmd, const RingOptions& o, const AlgorithmFlags& a,
                              const sim::ServerList& list, const std::string& where) {
  BuiltAlgorithm b;
  try {
    const AlgorithmSpec& spec = GetAlgorithm(a.name);
    const Params given = FlagParams(cmd, o, a, spec, list);
    const Params resolved = spec.Resolve(given);
    std::string_view key_hasher = spec.KeyHasher(resolved);
    if (!given.Has("key_hasher") && cmd->count("--hasher") > 0) key_hasher = o.hasher;
    b.key_hasher = &GetHasher(key_hasher);
    b.algorithm = spec.Make(list.nodes, given);
  } catch (const Unsupported& e) {
    throw sim::UsageError(where + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    throw sim::UsageError(e.what());
  }
  return b;
}

}  // namespace chsim::cli
