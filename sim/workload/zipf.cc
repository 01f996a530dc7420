// SPDX-License-Identifier: Apache-2.0
#include "sim/workload/zipf.h"

#include <cmath>

namespace chsim::sim {
namespace {

// log1p(x)/x, continuous at 0 (its Taylor series there).
double Helper1(double x) noexcept {
  if (std::fabs(x) > 1e-8) return std::log1p(x) / x;
  return 1 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

// expm1(x)/x, continuous at 0.
double Helper2(double x) noexcept {
  if (std::fabs(x) > 1e-8) return std::expm1(x) / x;
  return 1 + x * 0.5 * (1 + x / 3.0 * (1 + 0.25 * x));
}

}  // namespace

ZipfSampler::ZipfSampler(uint64_t n, double exponent) noexcept : n_(n), exponent_(exponent) {
  h_integral_x1_ = HIntegral(1.5) - 1.0;
  h_integral_n_ = HIntegral(static_cast<double>(n) + 0.5);
  s_ = 2.0 - HIntegralInverse(HIntegral(2.5) - H(2.0));
}

double ZipfSampler::H(double x) const noexcept { return std::exp(-exponent_ * std::log(x)); }

double ZipfSampler::HIntegral(double x) const noexcept {
  double log_x = std::log(x);
  return Helper2((1.0 - exponent_) * log_x) * log_x;
}

double ZipfSampler::HIntegralInverse(double x) const noexcept {
  double t = x * (1.0 - exponent_);
  if (t < -1.0) t = -1.0;  // guards round-off near the end of the support
  return std::exp(Helper1(t) * x);
}

uint64_t ZipfSampler::Sample(SplitMix64& rng) const noexcept {
  for (;;) {
    double u = h_integral_n_ + rng.NextUnit() * (h_integral_x1_ - h_integral_n_);
    double x = HIntegralInverse(u);
    double kd = std::floor(x + 0.5);
    uint64_t k;
    if (kd < 1) {
      k = 1;
    } else if (kd > static_cast<double>(n_)) {
      k = n_;
    } else {
      k = static_cast<uint64_t>(kd);
    }
    double kk = static_cast<double>(k);
    // Accept immediately inside the squeeze, else test against the hat.
    if (kk - x <= s_ || u >= HIntegral(kk + 0.5) - H(kk)) return k;
  }
}

}  // namespace chsim::sim
