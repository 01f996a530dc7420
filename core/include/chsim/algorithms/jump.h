// SPDX-License-Identifier: Apache-2.0
// Jump consistent hash (Lamping & Veach, "A Fast, Minimal Memory, Consistent
// Hash Algorithm", arXiv:1406.2294, 2014), bit for bit as Guava's
// Hashing.consistentHash(long, int) computes it.
//
// Guava and the paper differ in floating-point detail: Guava draws
// ((int)(state >>> 33) + 1) / 2^31 as a Java int, which overflows to -2^31 when
// the top 31 bits are all ones (the walk then stops), divides (candidate + 1)
// by that double once (the paper multiplies by a separately rounded ratio),
// and narrows with Java's saturating (int) cast. This function returns
// Guava's answer, so chsim's jump equals the Java ecosystem's
// (tests/compat/golden/jump.tsv, generated from Debian's libguava-java,
// proves it).
//
// Speed (the point of the paper's C++ form, which computes 2^31 / draw from
// the LCG state alone): the division is taken off the loop-carried chain. Each step draws
// t = (state >> 33) + 1 and the next candidate is floor((c + 1) * 2^31 / t);
// the reciprocal 2^63 / t is computed from the state alone (a double division
// the CPU overlaps with the previous step), and the chain is one 64 x 64-bit
// high multiply: c -> ((c + 1) << 32) * r >> 64. An exact integer check beside
// it (j t <= (c + 1) 2^31 < (j + 1) t, with a margin of half a double ulp)
// proves the candidate equals floor of Guava's rounded double; a step that
// fails it (a quotient within 2^-22 of an integer, r's ~32 significant bits
// making j one short for large quotients, Guava's int overflow) finishes in
// Guava's own arithmetic, so the answer never differs. The check is
// predicted, not waited for. About 13% of keys (random keys, n = 10^3 to
// 2^31 - 1) leave the fast loop at some step; still ~2.5x Guava's loop at 10^6.
//
// Pure, thread-safe, noexcept, allocation-free. Stable across versions.
#ifndef CHSIM_ALGORITHMS_JUMP_H_
#define CHSIM_ALGORITHMS_JUMP_H_

#include <cstdint>

namespace chsim {

namespace jump_internal {

inline constexpr uint64_t kLcgMultiplier = 2862933555777941757ULL;

// Guava's loop from candidate `c` (with next = (c + 1) / draw already drawn
// from `state`): the reference arithmetic, used for the rare steps the fast
// check cannot vouch for.
[[gnu::cold, gnu::noinline]] inline int32_t GuavaFinish(int32_t candidate, uint64_t state,
                                                        int32_t buckets) noexcept {
  const double limit = static_cast<double>(buckets);
  for (;;) {
    // (int)(state >>> 33) + 1 in Java int arithmetic: 2^31 wraps to -2^31.
    const uint32_t top = static_cast<uint32_t>(state >> 33) + 1u;
    const double draw = static_cast<double>(static_cast<int32_t>(top)) * 0x1.0p-31;
    const double next = static_cast<double>(candidate + 1) / draw;
    // Java: next = (int) q; keep it if 0 <= next < buckets. q <= -1 when the
    // draw is negative; q >= buckets (including saturation) ends the walk.
    if (!(next >= 0.0) || !(next < limit)) return candidate;
    candidate = static_cast<int32_t>(next);
    state = kLcgMultiplier * state + 1;
  }
}

}  // namespace jump_internal

// Bucket in [0, buckets) for `input`. REQUIRES: buckets >= 1.
inline int32_t JumpConsistentHash(uint64_t input, int32_t buckets) noexcept {
  // Guava's LinearCongruentialGenerator: state = 2862933555777941757 * state + 1
  // (mod 2^64), the 64-bit LCG constant the paper uses.
  uint64_t state = input;
  uint64_t c = 0;
  const uint64_t n = static_cast<uint64_t>(buckets);
  for (;;) {
    state = jump_internal::kLcgMultiplier * state + 1;
    const uint64_t t = (state >> 33) + 1;  // 1 .. 2^31; Guava's draw is t / 2^31
    // r ~ 2^63 / t (53 bits; 2^62 / t fits a signed conversion for every t).
    const uint64_t r = static_cast<uint64_t>(static_cast<int64_t>(
                           0x1.0p62 / static_cast<double>(static_cast<int64_t>(t))))
                       << 1;
    const uint64_t p = (c + 1) << 31;  // the exact quotient is p / t
    const uint64_t j =
        static_cast<uint64_t>((static_cast<unsigned __int128>((c + 1) << 32) * r) >> 64);
    // floor(fl(p / t)) == j: p / t >= j, and j + 1 - p / t exceeds half an ulp
    // (<= 2^-23 below 2^31) by the margin (t >> 22) + 1 > t * 2^-22. t == 2^31
    // is Guava's negative draw.
    const bool exact = j * t <= p && (j + 1) * t > p + (t >> 22) + 1 && t != (uint64_t{1} << 31);
    if (!exact) [[unlikely]] {
      return jump_internal::GuavaFinish(static_cast<int32_t>(c), state, buckets);
    }
    if (j >= n) return static_cast<int32_t>(c);
    c = j;
  }
}

}  // namespace chsim

#endif  // CHSIM_ALGORITHMS_JUMP_H_
