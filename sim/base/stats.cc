#include "sim/base/stats.h"

#include <algorithm>
#include <math.h>

#include <cmath>
#include <limits>

namespace chsim::sim {

double StudentT975(size_t df) noexcept {
  static constexpr double kTable[31] = {
      0,      12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
      2.2010, 2.1788,  2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796,
      2.0739, 2.0687,  2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};
  if (df == 0) return std::numeric_limits<double>::infinity();
  if (df <= 30) return kTable[df];
  // Abramowitz & Stegun 26.7.5 with the normal quantile z = 1.959964.
  const double z = 1.959963984540054, n = static_cast<double>(df);
  const double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
  return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * n * n * n) +
         (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * n * n * n * n);
}

Summary Summarize(std::span<const double> values) noexcept {
  Summary s;
  s.count = values.size();
  if (values.empty()) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  if (values.size() < 2) return s;
  double ss = 0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(ss / static_cast<double>(values.size() - 1));
  s.ci95_half = StudentT975(values.size() - 1) * s.stddev /
                std::sqrt(static_cast<double>(values.size()));
  return s;
}

namespace {

constexpr double kEps = 1e-15;

// ln Gamma(a) for a > 0. std::lgamma writes the global `signgam` (a data race
// when cases run on several threads); glibc's lgamma_r does not.
double LogGamma(double a) noexcept {
  int sign = 0;
  return ::lgamma_r(a, &sign);
}
constexpr int kMaxIterations = 100000;

// P(a, x) by its series: e^-x x^a / Gamma(a+1) * sum x^k / ((a+1)...(a+k)).
double GammaPSeries(double a, double x) noexcept {
  double ap = a, del = 1.0 / a, sum = del;
  for (int i = 0; i < kMaxIterations; ++i) {
    ap += 1;
    del *= x / ap;
    sum += del;
    if (std::fabs(del) < std::fabs(sum) * kEps) break;
  }
  return sum * std::exp(-x + a * std::log(x) - LogGamma(a));
}

// Q(a, x) by its continued fraction, evaluated with the modified Lentz method.
double GammaQContinuedFraction(double a, double x) noexcept {
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a, c = 1 / kTiny, d = 1 / b, h = d;
  for (int i = 1; i < kMaxIterations; ++i) {
    double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return std::exp(-x + a * std::log(x) - LogGamma(a)) * h;
}

}  // namespace

double RegularizedGammaQ(double a, double x) noexcept {
  if (x <= 0) return 1.0;
  if (x < a + 1) return std::clamp(1.0 - GammaPSeries(a, x), 0.0, 1.0);
  return std::clamp(GammaQContinuedFraction(a, x), 0.0, 1.0);
}

double ChiSquarePValue(double chi2, double df) noexcept {
  return RegularizedGammaQ(df / 2, chi2 / 2);
}

RingTheory RingTheoryFor(double v, double n) noexcept {
  RingTheory t;
  t.cv = 1 / std::sqrt(v);
  double a = 1 / (9 * v);
  double lo = 1 - a - 2.5758293035489 * std::sqrt(a);
  double hi = 1 - a + 2.5758293035489 * std::sqrt(a);
  t.wh99_low = lo > 0 ? lo * lo * lo : 0;
  t.wh99_high = hi * hi * hi;
  t.max_over_mean = 1 + std::sqrt(2 * std::log(n) / v);
  return t;
}

}  // namespace chsim::sim
