// SPDX-License-Identifier: Apache-2.0
// `flip`: FlipHash (Charles Masson & Homin K. Lee, "FlipHash: A Constant-Time
// Consistent Range-Hashing Algorithm", arXiv:2402.17549, 2024): O(1) expected
// time, O(1) memory, no parameters. A consistent range hash behind
// lifo_buckets.h (buckets are the live nodes in id order, LIFO removal only,
// no weights).
//
// The paper's two functions (fliphashPow2 and its general form), with
// H(key, seed) a hash family indexed by a two-part seed:
// - fliphashPow2(key, r), for 2^r buckets: a = H(key, (0, 0)) mod 2^r; if a is
//   0 the answer is 0; else b = floor(log2 a) and the answer is a with its
//   low b bits flipped by H(key, (b, 0)) mod 2^b. A key stays in its level
//   [2^b, 2^(b+1)) and doubling the range moves it only into the new half.
// - fliphashGeneral(key, n), 2^(r-1) < n <= 2^r: x = fliphashPow2(key, r); if
//   x < n it is the answer. Otherwise draw d_i = H(key, (r - 1, i)) mod 2^r
//   for i = 1, 2, ...: d_i < 2^(r-1) falls back to fliphashPow2(key, r - 1);
//   d_i < n is the answer. The draws do not depend on n, so growing n only
//   moves keys to bucket n; the paper caps the draws at 64 (the fallback then
//   biases a bucket by at most 2^-64).
//
// The key hash is spread once with Mix64; H(key, (a, b)) is Mix2(key, a +
// (b << 16)), the paper's seed packing.
//
// Cost against n: fliphashPow2 answers every key when n is a power of two;
// just above one, about half the keys fall past n and draw again
// (scripts/lookup-vs-n measures it; the figures are in
// docs/reference-engines.md#lookup-time-against-n-2-16-to-2-18).
#include <bit>

#include "lifo_buckets.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kFlipSpec;

namespace {

constexpr int kMaxDraws = 64;  // the paper's cap on fliphashGeneral's draws

inline uint64_t FlipH(uint64_t k, uint64_t a, uint64_t b) noexcept {
  return Mix2(k, a + (b << 16));
}

// fliphashPow2 over mask = 2^r - 1 (k is H(key, (0, 0))).
inline uint32_t FlipPow2(uint64_t k, uint32_t mask) noexcept {
  const uint32_t a = static_cast<uint32_t>(k) & mask;
  if (a == 0) return 0;
  const int b = std::bit_width(a) - 1;
  const uint32_t flip =
      static_cast<uint32_t>(FlipH(k, static_cast<uint64_t>(b), 0)) & ((uint32_t{1} << b) - 1);
  return a ^ flip;
}

struct FlipFn {
  explicit FlipFn(uint32_t n)
      : n(n),
        mask(static_cast<uint32_t>(std::bit_ceil(n)) - 1),
        r_minus_1(static_cast<uint64_t>(std::bit_width(mask)) - (mask != 0)) {}

  // fliphashGeneral.
  uint32_t operator()(uint64_t key_hash) const noexcept {
    const uint64_t k = Mix64(key_hash);
    const uint32_t x = FlipPow2(k, mask);
    if (x < n) return x;
    const uint32_t half = (mask >> 1) + 1;  // 2^(r-1)
    for (int i = 1; i <= kMaxDraws; ++i) {
      const uint32_t d =
          static_cast<uint32_t>(FlipH(k, r_minus_1, static_cast<uint64_t>(i))) & mask;
      if (d < half) break;
      if (d < n) return d;
    }
    return FlipPow2(k, mask >> 1);
  }
  uint32_t n;
  uint32_t mask;       // 2^r - 1, 2^r the smallest power of two >= n
  uint64_t r_minus_1;  // the draws' seed
};

}  // namespace

constinit const AlgorithmSpec kFlipSpec = LifoSpec({
    .name = "flip",
    .summary = "FlipHash: a constant-time consistent range hash; last-in-first-out removal",
    .paper = "Masson & Lee, \"FlipHash: A Constant-Time Consistent Range-Hashing Algorithm\", "
             "arXiv:2402.17549",
    .year = 2024,
    .make = MakeLifo<FlipFn, kFlipSpec>,
});

}  // namespace chsim::algorithms_internal
