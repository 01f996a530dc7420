// Jump consistent hash (Lamping & Veach, "A Fast, Minimal Memory, Consistent
// Hash Algorithm", arXiv:1406.2294, 2014), bit for bit as Guava's
// Hashing.consistentHash(long, int) computes it.
//
// Guava and the paper differ in floating-point detail: Guava draws
// ((int)(state >>> 33) + 1) / 2^31 as a Java int, which overflows to -2^31 when
// the top 31 bits are all ones (the walk then stops), divides (candidate + 1)
// by that double once (the paper multiplies by a separately rounded ratio),
// and narrows with Java's saturating (int) cast. This function follows Guava,
// so chsim's jump equals the Java ecosystem's (tests/compat/golden/jump.tsv,
// generated from Debian's libguava-java, proves it).
//
// Pure, thread-safe, noexcept, allocation-free. Stable across versions.
#ifndef CHSIM_ALGORITHMS_JUMP_H_
#define CHSIM_ALGORITHMS_JUMP_H_

#include <cstdint>

namespace chsim {

// Bucket in [0, buckets) for `input`. REQUIRES: buckets >= 1.
inline int32_t JumpConsistentHash(uint64_t input, int32_t buckets) noexcept {
  // Guava's LinearCongruentialGenerator: state = 2862933555777941757 * state + 1
  // (mod 2^64), the 64-bit LCG constant the paper uses.
  uint64_t state = input;
  int32_t candidate = 0;
  const double limit = static_cast<double>(buckets);
  for (;;) {
    state = 2862933555777941757ULL * state + 1;
    // (int)(state >>> 33) + 1 in Java int arithmetic: 2^31 wraps to -2^31.
    const uint32_t top = static_cast<uint32_t>(state >> 33) + 1u;
    const double draw = static_cast<double>(static_cast<int32_t>(top)) * 0x1.0p-31;
    const double next = static_cast<double>(candidate + 1) / draw;
    // Java: next = (int) q; keep it if 0 <= next < buckets. q <= -1 when the
    // draw is negative; q >= buckets (including saturation) ends the walk.
    if (!(next >= 0.0) || !(next < limit)) return candidate;
    candidate = static_cast<int32_t>(next);
  }
}

}  // namespace chsim

#endif  // CHSIM_ALGORITHMS_JUMP_H_
