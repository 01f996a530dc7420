// SPDX-License-Identifier: Apache-2.0
// Plan: what a run of a scenario will do, found before anything runs. Every
// case is replayed the way the run would, over the algorithm's shadow
// (AlgorithmSpec::MakeShadow): the same node names and weights, the same
// seeded random choices, each spec's admission check at every step, the
// events timeline (live count, labels, capacity, weights, removal order) and
// on_unsupported; a file workload is read through. Nothing is built and no key
// is placed, so a plan costs O(nodes x trials x steps) per case.
//
// `chsim validate`, `chsim run --dry-run` and `chsim run` (before its first
// case) all call PlanScenario: a scenario the plan accepts runs to the end,
// and one it refuses is refused with the very message the run would give.
//
// Thread-safety: reentrant; it runs `threads` workers itself.
#ifndef CHSIM_SIM_RUN_PLAN_H_
#define CHSIM_SIM_RUN_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/results/results.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {

struct CasePlan {
  bool skipped = false;  // the run stops this case (on_unsupported: "skip" or a failed rebuild)
  std::string message;   // why, as the result file will say
};

struct PlanOptions {
  unsigned threads = 1;
  Shard shard;         // the cases a run would run (the work limit counts them)
  bool force = false;  // --force: no work limit
};

// One CasePlan per case of the scenario. Throws UsageError exactly when `chsim
// run` with these options would refuse the scenario, with its message: the
// first case (in index order) the run cannot run, or the work limit.
std::vector<CasePlan> PlanScenario(const Scenario& s, const PlanOptions& options = {});

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RUN_PLAN_H_
