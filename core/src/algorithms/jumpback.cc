// SPDX-License-Identifier: Apache-2.0
// `jumpback`: JumpBackHash (Otmar Ertl, "JumpBackHash: Say Goodbye to the
// Modulo Operation to Distribute Keys Uniformly to Buckets", arXiv:2403.18682,
// 2024; Dynatrace's hash4j ConsistentHashing.jumpBackHash): O(1) expected
// time, no floating point, no parameters. A consistent range hash behind
// lifo_buckets.h (buckets are the live nodes in id order, LIFO removal only,
// no weights).
//
// The paper's algorithm walks the jump sequence backwards: the
// key's random bits mark, per power-of-two level [2^i, 2^(i+1)), whether the
// key's largest jump lands in that level. Starting from the highest level
// below n, a marked level draws the jump's position in the level; a position
// < n is the answer; one >= n draws again (the inner loop, each 64-bit draw
// giving two 32-bit candidates) until it falls below n (answer) or below the
// level (the level is skipped: the jump happened later). The unmarked and
// skipped levels are passed; level 0 is bucket 0. Each bucket gets 1/n and
// growing n moves a key only to the new bucket, as jump.
//
// The pseudo-random generator is SplitMix64 seeded with the key hash (chsim's
// SplitMix64 stream: the first draw is Mix64(hash)), as hash4j's
// jumpBackHashSplitMix64(), and the bit twiddling follows hash4j's
// implementation of the paper's algorithm, so for the same 64-bit hash the
// buckets are meant to equal hash4j's.
//
// Cost against n: when n is a power of two the highest level's position is
// always below n; just above one, most draws in the top level land at or
// above n and draw again. Measured over n = 2^16..2^18 (35 sizes,
// scripts/lookup-vs-n; docs/reference-engines.md has the figure and the machine):
// 5.5 ns per lookup at 2^17, 22.0 ns at 2^17 + 1 (4.0x).
#include <bit>

#include "lifo_buckets.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kJumpBackSpec;

namespace {

struct JumpBackFn {
  explicit JumpBackFn(uint32_t n)
      : n(n), level_mask(n <= 1 ? 0 : UINT32_MAX >> std::countl_zero(n - 1)) {}

  uint32_t operator()(uint64_t hash) const noexcept {
    if (n <= 1) return 0;
    SplitMix64 random(hash);
    const uint64_t r0 = random.Next();
    // One bit per level below n: is the key's last jump in that level?
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
  uint32_t n;
  uint32_t level_mask;  // all ones below the highest bit of n - 1
};

}  // namespace

constinit const AlgorithmSpec kJumpBackSpec = LifoSpec({
    .name = "jumpback",
    .summary = "JumpBackHash: jump walked backwards, O(1) without floating point; "
               "last-in-first-out removal",
    .paper = "Ertl, \"JumpBackHash: Say Goodbye to the Modulo Operation to Distribute Keys "
             "Uniformly to Buckets\", arXiv:2403.18682",
    .year = 2024,
    .make = MakeLifo<JumpBackFn, kJumpBackSpec>,
});

}  // namespace chsim::algorithms_internal
