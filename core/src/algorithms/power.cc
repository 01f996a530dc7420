// SPDX-License-Identifier: Apache-2.0
// `power`: power consistent hash (Eric Leu, "Fast Consistent Hashing in
// Constant Time", arXiv:2307.12448, 2023): O(1) expected time, O(1) memory, no
// parameters. A consistent range hash behind lifo_buckets.h (buckets are the
// live nodes in id order, LIFO removal only, no weights).
//
// With m the smallest power of two >= n, the paper's lookup is:
//   r1 = f(key, m); if r1 < n return r1;
//   r2 = g(key, n, m/2 - 1); if r2 > m/2 - 1 return r2;
//   return f(key, m/2).
// f (Section VI.A) is consistent over powers of two: the highest set bit j of
// the key's low log2(m) bits picks the level [2^j, 2^(j+1)), and a hash of
// (key, j) a bucket in it, so doubling m moves a key only into the new half.
// g (Section VI.B) is jump's walk started at s = m/2 - 1: x <- s; repeat
// { U ~ U(0, 1) from the key; r = ceil((x + 1) / U) - 1; if r >= n return x;
// x <- r }, which returns s with probability (s + 1) / n and each of s+1..n-1
// with 1/n. Together every bucket gets 1/n, and growing n to n + 1 moves a
// key only to bucket n (the paper proves both; tests/algorithms/range_hash_test.cc
// checks them).
//
// The key hash is spread once with Mix64 (so 32-bit key hashers work too);
// the hash of (key, j) is Mix2(key, j) and g's uniforms are a SplitMix64
// stream seeded from the key (chsim/splitmix.h), independent of f's bits.
#include <bit>

#include "lifo_buckets.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kPowerSpec;

namespace {

// f(key, m) with mask = m - 1 (Section VI.A).
inline uint32_t PowerF(uint64_t k, uint32_t mask) noexcept {
  const uint32_t bits = static_cast<uint32_t>(k) & mask;
  if (bits == 0) return 0;
  const int j = std::bit_width(bits) - 1;  // highest set bit
  const uint32_t h = uint32_t{1} << j;
  return h + (static_cast<uint32_t>(Mix2(k, static_cast<uint64_t>(j))) & (h - 1));
}

// g(key, n, s) (Section VI.B): the largest x of the walk below n.
inline uint32_t PowerG(uint64_t k, uint32_t n, uint32_t s) noexcept {
  double x = s;
  const double limit = n;
  SplitMix64 u(k ^ 0x706f776572ULL);  // "power"
  for (;;) {
    // r = ceil((x + 1) / U) - 1 < n  <=>  (x + 1) / U <= n.
    const double q = (x + 1.0) / UnitOpen(u.Next());
    if (!(q <= limit)) return static_cast<uint32_t>(x);
    const double t = static_cast<double>(static_cast<uint64_t>(q));  // q in (x + 1, n]
    x = t == q ? t - 1.0 : t;                                        // ceil(q) - 1
  }
}

struct PowerFn {
  explicit PowerFn(uint32_t n)
      : n(n), mask(static_cast<uint32_t>(std::bit_ceil(n)) - 1), half_mask(mask >> 1) {}
  uint32_t operator()(uint64_t key_hash) const noexcept {
    const uint64_t k = Mix64(key_hash);
    const uint32_t r1 = PowerF(k, mask);
    if (r1 < n) return r1;
    const uint32_t r2 = PowerG(k, n, half_mask);
    if (r2 > half_mask) return r2;
    return PowerF(k, half_mask);
  }
  uint32_t n, mask, half_mask;  // mask = m - 1, half_mask = m/2 - 1
};

}  // namespace

constinit const AlgorithmSpec kPowerSpec = LifoSpec({
    .name = "power",
    .summary = "power consistent hash: O(1) expected time and memory; last-in-first-out removal",
    .paper = "Leu, \"Fast Consistent Hashing in Constant Time\", arXiv:2307.12448",
    .year = 2023,
    .make = MakeLifo<PowerFn, kPowerSpec>,
});

}  // namespace chsim::algorithms_internal
