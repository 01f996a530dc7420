// SPDX-License-Identifier: Apache-2.0
// RunDocument: a scenario run from start to result document, the one way
// `chsim run` and the Python module (chsim.run) both run: progress on stderr,
// RunScenario (plan first, then the shard's cases), and BuildResults with the
// provenance of the run.
//
// Thread-safety: reentrant; RunScenario polls interrupt.h's flag.
#ifndef CHSIM_SIM_RUN_RUN_DOCUMENT_H_
#define CHSIM_SIM_RUN_RUN_DOCUMENT_H_

#include <cstddef>

#include "sim/results/provenance.h"
#include "sim/run/runner.h"

namespace chsim::sim {

// Runs the shard's cases of `s` and returns the result document. `info`
// needs the command and the start time; the rest (threads, seed, finish time,
// wall seconds) is filled in here. `quiet`: no progress line. Throws what
// RunScenario throws; when interrupted, `finished` (if not null) receives the
// number of cases that completed.
Json RunDocument(const Scenario& s, const RunOptions& options, RunInfo info, bool quiet,
                 size_t* finished = nullptr);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RUN_RUN_DOCUMENT_H_
