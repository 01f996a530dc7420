// SPDX-License-Identifier: Apache-2.0
// The conformance kit: one set of checks run over every algorithm of the
// registry (no list to edit: a new row is checked on the next build), and
// proof that it catches an algorithm that declares what it does not do.
//
// Each check returns its violations (empty: conforms), so the same code
// judges the registry (must be empty) and deliberately mis-declared specs
// (must not be). Checks:
//   LocateBatch          equals Locate on every key
//   Determinism          two builds answer alike; LocateBatch split over two
//                        threads equals one call
//   Balance              over kKitNodes equal nodes (and weighted nodes, when
//                        weights are declared), every node's load / expected
//                        load <= balance_bound + kZ sigma_i (sampling error
//                        of its expected share p_i with kKitKeys keys: sigma_i =
//                        sqrt((1 - p_i) / (kKitKeys p_i))); exact shares, when
//                        declared, <= balance_bound exactly and equal to the
//                        sampled shares within kZ of their sampling error
//   Removal              any live node removable when declared, else exactly
//                        the most recently added one
//   MinimalDisruption    (when declared; with weights too when declared) an
//                        add moves keys only to the new node, a removal only
//                        the removed node's keys: zero moves between
//                        survivors; the keys moved are the node's share
//                        (exact shares, within sampling error) or at most
//                        its declared bound x its weight share; removing the
//                        node just added gives every key back
//   RandomSteps          (when minimal disruption is declared) 10,000 random
//                        adds and removals (1,000 under a sanitizer: see
//                        kRandomSteps), no move between survivors
//   HistoryFree          (when declared) nodes failed and restored in a
//                        shuffled (not reverse) order get every key back
//   Stateless            (unless stateful) Assign equals Locate
//   Memory               MemoryBytes at 10, 100, 1000 nodes within a factor
//                        2 of the spec's memory_bytes
//   Parameters           just outside each parameter's range is refused with
//                        the spec's message; its ends are accepted; another
//                        accepted value changes the mapping, the key hasher,
//                        the memory or the assignments (a parameter that is
//                        read but not applied fails here)
//   Shadow               random add/remove sequences (tight parameters
//                        included) are accepted and refused alike, with the
//                        same exception, message and ids, by the instance
//                        and by MakeShadow: what the plan relies on
// kZ = 5: with ~100 nodes per check, a conforming algorithm fails a bound by
// chance with probability about 100 x 6e-7 = 6e-5. Seeds are fixed, so a
// run is repeatable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/node.h"
#include "test_util.h"
#include "tests/sanitized.h"

