// SPDX-License-Identifier: Apache-2.0
// Internal: the first stage of power (Leu, "Fast Consistent Hashing in
// Constant Time", arXiv:2307.12448, Section VI.A: f(key, m) of the spread
// key) over the lanes of a GCC vector V of W uint64_t, written once and built
// per ISA by power_avx2.cc (-mavx2) and power_avx512.cc (-mavx512f
// -mavx512dq); power.cc picks one at run time for LocateBatch and finishes
// the keys that need the second stage with its scalar code. Each lane
// computes exactly what power.cc's scalar PowerF does
// (tests/algorithms/range_batch_test.cc compares them at every SIMD level the
// CPU has).
//
// ODR safety: as md5_multibuffer_impl.h, everything has internal linkage and
// no standard header with inline functions is included, so code built for one
// ISA can never be picked by the linker for another.
#ifndef CHSIM_CORE_SRC_ALGORITHMS_SIMD_POWER_LANES_H_
#define CHSIM_CORE_SRC_ALGORITHMS_SIMD_POWER_LANES_H_

#include <cstddef>
#include <cstdint>

#include "mix64_lanes.h"

namespace {

// For i < count (a multiple of W): k[i] = Mix64(hashes[i]), and f[i] =
// f(k[i], mask + 1): with bits the key's low bits under mask, 0 when bits is
// 0, else 2^j + (L(k, j) & (2^j - 1)), j the highest set bit of bits and the
// level hash L(k, j) = Mix2(k, j) = Mix64(Mix64(k) ^ j) when kRemix ("mix2"),
// else Mix64(k ^ j) ("mix64").
template <typename V, bool kRemix>
inline void PowerFirstStageLanes(const uint64_t* hashes, size_t count, uint32_t mask, uint64_t* k,
                                 uint32_t* f) {
  constexpr size_t kLanes = sizeof(V) / sizeof(uint64_t);
  typedef double D __attribute__((vector_size(sizeof(V))));
  for (size_t i = 0; i < count; i += kLanes) {
    V h;
    __builtin_memcpy(&h, hashes + i, sizeof h);
    const V key = Mix64Lanes(h);
    const V bits = key & mask;
    // The highest set bit from the exponent of bits as a double, exact since
    // bits < 2^52: the bit pattern 2^52 + bits, less 2^52.
    const D exact = (D)(bits | 0x4330000000000000ULL) - 0x1p52;
    const V j = (((V)exact >> 52) - 1023) & 63;  // garbage (unused) where bits == 0
    const V top = (V{} + 1) << j;
    const V offset = Mix64Lanes((kRemix ? Mix64Lanes(key) : key) ^ j) & (top - 1);
    const V r = (top + offset) & (V)(bits != 0);
    __builtin_memcpy(k + i, &key, sizeof key);
    for (size_t l = 0; l < kLanes; ++l) f[i + l] = static_cast<uint32_t>(r[l]);
  }
}

}  // namespace

// Defines chsim::algorithms_internal::PowerFirstStage<Name>(hashes, count,
// mask, remix, k, f) over `bytes`-wide vectors, for power.cc's dispatcher.
#define CHSIM_POWER_DEFINE_FIRST_STAGE(Name, bytes)                                           \
  namespace chsim::algorithms_internal {                                                      \
  void PowerFirstStage##Name(const uint64_t* hashes, size_t count, uint32_t mask, bool remix, \
                             uint64_t* k, uint32_t* f) noexcept {                             \
    typedef uint64_t V __attribute__((vector_size(bytes)));                                   \
    if (remix) {                                                                              \
      PowerFirstStageLanes<V, true>(hashes, count, mask, k, f);                               \
    } else {                                                                                  \
      PowerFirstStageLanes<V, false>(hashes, count, mask, k, f);                              \
    }                                                                                         \
  }                                                                                           \
  }

#endif  // CHSIM_CORE_SRC_ALGORITHMS_SIMD_POWER_LANES_H_
