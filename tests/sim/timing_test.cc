// SPDX-License-Identifier: Apache-2.0
// Throughput timing: CPU time, so time spent waiting for a core (a loaded
// machine) is not counted; the cold first build is discarded.
#include "sim/run/timing.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace chsim::sim {
namespace {

void SpinCpuMs(double ms) {
  const double end = ThreadCpuNs() + ms * 1e6;
  volatile uint64_t x = 0;
  while (ThreadCpuNs() < end) x = x + 1;
}

// Each call does 0.5 ms of CPU work, and in one variant also sleeps 5 ms (what
// a descheduled thread sees). Measured in the same run, the two must agree
// within 2x: a wall clock would make the sleeping variant 11x slower, and the
// CPU a sleep itself costs (the system call, cold caches after the wake-up:
// tens of microseconds on a loaded machine) stays far below the work. Every
// figure is relative to the same spin, so the verdict holds on any machine
// and load.
TEST(TimingTest, WaitingIsNotCounted) {
  int calls = 0;
  auto measure = [&](bool sleep) {
    return MedianNsPerItem(
        [&](size_t) {
          ++calls;
          if (sleep) std::this_thread::sleep_for(std::chrono::milliseconds(5));
          SpinCpuMs(0.5);
        },
        1000, 1024, 3, 1);
  };
  const double working = measure(false);
  const double waiting = measure(true);
  EXPECT_GT(calls, 6);
  EXPECT_GE(working, 500.0) << "the 0.5 ms of work per 1000 items (500 ns each) is counted";
  EXPECT_LT(waiting, 2 * working) << "waiting counted as work";
}

TEST(TimingTest, ColdFirstBuildIsDiscarded) {
  int builds = 0;
  auto build = [&] { SpinCpuMs(++builds == 1 ? 30 : 1); };  // first build 30x slower
  double ms = MedianBuildMs(build, 1, 2000);
  EXPECT_EQ(builds, 2);
  EXPECT_LT(ms, 30) << "the cold first build (30 ms of CPU) was counted";
  // A build longer than the warm-up limit counts from the first (no doubling of long builds).
  builds = 0;
  ms = MedianBuildMs(
      [&] {
        ++builds;
        SpinCpuMs(kWarmupMs + 5);
      },
      1, 10);
  EXPECT_EQ(builds, 1);
  EXPECT_GT(ms, kWarmupMs);
}

}  // namespace
}  // namespace chsim::sim
