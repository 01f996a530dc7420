// SPDX-License-Identifier: Apache-2.0
#include "sim/run/timing.h"

#include <ctime>

namespace chsim::sim {

double ThreadCpuNs() noexcept {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

double ClockPairNs() {
  std::vector<double> d(255);
  for (double& x : d) {
    const double t0 = ThreadCpuNs();
    x = ThreadCpuNs() - t0;
  }
  std::nth_element(d.begin(), d.begin() + 127, d.end());
  return d[127];
}

double MedianBuildMs(const std::function<void()>& build, uint32_t reps, double budget_ms,
                     const std::function<void()>& check) {
  auto timed = [&] {
    if (check) check();
    const double t0 = ThreadCpuNs();
    build();
    return (ThreadCpuNs() - t0) * 1e-6;
  };
  std::vector<double> ms;
  double spent = timed();
  if (spent >= kWarmupMs) ms.push_back(spent);  // else: the warm-up, not counted
  while (ms.size() < reps && (ms.empty() || spent < budget_ms)) {
    ms.push_back(timed());
    spent += ms.back();
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace chsim::sim