namespace chsim {
namespace {

constexpr size_t kKitNodes = 100;
constexpr size_t kKitKeys = 200000;
constexpr double kZ = 5;

using Violations = std::vector<std::string>;

std::vector<uint64_t> Keys(size_t count, uint64_t seed = 7) {
  SplitMix64 rng(seed);
  std::vector<uint64_t> h(count);
  for (uint64_t& x : h) x = rng.Next();
  return h;
}

// Each key's node: Locate, or Assign in key order for stateful algorithms.
std::vector<uint32_t> Map(Algorithm& a, const std::vector<uint64_t>& keys) {
  std::vector<uint32_t> out(keys.size());
  if (a.capabilities().stateful) {
    a.ResetAssignments();
    for (size_t i = 0; i < keys.size(); ++i) out[i] = a.Assign(keys[i]);
  } else {
    a.LocateBatch(keys, out);
  }
  return out;
}

std::vector<Node> WeightedNodes(size_t n) {
  std::vector<Node> nodes = MakeNumberedNodes(static_cast<uint32_t>(n));
  for (size_t i = 0; i < n; ++i) nodes[i].weight = 1 + static_cast<uint32_t>(i % 4);
  return nodes;
}

std::string Name(const AlgorithmSpec& spec) { return std::string(spec.name); }

// --- Lookups ---------------------------------------------------------------

Violations CheckLocateBatch(const AlgorithmSpec& spec) {
  Violations v;
  auto a = spec.Make(MakeNumberedNodes(kKitNodes));
  const auto keys = Keys(20000);
  std::vector<uint32_t> batch(keys.size());
  a->LocateBatch(keys, batch);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (batch[i] != a->Locate(keys[i])) {
      v.push_back(Name(spec) + ": LocateBatch differs from Locate at key " + std::to_string(i));
      break;
    }
  }
  return v;
}

Violations CheckDeterminism(const AlgorithmSpec& spec) {
  Violations v;
  auto a = spec.Make(MakeNumberedNodes(kKitNodes));
  auto b = spec.Make(MakeNumberedNodes(kKitNodes));
  const auto keys = Keys(20000);
  if (Map(*a, keys) != Map(*b, keys)) v.push_back(Name(spec) + ": two builds answer differently");
  if (spec.capabilities.stateful) return v;
  std::vector<uint32_t> one(keys.size()), two(keys.size());
  a->LocateBatch(keys, one);
  const size_t half = keys.size() / 2;
  std::thread t([&] {
    a->LocateBatch({keys.data() + half, keys.size() - half},
                   {two.data() + half, keys.size() - half});
  });
  a->LocateBatch({keys.data(), half}, {two.data(), half});
  t.join();
  if (one != two) v.push_back(Name(spec) + ": LocateBatch on two threads differs from one");
  return v;
}

// --- Balance and shares ----------------------------------------------------

// Every node's sampled load / expected load against the declared bound.
void CheckLoads(const AlgorithmSpec& spec, const std::vector<Node>& nodes, const char* what,
                Violations& v) {
  auto a = spec.Make(nodes);
  std::vector<double> load(nodes.size(), 0);
  for (uint32_t id : Map(*a, Keys(kKitKeys))) load[id] += 1;
  const double total_weight = static_cast<double>(TotalWeight(nodes));
  for (size_t i = 0; i < nodes.size(); ++i) {
    const double p = nodes[i].weight / total_weight;
    const double sigma = std::sqrt((1 - p) / (kKitKeys * p));
    const double ratio = load[i] / (kKitKeys * p);
    if (ratio > spec.balance_bound + kZ * sigma) {
      v.push_back(Name(spec) + ", " + what + ": node " + std::to_string(i) + " has " +
                  std::to_string(ratio) + " x its expected load; declared bound " +
                  std::to_string(spec.balance_bound) + " + " + std::to_string(kZ * sigma) +
                  " sampling tolerance");
      return;
    }
  }
}

// Exact shares: sum 1, within the bound, and what sampling finds.
void CheckExactShares(const AlgorithmSpec& spec, Violations& v) {
  const auto nodes = MakeNumberedNodes(kKitNodes);
  auto a = spec.Make(nodes);
  const std::optional<std::vector<double>> shares = a->StructuralShares();
  if (shares.has_value() != spec.capabilities.exact_shares) {
    v.push_back(Name(spec) + ": StructuralShares() offered != exact_shares declared");
    return;
  }
  if (!shares) return;
  if (std::abs(std::accumulate(shares->begin(), shares->end(), 0.0) - 1) > 1e-9) {
    v.push_back(Name(spec) + ": structural shares do not sum to 1");
  }
  std::vector<double> load(kKitNodes, 0);
  for (uint32_t id : Map(*a, Keys(kKitKeys))) load[id] += 1;
  for (size_t i = 0; i < kKitNodes; ++i) {
    const double s = (*shares)[i];
    // The shares' own rounding (a sum of 2^-64 fractions, say) is not an excess.
    if (s * kKitNodes > spec.balance_bound * (1 + 1e-9)) {
      char share[32];
      std::snprintf(share, sizeof share, "%.12g", s * kKitNodes);
      v.push_back(Name(spec) + ": node " + std::to_string(i) + " has exact share " + share +
                  " x the mean, over the declared bound " + std::to_string(spec.balance_bound));
      return;
    }
    if (std::abs(load[i] / kKitKeys - s) > kZ * std::sqrt(s * (1 - s) / kKitKeys)) {
      v.push_back(Name(spec) + ": node " + std::to_string(i) + ": exact share " +
                  std::to_string(s) + " but sampled " + std::to_string(load[i] / kKitKeys));
      return;
    }
  }
}

Violations CheckBalance(const AlgorithmSpec& spec) {
  Violations v;
  CheckLoads(spec, MakeNumberedNodes(kKitNodes), "equal weights", v);
  if (spec.capabilities.weights) CheckLoads(spec, WeightedNodes(kKitNodes), "weights 1-4", v);
  CheckExactShares(spec, v);
  return v;
}

// --- Capabilities ----------------------------------------------------------

// The outcome of one call, for comparisons: "ok <id>" or "<exception>: what".
template <typename F>
std::string Outcome(F&& f) {
  try {
    return "ok " + std::to_string(f());
  } catch (const Unsupported& e) {
    return std::string("Unsupported: ") + e.what();
  } catch (const std::invalid_argument& e) {
    return std::string("invalid_argument: ") + e.what();
  }
}

Violations CheckRemoval(const AlgorithmSpec& spec) {
  Violations v;
  auto a = spec.Make(MakeNumberedNodes(10));
  const uint32_t added = a->Add(MakeNumberedNodes(1, 50)[0]);
  const std::string middle = Outcome([&] { return (a->Remove(3), 0); });
  if (spec.capabilities.arbitrary_removal && middle != "ok 0") {
    v.push_back(Name(spec) + ": declares arbitrary removal but removing node 3 gave " + middle);
  }
  if (!spec.capabilities.arbitrary_removal && middle.rfind("Unsupported", 0) != 0) {
    v.push_back(Name(spec) + ": declares last-added removal only but removing node 3 gave " +
                middle);
  }
  const std::string last = Outcome([&] { return (a->Remove(added), 0); });
  if (last != "ok 0") v.push_back(Name(spec) + ": removing the last added node gave " + last);
  return v;
}

// Counts keys that moved between `before` and `after` other than to `to` or
// from `from` (kNone: no such node).
constexpr uint32_t kNone = UINT32_MAX;
size_t SurvivorMoves(const std::vector<uint32_t>& before, const std::vector<uint32_t>& after,
                     uint32_t to, uint32_t from) {
  size_t moves = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    if (before[i] != after[i] && after[i] != to && before[i] != from) ++moves;
  }
  return moves;
}

// How many keys a minimal-disruption step must move: those of the node added
// (its share after the add) or removed (its share before the removal), over
// `keys` keys. With exact shares, the node's share within kZ sampling error;
// else at least one key and at most its declared bound (balance_bound x its
// weight share) plus kZ sampling error.
struct MoveBand {
  double low, high;
  std::string why;
};

