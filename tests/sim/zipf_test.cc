// SPDX-License-Identifier: Apache-2.0
// The rejection-inversion Zipf sampler against the exact probabilities
// 1/k^s / H(N, s): Pearson chi-square over all ranks must not reject (these
// seeds are fixed, so the test is deterministic; the thresholds are the 0.1%
// critical values), and draws are a pure function of the stream.
#include "sim/workload/zipf.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/base/stats.h"

namespace chsim::sim {
namespace {

double ChiSquarePFor(uint64_t n, double s, uint64_t draws, uint64_t seed) {
  ZipfSampler z(n, s);
  std::vector<double> counts(n + 1, 0);
  SplitMix64 rng(seed);
  for (uint64_t i = 0; i < draws; ++i) {
    uint64_t k = z.Sample(rng);
    EXPECT_GE(k, 1u);
    EXPECT_LE(k, n);
    counts[k] += 1;
  }
  double h = 0;
  for (uint64_t k = 1; k <= n; ++k) h += std::pow(static_cast<double>(k), -s);
  double chi2 = 0;
  for (uint64_t k = 1; k <= n; ++k) {
    double e = draws * std::pow(static_cast<double>(k), -s) / h;
    chi2 += (counts[k] - e) * (counts[k] - e) / e;
  }
  return ChiSquarePValue(chi2, static_cast<double>(n - 1));
}

TEST(ZipfTest, MatchesExactDistribution) {
  for (double s : {0.5, 0.99, 1.0, 1.2, 2.0}) {
    EXPECT_GT(ChiSquarePFor(50, s, 200000, 12345), 0.001) << "s=" << s;
  }
}

TEST(ZipfTest, HeadOfLargePopulation) {
  // N = 10^9: rank 1 has probability 1/H(N, 1) ~ 1/(ln N + 0.5772) = 0.0462.
  ZipfSampler z(1'000'000'000, 1.0);
  SplitMix64 rng(7);
  uint64_t ones = 0, draws = 200000;
  for (uint64_t i = 0; i < draws; ++i) ones += z.Sample(rng) == 1;
  double p = 1 / (std::log(1e9) + 0.5772156649);
  double sd = std::sqrt(draws * p * (1 - p));
  EXPECT_NEAR(static_cast<double>(ones), draws * p, 5 * sd);
}

TEST(ZipfTest, Deterministic) {
  ZipfSampler z(1000, 1.1);
  SplitMix64 a(99), b(99);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(z.Sample(a), z.Sample(b));
}

}  // namespace
}  // namespace chsim::sim
