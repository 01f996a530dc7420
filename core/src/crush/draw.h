// SPDX-License-Identifier: Apache-2.0
// Straw2's draw, inline for the loops that make one per item: rjenkins1's
// hash32_3 (rjenkins.h), Ceph's crush_ln (chsim/crush.h states what they
// compute; ln.cc gives its source) and the draw itself. The out-of-line
// crush::Hash32_3, Ln and Straw2Draw call these, so the two give the same
// values by construction.
//
// A draw divides by the item's 16.16 weight, truncating toward zero. For the
// weight 1.0 (kWeightOne) the divisor is a constant, which the compiler turns
// into shifts: the common case of equal weights pays no 64-bit division.
//
// Stateless; safe from any thread.
#ifndef CHSIM_CORE_SRC_CRUSH_DRAW_H_
#define CHSIM_CORE_SRC_CRUSH_DRAW_H_

#include <cstddef>
#include <cstdint>

#include "chsim/crush.h"
#include "rjenkins.h"

namespace chsim::crush::internal {

inline uint32_t Hash32_3(uint32_t a, uint32_t b, uint32_t c) noexcept {
  return RjenkinsHash3(a, b, c);
}

// hash32_3(x, items[i], r) into out[i] for each i < count, in vector lanes:
// one hash is a long chain of dependent operations, so many side by side keep
// the ALUs busy. One kernel per ISA (simd/rjenkins_*.cc, and SSE2's in
// hash.cc); Hash32_3LanesForCpu() gives the widest the CPU has and CHSIM_SIMD
// allows (chsim/simd.h), chosen once. Every kernel gives the same values.
using Hash32_3LanesFn = void (*)(uint32_t x, const int32_t* items, size_t count, uint32_t r,
                                 uint32_t* out) noexcept;
Hash32_3LanesFn Hash32_3LanesForCpu() noexcept;

inline uint64_t Ln(uint32_t u, const LnTables& t) noexcept {
  // Normalise x = u + 1 into [2^15, 2^17) and count the shift in the
  // exponent; then log2(x) = log2(top 8 bits) + log2(x / top bits), the
  // first from rh_lh, the second (a value within 1/128 of 1, scaled to
  // 2^15 + 0..255 by the reciprocal) from ll.
  // x <= 2^16, so clz(x) - 16 is the shift for x < 2^15 and at most 0 above;
  // the shift is taken without a branch (half the inputs need one).
  uint32_t x = u + 1;
  const int lead = __builtin_clz(x) - 16;
  const int shift = lead > 0 ? lead : 0;
  x <<= shift;
  const int exponent = 15 - shift;
  const uint32_t index1 = (x >> 8) << 1;
  const uint64_t rh = static_cast<uint64_t>(t.rh_lh[index1 - 256]);
  uint64_t lh = static_cast<uint64_t>(t.rh_lh[index1 + 1 - 256]);
  const uint64_t x1 = (uint64_t{x} * rh) >> 48;
  lh += static_cast<uint64_t>(t.ll[x1 & 0xff]);
  return (static_cast<uint64_t>(exponent) << 44) + (lh >> 4);
}

// The draw of an item whose hash32_3 is `hash`.
inline int64_t Straw2DrawOfHash(uint32_t hash, uint32_t weight, const LnTables& t) noexcept {
  const uint32_t u = hash & 0xffff;
  const int64_t ln = static_cast<int64_t>(internal::Ln(u, t)) - (int64_t{1} << 48);
  // C++ division truncates, as div64_s64.
  if (weight == kWeightOne) return ln / int64_t{kWeightOne};
  return ln / static_cast<int64_t>(weight);
}

inline int64_t Straw2Draw(uint32_t x, int32_t item, uint32_t r, uint32_t weight,
                          const LnTables& t) noexcept {
  return Straw2DrawOfHash(internal::Hash32_3(x, static_cast<uint32_t>(item), r), weight, t);
}

}  // namespace chsim::crush::internal

#endif  // CHSIM_CORE_SRC_CRUSH_DRAW_H_
