// SPDX-License-Identifier: Apache-2.0
#include "sim/run/metrics.h"

#include <algorithm>
#include <cmath>

#include "sim/base/stats.h"

namespace chsim::sim {

BalanceFigures BalanceFromRatios(std::span<const double> ratios, double epsilon) noexcept {
  BalanceFigures b;
  double sum = 0, mx = ratios[0], mn = ratios[0];
  size_t over = 0;
  for (double r : ratios) {
    sum += r;
    mx = std::max(mx, r);
    mn = std::min(mn, r);
    if (r > 1 + epsilon) ++over;
  }
  double n = static_cast<double>(ratios.size());
  double mean = sum / n, ss = 0;
  for (double r : ratios) ss += (r - mean) * (r - mean);
  b.max_over_mean = mx;
  b.min_over_mean = mn;
  b.cv = std::sqrt(ss / n) / mean;
  b.over_eps_share = static_cast<double>(over) / n;
  return b;
}

ChiSquareFigures ChiSquareTest(std::span<const double> observed,
                               std::span<const double> p) noexcept {
  ChiSquareFigures c;
  double total = 0;
  for (double o : observed) total += o;
  size_t cells = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    if (p[i] <= 0) continue;
    double e = total * p[i];
    c.statistic += (observed[i] - e) * (observed[i] - e) / e;
    ++cells;
  }
  c.df = cells > 1 ? static_cast<double>(cells - 1) : 1;
  c.p_value = ChiSquarePValue(c.statistic, c.df);
  return c;
}

double SamplingFloorCv(std::span<const double> p, double total) noexcept {
  double sum = 0;
  size_t n = 0;
  for (double pi : p) {
    if (pi <= 0) continue;
    sum += (1 - pi) / (total * pi);
    ++n;
  }
  return n == 0 || total <= 0 ? 0 : std::sqrt(sum / static_cast<double>(n));
}

double MinimalMoves(std::span<const double> before, std::span<const double> after) noexcept {
  double m = 0;
  for (size_t i = 0; i < after.size(); ++i) {
    double b = i < before.size() ? before[i] : 0;
    if (after[i] > b) m += after[i] - b;
  }
  return m;
}

}  // namespace chsim::sim