MoveBand ExpectedMoves(const AlgorithmSpec& spec, const Algorithm& a, uint32_t id,
                       double weight_share, size_t keys) {
  const double n = static_cast<double>(keys);
  if (const auto shares = a.StructuralShares()) {
    const double s = id < shares->size() ? (*shares)[id] : 0;
    const double tol = kZ * std::sqrt(n * s * (1 - s));
    return {n * s - tol, n * s + tol, "its exact share " + std::to_string(s)};
  }
  const double s = std::min(1.0, spec.balance_bound * weight_share);
  return {1, n * s + kZ * std::sqrt(n * s * (1 - s)),
          "at most its declared bound " + std::to_string(spec.balance_bound) +
              " x its weight share " + std::to_string(weight_share)};
}

void ExpectMoves(const MoveBand& band, size_t moved, const std::string& what, Violations& v) {
  const double m = static_cast<double>(moved);
  if (m < band.low || m > band.high) {
    v.push_back(what + " moved " + std::to_string(moved) + " keys; expected " +
                std::to_string(band.low) + " to " + std::to_string(band.high) + " (" + band.why +
                ")");
  }
}

size_t Count(const std::vector<uint32_t>& map, uint32_t id) {
  return static_cast<size_t>(std::count(map.begin(), map.end(), id));
}

// An add of a node (of weight 3 when `weighted`), then a removal (node 17 when
// any node is removable, else the one added), over `nodes`. An instance over
// weighted nodes may say it is not minimally disruptive (its
// capabilities(): ring's weighted point counts depend on the total weight);
// it is then not held to it.
void CheckDisruptionOver(const AlgorithmSpec& spec, const std::vector<Node>& nodes, bool weighted,
                         const std::string& where, Violations& v) {
  const uint32_t added_weight = weighted ? 3 : 1;
  auto a = spec.Make(nodes);
  if (weighted && !a->capabilities().minimal_disruption) return;
  const auto keys = Keys(kKitKeys / 4);
  const auto start = Map(*a, keys);
  Node extra = MakeNumberedNodes(1, 500)[0];
  extra.weight = added_weight;
  const uint32_t added = a->Add(extra);
  const double total = static_cast<double>(TotalWeight(nodes) + added_weight);
  const auto after_add = Map(*a, keys);
  if (size_t m = SurvivorMoves(start, after_add, added, kNone)) {
    v.push_back(where + ": an add moved " + std::to_string(m) + " keys between old nodes");
  }
  ExpectMoves(ExpectedMoves(spec, *a, added, added_weight / total, keys.size()),
              Count(after_add, added), where + ": an add", v);
  const uint32_t victim = spec.capabilities.arbitrary_removal ? 17 : added;
  const double victim_weight = victim == added ? added_weight : nodes[victim].weight;
  const MoveBand lost = ExpectedMoves(spec, *a, victim, victim_weight / total, keys.size());
  a->Remove(victim);
  const auto after_remove = Map(*a, keys);
  if (size_t m = SurvivorMoves(after_add, after_remove, kNone, victim)) {
    v.push_back(where + ": a removal moved " + std::to_string(m) + " keys between survivors");
  }
  if (size_t m = Count(after_remove, victim)) {
    v.push_back(where + ": " + std::to_string(m) + " keys stay on the removed node");
  }
  ExpectMoves(lost, Count(after_add, victim), where + ": a removal", v);
  if (victim == added && after_remove != start) {
    v.push_back(where + ": removing the node just added did not give every key back");
  }
}

Violations CheckMinimalDisruption(const AlgorithmSpec& spec) {
  Violations v;
  if (!spec.capabilities.minimal_disruption) return v;
  CheckDisruptionOver(spec, MakeNumberedNodes(kKitNodes), false, Name(spec) + ", equal weights", v);
  if (spec.capabilities.weights) {
    CheckDisruptionOver(spec, WeightedNodes(kKitNodes), true, Name(spec) + ", weights 1-4", v);
  }
  return v;
}

// 10,000 random steps from kKitNodes nodes, each adding a node (a fresh label)
// or removing a live one (any, when declared; else the most recently added),
// the live count kept in [1, kKitNodes]. After every step, over 1,000 keys: no
// key is on a dead node, and a key whose node survived moved only to the
// node just added.
// The release run walks 10,000 random steps: a move between survivors may
// need a rare sequence of adds and removals to show. The sanitizer runs look
// for memory errors and races in Add, Remove and Locate instead, and 1,000
// steps over kKitNodes nodes take every one of those paths hundreds of times
// (an O(n) Locate such as straw2's made the long walk minutes there).
constexpr int kRandomSteps = chsim::testing::kSanitized ? 1000 : 10000;

Violations CheckRandomSteps(const AlgorithmSpec& spec) {
  Violations v;
  if (!spec.capabilities.minimal_disruption) return v;
  const auto keys = Keys(1000, 13);
  auto a = spec.Make(MakeNumberedNodes(kKitNodes));
  std::vector<uint32_t> prev = Map(*a, keys);
  std::vector<bool> live(kKitNodes, true);
  SplitMix64 rng(17);
  uint32_t next_label = kKitNodes;
  for (int step = 0; step < kRandomSteps && v.empty(); ++step) {
    const size_t n = a->num_nodes();
    const bool add = n == 1 || (n < kKitNodes && rng.Below(2) == 0);
    uint32_t changed;
    if (add) {
      changed = a->Add(MakeNumberedNodes(1, next_label++)[0]);
      if (changed >= live.size()) live.resize(changed + 1, false);
      live[changed] = true;
    } else {
      const auto ids = a->live_ids();
      changed = spec.capabilities.arbitrary_removal ? ids[rng.Below(ids.size())] : ids.back();
      a->Remove(changed);
      live[changed] = false;
    }
    const std::vector<uint32_t> cur = Map(*a, keys);
    for (size_t i = 0; i < keys.size() && v.empty(); ++i) {
      const auto at = [&] {
        return Name(spec) + " step " + std::to_string(step) + ": key " + std::to_string(i);
      };
      if (cur[i] >= live.size() || !live[cur[i]]) v.push_back(at() + " is on a dead node");
      if (live[prev[i]] && cur[i] != prev[i] && !(add && cur[i] == changed)) {
        v.push_back(at() + " moved " + std::to_string(prev[i]) + " -> " +
                    std::to_string(cur[i]) + " between survivors");
      }
    }
    prev = cur;
  }
  return v;
}

