// SPDX-License-Identifier: Apache-2.0
// chsim/splitmix.h pinned: SplitMix64 against published outputs (Vigna's
// splitmix64.c with seed 0; the same values come from OpenJDK's
// java.util.SplittableRandom(0).nextLong(), checked on this machine's Java 17),
// and every derived function against values computed from the formulas the
// simulator, the benchmarks and the tests used before they shared this header
// (so seeded results and the callgrind gate's inputs did not move).
#include "chsim/splitmix.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "sim/base/rng.h"

namespace chsim {
namespace {

// Compile-time: the mixer is usable in constant expressions.
static_assert(Mix64(0) == 0xe220a8397b1dcdafULL);
static_assert(SeedTag("a") == 0xaf63dc4c8601ec8cULL);  // FNV-1a 64 published vector

TEST(SplitMix64, PublishedOutputsSeedZero) {
  SplitMix64 rng(0);
  EXPECT_EQ(rng.Next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(rng.Next(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(rng.Next(), 0x06c45d188009454fULL);
  EXPECT_EQ(rng.Next(), 0xf88bb8a8724c81ecULL);
  EXPECT_EQ(rng.Next(), 0x1b39896a51a8749bULL);
}

TEST(SplitMix64, SplittableRandomOutputsOtherSeed) {
  SplitMix64 rng(0x0123456789abcdefULL);  // new SplittableRandom(0x0123456789abcdefL)
  EXPECT_EQ(rng.Next(), 0x157a3807a48faa9dULL);
  EXPECT_EQ(rng.Next(), 0xd573529b34a1d093ULL);
  EXPECT_EQ(rng.Next(), 0x2f90b72e996dccbeULL);
}

TEST(SplitMix64, MixIsTheFirstOutput) {
  for (uint64_t s : {0ULL, 1ULL, 7ULL, 42ULL, ~0ULL}) EXPECT_EQ(Mix64(s), SplitMix64(s).Next());
}

TEST(SplitMix64, SkipJumpsAhead) {
  SplitMix64 a(3), b(3);
  for (int i = 0; i < 1000; ++i) a.Next();
  b.Skip(1000);
  EXPECT_EQ(a.state(), b.state());
  EXPECT_EQ(a.Next(), b.Next());
  EXPECT_EQ(Mix64(b.state()), SplitMix64(b.state()).Next());
}

// The benchmarks' inputs (bench_common.h): MakeHashes(seed 7) and MakeKeys
// (seed 42, Bounded(Next(), 62) picks alphanumerics), from the old private copy.
TEST(SplitMix64, BenchmarkStreamsUnchanged) {
  SplitMix64 hashes(7);
  EXPECT_EQ(hashes.Next(), 0x63cbe1e459320dd7ULL);
  EXPECT_EQ(hashes.Next(), 0x044c3cd7f43c661cULL);
  EXPECT_EQ(hashes.Next(), 0xe6984080bab12a02ULL);
  SplitMix64 keys(42);
  for (uint64_t want : {45, 9, 17, 21, 2, 53}) EXPECT_EQ(Bounded(keys.Next(), 62), want);
}

// The simulator's names (sim/rng.h) are these functions, with the old values.
TEST(SplitMix64, SimulatorDerivationUnchanged) {
  EXPECT_EQ(DeriveSeed(1, 2), 0x6bcd4ba07f7b6911ULL);
  EXPECT_EQ(DeriveSeed(0, 0), 0x376bdc4ac5736bd4ULL);
  EXPECT_EQ(SeedTag("keys"), 0x581987d75cbd3e2dULL);
  EXPECT_EQ(sim::Derive(1, 2), DeriveSeed(1, 2));
  EXPECT_EQ(sim::Tag("keys"), SeedTag("keys"));
  EXPECT_EQ(sim::Mix(5), Mix64(5));
  EXPECT_EQ(sim::Unit(123), UnitOpen(123));
  EXPECT_EQ(sim::Bounded(~0ULL, 10), 9u);
}

TEST(SplitMix64, UnitOpenEndpoints) {
  EXPECT_EQ(UnitOpen(0), 0x1.0p-54);
  EXPECT_EQ(UnitOpen(~0ULL), 1.0 - 0x1.0p-54);
  EXPECT_EQ(UnitOpen(1ULL << 63), 0.5 + 0x1.0p-54);
}

TEST(SplitMix64, BoundedIsMultiplyHigh) {
  EXPECT_EQ(Bounded(0, 7), 0u);
  EXPECT_EQ(Bounded(~0ULL, 7), 6u);
  EXPECT_EQ(Bounded(1ULL << 63, 7), 3u);
  EXPECT_EQ(Bounded(1ULL << 63, 1ULL << 40), 1ULL << 39);
}

// Below is exact: for range 2^63 + 1 half of the draws fall in the biased
// region (low < 2^64 mod range = 2^63 - 1) and are drawn again.
TEST(SplitMix64, BelowRejectsTheBiasedRegion) {
  const uint64_t range = (1ULL << 63) + 1;
  const uint64_t threshold = (0 - range) % range;
  ASSERT_EQ(threshold, (1ULL << 63) - 1);
  SplitMix64 rng(9), shadow(9);
  int rejected = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t got = rng.Below(range);
    ASSERT_LT(got, range);
    uint64_t x = shadow.Next();
    while (static_cast<uint64_t>(static_cast<unsigned __int128>(x) * range) < threshold) {
      ++rejected;
      x = shadow.Next();
    }
    ASSERT_EQ(got, Bounded(x, range));
  }
  EXPECT_GT(rejected, 300);  // about 1000 expected; the shadow proves each was redrawn
  // A small range practically never rejects: Below equals the multiply-shift.
  SplitMix64 a(11), b(11);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.Below(62), Bounded(b.Next(), 62));
}

}  // namespace
}  // namespace chsim
