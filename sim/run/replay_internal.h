// SPDX-License-Identifier: Apache-2.0
// Internal to the replay (replay.cc, group_cache.cc): the counts of one step
// and the rows made from them.
#ifndef CHSIM_SIM_RUN_REPLAY_INTERNAL_H_
#define CHSIM_SIM_RUN_REPLAY_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sim/run/deployment.h"
#include "sim/results/results.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {

// One window: its first request (stream index) and what it counted.
struct CacheWindow {
  uint64_t start = 0, requests = 0, reads = 0, misses = 0, twin_misses = 0;
};

// Integer counts of one step, per node of the run (by global id) and per
// window; the twin's misses in total.
struct StepCounts {
  uint64_t window = 1;  // requests per window
  double epsilon = 0;   // recovery_epsilon
  bool sized = false;   // the stream has sizes: byte rows
  uint64_t start = 0;   // the step's first request
  std::vector<uint64_t> requests, reads, misses, miss_bytes, read_bytes;
  uint64_t twin_misses = 0, twin_miss_bytes = 0;
  std::vector<CacheWindow> windows;
  uint64_t window_left = 0;  // requests still to go in windows.back()

  void Reset(size_t nodes, uint64_t first) {
    start = first;
    for (auto* v : {&requests, &reads, &misses, &miss_bytes, &read_bytes}) v->assign(nodes, 0);
    twin_misses = twin_miss_bytes = 0;
    windows.clear();
    window_left = 0;
  }
  // Counts one request in the current window (opening one as needed).
  CacheWindow& Tick() {
    if (window_left == 0) {
      windows.push_back(CacheWindow{start + windows.size() * window});
      window_left = window;
    }
    --window_left;
    CacheWindow& w = windows.back();
    ++w.requests;
    return w;
  }
  void Read(uint32_t node, uint32_t size, bool hit, bool twin_hit) {
    CacheWindow& w = Tick();
    ++w.reads;
    ++requests[node];
    ++reads[node];
    read_bytes[node] += size;
    if (!hit) {
      ++misses[node];
      miss_bytes[node] += size;
      ++w.misses;
    }
    if (!twin_hit) {
      ++twin_misses;
      twin_miss_bytes += size;
      ++w.twin_misses;
    }
  }
  void Other(uint32_t node) {
    Tick();
    ++requests[node];
  }
};

// Requests from the step's start to the first whole window after which every
// whole window is within epsilon of the twin's miss ratio; nullopt when the
// step has no such window.
std::optional<uint64_t> RecoveryRequests(const StepCounts& st) noexcept;

// What the rows of one step are made from.
struct StepView {
  const Scenario* s;
  const Deployment* run;  // after the step's event
  const StepCounts* counts;
  uint32_t trial, step;
  uint64_t capacity;  // per node, in units
  bool by_bytes;
};

// Appends the step's metric rows to `rows`, and its per-node and window rows
// to r (as output.per_node asks). `objects` and `bytes`: each node's cache
// content at the step's end, by global id.
void EmitCacheStep(const StepView& v, std::span<const uint64_t> objects,
                   std::span<const uint64_t> bytes, std::vector<MetricRow>& rows, CaseResult& r);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RUN_REPLAY_INTERNAL_H_
