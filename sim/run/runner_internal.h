// SPDX-License-Identifier: Apache-2.0
// Internal to the runner (runner.cc, emitters.cc, throughput.cc and the
// group_*.cc files): the tally of one pass over a workload and the functions
// that turn a step into rows.
#ifndef CHSIM_SIM_SRC_RUNNER_INTERNAL_H_
#define CHSIM_SIM_SRC_RUNNER_INTERNAL_H_

#include <Eigen/Core>
#include <cstdint>
#include <optional>
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

// Writes rows of one trial and step.
class RowWriter {
 public:
  RowWriter(CaseResult* r, uint32_t trial, uint32_t step) : r_(r), trial_(trial), step_(step) {}
  void operator()(MetricRef metric, double value) {
    r_->rows.push_back(MetricRow{trial_, step_, metric, value});
  }

 private:
  CaseResult* r_;
  uint32_t trial_, step_;
};

// What the step hooks of the groups (metric_group.h) read: the step, its
// live nodes, their expected and exact shares, the units the pass placed.
struct StepFigures {
  const StepState& st;
  RowWriter& emit;
  std::vector<uint32_t> live;                 // global ids
  std::vector<double> p;                      // expected shares, by global id
  std::optional<std::vector<double>> shares;  // exact shares, where the algorithm has them
  double units;                               // 0 without a key pass
};

// Each live node's expected share (weight / live weight), by global id (0
// for nodes not live).
std::vector<double> WeightShares(const Deployment& d);

// Appends the step's metric rows (nodes, then each selected group's step
// hook in registry order), per-node rows and transitions to `r`.
void EmitStep(const StepState& st, Cumulative& cum, CaseResult& r);

// ns per lookup: hash precomputed or not, independent or dependent lookups.
struct LookupNs {
  double no_hash = 0, no_hash_latency = 0, with_hash = 0, with_hash_latency = 0;
};

// What timing one case measured (throughput.cc).
struct CaseTimes {
  LookupNs ns;
  double build_ms = 0;
  double memory_bytes = 0;        // the timed algorithm's MemoryBytes()
  double nodes = 0;               // its nodes
  double ns_per_replica_set = 0;  // with replication: the case's copies of one key
};

// Times lookups of the case's algorithm (trial 0's nodes) and its build.
// Throws CaseSkipped or UsageError as BuildCaseAlgorithm does, Interrupted.
CaseTimes TimeCase(const Scenario& s, const CaseSpec& c);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_SRC_RUNNER_INTERNAL_H_
