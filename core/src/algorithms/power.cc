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
// The key hash h is spread once, k = Mix64(h) (so 32-bit key hashers work
// too), and g's uniforms are a SplitMix64 stream seeded from k ^ "power"
// (chsim/splitmix.h), independent of f's bits. The hash of (key, j) is the
// parameter `level_hash`:
//   ""/"mix2"  Mix2(k, j) = Mix64(Mix64(k) ^ j): the default, every answer
//              chsim has given for power (three Mix64 per key);
//   "mix64"    Mix64(k ^ j) = Mix2(h, j): the same construction one Mix64
//              shorter, since k is already a Mix64 of the key (two per key).
// Both are Mix64 of an input that no other hash of the lookup uses (j < 32
// differs from "power"), so the offset is uniform and independent of the
// level's bits and of g; they differ only in which keys go where.
//
// Cost: with the key hash given, a lookup is three Mix64 ("mix2") or two
// ("mix64") when f(key, m) < n, and the walk g besides for the other keys:
// a fraction 1 - n/m of them, largest just above a power of two. LocateBatch
// runs f over 4 or 8 keys at once in vector lanes (simd/power_lanes.h, AVX2
// or AVX-512 as the CPU has and CHSIM_SIMD allows), then finishes the keys
// that need g with the scalar code.
// Against n, the cost follows the share of keys that take g: none at a power
// of two, most just above one (scripts/lookup-vs-n measures it; the figures
// are in docs/reference-engines.md#lookup-time-against-n-2-16-to-2-18).
#include <algorithm>
#include <bit>

#include "chsim/simd.h"
#include "lifo_buckets.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kPowerSpec;

// f(key, m) in vector lanes (simd/power_avx2.cc, simd/power_avx512.cc):
// k[i] = Mix64(hashes[i]), f[i] = PowerF<kRemix>(k[i], mask) for i < count,
// a multiple of 8.
using PowerFirstStageFn = void (*)(const uint64_t* hashes, size_t count, uint32_t mask, bool remix,
                                   uint64_t* k, uint32_t* f) noexcept;
void PowerFirstStageAvx2(const uint64_t*, size_t, uint32_t, bool, uint64_t*, uint32_t*) noexcept;
void PowerFirstStageAvx512(const uint64_t*, size_t, uint32_t, bool, uint64_t*, uint32_t*) noexcept;

namespace {

// The widest kernel the CPU has and CHSIM_SIMD allows; null: scalar only.
PowerFirstStageFn ChooseFirstStage() noexcept {
#if defined(__x86_64__)
  return PickSimd<PowerFirstStageFn>(nullptr, PowerFirstStageAvx2, PowerFirstStageAvx512, true);
#else
  return nullptr;
#endif
}

// f(key, m) with mask = m - 1 (Section VI.A); the hash of (key, j) is
// Mix2(k, j) when kRemix ("mix2"), else Mix64(k ^ j) ("mix64").
template <bool kRemix>
inline uint32_t PowerF(uint64_t k, uint32_t mask) noexcept {
  const uint32_t bits = static_cast<uint32_t>(k) & mask;
  if (bits == 0) return 0;
  const int j = std::bit_width(bits) - 1;  // highest set bit
  const uint32_t h = uint32_t{1} << j;
  const uint64_t level =
      kRemix ? Mix2(k, static_cast<uint64_t>(j)) : Mix64(k ^ static_cast<uint64_t>(j));
  return h + (static_cast<uint32_t>(level) & (h - 1));
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

template <bool kRemix>
struct PowerFn {
  explicit PowerFn(uint32_t n)
      : n(n), mask(static_cast<uint32_t>(std::bit_ceil(n)) - 1), half_mask(mask >> 1) {}
  uint32_t operator()(uint64_t key_hash) const noexcept {
    const uint64_t k = Mix64(key_hash);
    const uint32_t r1 = PowerF<kRemix>(k, mask);
    if (r1 < n) return r1;
    return SecondStage(k);
  }
  // The answer for spread key k when f(k, m) >= n.
  uint32_t SecondStage(uint64_t k) const noexcept {
    const uint32_t r2 = PowerG(k, n, half_mask);
    if (r2 > half_mask) return r2;
    return PowerF<kRemix>(k, half_mask);
  }
  // out[i] = (*this)(hashes[i]), f of blocks of keys in vector lanes.
  void Batch(std::span<const uint64_t> hashes, std::span<uint32_t> out) const noexcept {
    static const PowerFirstStageFn first = ChooseFirstStage();
    constexpr size_t kBlock = 256;
    uint64_t k[kBlock];
    for (size_t i = 0; i < hashes.size(); i += kBlock) {
      const size_t count = std::min(kBlock, hashes.size() - i);
      const size_t lanes = first == nullptr ? 0 : count & ~size_t{7};
      if (lanes > 0) first(hashes.data() + i, lanes, mask, kRemix, k, out.data() + i);
      for (size_t j = 0; j < lanes; ++j) {
        if (out[i + j] >= n) out[i + j] = SecondStage(k[j]);
      }
      for (size_t j = lanes; j < count; ++j) out[i + j] = (*this)(hashes[i + j]);
    }
  }
  uint32_t n, mask, half_mask;  // mask = m - 1, half_mask = m/2 - 1
};

std::vector<std::string_view> LevelHashes() { return {"mix2", "mix64"}; }

constexpr ParamSpec kPowerParams[] = {
    kKeyHasherParam,
    {.name = "level_hash",
     .type = ParamType::kString,
     .doc = "hash of (key, level) in f: mix2 = Mix64(Mix64(k) ^ j) (the default), "
            "mix64 = Mix64(k ^ j) (one Mix64 fewer per key, other answers)",
     .default_text = "",
     .choices = LevelHashes},
};

// "mix64" picks the shorter hash; "" and "mix2" the default one. Each is its
// own LifoBuckets, so Locate stays one direct call of the Fn, branch-free.
std::unique_ptr<Algorithm> MakePower(std::span<const Node> nodes, const Params& p) {
  if (p.Text("level_hash") == "mix64") return MakeLifo<PowerFn<false>, kPowerSpec>(nodes, p);
  return MakeLifo<PowerFn<true>, kPowerSpec>(nodes, p);
}

}  // namespace

constinit const AlgorithmSpec kPowerSpec = LifoSpec({
    .name = "power",
    .summary = "power consistent hash: O(1) expected time and memory; last-in-first-out removal",
    .paper = "Leu, \"Fast Consistent Hashing in Constant Time\", arXiv:2307.12448",
    .year = 2023,
    .params = kPowerParams,
    .make = MakePower,
});

}  // namespace chsim::algorithms_internal
