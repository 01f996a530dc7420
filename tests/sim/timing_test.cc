// Throughput timing: CPU time, so time spent waiting for a core (a loaded
// machine) is not counted; the cold first build is discarded.
#include "chsim/sim/timing.h"

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

TEST(TimingTest, WaitingIsNotCounted) {
  // Each call does ~nothing but sleeps 2 ms (what a descheduled thread sees):
  // a wall clock would give ~2000 ns per item; CPU time gives a few ns.
  int calls = 0;
  double ns = MedianNsPerItem(
      [&](size_t) {
        ++calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        SpinCpuMs(0.05);
      },
      1000, 1024, 3, 1);
  EXPECT_GT(calls, 3);
  EXPECT_LT(ns, 500) << "waiting counted as work";
  EXPECT_GT(ns, 10);  // the 50 us of real work per 1000 items (50 ns each) is counted
}

TEST(TimingTest, ColdFirstBuildIsDiscarded) {
  int builds = 0;
  auto build = [&] { SpinCpuMs(++builds == 1 ? 30 : 1); };  // first build 30x slower
  double ms = MedianBuildMs(build, 1, 2000);
  EXPECT_EQ(builds, 2);
  EXPECT_LT(ms, 10);
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