// Labels of the keys' nodes (ids change when a node comes back).
std::vector<std::string> LabelMap(Algorithm& a, const std::vector<uint64_t>& keys,
                                  const std::vector<std::string>& label_of) {
  std::vector<std::string> out;
  for (uint32_t id : Map(a, keys)) out.push_back(label_of[id]);
  return out;
}

Violations CheckHistoryFree(const AlgorithmSpec& spec) {
  Violations v;
  if (!spec.capabilities.history_free) return v;
  const auto nodes = MakeNumberedNodes(kKitNodes);
  auto a = spec.Make(nodes);
  std::vector<std::string> label_of;
  for (const Node& n : nodes) label_of.push_back(n.label);
  const auto keys = Keys(kKitKeys / 4);
  const auto start = LabelMap(*a, keys, label_of);
  std::vector<uint32_t> failed = {3, 14, 15, 92, 65, 35, 89, 79, 32, 38};
  for (uint32_t id : failed) a->Remove(id);
  std::rotate(failed.begin(), failed.begin() + 3, failed.end());  // neither order nor reverse
  for (uint32_t id : failed) {
    label_of.push_back(nodes[id].label);
    a->Add(nodes[id]);
  }
  const auto end = LabelMap(*a, keys, label_of);
  size_t off = 0;
  for (size_t i = 0; i < keys.size(); ++i) off += end[i] != start[i];
  if (off) {
    v.push_back(Name(spec) + ": declares history_free but " + std::to_string(off) +
                " keys are off their start node after fail + restore in another order");
  }
  return v;
}

// A range hash's buckets are a function of the key and n alone: nodes with other labels,
// added in the same order, get the same keys.
Violations CheckRangeHash(const AlgorithmSpec& spec) {
  Violations v;
  if (!spec.capabilities.range_hash) return v;
  const auto nodes = MakeNumberedNodes(kKitNodes);
  std::vector<Node> renamed = nodes;
  for (Node& n : renamed) {
    n.label = "elsewhere-" + n.label;
    n.host = "elsewhere-" + n.host;
  }
  auto a = spec.Make(nodes);
  auto b = spec.Make(renamed);
  const auto keys = Keys(20000);
  const auto one = Map(*a, keys), two = Map(*b, keys);
  size_t off = 0;
  for (size_t i = 0; i < keys.size(); ++i) off += one[i] != two[i];
  if (off) {
    v.push_back(Name(spec) + ": declares range_hash but " + std::to_string(off) +
                " keys change bucket when the nodes are renamed");
  }
  return v;
}

Violations CheckStateless(const AlgorithmSpec& spec) {
  Violations v;
  if (spec.capabilities.stateful) return v;
  auto a = spec.Make(MakeNumberedNodes(kKitNodes));
  for (uint64_t k : Keys(5000)) {
    const uint32_t located = a->Locate(k);
    if (a->Assign(k) != located || a->Locate(k) != located) {
      v.push_back(Name(spec) + ": not stateful, but Assign or a later Locate answered differently");
      break;
    }
  }
  return v;
}

Violations CheckMemory(const AlgorithmSpec& spec) {
  Violations v;
  const Params defaults = spec.Resolve({});
  for (uint32_t n : {10u, 100u, 1000u}) {
    const double bytes = static_cast<double>(spec.Make(MakeNumberedNodes(n))->MemoryBytes());
    const double documented = spec.memory_bytes(defaults, n);
    if (!(bytes >= documented / 2 && bytes <= documented * 2)) {
      v.push_back(Name(spec) + ": MemoryBytes " + std::to_string(bytes) +
                  " at n = " + std::to_string(n) + ", documented " + std::to_string(documented) +
                  " (" + std::string(spec.memory_doc) + ")");
    }
  }
  return v;
}

// --- Parameters ------------------------------------------------------------

// Values just outside the accepted set.
std::vector<ParamValue> OutOfRange(const ParamSpec& p) {
  switch (p.type) {
    case ParamType::kInteger: {
      std::vector<ParamValue> out{static_cast<uint64_t>(p.max) + 1};
      if (p.min >= 1) out.push_back(static_cast<uint64_t>(p.min) - 1);
      if (p.rule) {
        for (uint64_t x = static_cast<uint64_t>(p.min); x <= p.max; ++x) {
          if (!p.rule(x)) {
            out.push_back(x);
            break;
          }
        }
      }
      return out;
    }
    case ParamType::kNumber:
      return {p.max * 2 + 1, p.min_exclusive ? p.min : p.min - 1, std::nan("")};
    case ParamType::kString:
      if (p.choices) return {std::string("no-such-choice")};
      return {};
  }
  return {};
}

