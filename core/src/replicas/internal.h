// SPDX-License-Identifier: Apache-2.0
// Internal to core/src/replicas: what the strategies share. Adding a strategy:
// one file here defining its `constinit const ReplicaStrategy kXxxStrategy`
// (and its selector), plus one row in registry.cc; docs/extending.md walks
// through it.
#ifndef CHSIM_CORE_SRC_REPLICAS_INTERNAL_H_
#define CHSIM_CORE_SRC_REPLICAS_INTERNAL_H_

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/replica.h"
#include "chsim/splitmix.h"

namespace chsim::replicas_internal {

// Whether `id` is among the first `placed` ids of `out`.
inline bool Holds(const uint32_t* out, uint32_t placed, uint32_t id) noexcept {
  for (uint32_t j = 0; j < placed; ++j) {
    if (out[j] == id) return true;
  }
  return false;
}

// The failure-domain side of a selection: the domain per node id at the
// level asked (none: empty), and how many distinct domains the live nodes
// span.
class DomainRule {
 public:
  explicit DomainRule(const ReplicaInput& in) : DomainRule(in.Domains(), *in.algorithm) {}
  DomainRule(std::span<const uint32_t> domains, const Algorithm& algorithm) : domains_(domains) {
    if (domains_.empty()) return;
    std::vector<uint32_t> seen;
    for (uint32_t id : algorithm.live_ids()) seen.push_back(domains_[id]);
    std::sort(seen.begin(), seen.end());
    distinct_ = static_cast<uint32_t>(std::unique(seen.begin(), seen.end()) - seen.begin());
  }
  // Copies that must sit in distinct domains: min(k, distinct domains), 0
  // without domains.
  uint32_t Spread(uint32_t k) const noexcept { return std::min(k, distinct_); }
  // Whether one of the first `placed` copies is in id's domain.
  bool Taken(const uint32_t* out, uint32_t placed, uint32_t id) const noexcept {
    const uint32_t d = domains_[id];
    for (uint32_t j = 0; j < placed; ++j) {
      if (domains_[out[j]] == d) return true;
    }
    return false;
  }

 private:
  std::span<const uint32_t> domains_;
  uint32_t distinct_ = 0;
};

// Any algorithm whose Locate gives the primary (not stateful): salted and
// the durability baselines.
inline constexpr char kAnyLocateDoc[] =
    "every algorithm whose Locate does not depend on the keys placed before";
inline bool AnyLocate(const AlgorithmSpec& a) noexcept { return !a.capabilities.stateful; }
// The Copysets paper's durability baselines (random, copyset, mincopysets):
// `s` (name, summary, paper with its section, params, make) completed with
// what they share: over any algorithm, the primary is Locate's, no domains,
// not minimal, always k copies.
constexpr ReplicaStrategy CopysetsBaseline(ReplicaStrategy s) {
  s.year = 2013;
  s.applies_doc = kAnyLocateDoc;
  s.applies = AnyLocate;
  s.minimal = false;
  s.short_results = false;
  s.first_is_locate = true;
  return s;
}
inline constexpr ParamSpec kCopysetSeedParam{
    .name = "seed",
    .type = ParamType::kInteger,
    .doc = "the seed of the random draws (permutations, or each key's secondaries)",
    .default_number = 1,
    .min = 0,
    .max = 1e15,
    .sweepable = true};
// Copyset Replication over `permutations` seeded permutations (copyset.cc).
std::unique_ptr<ReplicaSelector> MakeCopysets(const ReplicaInput& in, uint64_t permutations,
                                              uint64_t seed);

}  // namespace chsim::replicas_internal

#endif  // CHSIM_CORE_SRC_REPLICAS_INTERNAL_H_
