// SPDX-License-Identifier: Apache-2.0
// `jump`: jump consistent hash (Lamping & Veach 2014) behind the Algorithm
// interface (lifo_buckets.h: buckets are the live nodes in id order, LIFO
// removal only, no weights). The function is chsim/algorithms/jump.h's,
// Guava-exact with the division off the loop-carried chain. Shares are
// exactly 1/n in expectation but not structurally exact for a finite key set,
// so StructuralShares is not offered.
#include "chsim/algorithms/jump.h"

#include "lifo_buckets.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kJumpSpec;

namespace {

struct JumpFn {
  explicit JumpFn(uint32_t n) : n(static_cast<int32_t>(n)) {}
  uint32_t operator()(uint64_t key) const noexcept {
    return static_cast<uint32_t>(JumpConsistentHash(key, n));
  }
  int32_t n;
};

}  // namespace

constinit const AlgorithmSpec kJumpSpec = LifoSpec({
    .name = "jump",
    .summary = "jump consistent hash, equal to Guava's consistentHash; last-in-first-out removal",
    .paper = "Lamping & Veach, \"A Fast, Minimal Memory, Consistent Hash Algorithm\", "
             "arXiv:1406.2294",
    .year = 2014,
    .make = MakeLifo<JumpFn, kJumpSpec>,
});

}  // namespace chsim::algorithms_internal