// The ends of the accepted range (numbers), all choices (strings).
std::vector<ParamValue> AcceptedEnds(const ParamSpec& p) {
  if (p.type == ParamType::kNumber) {
    return {p.max, p.min_exclusive ? std::nextafter(p.min, p.max) : p.min};
  }
  if (p.type == ParamType::kString && p.choices) {
    std::vector<ParamValue> out;
    for (std::string_view c : p.choices()) out.push_back(std::string(c));
    return out;
  }
  std::vector<ParamValue> out;
  for (double end : {p.min, p.max}) {
    uint64_t x = static_cast<uint64_t>(end);
    while (p.rule && !p.rule(x)) end == p.min ? ++x : --x;  // the nearest accepted value
    out.push_back(x);
  }
  return out;
}

void CheckRange(const AlgorithmSpec& spec, const ParamSpec& p, Violations& v) {
  // The default is what every scenario that leaves the parameter out runs
  // with: Resolve fills it in unchecked, so it must be in the declared range.
  try {
    p.Check(spec.name, p.Default());
  } catch (const std::invalid_argument& e) {
    v.push_back(Name(spec) + ": the default of " + std::string(p.name) +
                " is outside its own range (" + e.what() +
                "); give its ParamSpec a default_number or default_text it accepts");
  }
  for (const ParamValue& bad : OutOfRange(p)) {
    std::string want;
    try {
      p.Check(spec.name, bad);
      want = "(accepted)";
    } catch (const std::invalid_argument& e) {
      want = e.what();
    }
    Params given;
    given.Set(p.name, bad);
    const std::string got = Outcome([&] { return (spec.Make(MakeNumberedNodes(3), given), 0); });
    if (got != "invalid_argument: " + want) {
      v.push_back(Name(spec) + ": " + std::string(p.name) + " = " + FormatParamValue(bad) +
                  " gave '" + got + "', expected the spec's message '" + want + "'");
    }
  }
  for (const ParamValue& ok : AcceptedEnds(p)) {
    Params given;
    given.Set(p.name, ok);
    const std::string got = Outcome([&] { return (spec.Resolve(given), 0); });
    if (got != "ok 0") {
      v.push_back(Name(spec) + ": " + std::string(p.name) + " = " + FormatParamValue(ok) +
                  " is in the spec's range but refused: " + got);
    }
  }
}

// Candidates for another value of `p` than the one in `base`.
std::vector<ParamValue> Alternatives(const ParamSpec& p, const ParamValue& current) {
  std::vector<ParamValue> out;
  if (p.type == ParamType::kString && p.choices) {
    for (std::string_view c : p.choices()) out.push_back(std::string(c));
  } else if (p.type == ParamType::kNumber) {
    const double d = std::get<double>(current);
    out = {std::min(p.max, d * 1.1), (d + p.min) / 2};
    if (std::isfinite(p.min)) out.push_back(p.min);
  } else if (p.type == ParamType::kInteger) {
    const uint64_t d = std::get<uint64_t>(current);
    for (uint64_t x = d + 1, found = 0; found < 3 && x <= p.max && x < d + 1000; ++x) {
      if (!p.rule || p.rule(x)) out.push_back(x), ++found;
    }
    for (uint64_t x : {uint64_t{kKitNodes}, uint64_t{2 * kKitNodes}, d / 2}) out.push_back(x);
    // The range's ends: a value near the default may change no key of the kit's.
    for (double end : {p.min, p.max}) {
      const auto x = static_cast<uint64_t>(end);
      if (end >= 0 && end < 0x1p63 && (!p.rule || p.rule(x))) out.push_back(x);
    }
  }
  out.erase(std::remove(out.begin(), out.end(), current), out.end());
  return out;
}

// What an instance shows of its parameters.
struct Footprint {
  std::vector<uint32_t> map;
  std::string key_hasher;
  size_t memory;
  bool operator==(const Footprint&) const = default;
};

std::optional<Footprint> FootprintOf(const AlgorithmSpec& spec, const Params& given) {
  try {
    auto a = spec.Make(MakeNumberedNodes(kKitNodes), given);
    return Footprint{Map(*a, Keys(20000)), std::string(spec.KeyHasher(spec.Resolve(given))),
                     a->MemoryBytes()};
  } catch (const std::invalid_argument&) {  // not admitted with these values
    return std::nullopt;
  } catch (const Unsupported&) {
    return std::nullopt;
  }
}

// Whether some accepted value of `p` other than base's changes the footprint;
// nullopt when no other value is admitted with `base`.
std::optional<bool> HasEffect(const AlgorithmSpec& spec, const ParamSpec& p, const Params& base) {
  const std::optional<Footprint> ref = FootprintOf(spec, base);
  if (!ref) return std::nullopt;
  const Params resolved = spec.Resolve(base);
  std::optional<bool> effect;
  for (const ParamValue& alt : Alternatives(p, *resolved.Find(p.name))) {
    Params given = base;
    given.Set(p.name, alt);
    if (std::optional<Footprint> f = FootprintOf(spec, given)) {
      if (!(*f == *ref)) return true;
      effect = false;
    }
  }
  return effect;
}

