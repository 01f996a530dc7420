// SPDX-License-Identifier: Apache-2.0
// JumpConsistentHash's fast loop (integer chain, division off it, exact
// check) against a plain transcription of Guava's consistentHash on inputs
// chosen to reach the check's rare paths: random keys at random and boundary
// bucket counts, and keys whose first draws are crafted (the LCG inverted)
// to give t = 1, t = 2^31 (Guava's negative draw) and quotients landing
// exactly on integers. The golden file (jump_test.cc) pins Guava itself.
#include <gtest/gtest.h>

#include "chsim/algorithms/jump.h"
#include "test_util.h"

namespace chsim {
namespace {

int32_t GuavaReference(uint64_t input, int32_t buckets) {
  uint64_t state = input;
  int32_t candidate = 0;
  for (;;) {
    state = 2862933555777941757ULL * state + 1;
    const int32_t top = static_cast<int32_t>(static_cast<uint32_t>(state >> 33) + 1u);
    const double next = (candidate + 1) / (static_cast<double>(top) / 0x1.0p31);
    if (next >= 0 && next < buckets) {
      candidate = static_cast<int32_t>(next);
    } else {
      return candidate;
    }
  }
}

// The key whose first LCG step gives state `s` (the multiplier's inverse mod 2^64).
uint64_t KeyForFirstState(uint64_t s) {
  uint64_t inv = 2862933555777941757ULL;  // Newton: inv = inv * (2 - a inv), 6 rounds
  for (int i = 0; i < 6; ++i) inv *= 2 - 2862933555777941757ULL * inv;
  return (s - 1) * inv;
}

TEST(JumpFast, EqualsGuavaOnRandomAndBoundaryBucketCounts) {
  testing::SplitMix64 rng(31);
  for (int i = 0; i < 300000; ++i) {
    const uint64_t k = rng.Next();
    const int32_t n = i % 3 == 0   ? 1 + static_cast<int32_t>(rng.Below(100))
                      : i % 3 == 1 ? 1 + static_cast<int32_t>(rng.Below(INT32_MAX))
                                   : INT32_MAX - static_cast<int32_t>(rng.Below(3));
    ASSERT_EQ(JumpConsistentHash(k, n), GuavaReference(k, n)) << k << " " << n;
  }
}

TEST(JumpFast, EqualsGuavaOnCraftedDraws) {
  ASSERT_EQ(2862933555777941757ULL * KeyForFirstState(12345) + 1, 12345u);
  testing::SplitMix64 rng(32);
  size_t cases = 0;
  for (uint64_t top31 :
       {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{3}, (uint64_t{1} << 30) - 1,
        uint64_t{1} << 30, (uint64_t{1} << 31) - 2, (uint64_t{1} << 31) - 1}) {
    for (int low = 0; low < 200; ++low) {
      // First draw t = top31 + 1: t = 1 (huge quotient), t = 2^31 (negative
      // in Guava), powers of two (exact integer quotients), their neighbours.
      const uint64_t state = (top31 << 33) | (rng.Next() >> 31);
      const uint64_t key = KeyForFirstState(state);
      for (int32_t n : {1, 2, 3, 7, 1000, 1 << 20, INT32_MAX}) {
        ASSERT_EQ(JumpConsistentHash(key, n), GuavaReference(key, n))
            << "t=" << top31 + 1 << " n=" << n;
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 8u * 200 * 7);
}

}  // namespace
}  // namespace chsim
