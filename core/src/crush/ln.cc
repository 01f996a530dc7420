// SPDX-License-Identifier: Apache-2.0
// Straw2's fixed-point logarithm and draw (chsim/crush.h), as Ceph's
// src/crush/mapper.c computes them (crush_ln, bucket_straw2_choose), over
// tables chsim computes from their rules:
//  - rh_lh[2k]     = ceil(2^55 / (128 + k)), k = 0..128: a reciprocal;
//  - rh_lh[2k + 1] = floor(2^48 log2(1 + k/128)), k = 0..127, and for k =
//    128 the value 2^48 - 2^32, which keeps Ln(0xffff) below 2^48 (so every
//    draw is negative: straw2's comment in mapper.c maps [0, 0xffff] to
//    [0, 0xffffffffffff]);
//  - ll[k] = floor(2^48 log2(1 + k/2^15)) + (k >= 2 ? 0x147700000 : 0),
//    k = 0..255: the header's formula plus a constant of 0.443 of one step
//    (the centre of the inputs each entry serves lies that far into it).
// These rules were found by comparing with the tables in Ceph 16.2's
// libceph-common (tests/crush/ reads them there as an oracle, at test time
// only): the first table equals Ceph's entry for entry; 214 of the 256
// entries of the second do. Of the other 42, 19 follow the header's formula
// without the constant and 23 follow no rule found (their hex digits repeat
// runs of their neighbours'). docs/design.md ("CRUSH") gives the licence
// reasoning: Ceph's table is LGPL-2.1, so chsim does not copy it.
#include <cfloat>
#include <cmath>

#include "chsim/crush.h"
#include "draw.h"

namespace chsim::crush {
namespace {

static_assert(LDBL_MANT_DIG >= 64, "the ln tables need an extended long double");

// floor(2^48 log2(1 + num/den)); the values lie at least 3e-4 from an
// integer, far above long double's error at 2^48.
int64_t FloorLog2Scaled(uint32_t num, uint32_t den) {
  const long double v = std::ldexp(std::log2l(1.0L + static_cast<long double>(num) / den), 48);
  return static_cast<int64_t>(std::floor(v));
}

LnTables Generate() {
  LnTables t{};
  for (uint32_t k = 0; k <= 128; ++k) {
    const uint64_t d = 128 + k;
    t.rh_lh[2 * k] = static_cast<int64_t>(((uint64_t{1} << 55) + d - 1) / d);
    t.rh_lh[2 * k + 1] =
        k < 128 ? FloorLog2Scaled(k, 128) : (int64_t{1} << 48) - (int64_t{1} << 32);
  }
  for (uint32_t k = 0; k < 256; ++k) {
    t.ll[k] = FloorLog2Scaled(k, 1u << 15) + (k >= 2 ? int64_t{0x147700000} : 0);
  }
  return t;
}

}  // namespace

const LnTables& GeneratedLnTables() noexcept {
  static const LnTables tables = Generate();
  return tables;
}

uint64_t Ln(uint32_t u, const LnTables& t) noexcept { return internal::Ln(u, t); }

int64_t Straw2Draw(uint32_t x, int32_t item, uint32_t r, uint32_t weight,
                   const LnTables& tables) noexcept {
  return internal::Straw2Draw(x, item, r, weight, tables);
}

int32_t Straw2Choose(std::span<const int32_t> items, std::span<const uint32_t> weights, uint32_t x,
                     uint32_t r, const LnTables& tables) noexcept {
  size_t high = 0;
  int64_t high_draw = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const int64_t draw =
        weights[i] != 0 ? internal::Straw2Draw(x, items[i], r, weights[i], tables) : INT64_MIN;
    if (i == 0 || draw > high_draw) high = i, high_draw = draw;
  }
  return items[high];
}

}  // namespace chsim::crush
