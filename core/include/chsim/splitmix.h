// SPDX-License-Identifier: Apache-2.0
// SplitMix64: chsim's one seeded mixer and generator, shared by core's
// algorithms, the simulator (sim/rng.h re-exports it), the tests and the
// benchmarks. SplitMix64 is Steele, Lea & Flood, "Fast splittable
// pseudorandom number generators" (OOPSLA 2014), with the output function's
// constants from Stafford's "Mix13" as in Vigna's splitmix64.c and Java's
// SplittableRandom; bounded integers are Lemire's "Fast random integer
// generation in an interval" (ACM TOMACS 2019).
//
// Invariants: every function is a pure function of its arguments, the same on
// every compiler, standard library and platform (no <random>, no std::hash).
// Mix64 is a bijection on 64 bits with full avalanche; SplitMix64(s).Next()
// is Mix64(s + k * 0x9e3779b97f4a7c15) for k = 0, 1, 2, ... (so seed 0 starts
// 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f).
//
// Thread-safety: free functions are pure; a SplitMix64 object is a value.
// Stability: these streams feed seeded results (algorithm node seeds, the
// simulator's keys, trials and events, the benchmarks' inputs and so the
// callgrind gate's baseline). Changing any output is a results-format change;
// tests/algorithms/splitmix_test.cc pins them.
#ifndef CHSIM_SPLITMIX_H_
#define CHSIM_SPLITMIX_H_

#include <cstdint>
#include <string_view>

namespace chsim {

// The golden-ratio increment of SplitMix64 (2^64 / phi, made odd).
inline constexpr uint64_t kSplitMixGamma = 0x9e3779b97f4a7c15ULL;

// SplitMix64's output function applied to x + gamma: a bijection with full
// avalanche. Mix64(s) is the first output of SplitMix64(s).
inline constexpr uint64_t Mix64(uint64_t x) noexcept {
  x += kSplitMixGamma;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A seed for sub-stream `index` of `seed` (keys, trials, events...). The
// constant (the first 64 bits of sqrt(2)'s fraction, SHA-512's H0) keeps
// DeriveSeed(s, i) apart from DeriveSeed(i, s).
inline constexpr uint64_t DeriveSeed(uint64_t seed, uint64_t index) noexcept {
  return Mix64(Mix64(seed) ^ Mix64(index ^ 0x6a09e667f3bcc909ULL));
}

// A stream tag from a short ASCII name (FNV-1a 64), e.g. DeriveSeed(s, SeedTag("keys")).
inline constexpr uint64_t SeedTag(std::string_view name) noexcept {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}

// A uniform integer in [0, range) from 64 random bits by Lemire's multiply-
// shift, without the rejection step: the bias is below range / 2^64, far under
// any sampling noise chsim reports. Uses the high bits, so `random` must be
// well mixed. REQUIRES: range > 0.
inline constexpr uint64_t Bounded(uint64_t random, uint64_t range) noexcept {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(random) * range) >> 64);
}

// A double in the open interval (0, 1) from the top 53 bits plus one half.
inline constexpr double UnitOpen(uint64_t random) noexcept {
  return (static_cast<double>(random >> 11) + 0.5) * 0x1.0p-53;
}

// The SplitMix64 generator: a stream of 64-bit values from a seed.
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(uint64_t seed) noexcept : state_(seed) {}

  constexpr uint64_t Next() noexcept {
    const uint64_t x = state_;
    state_ += kSplitMixGamma;
    return Mix64(x);
  }
  // Uniform in [0, range), exact: Lemire's method with rejection (draws again
  // with probability below range / 2^64). Bounded(Next(), range) is the
  // cheaper form without rejection. REQUIRES: range > 0.
  constexpr uint64_t Below(uint64_t range) noexcept {
    unsigned __int128 m = static_cast<unsigned __int128>(Next()) * range;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < range) {
      const uint64_t threshold = -range % range;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(Next()) * range;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }
  constexpr double NextUnit() noexcept { return UnitOpen(Next()); }

  // The state: the next output is Mix64(state()).
  constexpr uint64_t state() const noexcept { return state_; }
  // Skips k outputs in O(1) (output k of state s is Mix64(s + k * gamma)).
  constexpr void Skip(uint64_t k) noexcept { state_ += k * kSplitMixGamma; }

 private:
  uint64_t state_;
};

}  // namespace chsim

#endif  // CHSIM_SPLITMIX_H_
