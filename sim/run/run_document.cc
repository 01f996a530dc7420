// SPDX-License-Identifier: Apache-2.0
#include "sim/run/run_document.h"

#include <chrono>

#include "sim/base/progress.h"
#include "sim/results/results.h"

namespace chsim::sim {

Json RunDocument(const Scenario& s, const RunOptions& options, RunInfo info, bool quiet,
                 size_t* finished) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<const CaseSpec*> cases = ShardCases(s, options.shard);
  Progress progress(quiet, EstimateWork(s, cases, true), cases.size());
  RunOutput out;
  try {
    out = RunScenario(s, options, &progress, finished);
  } catch (...) {
    progress.Finish();
    throw;
  }
  progress.Finish();
  info.finished_utc = UtcNow();
  info.threads = options.threads;
  info.seed = s.seed;
  info.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<const CaseResult*> results;
  for (const CaseResult& r : out.results) results.push_back(&r);
  Json doc = BuildResults(s, out.cases, results, options.shard, MakeProvenance(info));
  return doc;
}

}  // namespace chsim::sim