void CheckEffect(const AlgorithmSpec& spec, const ParamSpec& p, Violations& v) {
  std::optional<bool> effect = HasEffect(spec, p, {});
  // No other value admitted with the defaults: vary one other parameter first
  // (ketama's hasher is accepted only by some profiles).
  for (const ParamSpec& other : spec.params) {
    if (effect || other.name == p.name) continue;
    for (const ParamValue& alt : Alternatives(other, *spec.Resolve({}).Find(other.name))) {
      Params base;
      base.Set(other.name, alt);
      if ((effect = HasEffect(spec, p, base))) break;
    }
  }
  if (!effect || !*effect) {
    v.push_back(Name(spec) + ": parameter " + std::string(p.name) +
                (effect ? " has no effect: other accepted values change neither the mapping, "
                          "the key hasher nor the memory"
                        : ": found no other accepted value to test it with"));
  }
}

Violations CheckParameters(const AlgorithmSpec& spec) {
  Violations v;
  for (const ParamSpec& p : spec.params) {
    CheckRange(spec, p, v);
    CheckEffect(spec, p, v);
  }
  return v;
}

// --- Shadow ----------------------------------------------------------------

// Small accepted values of each integer parameter (sizes and capacities
// that a short timeline reaches), plus the defaults.
std::vector<Params> TightParams(const AlgorithmSpec& spec) {
  std::vector<Params> out = {Params{}};
  for (const ParamSpec& p : spec.params) {
    if (p.type != ParamType::kInteger) continue;
    size_t found = 0;
    for (uint64_t x = static_cast<uint64_t>(p.min); found < 6 && x <= p.max && x < 1000; ++x) {
      if (p.rule && !p.rule(x)) continue;
      Params given;
      given.Set(p.name, x);
      out.push_back(given);
      ++found;
    }
  }
  return out;
}

// One random operation on both instances; a mismatch is a violation.
void Step(Algorithm& real, Algorithm& shadow, std::vector<Node>& pool, SplitMix64& rng,
          const std::string& where, Violations& v) {
  const std::vector<uint32_t> ids = real.live_ids();
  std::function<uint32_t(Algorithm&)> op;
  switch (rng.Below(5)) {
    case 0:
    case 1: {  // a new node (weight 2 now and then), or a live label again
      Node n = MakeNumberedNodes(1, 1000 + static_cast<uint32_t>(pool.size()))[0];
      if (rng.Below(4) == 0) n.weight = 2;
      if (rng.Below(6) == 0) n = pool[rng.Below(pool.size())];
      pool.push_back(n);
      op = [n](Algorithm& a) { return a.Add(n); };
      break;
    }
    case 2:  // the most recently added
      op = [id = ids.back()](Algorithm& a) { return (a.Remove(id), id); };
      break;
    default: {  // any id ever issued, live or not
      const uint32_t id = static_cast<uint32_t>(rng.Below(ids.back() + 2));
      op = [id](Algorithm& a) { return (a.Remove(id), id); };
    }
  }
  const std::string a = Outcome([&] { return op(real); });
  const std::string b = Outcome([&] { return op(shadow); });
  if (a != b || real.live_ids() != shadow.live_ids()) {
    v.push_back(where + ": the instance gave '" + a + "', its shadow '" + b + "'");
  }
}

Violations CheckShadow(const AlgorithmSpec& spec) {
  Violations v;
  SplitMix64 rng(11);
  for (const Params& given : TightParams(spec)) {
    for (bool weighted : {false, true}) {
      std::vector<Node> pool = weighted ? WeightedNodes(3) : MakeNumberedNodes(3);
      std::string where = Name(spec) + (weighted ? " (weighted)" : "");
      for (const auto& [name, value] : given.values())
        where += " " + name + "=" + FormatParamValue(value);
      const std::string built = Outcome([&] { return (spec.Make(pool, given), 0); });
      const std::string planned = Outcome([&] { return (spec.MakeShadow(pool, given), 0); });
      if (built != planned)
        v.push_back(where + ": Make gave '" + built + "', MakeShadow '" + planned + "'");
      if (built != "ok 0") continue;
      auto real = spec.Make(pool, given);
      auto shadow = spec.MakeShadow(pool, given);
      for (int i = 0; i < 60 && v.empty(); ++i) Step(*real, *shadow, pool, rng, where, v);
    }
  }
  return v;
}

// --- The registry ----------------------------------------------------------

using Check = Violations (*)(const AlgorithmSpec&);

// A check's violations; an exception (an operation refused that the
// declaration promised) is one too.
Violations RunCheck(Check check, const AlgorithmSpec& spec) {
  try {
    return check(spec);
  } catch (const std::exception& e) {
    return {Name(spec) + ": threw " + e.what()};
  }
}

