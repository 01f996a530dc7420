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

}  // namespace chsim::replicas_internal

#endif  // CHSIM_CORE_SRC_REPLICAS_INTERNAL_H_
