// SPDX-License-Identifier: Apache-2.0
// Statistics against published tables: Student's t quantiles (any table of
// t_{0.975}), chi-square critical values (Abramowitz & Stegun table 26.8),
// Q(1, x) = e^-x, and the ring theory formulas of docs/design.md#balance-theory.
#include "sim/base/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace chsim::sim {
namespace {

TEST(StatsTest, StudentT975MatchesTables) {
  EXPECT_NEAR(StudentT975(1), 12.7062, 1e-4);
  EXPECT_NEAR(StudentT975(2), 4.3027, 1e-4);
  EXPECT_NEAR(StudentT975(10), 2.2281, 1e-4);
  EXPECT_NEAR(StudentT975(30), 2.0423, 1e-4);
  EXPECT_NEAR(StudentT975(40), 2.0211, 2e-4);   // beyond the table: expansion
  EXPECT_NEAR(StudentT975(60), 2.0003, 2e-4);
  EXPECT_NEAR(StudentT975(120), 1.9799, 2e-4);
  EXPECT_NEAR(StudentT975(100000), 1.95998, 1e-4);
}

TEST(StatsTest, SummarizeGivesMeanAndStudentInterval) {
  std::vector<double> v = {1, 2, 3, 4};
  Summary s = Summarize(v);
  EXPECT_EQ(s.count, 4u);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(s.stddev, std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_NEAR(s.ci95_half, 3.1824 * std::sqrt(5.0 / 3.0) / 2, 1e-4);
  Summary one = Summarize(std::vector<double>{7});
  EXPECT_EQ(one.ci95_half, 0);
  EXPECT_EQ(one.mean, 7);
}

TEST(StatsTest, GammaQAgainstClosedForms) {
  for (double x : {0.0, 0.1, 1.0, 2.5, 10.0, 40.0}) {
    EXPECT_NEAR(RegularizedGammaQ(1.0, x), std::exp(-x), 1e-13 + 1e-12 * std::exp(-x)) << x;
  }
  // Q(1/2, x) = erfc(sqrt x).
  for (double x : {0.01, 0.5, 2.0, 8.0}) {
    EXPECT_NEAR(RegularizedGammaQ(0.5, x), std::erfc(std::sqrt(x)), 1e-12) << x;
  }
}

TEST(StatsTest, ChiSquareCriticalValues) {
  // 5% and 1% critical values (A&S table 26.8).
  EXPECT_NEAR(ChiSquarePValue(3.841459, 1), 0.05, 1e-6);
  EXPECT_NEAR(ChiSquarePValue(18.307038, 10), 0.05, 1e-6);
  EXPECT_NEAR(ChiSquarePValue(23.209251, 10), 0.01, 1e-6);
  EXPECT_NEAR(ChiSquarePValue(123.225221, 99), 0.05, 1e-6);
  EXPECT_NEAR(ChiSquarePValue(1105.916, 999), 0.01, 2e-4);
  EXPECT_DOUBLE_EQ(ChiSquarePValue(0, 5), 1.0);
}

TEST(StatsTest, RingTheoryFormulas) {
  RingTheory t = RingTheoryFor(160, 100);
  EXPECT_NEAR(t.cv, 1 / std::sqrt(160.0), 1e-15);
  EXPECT_NEAR(t.max_over_mean, 1 + std::sqrt(2 * std::log(100.0) / 160), 1e-15);
  double a = 1.0 / (9 * 160);
  EXPECT_NEAR(t.wh99_low, std::pow(1 - a - 2.5758293 * std::sqrt(a), 3), 1e-7);
  EXPECT_NEAR(t.wh99_high, std::pow(1 - a + 2.5758293 * std::sqrt(a), 3), 1e-7);
  EXPECT_LT(t.wh99_low, 1);
  EXPECT_GT(t.wh99_high, 1);
}

}  // namespace
}  // namespace chsim::sim