// The specs the kit judges: the registry; or, built with
// CHSIM_CONFORMANCE_EXAMPLE=SPEC (tests/docs), README's worked example alone,
// a spec that is not registered.
#ifdef CHSIM_CONFORMANCE_EXAMPLE
}  // namespace
namespace algorithms_internal {
extern const AlgorithmSpec CHSIM_CONFORMANCE_EXAMPLE;
}
namespace {
std::vector<const AlgorithmSpec*> KitSpecs() {
  return {&algorithms_internal::CHSIM_CONFORMANCE_EXAMPLE};
}
constexpr bool kRegistered = false;
#define KIT_SUITE Example
#else
std::span<const AlgorithmSpec* const> KitSpecs() { return AllAlgorithms(); }
constexpr bool kRegistered = true;
#define KIT_SUITE Registry
#endif

class Conformance : public ::testing::TestWithParam<const AlgorithmSpec*> {};

void ExpectNone(Check check) {
  const Violations v = RunCheck(check, *Conformance::GetParam());
  EXPECT_TRUE(v.empty()) << ::testing::PrintToString(v);
}

TEST_P(Conformance, LocateBatchEqualsLocate) { ExpectNone(CheckLocateBatch); }
TEST_P(Conformance, Deterministic) { ExpectNone(CheckDeterminism); }
TEST_P(Conformance, BalanceWithinDeclaredBound) { ExpectNone(CheckBalance); }
TEST_P(Conformance, RemovalAsDeclared) { ExpectNone(CheckRemoval); }
TEST_P(Conformance, MinimalDisruptionWhenDeclared) { ExpectNone(CheckMinimalDisruption); }
TEST_P(Conformance, MinimalDisruptionOverRandomSteps) { ExpectNone(CheckRandomSteps); }
TEST_P(Conformance, HistoryFreeWhenDeclared) { ExpectNone(CheckHistoryFree); }
TEST_P(Conformance, StatelessUnlessDeclared) { ExpectNone(CheckStateless); }
TEST_P(Conformance, RangeHashWhenDeclared) { ExpectNone(CheckRangeHash); }
TEST_P(Conformance, MemoryAsDocumented) { ExpectNone(CheckMemory); }
TEST_P(Conformance, ParametersRefusedOutsideAndAppliedInside) { ExpectNone(CheckParameters); }
TEST_P(Conformance, ShadowAcceptsAndRefusesExactlyAsTheInstance) { ExpectNone(CheckShadow); }
TEST_P(Conformance, SpecIsComplete) {
  const AlgorithmSpec& s = *GetParam();
  EXPECT_FALSE(s.summary.empty());
  EXPECT_TRUE(s.paper.empty() == (s.year == 0)) << "a paper needs its year";
  EXPECT_GE(s.balance_bound, 1.0);
  EXPECT_NE(s.memory_bytes, nullptr);
  EXPECT_FALSE(s.memory_doc.empty());
  EXPECT_NE(s.make, nullptr);
  EXPECT_EQ(FindAlgorithm(s.name), kRegistered ? &s : nullptr);
  for (const ParamSpec& p : s.params) EXPECT_FALSE(p.doc.empty()) << p.name;
}

INSTANTIATE_TEST_SUITE_P(KIT_SUITE, Conformance, ::testing::ValuesIn(KitSpecs()),
                         [](const auto& info) { return std::string(info.param->name); });

#ifndef CHSIM_CONFORMANCE_EXAMPLE

// --- The kit catches what is declared but not done -------------------------

AlgorithmSpec Misdeclared(std::string_view name, const std::function<void(AlgorithmSpec&)>& lie) {
  AlgorithmSpec spec = GetAlgorithm(name);
  lie(spec);
  return spec;
}

// Expects `check` to report a violation that mentions `what`.
void ExpectCaught(Check check, const AlgorithmSpec& spec, std::string_view what) {
  const Violations v = RunCheck(check, spec);
  EXPECT_TRUE(std::any_of(v.begin(), v.end(),
                          [&](const std::string& m) { return m.find(what) != std::string::npos; }))
      << "expected a violation mentioning '" << what << "', got " << ::testing::PrintToString(v);
}

TEST(ConformanceKit, CatchesMisdeclaredCapabilities) {
  ExpectCaught(CheckHistoryFree,
               Misdeclared("jump", [](AlgorithmSpec& s) { s.capabilities.history_free = true; }),
               "threw jump: can only remove");
  ExpectCaught(CheckHistoryFree,
               Misdeclared("anchor", [](AlgorithmSpec& s) { s.capabilities.history_free = true; }),
               "keys are off their start node");
  ExpectCaught(
      CheckMinimalDisruption,
      Misdeclared("modulo", [](AlgorithmSpec& s) { s.capabilities.minimal_disruption = true; }),
      "keys between old nodes");
  ExpectCaught(
      CheckRemoval,
      Misdeclared("jump", [](AlgorithmSpec& s) { s.capabilities.arbitrary_removal = true; }),
      "declares arbitrary removal");
  // Weights declared but ignored: light nodes get 2.5 x their share.
  ExpectCaught(CheckBalance,
               Misdeclared("memento", [](AlgorithmSpec& s) { s.capabilities.weights = true; }),
               "weights 1-4");
  ExpectCaught(
      CheckStateless,
      Misdeclared("bounded_load", [](AlgorithmSpec& s) { s.capabilities.stateful = false; }),
      "not stateful");
  ExpectCaught(CheckBalance,
               Misdeclared("jump", [](AlgorithmSpec& s) { s.capabilities.exact_shares = true; }),
               "StructuralShares() offered");
  ExpectCaught(CheckRangeHash,
               Misdeclared("ring", [](AlgorithmSpec& s) { s.capabilities.range_hash = true; }),
               "change bucket when the nodes are renamed");
}

TEST(ConformanceKit, CatchesMisdeclaredBoundsAndMemory) {
  ExpectCaught(CheckBalance, Misdeclared("ring", [](AlgorithmSpec& s) { s.balance_bound = 1.02; }),
               "declared bound");
  ExpectCaught(CheckMemory,
               Misdeclared("jump",
                           [](AlgorithmSpec& s) {
                             s.memory_bytes = [](const Params&, uint64_t) {
                               return 4000.0;
                             };  // "constant"
                           }),
               "MemoryBytes");
}

// A deliberately wrong algorithm: modulo that declares a parameter it never
// reads, whose LocateBatch is off by one node, and which refuses an Add its
// admission check did not predict.
class Wrong final : public Algorithm {
 public:
  explicit Wrong(std::span<const Node> nodes) : n_(static_cast<uint32_t>(nodes.size())) {}
  std::string_view name() const noexcept override { return "wrong"; }
  Capabilities capabilities() const noexcept override { return {.arbitrary_removal = true}; }
  uint32_t Locate(uint64_t h) const noexcept override { return static_cast<uint32_t>(h % n_); }
  void LocateBatch(std::span<const uint64_t> h, std::span<uint32_t> out) const noexcept override {
    for (size_t i = 0; i < h.size(); ++i) out[i] = static_cast<uint32_t>((h[i] + 1) % n_);
  }
  size_t num_nodes() const noexcept override { return n_; }
  std::vector<uint32_t> live_ids() const override {
    std::vector<uint32_t> ids(n_);
    std::iota(ids.begin(), ids.end(), 0u);
    return ids;
  }
  uint32_t Add(const Node&) override { throw Unsupported("wrong: full"); }
  void Remove(uint32_t) override {}
  size_t MemoryBytes() const noexcept override { return 4 * n_; }

