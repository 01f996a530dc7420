// SPDX-License-Identifier: Apache-2.0
// The replication of one case: the scenario's "replication" request (its
// strategy and copies per key, chsim/replica.h; the failure domain asked)
// over one step of a deployment. CaseReplicas checks the step, makes the
// strategy's selector over the deployment's algorithm as it is at that step,
// and answers each key's copies in global node ids (deployment.h).
//
// The checks are the ones `chsim validate` and `chsim run` share: the plan
// (plan.h) makes a CaseReplicas over each step of a shadow deployment, so a
// request the run would refuse is refused before anything runs, with the
// same one-line message: more copies than live nodes (or than live domains,
// when a domain is asked of a strategy that cannot answer short), or what the
// strategy's own Admit refuses.
//
// Lifetime: reads the deployment's algorithm in place; make it again after
// the deployment applies an event.
// Thread-safety: Select is const and may run concurrently.
#ifndef CHSIM_SIM_RUN_REPLICATION_H_
#define CHSIM_SIM_RUN_REPLICATION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "chsim/replica.h"
#include "chsim/topology.h"
#include "sim/run/deployment.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {

// The level the replicas rows measure placement and domain failures at: the
// case's domain when it asks one, else the first of rack, zone and host the
// nodes carry (so that a strategy spreading over nodes only shows how often
// its copies share a rack); nullopt when the nodes carry none.
std::optional<DomainLevel> MeasuredLevel(const Scenario& s, const CaseSpec& c);

class CaseReplicas {
 public:
  // Throws UsageError when the step cannot hold the case's copies. `step`
  // names the step in messages (0: the initial nodes).
  CaseReplicas(const Scenario& s, const CaseSpec& c, const Deployment& d, uint32_t step,
               Build build = Build::kReal);

  uint32_t copies() const noexcept { return k_; }
  // Writes up to copies() distinct live global ids to out[0..], in replica
  // order, and returns how many. REQUIRES: out.size() >= copies().
  uint32_t Select(uint64_t key_hash, std::span<uint32_t> out) const noexcept {
    const uint32_t placed = selector_->Select(key_hash, out);
    for (uint32_t i = 0; i < placed; ++i) out[i] = to_global_[out[i]];
    return placed;
  }
  // Each node's domain at MeasuredLevel by global id (empty: none).
  std::span<const uint32_t> domains() const noexcept { return domains_; }
  const ReplicaSelector& selector() const noexcept { return *selector_; }

 private:
  uint32_t k_;
  std::vector<uint32_t> domains_;  // by global id, at MeasuredLevel
  Topology alg_topology_;          // by algorithm id, what the selector reads
  std::span<const uint32_t> to_global_;
  std::unique_ptr<ReplicaSelector> selector_;
};

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RUN_REPLICATION_H_
