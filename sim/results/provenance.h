// SPDX-License-Identifier: Apache-2.0
// Provenance: where a result came from (tool version, git commit and dirty
// flag captured at build time, compiler, flags, build type, library versions,
// CPU, kernel, UTC times, threads, seed), as the JSON block of a result file.
//
// Thread-safety: reentrant.
#ifndef CHSIM_SIM_RESULTS_PROVENANCE_H_
#define CHSIM_SIM_RESULTS_PROVENANCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace chsim::sim {

// The current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string UtcNow();

// chsim's version ("0.1.0") and git commit ("<sha>" plus "-dirty").
std::string ToolVersion();

struct RunInfo {
  std::vector<std::string> command;  // argv
  unsigned threads = 1;
  uint64_t seed = 0;
  std::string started_utc, finished_utc;
  double wall_seconds = 0;
};

Json MakeProvenance(const RunInfo& run);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RESULTS_PROVENANCE_H_