 private:
  uint32_t n_;
};

constexpr ParamSpec kSalt[] = {{.name = "salt",
                                .type = ParamType::kInteger,
                                .doc = "declared, never read",
                                .default_number = 0,
                                .min = 0,
                                .max = 100}};

TEST(ConformanceKit, CatchesAWrongAlgorithm) {
  AlgorithmSpec wrong = GetAlgorithm("modulo");
  wrong.name = "wrong";
  wrong.params = kSalt;
  wrong.key_hasher = nullptr;  // modulo's reads key_hasher, which "wrong" does not declare
  wrong.make = [](std::span<const Node> nodes, const Params&) -> std::unique_ptr<Algorithm> {
    return std::make_unique<Wrong>(nodes);
  };
  ExpectCaught(CheckLocateBatch, wrong, "LocateBatch differs from Locate");
  ExpectCaught(CheckParameters, wrong, "parameter salt has no effect");  // read, not applied
  ExpectCaught(CheckShadow, wrong, "wrong: full");  // an Add refused without admission
  // Reading a parameter the spec does not declare fails on the first build.
  wrong.key_hasher = GetAlgorithm("modulo").key_hasher;
  ExpectCaught(CheckParameters, wrong, "is not set as a string; is it declared");
}

// A parameter whose default lies outside its own range (a default_number
// left out is 0, below a range that starts at 1).
TEST(ConformanceKit, CatchesADefaultOutsideItsRange) {
  AlgorithmSpec spec = GetAlgorithm("anchor");
  static std::vector<ParamSpec> params(spec.params.begin(), spec.params.end());
  for (ParamSpec& p : params) {
    if (p.name == "capacity") p.min = p.default_number + 1;
  }
  spec.params = params;
  ExpectCaught(CheckParameters, spec, "the default of capacity is outside its own range");
}

// Modulo over the nodes it was built with that, once nodes are added, sends
// every even key to the last one: it moves keys only to the node added and
// gives them back when it goes, but far more keys than a node's share. With
// `equal_shares` it also claims exact shares of 1/n each.
class Greedy final : public Algorithm {
 public:
  Greedy(std::span<const Node> nodes, bool equal_shares)
      : base_(static_cast<uint32_t>(nodes.size())), n_(base_), equal_shares_(equal_shares) {}
  std::string_view name() const noexcept override { return "greedy"; }
  Capabilities capabilities() const noexcept override { return {.minimal_disruption = true}; }
  uint32_t Locate(uint64_t h) const noexcept override {
    return n_ > base_ && h % 2 == 0 ? n_ - 1 : static_cast<uint32_t>(h % base_);
  }
  size_t num_nodes() const noexcept override { return n_; }
  std::vector<uint32_t> live_ids() const override {
    std::vector<uint32_t> ids(n_);
    std::iota(ids.begin(), ids.end(), 0u);
    return ids;
  }
  uint32_t Add(const Node&) override { return n_++; }
  void Remove(uint32_t id) override {
    if (id + 1 != n_ || n_ == base_) throw Unsupported("greedy: only the last added node");
    --n_;
  }
  size_t MemoryBytes() const noexcept override { return 8; }
  std::optional<std::vector<double>> StructuralShares() const override {
    if (!equal_shares_) return std::nullopt;
    return std::vector<double>(n_, 1.0 / n_);
  }

 private:
  uint32_t base_, n_;
  bool equal_shares_;
};

TEST(ConformanceKit, CatchesMovesBeyondTheNodesShare) {
  AlgorithmSpec greedy = GetAlgorithm("modulo");
  greedy.name = "greedy";
  greedy.capabilities = {.minimal_disruption = true};
  greedy.make = [](std::span<const Node> nodes, const Params&) -> std::unique_ptr<Algorithm> {
    return std::make_unique<Greedy>(nodes, false);
  };
  // No move between survivors, but half the keys: over its declared bound.
  ExpectCaught(CheckMinimalDisruption, greedy, "an add moved");
  ExpectCaught(CheckMinimalDisruption, greedy, "declared bound");
  // With exact shares, the moves are held to the share it claims.
  greedy.make = [](std::span<const Node> nodes, const Params&) -> std::unique_ptr<Algorithm> {
    return std::make_unique<Greedy>(nodes, true);
  };
  ExpectCaught(CheckMinimalDisruption, greedy, "its exact share");
}

#endif  // CHSIM_CONFORMANCE_EXAMPLE

}  // namespace
}  // namespace chsim
