// SPDX-License-Identifier: Apache-2.0
// JumpBackHash's walk over a caller's SplitMix64 stream, and the bounded
// 32-bit draw that continues it: what `jumpback` (jumpback.cc) and
// `jumpback_anchor` (jumpback_anchor.cc) share, so that both give the buckets
// of Dynatrace's hash4j for the same 64-bit hash (hash4j's
// ConsistentJumpBackBucketHasher and AbstractPseudoRandomGenerator.uniformInt
// over PseudoRandomGeneratorProvider.splitMix64_V1(), whose stream seeded with
// s is chsim's SplitMix64(s)).
//
// The walk (Ertl, "JumpBackHash", arXiv:2403.18682) goes down the jump
// sequence: the first draw's bits mark, per power-of-two level [2^i,
// 2^(i+1)) below n, whether the key's largest jump lands in that level.
// Starting from the highest marked level, the jump's position in the level
// comes from the first draw; a position < n is the answer; one >= n draws
// again (each 64-bit draw giving two 32-bit candidates) until a candidate
// falls below n (answer) or below the level (the level is skipped). Level 0
// is bucket 0.
//
// Thread-safety: pure functions of their arguments and the stream they
// advance; allocation-free.
#ifndef CHSIM_CORE_SRC_ALGORITHMS_JUMPBACK_H_
#define CHSIM_CORE_SRC_ALGORITHMS_JUMPBACK_H_

#include <bit>
#include <cstdint>

#include "chsim/splitmix.h"

namespace chsim::algorithms_internal {

// All ones below the highest bit of n - 1: the levels a walk over n buckets
// may mark (0 for n <= 1).
inline uint32_t JumpBackLevelMask(uint32_t n) noexcept {
  return n <= 1 ? 0 : UINT32_MAX >> std::countl_zero(n - 1);
}

// The bucket in [0, n) of the key whose stream is `random`, advancing it by
// the draws the walk takes (one at least). `level_mask` =
// JumpBackLevelMask(n). REQUIRES: n >= 2.
inline uint32_t JumpBackWalk(uint32_t n, uint32_t level_mask, SplitMix64& random) noexcept {
  const uint64_t r0 = random.Next();
  uint32_t levels = static_cast<uint32_t>(r0 ^ (r0 >> 32)) & level_mask;
  for (;;) {
    if (levels == 0) return 0;
    const uint32_t level_min = uint32_t{1} << (31 - std::countl_zero(levels));
    // The jump's offset in the level, from r0's half chosen by the parity of
    // the marked levels (hash4j's r0 >>> (bitCount << 5), a long shift mod 64).
    const int shift = (std::popcount(levels) & 1) << 5;
    uint32_t bucket = level_min + (static_cast<uint32_t>(r0 >> shift) & (level_min - 1));
    if (bucket < n) return bucket;
    const uint32_t level_max = (level_min << 1) - 1;
    for (;;) {  // redraw in [0, 2 level_min) until below n or below the level
      const uint64_t r1 = random.Next();
      bucket = static_cast<uint32_t>(r1) & level_max;
      if (bucket < level_min) break;
      if (bucket < n) return bucket;
      bucket = static_cast<uint32_t>(r1 >> 32) & level_max;
      if (bucket < level_min) break;
      if (bucket < n) return bucket;
    }
    levels ^= level_min;
  }
}

// Uniform in [0, range) from the low 32 bits of each draw, exact: Lemire's
// "Fast random integer generation in an interval" (ACM TOMACS 2019),
// Algorithm 5 with L = 32, as hash4j's uniformInt. REQUIRES: 0 < range < 2^31.
inline uint32_t Below32(SplitMix64& random, uint32_t range) noexcept {
  uint64_t m = (random.Next() & UINT32_MAX) * range;
  if (static_cast<uint32_t>(m) < range) {
    const uint32_t threshold = static_cast<uint32_t>((uint64_t{1} << 32) % range);
    while (static_cast<uint32_t>(m) < threshold) m = (random.Next() & UINT32_MAX) * range;
  }
  return static_cast<uint32_t>(m >> 32);
}

}  // namespace chsim::algorithms_internal

#endif  // CHSIM_CORE_SRC_ALGORITHMS_JUMPBACK_H_
