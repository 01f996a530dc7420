// SPDX-License-Identifier: Apache-2.0
// `chsim diff`: what moves if an operator applies a change of server list
// (sim/cli/change_diff.h), as a table or as one JSON document
// (results/diff-schema.json).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/base/errors.h"
#include "sim/cli/change_diff.h"
#include "sim/cli/commands.h"
#include "sim/cli/key_lines.h"
#include "sim/cli/placement_options.h"
#include "sim/scenario/server_list.h"

namespace chsim::cli {
namespace {

using Json = nlohmann::ordered_json;

struct DiffFlags {
  RingOptions ring;  // ring.servers: the old list
  std::string servers_new;
  std::string profile_new;  // --profile-new: "" = the old side's
  AlgorithmFlags algorithm;
  std::string keys;  // "" = no key file
  bool json = false;
  uint64_t samples = 1'000'000;
  uint64_t seed = 1;
};

// A fraction as a percentage with 4 decimals ("12.3456%").
std::string Percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f%%", 100 * x);
  return buf;
}

// One side: its list and what places keys over it.
struct Side {
  std::string where, format;
  std::string profile;  // the profile used ("" for an algorithm)
  Profile rules;
  sim::ServerList list;
  Ring ring;
  ProfileMap map;  // a ProfileMap profile's, for exact counts
  BuiltAlgorithm built;
  sim::Placement placement;
};

// A profile that builds a ProfileMap (rendezvous, Envoy, Jedis): placed by
// the map itself, built with the profile's options as the program builds it.
void BuildMapSide(const std::string& path, Side& s) {
  try {
    s.map = ProfileMap::Build(s.rules, s.list.nodes);
  } catch (const std::invalid_argument& e) {
    throw sim::UsageError(path + ": " + e.what());
  }
  s.placement.map = &s.map;
}

// `profile_new`: --profile-new for the new side ("" for the old side or when not given).
void BuildSide(const CLI::App* cmd, const DiffFlags& f, const std::string& path,
               const std::string& profile_new, Side& s) {
  s.where = path;
  const sim::ServerSource src = LoadServerSource(path, f.ring);
  s.list = src.list;
  s.format = std::string(sim::ServerFormatName(src.format));
  s.placement.nodes = s.list.nodes;
  if (f.algorithm.name.empty()) {
    RingOptions options = OptionsFor(cmd, f.ring, src);
    if (!profile_new.empty()) {
      options = RingOptions();
      options.profile = profile_new;
    }
    s.profile = options.profile;
    s.rules = ProfileFromOptions(options);
    if (s.rules.engine != Engine::kRing) return BuildMapSide(path, s);
    s.ring = BuildRing(s.rules, s.list, path);
    s.placement.ring = &s.ring;
    return;
  }
  s.built = BuildAlgorithm(cmd, f.ring, f.algorithm, s.list, path);
  s.placement.algorithm = s.built.algorithm.get();
  s.placement.key_hasher = s.built.key_hasher;
}

std::string UnitsName(const sim::ChangeDiff& d) {
  switch (d.method) {
    case sim::DiffMethod::kExact:
      return "key hashes";
    case sim::DiffMethod::kKeys:
      return "keys";
    case sim::DiffMethod::kSampled:
      return "sampled key hashes";
  }
  return "";
}

// `why_sampled`: why the sampled answer is not exact.
std::string MethodText(const sim::ChangeDiff& d, const DiffFlags& f, const Side& before,
                       const std::string& why_sampled) {
  const bool table = before.map.engine() == Engine::kEnvoyMaglev && !before.map.table().empty();
  switch (d.method) {
    case sim::DiffMethod::kExact:
      if (d.key_space_bits == 64) {
        return std::string("exact arc shares over 2^64 key hashes, ") +
               (table ? "entry by entry of the two maglev tables (entry = hash mod size)"
                      : "over the arcs of the two 64-bit rings");
      }
      return "exact: every one of the " + sim::CountText(d.total) +
             " key hashes, over the arcs of the two rings";
    case sim::DiffMethod::kKeys:
      return "keys: the " + sim::CountText(d.total) + " lines of " + f.keys;
    case sim::DiffMethod::kSampled:
      return "sampled: " + sim::CountText(d.total) + " uniform 64-bit key hashes (seed " +
             std::to_string(f.seed) + "; " + why_sampled + "), each share within about +-" +
             Percent(1.0 / std::sqrt(static_cast<double>(d.total))) + " (2 sigma at most)";
  }
  return "";
}

double Share(HashCount count, HashCount total) {
  return total == 0 ? 0 : static_cast<double>(count) / static_cast<double>(total);
}

// The algorithm, or the profile (both sides' when they differ).
std::string PlacementName(const DiffFlags& f, const Side& before, const Side& after) {
  if (!f.algorithm.name.empty()) return f.algorithm.name;
  return before.profile == after.profile ? before.profile : before.profile + " -> " + after.profile;
}

Json ListDocument(const Side& s) {
  return {{"source", s.where},
          {"format", s.format},
          {"servers", s.list.nodes.size()},
          {"profile", s.profile.empty() ? Json(nullptr) : Json(s.profile)}};
}

Json Nullable(uint32_t weight) { return weight == 0 ? Json(nullptr) : Json(weight); }

// A count: an integer, or where the key-hash space is 2^64 (whose counts
// reach 2^64, past JSON's usual integers) its exact decimal digits as a string.
Json Count(const sim::ChangeDiff& d, HashCount n) {
  if (d.key_space_bits == 64) return sim::CountText(n);
  return static_cast<uint64_t>(n);
}

Json DiffDocument(const sim::ChangeDiff& d, const DiffFlags& f, const Side& before,
                  const Side& after) {
  const double moved = Share(d.moved, d.total);
  Json params = Json::object();
  for (const auto& [name, text] : f.algorithm.given)
    if (!text.empty()) params[name] = text;
  Json doc = {{"schema_version", 1},
              {"kind", "diff"},
              {"request",
               {{"old", ListDocument(before)},
                {"new", ListDocument(after)},
                {"placement", f.algorithm.name.empty() ? "profile" : "algorithm"},
                {"name", PlacementName(f, before, after)},
                {"params", params},
                {"keys", f.keys.empty() ? Json(nullptr) : Json(f.keys)}}},
              {"method", sim::DiffMethodName(d.method)},
              {"units", UnitsName(d)},
              {"total", Count(d, d.total)},
              {"seed", d.method == sim::DiffMethod::kSampled ? Json(std::to_string(f.seed))
                                                             : Json(nullptr)},
              {"moved", moved},
              {"minimal", d.minimal},
              {"excess", std::max(0.0, moved - d.minimal)},
              {"minimal_ideal", d.minimal_ideal},
              {"moved_between_survivors", Share(d.moved_between_survivors, d.total)},
              {"moves", Json::array()},
              {"servers", Json::array()}};
  if (d.key_space_bits == 64) doc["key_space_bits"] = 64;
  for (const sim::DiffMove& m : d.moves) {
    doc["moves"].push_back({{"from", d.servers[m.from]},
                            {"to", d.servers[m.to]},
                            {"count", Count(d, m.count)},
                            {"share", Share(m.count, d.total)}});
  }
  for (size_t i = 0; i < d.servers.size(); ++i) {
    doc["servers"].push_back({{"server", d.servers[i]},
                              {"weight_old", Nullable(d.weight_old[i])},
                              {"weight_new", Nullable(d.weight_new[i])},
                              {"count_old", Count(d, d.count_old[i])},
                              {"count_new", Count(d, d.count_new[i])},
                              {"share_old", Share(d.count_old[i], d.total)},
                              {"share_new", Share(d.count_new[i], d.total)}});
  }
  return doc;
}

std::string Padded(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

void PrintTables(const sim::ChangeDiff& d) {
  size_t w = 6;
  for (const std::string& s : d.servers) w = std::max(w, s.size());
  const std::string units = UnitsName(d);
  std::printf("\n%s  %s  %9s  %s\n", Padded("from", w).c_str(), Padded("to", w).c_str(), "share",
              units.c_str());
  for (const sim::DiffMove& m : d.moves) {
    std::printf("%s  %s  %9s  %s\n", Padded(d.servers[m.from], w).c_str(),
                Padded(d.servers[m.to], w).c_str(), Percent(Share(m.count, d.total)).c_str(),
                sim::CountText(m.count).c_str());
  }
  if (d.moves.empty()) std::printf("(nothing moves)\n");
  std::printf("\n%s  %13s  %12s  %12s  %10s\n", Padded("server", w).c_str(), "weight",
              "share before", "share after", "change");
  for (size_t i = 0; i < d.servers.size(); ++i) {
    auto weight = [](uint32_t x) { return x == 0 ? std::string("-") : std::to_string(x); };
    const double a = Share(d.count_old[i], d.total), b = Share(d.count_new[i], d.total);
    const std::string change = (b >= a ? "+" : "-") + Percent(std::abs(b - a));
    std::printf("%s  %13s  %12s  %12s  %10s\n", Padded(d.servers[i], w).c_str(),
                (weight(d.weight_old[i]) + " -> " + weight(d.weight_new[i])).c_str(),
                d.weight_old[i] == 0 ? "-" : Percent(a).c_str(),
                d.weight_new[i] == 0 ? "-" : Percent(b).c_str(), change.c_str());
  }
}

void PrintDiff(const sim::ChangeDiff& d, const DiffFlags& f, const Side& before, const Side& after,
               const std::string& why_sampled) {
  const double moved = Share(d.moved, d.total);
  std::printf("diff: %s %s, %zu -> %zu servers (%s -> %s)\n",
              f.algorithm.name.empty() ? "profile" : "algorithm",
              PlacementName(f, before, after).c_str(), before.list.nodes.size(),
              after.list.nodes.size(), before.where.c_str(), after.where.c_str());
  std::printf("method: %s\n", MethodText(d, f, before, why_sampled).c_str());
  std::printf("moved: %s of %s\n", Percent(moved).c_str(), UnitsName(d).c_str());
  std::printf("minimal: %s (the least any mapping moves to reach the new shares)\n",
              Percent(d.minimal).c_str());
  std::printf("excess: %s (moved - minimal)\n", Percent(std::max(0.0, moved - d.minimal)).c_str());
  std::printf("minimal ideal: %s (the same between the weight shares)\n",
              Percent(d.minimal_ideal).c_str());
  std::printf("moved between servers in both lists: %s\n",
              Percent(Share(d.moved_between_survivors, d.total)).c_str());
  PrintTables(d);
}

void RunDiff(const CLI::App* cmd, const DiffFlags& f) {
  CheckOptionMix(cmd, f.algorithm);
  Side before, after;
  if (!f.profile_new.empty() && !f.algorithm.name.empty())
    throw sim::UsageError(
        "--profile-new switches profiles; it cannot be combined with --algorithm");
  BuildSide(cmd, f, f.ring.servers, "", before);
  BuildSide(cmd, f, f.servers_new, f.profile_new, after);
  sim::ChangeDiff d;
  std::string why_sampled = "no ring to overlay";
  if (!f.keys.empty()) {
    d = sim::DiffKeys(before.placement, after.placement, f.keys);
  } else if (f.algorithm.name.empty() &&
             (before.rules.key_hasher != after.rules.key_hasher ||
              before.rules.hash_space_bits != after.rules.hash_space_bits)) {
    throw sim::UsageError("the old side maps with profile " + before.profile +
                          " and the new side with " + after.profile +
                          ", which hash keys differently; give a key file to compare them");
  } else if (sim::CanDiffExact(before.placement, after.placement)) {
    d = sim::DiffExact(before.placement, after.placement);
  } else {
    if (before.map.engine() == Engine::kEnvoyMaglev && after.map.engine() == before.map.engine())
      why_sampled = "maglev tables of " + std::to_string(before.map.table().size()) + " and " +
                    std::to_string(after.map.table().size()) +
                    " entries, whose pairs of entries recur only every lcm > 2^24 hashes: no "
                    "exact overlay";
    else if (before.map.engine() != after.map.engine())
      why_sampled = "the two sides build different structures: no exact overlay";
    d = sim::DiffSampled(before.placement, after.placement, f.samples, f.seed);
  }
  if (f.json) {
    sim::StdoutBuffer out;
    out.Append(DiffDocument(d, f, before, after).dump(1) + "\n");
    out.Flush();
    return;
  }
  PrintDiff(d, f, before, after, why_sampled);
  if (std::fflush(stdout) != 0) throw sim::RuntimeError("writing standard output failed");
}

}  // namespace

void AddDiffCommand(CLI::App& app) {
  static DiffFlags flags;  // the callback runs after this function returns
  CLI::App* cmd = app.add_subcommand(
      "diff",
      "What moves if I apply this? Compares the placement over --servers (before) with the\n"
      "placement over --servers-new (after), each built from scratch, servers matched by label:\n"
      "the share of keys moved beside the least any mapping must move to reach the new shares,\n"
      "a from -> to table, and each server's share before and after (docs/proxies.md).\n"
      "Without a key file: exact over every key hash where both sides are rings or tables\n"
      "(profiles but pymemcache, 2^64 hashes for envoy-ring, envoy-maglev and jedis; algorithms\n"
      "that expose a ring), else --samples uniform key hashes.\n"
      "Examples:\n"
      "  chsim diff --servers old.txt --servers-new new.txt --profile nginx\n"
      "  chsim diff --servers old.txt --servers-new new.txt --algorithm maglev keys.txt\n"
      "  chsim diff --servers old.txt --servers-new new.txt --profile varnish --json\n"
      "  chsim diff --servers haproxy.cfg:be --servers-new haproxy-new.cfg:be keys.txt");
  cmd->add_option("--servers", flags.ring.servers,
                  "the servers before the change: a server list, or a proxy's configuration "
                  "FILE[:BLOCK] (see --servers-format), whose profile is then the default")
      ->required();
  cmd->add_option("--servers-new", flags.servers_new, "the servers after the change, as --servers")
      ->required();
  AddServersFormatOption(cmd, flags.ring);
  AddProfileOptions(cmd, flags.ring);
  cmd->add_option("--profile-new", flags.profile_new,
                  "map the new side with this profile instead, its defaults (what moves if I "
                  "switch from --profile to this one); the two sides then need a key file when "
                  "they hash keys differently");
  AddAlgorithmFlags(cmd, flags.algorithm);
  cmd->add_option("keys", flags.keys,
                  "key file, one key per line, bytes verbatim ('-' = stdin); without it the "
                  "answer is over the key-hash space");
  cmd->add_flag("--json", flags.json,
                "print one JSON document instead of the tables (results/README.md, \"Diff "
                "documents\"; chsim validate --results checks it)");
  cmd->add_option("--samples", flags.samples,
                  "key hashes drawn when neither side has a ring to overlay and no key file "
                  "is given")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  cmd->add_option("--seed", flags.seed, "seed of the sampled key hashes")->capture_default_str();
  cmd->callback([cmd] { RunDiff(cmd, flags); });
}

}  // namespace chsim::cli
