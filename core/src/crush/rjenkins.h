// SPDX-License-Identifier: Apache-2.0
// Internal: rjenkins1's hash32_3 (Ceph's src/crush/hash.c, from Bob Jenkins'
// lookup2 `mix`, "Hash functions", Dr. Dobb's Journal 1997) over any type
// with 32-bit wrapping arithmetic: uint32_t, or a GCC vector of uint32_t,
// where it hashes every lane at once. hash.cc and draw.h use it on scalars,
// simd/rjenkins_avx2.cc and simd/rjenkins_avx512.cc on vectors.
//
// ODR safety: as core/src/algorithms/simd/power_lanes.h, everything has
// internal linkage and no standard header with inline functions is included,
// so code built for one ISA can never be picked by the linker for another.
#ifndef CHSIM_CORE_SRC_CRUSH_RJENKINS_H_
#define CHSIM_CORE_SRC_CRUSH_RJENKINS_H_

#include <cstddef>
#include <cstdint>

namespace {

constexpr uint32_t kRjenkinsSeed = 1315423911u;
constexpr uint32_t kRjenkinsX = 231232u;
constexpr uint32_t kRjenkinsY = 1232u;

// Jenkins' mix of three 32-bit words; c carries the result.
template <typename T>
constexpr void RjenkinsMix(T& a, T& b, T& c) noexcept {
  a -= b, a -= c, a ^= c >> 13;
  b -= c, b -= a, b ^= a << 8;
  c -= a, c -= b, c ^= b >> 13;
  a -= b, a -= c, a ^= c >> 12;
  b -= c, b -= a, b ^= a << 16;
  c -= a, c -= b, c ^= b >> 5;
  a -= b, a -= c, a ^= c >> 3;
  b -= c, b -= a, b ^= a << 10;
  c -= a, c -= b, c ^= b >> 15;
}

// crush_hash32_rjenkins1_3(a, b, c).
template <typename T>
constexpr T RjenkinsHash3(T a, T b, T c) noexcept {
  const T zero = a - a;
  T h = (zero + kRjenkinsSeed) ^ a ^ b ^ c, x = zero + kRjenkinsX, y = zero + kRjenkinsY;
  RjenkinsMix(a, b, h);
  RjenkinsMix(c, x, h);
  RjenkinsMix(y, a, h);
  RjenkinsMix(b, x, h);
  RjenkinsMix(y, c, h);
  return h;
}

// out[i] = hash32_3(x, items[i], r) for i < count, in lanes of a GCC vector
// V of uint32_t; the last partial vector is hashed from a padded copy.
template <typename V>
inline void RjenkinsHash3Lanes(uint32_t x, const int32_t* items, size_t count, uint32_t r,
                               uint32_t* out) noexcept {
  constexpr size_t kLanes = sizeof(V) / sizeof(uint32_t);
  const V zero = {};
  const V xs = zero + x, rs = zero + r;
  size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    V b;
    __builtin_memcpy(&b, items + i, sizeof(V));
    const V h = RjenkinsHash3(xs, b, rs);
    __builtin_memcpy(out + i, &h, sizeof(V));
  }
  if (i == count) return;
  uint32_t tail[kLanes] = {};
  __builtin_memcpy(tail, items + i, (count - i) * sizeof(uint32_t));
  V b;
  __builtin_memcpy(&b, tail, sizeof(V));
  const V h = RjenkinsHash3(xs, b, rs);
  __builtin_memcpy(tail, &h, sizeof(V));
  __builtin_memcpy(out + i, tail, (count - i) * sizeof(uint32_t));
}

}  // namespace

// Defines chsim::crush::internal::Hash32_3Lanes<Name>, built for the ISA of
// the file that expands it, with vectors of `bytes` bytes.
#define CHSIM_CRUSH_DEFINE_HASH_LANES(Name, bytes)                                     \
  namespace chsim::crush::internal {                                                   \
  void Hash32_3Lanes##Name(uint32_t x, const int32_t* items, size_t count, uint32_t r, \
                           uint32_t* out) noexcept {                                   \
    typedef uint32_t V __attribute__((vector_size(bytes)));                            \
    RjenkinsHash3Lanes<V>(x, items, count, r, out);                                    \
  }                                                                                    \
  }

#endif  // CHSIM_CORE_SRC_CRUSH_RJENKINS_H_
