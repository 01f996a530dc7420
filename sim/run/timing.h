// SPDX-License-Identifier: Apache-2.0
// Timing for the throughput metrics: thread CPU time, medians of
// repetitions, and build times with the cold first build discarded.
//
// Why CPU time: the machines chsim runs on are often shared (CI runners,
// 2-core VMs with several builds going). A wall clock counts the time the
// thread waits for a core, so on a loaded machine the same lookups time
// several times slower at random, from nothing but load. The thread's own CPU
// time (CLOCK_THREAD_CPUTIME_ID: user + system) leaves that out; what load
// still costs (caches shared with others) stays in, so compare timings within
// one file.
//
// Thread-safety: pure functions of their arguments and the calling thread.
#ifndef CHSIM_SIM_RUN_TIMING_H_
#define CHSIM_SIM_RUN_TIMING_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace chsim::sim {

// CPU time consumed by the calling thread, in ns.
double ThreadCpuNs() noexcept;

// Median thread CPU ns between two back-to-back ThreadCpuNs() reads: what a
// bracket around one short call adds to it (about 1 us where the clock is a
// system call). Takes about 0.5 ms.
double ClockPairNs();

// Median over `reps` repetitions of CPU ns per item of body(first), where one
// call processes `items` items from key index `first`; each repetition calls
// it until at least min_ms of CPU time has passed, moving `first` along
// (modulo `keys`, a power of two) so every key is used. One untimed call first
// warms caches and branch predictors. Calls `check` (e.g. an interrupt poll)
// before each repetition. REQUIRES: reps >= 1, keys a power of two.
template <typename F>
double MedianNsPerItem(F&& body, size_t items, size_t keys, uint32_t reps, uint32_t min_ms,
                       const std::function<void()>& check = {}) {
  std::vector<double> results;
  size_t first = 0;
  body(first);
  for (uint32_t r = 0; r < reps; ++r) {
    if (check) check();
    uint64_t rounds = 0;
    const double start = ThreadCpuNs();
    double elapsed = 0;
    do {
      first = (first + items) & (keys - 1);
      body(first);
      ++rounds;
      elapsed = ThreadCpuNs() - start;
    } while (elapsed < min_ms * 1e6);
    results.push_back(elapsed / static_cast<double>(rounds * items));
  }
  std::sort(results.begin(), results.end());
  return results[results.size() / 2];
}

// Median CPU ms of build(), repeated up to `reps` times while under
// `budget_ms` in all (at least once). A first build under kWarmupMs is a
// warm-up and not counted (cold caches, first-touch page faults of the
// allocator, lazy symbol binding: it made n = 10 builds look slower than
// n = 100 ones); a longer one is dominated by its own work and counts.
// REQUIRES: reps >= 1.
inline constexpr double kWarmupMs = 50;
double MedianBuildMs(const std::function<void()>& build, uint32_t reps, double budget_ms,
                     const std::function<void()>& check = {});

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RUN_TIMING_H_
