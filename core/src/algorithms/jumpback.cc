// SPDX-License-Identifier: Apache-2.0
// `jumpback`: JumpBackHash (Otmar Ertl, "JumpBackHash: Say Goodbye to the
// Modulo Operation to Distribute Keys Uniformly to Buckets", arXiv:2403.18682,
// 2024; Dynatrace's hash4j ConsistentHashing.jumpBackHash): O(1) expected
// time, no floating point, no parameters. A consistent range hash behind
// lifo_buckets.h (buckets are the live nodes in id order, LIFO removal only,
// no weights).
//
// The walk and its generator are jumpback.h's (shared with jumpback_anchor).
// Each bucket gets 1/n and growing n moves a key only to the new bucket, as
// jump.
//
// The pseudo-random generator is SplitMix64 seeded with the key hash (chsim's
// SplitMix64 stream: the first draw is Mix64(hash)), as hash4j's
// jumpBackHashSplitMix64(), and the bit twiddling follows hash4j's
// implementation of the paper's algorithm, so for the same 64-bit hash the
// buckets equal hash4j's (the walk is proven through jumpback_anchor's hash4j
// goldens, tests/algorithms/jumpback_anchor_hash4j_test.cc).
//
// Cost against n: when n is a power of two the highest level's position is
// always below n; just above one, most draws in the top level land at or
// above n and draw again (scripts/lookup-vs-n measures it; the figures are in
// docs/reference-engines.md#lookup-time-against-n-2-16-to-2-18).
#include "jumpback.h"

#include "lifo_buckets.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kJumpBackSpec;

namespace {

struct JumpBackFn {
  explicit JumpBackFn(uint32_t n) : n(n), level_mask(JumpBackLevelMask(n)) {}

  uint32_t operator()(uint64_t hash) const noexcept {
    if (n <= 1) return 0;
    SplitMix64 random(hash);
    return JumpBackWalk(n, level_mask, random);
  }
  uint32_t n;
  uint32_t level_mask;  // JumpBackLevelMask(n)
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
