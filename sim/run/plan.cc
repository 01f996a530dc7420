// SPDX-License-Identifier: Apache-2.0
#include "sim/run/plan.h"

#include <optional>

#include "sim/base/errors.h"
#include "sim/base/thread_pool.h"
#include "sim/run/deployment.h"
#include "sim/run/replay.h"
#include "sim/run/replication.h"
#include "sim/run/runner.h"

namespace chsim::sim {
namespace {

// What planning one part of a case found: nothing, a skip, or the run's error.
struct Outcome {
  CasePlan plan;
  std::optional<std::string> error;
};

// The simulation part of a case, as RunCase runs it: each trial's deployment
// and events, and the workload read once.
Outcome PlanSimulation(const Scenario& s, const CaseSpec& c) {
  Outcome out;
  const uint32_t trials = TrialsApplied(s);
  try {
    for (uint32_t trial = 0; trial < trials; ++trial) {
      Deployment d(s, c, trial, Build::kShadow);
      if (trial == 0 && CaseSamples(s, c)) c.workload->Check();
      if (trial == 0 && s.Needs(&GroupPasses::replay))
        EventPositions(s, c, c.workload->StreamLength(0));
      // The replicas metric makes the case's copies at every step; timing
      // alone at trial 0's first.
      const bool replicas = c.replicas > 0 && (s.Selects("replicas") || trial == 0);
      if (replicas) CaseReplicas(s, c, d, 0, Build::kShadow);
      for (uint32_t step = 1; step <= s.events.size(); ++step) {
        d.Apply(s.events[step - 1], step);
        if (replicas && s.Selects("replicas")) CaseReplicas(s, c, d, step, Build::kShadow);
      }
    }
  } catch (const CaseSkipped& e) {
    out.plan = {true, e.what()};
  } catch (const UsageError& e) {
    out.error = e.what();
  }
  return out;
}

// Throughput timing, done after every case has simulated: it builds the
// algorithm over trial 0's nodes.
Outcome PlanThroughput(const Scenario& s, const CaseSpec& c) {
  Outcome out;
  try {
    AdmitCaseSize(s, c, InitialWeights(s, c, 0));
    BuildCaseAlgorithm(s, c, InitialNodes(s, c, 0), Build::kShadow);
  } catch (const CaseSkipped& e) {
    out.plan = {true, e.what()};
  } catch (const UsageError& e) {
    out.error = e.what();
  }
  return out;
}

}  // namespace

std::vector<CasePlan> PlanScenario(const Scenario& s, const PlanOptions& options) {
  const size_t n = s.cases.size();
  std::vector<Outcome> sim(n), timing(n);
  ParallelFor(n, options.threads, [&](unsigned, uint64_t i) {
    sim[i] = PlanSimulation(s, s.cases[i]);
    if (s.Needs(&GroupPasses::timing) && !sim[i].error && !sim[i].plan.skipped) {
      timing[i] = PlanThroughput(s, s.cases[i]);
    }
  });
  // The run simulates every case before it times any: its first error is the
  // first simulation error in case order, else the first timing error.
  for (const std::vector<Outcome>* phase : {&sim, &timing}) {
    for (const Outcome& o : *phase) {
      if (o.error) throw UsageError(*o.error);
    }
  }
  CheckWork(s, ShardCases(s, options.shard), options.force);
  std::vector<CasePlan> plans(n);
  for (size_t i = 0; i < n; ++i) plans[i] = sim[i].plan.skipped ? sim[i].plan : timing[i].plan;
  return plans;
}

}  // namespace chsim::sim
