// SPDX-License-Identifier: Apache-2.0
// Statistics the simulator reports: confidence intervals across trials,
// the chi-square goodness-of-fit p-value, and the theory of a ring's balance
// printed beside the measured figures.
//
// Pure functions of their arguments; thread-safe.
#ifndef CHSIM_SIM_BASE_STATS_H_
#define CHSIM_SIM_BASE_STATS_H_

#include <cstddef>
#include <cstdint>
#include <span>

namespace chsim::sim {

// Two-sided 95% quantile of Student's t with `df` degrees of freedom,
// t_{0.975, df}. Exact table (to 4 decimals) for df <= 30, then the
// Cornish-Fisher expansion of Abramowitz & Stegun 26.7.5, which is within
// 1e-4 there. REQUIRES: df >= 1.
double StudentT975(size_t df) noexcept;

struct Summary {
  size_t count = 0;
  double mean = 0;
  double stddev = 0;     // sample standard deviation (n - 1); 0 when count < 2
  double ci95_half = 0;  // t_{0.975,n-1} * stddev / sqrt(n); 0 when count < 2
};
Summary Summarize(std::span<const double> values) noexcept;

// Regularized upper incomplete gamma Q(a, x) = Gamma(a, x) / Gamma(a): the
// series for x < a + 1 and Lentz's continued fraction otherwise (Press et al.,
// Numerical Recipes, 3rd ed., section 6.2, gser/gcf). Relative accuracy ~1e-14.
// REQUIRES: a > 0, x >= 0.
double RegularizedGammaQ(double a, double x) noexcept;

// ln Gamma(a) for a > 0. Thread-safe, unlike std::lgamma, which writes the
// global `signgam` (a data race when cases run on several threads).
double LogGamma(double a) noexcept;

// P(X >= chi2) for X chi-square with `df` degrees of freedom: Q(df/2, chi2/2).
double ChiSquarePValue(double chi2, double df) noexcept;

// Theory of a ring with v points per node and n nodes, equal weights: a
// node's arc total is the sum of v Exp arcs, Gamma(v) (Karger et al. 1997).
struct RingTheory {
  double cv;             // relative std of a node's load: 1/sqrt(v)
  double wh99_low;       // Wilson-Hilferty 99% interval of load/mean:
  double wh99_high;      //   (1 - a -/+ 2.576 sqrt(a))^3, a = 1/(9v)
  double max_over_mean;  // expected max/mean: 1 + sqrt(2 ln n / v)
};
RingTheory RingTheoryFor(double points_per_node, double nodes) noexcept;

// The q-quantile of the standard normal distribution: Acklam's rational
// approximation refined by one Halley step (relative error ~1e-15).
// REQUIRES: 0 < q < 1.
double NormalQuantile(double q) noexcept;

// The q-quantile of one node's load / mean on a ring of v points per node
// (Wilson-Hilferty on Gamma(v)): max(0, 1 - a + z_q sqrt(a))^3, a = 1/(9v).
// RingTheory's wh99 bounds are its 0.005 and 0.995 quantiles.
double WhQuantile(double points_per_node, double q) noexcept;

// The q-quantile of the largest of n nodes' load / mean, the nodes taken as
// independent: WhQuantile(v, q^(1/n)).
double MaxRatioQuantile(double nodes, double points_per_node, double q) noexcept;

// The q-quantile of the CV of the loads across n nodes with v points: the
// normal approximation of a sample standard deviation with Gamma(v)'s
// kurtosis, 1/sqrt(v) * max(0, 1 + z_q sqrt((2 + 6/v) / (4 (n - 1)))).
double CvQuantile(double nodes, double points_per_node, double q) noexcept;

// Wilson (1927) score interval of a probability, k successes in m trials, at
// z = 1.96 (95%); [0, 1] when m = 0.
void WilsonInterval(uint64_t k, uint64_t m, double* lo, double* hi) noexcept;

}  // namespace chsim::sim

#endif  // CHSIM_SIM_BASE_STATS_H_
