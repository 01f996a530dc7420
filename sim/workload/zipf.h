// SPDX-License-Identifier: Apache-2.0
// ZipfSampler: ranks 1..N with P(k) proportional to 1/k^s, in O(1) memory
// and O(1) expected time per draw, by rejection-inversion (Hoermann &
// Derflinger, "Rejection-inversion to generate variates from monotone
// discrete distributions", ACM TOMACS 6(3), 1996), in the formulation of
// Apache Commons Math's ZipfRejectionInversionSampler. Works for any s > 0
// (s = 1 included) and N up to 2^53.
//
// Deterministic: a draw is a pure function of the uniform stream it reads.
// Thread-safety: immutable after construction; Sample is const.
#ifndef CHSIM_SIM_WORKLOAD_ZIPF_H_
#define CHSIM_SIM_WORKLOAD_ZIPF_H_

#include <cstdint>

#include "sim/base/rng.h"

namespace chsim::sim {

class ZipfSampler {
 public:
  // REQUIRES: n >= 1, exponent > 0.
  ZipfSampler(uint64_t n, double exponent) noexcept;

  // A rank in [1, n]; reads as many values from `rng` as rejections need
  // (1.0x to 1.2x on average).
  uint64_t Sample(SplitMix64& rng) const noexcept;

  uint64_t n() const noexcept { return n_; }
  double exponent() const noexcept { return exponent_; }

 private:
  double H(double x) const noexcept;               // exp(-s log x)
  double HIntegral(double x) const noexcept;       // integral of h from 1 to x (shifted)
  double HIntegralInverse(double x) const noexcept;

  uint64_t n_;
  double exponent_;
  double h_integral_x1_;
  double h_integral_n_;
  double s_;
};

}  // namespace chsim::sim

#endif  // CHSIM_SIM_WORKLOAD_ZIPF_H_
