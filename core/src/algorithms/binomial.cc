// SPDX-License-Identifier: Apache-2.0
// `binomial`: BinomialHash (Massimo Coluzzi, Amos Brocco, Alessandro
// Antonucci & Tiziano Leidi, "BinomialHash: A Constant Time, Minimal Memory
// Consistent Hash Algorithm", arXiv:2406.19836, 2024): O(1) time, O(1)
// memory, no parameters. A consistent range hash behind lifo_buckets.h
// (buckets are the live nodes in id order, LIFO removal only, no weights).
//
// Buckets are the nodes of a binary tree by levels: level 0 is {0, 1}, level
// i >= 1 is [2^i, 2^(i+1)). E, the enclosing tree's size, is the smallest
// power of two >= n; M = E / 2 is the minor tree's. The paper's lookup:
// 1. b = key mod E, moved to a random position of its own level (relocation:
//    the level is kept, the offset drawn from a hash of (key, level)); b < n
//    is the answer.
// 2. Up to four times: d = a fresh hash of the key mod E; d < M ends the
//    loop; M <= d < n is the answer.
// 3. b = key mod M, relocated in its level: the answer.
// Growing n below E moves a key only to bucket n (steps 1-2 draw independently
// of n); crossing a power of two doubles E and moves keys only into the new
// bucket. Balance is close to but not exactly uniform: a key that draws >= n
// four times falls to the minor tree, so when n is just above M each upper
// bucket gets (1 + (1 - q^4)) / E with q = (E - n) / E, at most 3.1% below
// 1/n, and the minor tree's buckets slightly more (tests compute the exact
// shares). The four retries are the authors' choice in their implementation.
//
// The key hash is spread once with Mix64; the relocation hash is Mix2(key,
// level mask) and the retries a SplitMix64 stream seeded from the key.
//
// Cost against n: step 1 answers every key when n is a power of two; just
// above one, about half the keys go on to the retries and step 3
// (scripts/lookup-vs-n measures it; the figures are in
// docs/reference-engines.md#lookup-time-against-n-2-16-to-2-18).
#include <bit>

#include "lifo_buckets.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kBinomialSpec;

namespace {

constexpr int kRetries = 4;  // step 2's draws

// Moves bucket b to a random position of its level (b < 2 is the root).
inline uint32_t Relocate(uint32_t b, uint64_t k) noexcept {
  if (b < 2) return b;
  const uint32_t level_base = std::bit_floor(b);
  const uint32_t level_mask = level_base - 1;
  return level_base + (static_cast<uint32_t>(Mix2(k, level_mask)) & level_mask);
}

struct BinomialFn {
  explicit BinomialFn(uint32_t n)
      : n(n),
        upper_mask(static_cast<uint32_t>(std::bit_ceil(n)) - 1),
        lower_mask(upper_mask >> 1) {}

  uint32_t operator()(uint64_t key_hash) const noexcept {
    if (n < 2) return 0;
    const uint64_t k = Mix64(key_hash);
    const uint32_t b = Relocate(static_cast<uint32_t>(k) & upper_mask, k);  // step 1
    if (b < n) return b;
    SplitMix64 draws(k ^ 0x62696e6f6dULL);  // "binom"
    for (int i = 0; i < kRetries; ++i) {    // step 2
      const uint32_t d = static_cast<uint32_t>(draws.Next()) & upper_mask;
      if (d <= lower_mask) break;
      if (d < n) return d;
    }
    return Relocate(static_cast<uint32_t>(k) & lower_mask, k);  // step 3
  }
  uint32_t n;
  uint32_t upper_mask;  // E - 1
  uint32_t lower_mask;  // M - 1
};

}  // namespace

constinit const AlgorithmSpec kBinomialSpec = LifoSpec({
    .name = "binomial",
    .summary = "BinomialHash: buckets as binary-tree levels, O(1); last-in-first-out removal",
    .paper = "Coluzzi, Brocco, Antonucci & Leidi, \"BinomialHash: A Constant Time, Minimal Memory "
             "Consistent Hash Algorithm\", arXiv:2406.19836",
    .year = 2024,
    // Over 100 nodes (E = 128): minor-tree buckets 1.0003 x the mean, upper
    // ones 0.9995 x (the shares above); the bound leaves the rounding.
    .balance_bound = 1.001,
    .make = MakeLifo<BinomialFn, kBinomialSpec>,
});

}  // namespace chsim::algorithms_internal
