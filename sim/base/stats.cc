// SPDX-License-Identifier: Apache-2.0
#include "sim/base/stats.h"

#include <math.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

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
  s.ci95_half =
      StudentT975(values.size() - 1) * s.stddev / std::sqrt(static_cast<double>(values.size()));
  return s;
}

double LogGamma(double a) noexcept {
  int sign = 0;
  return ::lgamma_r(a, &sign);  // glibc's: no write to `signgam`
}

namespace {

constexpr double kEps = 1e-15;
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

namespace {

constexpr double kZ995 = 2.5758293035489;  // NormalQuantile(0.995)

// (1 - a + z sqrt(a))^3 with a = 1/(9v), 0 below the cube's zero.
double WhBound(double v, double z) noexcept {
  const double a = 1 / (9 * v);
  const double x = 1 - a + z * std::sqrt(a);
  return x > 0 ? x * x * x : 0;
}

}  // namespace

RingTheory RingTheoryFor(double v, double n) noexcept {
  RingTheory t;
  t.cv = 1 / std::sqrt(v);
  t.wh99_low = WhBound(v, -kZ995);
  t.wh99_high = WhBound(v, kZ995);
  t.max_over_mean = 1 + std::sqrt(2 * std::log(n) / v);
  return t;
}

double NormalQuantile(double q) noexcept {
  // The upper half by symmetry: 1 - q is exact there, and the refinement
  // below keeps its precision only where Phi is far from 1.
  if (q > 0.5) return -NormalQuantile(1 - q);
  // Acklam (2003): rational approximations in the centre and the tails.
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  auto tail = [&](double r) {
    return (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) /
           ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1);
  };
  double x;
  if (q < kLow) {
    x = tail(std::sqrt(-2 * std::log(q)));
  } else {
    const double u = q - 0.5, r = u * u;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * u /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  // One Halley step on Phi(x) - q.
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - q;
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

double WhQuantile(double v, double q) noexcept { return WhBound(v, NormalQuantile(q)); }

double MaxRatioQuantile(double n, double v, double q) noexcept {
  return WhQuantile(v, std::pow(q, 1 / n));
}

double CvQuantile(double n, double v, double q) noexcept {
  const double rel = std::sqrt((2 + 6 / v) / (4 * std::max(n - 1, 1.0)));
  return std::max(0.0, 1 + NormalQuantile(q) * rel) / std::sqrt(v);
}

void WilsonInterval(uint64_t k, uint64_t m, double* lo, double* hi) noexcept {
  if (m == 0) {
    *lo = 0;
    *hi = 1;
    return;
  }
  // Wilson (1927) score interval, z = 1.96 (95%).
  const double z = 1.959963984540054, p = double(k) / double(m), z2 = z * z;
  const double denom = 1 + z2 / double(m);
  const double center = (p + z2 / (2.0 * double(m))) / denom;
  const double half =
      z * std::sqrt(p * (1 - p) / double(m) + z2 / (4.0 * double(m) * double(m))) / denom;
  *lo = std::max(0.0, center - half);
  *hi = std::min(1.0, center + half);
}

}  // namespace chsim::sim
