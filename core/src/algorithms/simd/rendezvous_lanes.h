// SPDX-License-Identifier: Apache-2.0
// Internal: rendezvous's Locate at equal weights (Thaler & Ravishankar,
// IEEE/ACM ToN 1998: the node of the highest draw) over the lanes of a GCC
// vector V of W uint64_t, built per ISA by rendezvous_avx2.cc (-mavx2) and
// rendezvous_avx512.cc (-mavx512f -mavx512dq); rendezvous.cc picks one at
// run time. Lane l scores nodes l, l + W, l + 2W, ... with the draw of
// chsim/rendezvous.h, Mix64(mixed_key ^ seed), keeping its first highest;
// the lanes then give the highest draw at the lowest index, as the scalar
// loop does (tests/algorithms/rendezvous_test.cc compares them at every
// SIMD level the CPU has).
//
// ODR safety: as power_lanes.h.
#ifndef CHSIM_CORE_SRC_ALGORITHMS_SIMD_RENDEZVOUS_LANES_H_
#define CHSIM_CORE_SRC_ALGORITHMS_SIMD_RENDEZVOUS_LANES_H_

#include <cstddef>
#include <cstdint>

#include "mix64_lanes.h"

namespace {

// Lane by lane, (best, index) takes (x, x_index) where x is higher, or equal
// at a lower index.
template <typename V>
inline void KeepHigher(V& best, V& index, V x, V x_index) {
  const V take = (V)((x > best) | ((x == best) & (x_index < index)));
  best = (x & take) | (best & ~take);
  index = (x_index & take) | (index & ~take);
}

// The index of the highest Mix64(mixed_key ^ seeds[i]) over i < n, the lowest
// index among equal draws. REQUIRES: n >= 1. Two accumulators take turns
// over the vectors, so that one compare-and-keep does not wait for the
// other's.
template <typename V>
inline size_t RendezvousBestLanes(uint64_t mixed_key, const uint64_t* seeds, size_t n) {
  constexpr size_t kLanes = sizeof(V) / sizeof(uint64_t);
  auto draws = [&](size_t at) {
    V s;
    __builtin_memcpy(&s, seeds + at, sizeof s);
    return Mix64Lanes(s ^ mixed_key);
  };
  size_t i = 1, best = 0;
  uint64_t best_x = Mix64Lanes(seeds[0] ^ mixed_key);
  if (n >= 2 * kLanes) {
    V index0, index1;
    for (size_t l = 0; l < kLanes; ++l) index0[l] = l, index1[l] = kLanes + l;
    V best0 = draws(0), best1 = draws(kLanes), at0 = index0, at1 = index1;
    for (i = 2 * kLanes; i + 2 * kLanes <= n; i += 2 * kLanes) {
      at0 += 2 * kLanes, at1 += 2 * kLanes;
      const V x0 = draws(i), x1 = draws(i + kLanes);
      const V higher0 = (V)(x0 > best0), higher1 = (V)(x1 > best1);  // first highest per lane
      best0 = (x0 & higher0) | (best0 & ~higher0);
      index0 = (at0 & higher0) | (index0 & ~higher0);
      best1 = (x1 & higher1) | (best1 & ~higher1);
      index1 = (at1 & higher1) | (index1 & ~higher1);
    }
    if (i + kLanes <= n) {
      KeepHigher(best0, index0, draws(i), at1 + kLanes);
      i += kLanes;
    }
    KeepHigher(best0, index0, best1, index1);
    best_x = best0[0], best = index0[0];
    for (size_t l = 1; l < kLanes; ++l) {
      if (best0[l] > best_x || (best0[l] == best_x && index0[l] < best)) {
        best_x = best0[l], best = index0[l];
      }
    }
  }
  for (; i < n; ++i) {  // the nodes no vector took
    const uint64_t x = Mix64Lanes(seeds[i] ^ mixed_key);
    if (x > best_x) best_x = x, best = i;
  }
  return best;
}

}  // namespace

// Defines chsim::algorithms_internal::RendezvousBest<Name>(mixed_key, seeds,
// n) over `bytes`-wide vectors, for rendezvous.cc's dispatcher.
#define CHSIM_RENDEZVOUS_DEFINE_BEST(Name, bytes)                                             \
  namespace chsim::algorithms_internal {                                                      \
  size_t RendezvousBest##Name(uint64_t mixed_key, const uint64_t* seeds, size_t n) noexcept { \
    typedef uint64_t V __attribute__((vector_size(bytes)));                                   \
    return RendezvousBestLanes<V>(mixed_key, seeds, n);                                       \
  }                                                                                           \
  }

#endif  // CHSIM_CORE_SRC_ALGORITHMS_SIMD_RENDEZVOUS_LANES_H_
