// SPDX-License-Identifier: Apache-2.0
// Internal to the runner (runner.cc, emitters.cc, throughput.cc): the tally
// of one pass over a workload and the functions that turn a step into rows.
#ifndef CHSIM_SIM_SRC_RUNNER_INTERNAL_H_
#define CHSIM_SIM_SRC_RUNNER_INTERNAL_H_

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "sim/results/results.h"
#include "sim/run/deployment.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {

// Integer tallies of one pass over the workload (exact, order-independent),
// by global node id. Cache-line aligned: each thread owns one, side by side
// in a vector.
struct alignas(64) Tally {
  std::vector<uint64_t> cur, prev, moved_in, moved_out;
  std::vector<uint64_t> bytes;  // requested bytes under cur, when the workload has sizes
  uint64_t units = 0, moved = 0, survivors = 0, from_start = 0;
  Eigen::MatrixXd transitions;  // prev node x cur node, when asked

  void Init(size_t nodes, bool remap, bool transitions_wanted, bool sized);
  void Merge(const Tally& o);
};

// Running sums of the remapping figures over the steps of a trial.
struct Cumulative {
  double moved = 0, minimal = 0, excess = 0, survivors = 0;
};

// What one step measured.
struct StepState {
  const Scenario* s;
  const Deployment* cur;
  const Deployment* prev;  // null at step 0 or without remap
  const Tally* tally;      // null without sampling
  uint32_t trial, step;
  PerNode per_node;  // the case's per-node rows (PerNodeApplied)
};

// Each live node's expected share (weight / live weight), by global id (0
// for nodes not live).
std::vector<double> WeightShares(const Deployment& d);

// Appends the step's metric rows (nodes, structural, theory, sampled, remap,
// in that order), per-node rows and transitions to `r`.
void EmitStep(const StepState& st, Cumulative& cum, CaseResult& r);

// Trial 0 with the throughput metric: the rows of event `step` timed by
// `times` (throughput.event_ns_per_add / _remove, when the event made such
// calls) and the memory per live node of `d` after it.
void EmitResize(const Deployment& d, const ResizeTimes& times, uint32_t step, CaseResult& r);

// Times lookups of the case's algorithm (trial 0's nodes) and appends the
// throughput rows (trial 0, step 0), with the medians of the event rows
// EmitResize left in `r`. Throws CaseSkipped or UsageError as
// BuildCaseAlgorithm does, Interrupted.
void MeasureThroughput(const Scenario& s, const CaseSpec& c, CaseResult& r);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_SRC_RUNNER_INTERNAL_H_
