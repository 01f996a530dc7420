// SPDX-License-Identifier: Apache-2.0
// Runner: executes a scenario's cases (trials, event steps, sampled passes
// over the workload, throughput timing) and collects their results.
//
// Before the first case, the scenario is planned (plan.h): a run that starts
// runs to the end (or is interrupted), and a scenario it refuses is refused
// before any case runs.
//
// Parallelism (thread_pool.h): cases run on min(threads, cases) workers; each
// case's passes over the keys split the key range into fixed blocks over
// threads / workers threads. Loads and move counts are integer sums, so the
// reduction is exact and the figures are identical on any thread count.
// Stateful algorithms (bounded loads) place keys one at a time in index order
// on one thread. Throughput is timed after everything else, one case at a
// time on one thread, so timings are not disturbed by the simulation.
//
// Thread-safety: RunScenario is reentrant; it polls interrupt.h's flag and
// throws Interrupted when it is set.
#ifndef CHSIM_SIM_RUN_RUNNER_H_
#define CHSIM_SIM_RUN_RUNNER_H_

#include <cstdint>
#include <vector>

#include "sim/results/results.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {

class Progress;

struct RunOptions {
  unsigned threads = 1;
  Shard shard;
  bool force = false;  // run beyond kMaxWorkWithoutForce
  // Plan first (plan.h). Only tests turn it off, to compare the plan with
  // what an unplanned run meets.
  bool plan = true;
};

struct RunOutput {
  std::vector<const CaseSpec*> cases;  // the cases of this shard, in order
  std::vector<CaseResult> results;     // parallel to cases
};

// The cases a shard runs: every index with index % count == shard.index.
std::vector<const CaseSpec*> ShardCases(const Scenario& s, const Shard& shard);

// Whether a case places keys (balance or remap asked, and a workload with units).
bool CaseSamples(const Scenario& s, const CaseSpec& c);

// Trials whose deployments a case builds and applies the events to: every
// trial with balance or remap; else trial 0 alone when the throughput metric
// has events to time; else none (the plan replays the same ones).
uint32_t TrialsApplied(const Scenario& s);

// Progress units per key placement of a case: its algorithm's lookup work at
// the case's node count (AlgorithmSpec::lookup_work), at least 1.
uint64_t KeyWork(const CaseSpec& c);
// Progress units of a case's throughput timing: each repetition times the
// timed keys for at least the minimum time (50,000 units a millisecond).
uint64_t TimingWork(const Scenario& s, const CaseSpec& c);

// Work units the run will do: key placements, i.e. the keys (or requests) of
// each case x trials x (1 + 3 x events with remapping), plus 1 per timed
// case; when `lookup_work` (the progress estimate), placements are weighted
// by the case's KeyWork and timing counts TimingWork; else (the --force
// limit, which is about placements) each counts one.
uint64_t EstimateWork(const Scenario& s, const std::vector<const CaseSpec*>& cases,
                      bool lookup_work);

// `chsim run` refuses a run (or shard) of more key placements than this
// unless --force is given: 2 x 10^10 placements take minutes on two cores
// (docs/performance.md has the rate; bench/runner-speed measures it), while a
// scenario's key counts allow 10^12 per case (hours). Use --shard I/N to
// split a larger sweep over machines, or --force to run it anyway.
inline constexpr uint64_t kMaxWorkWithoutForce = 20'000'000'000ULL;

// Throws UsageError (naming the estimate and the way out) when `cases` are
// more work than kMaxWorkWithoutForce and `force` is false.
void CheckWork(const Scenario& s, const std::vector<const CaseSpec*>& cases, bool force);

// Plans the scenario, then runs the shard's cases. `progress` may be null.
// Throws UsageError (what the plan refuses: a bad event for this node set, an
// unsupported operation under "error", the work limit without force),
// Interrupted, or RuntimeError. When interrupted, `finished` (if not null)
// receives the number of cases that completed.
RunOutput RunScenario(const Scenario& s, const RunOptions& options, Progress* progress,
                      size_t* finished = nullptr);

// Runs one case (all trials and steps, and its throughput when asked) on
// `key_threads` threads. Exposed for tests.
CaseResult RunCase(const Scenario& s, const CaseSpec& c, unsigned key_threads, Progress* progress,
                   bool with_throughput);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RUN_RUNNER_H_
