// Seeded, stateless random numbers for the simulator: SplitMix64 (Steele, Lea
// & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014) and
// Lemire's bounded integers ("Fast random integer generation in an interval",
// ACM TOMACS 2019).
//
// Every random choice of a run derives from (seed, index) through Mix/Derive,
// so any thread can make item i on its own and results never depend on thread
// count or scheduling. <random> distributions and std::hash are never used:
// their output differs between standard libraries.
//
// Thread-safety: free functions are pure; a SplitMix64 object is a value.
// Stability: the streams are part of the result format (same seed, same keys);
// changing them is a results schema change.
#ifndef CHSIM_SIM_RNG_H_
#define CHSIM_SIM_RNG_H_

#include <cstdint>
#include <string_view>

namespace chsim::sim {

// SplitMix64's output function: a bijection with full avalanche.
inline constexpr uint64_t Mix(uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A seed for sub-stream `index` of `seed` (keys, trials, events...).
inline constexpr uint64_t Derive(uint64_t seed, uint64_t index) noexcept {
  return Mix(Mix(seed) ^ Mix(index ^ 0x6a09e667f3bcc909ULL));
}

// A tag for Derive from a short ASCII name (FNV-1a 64), e.g. Derive(s, Tag("keys")).
inline constexpr uint64_t Tag(std::string_view name) noexcept {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}

// A uniform integer in [0, range) from 64 random bits by Lemire's multiply
// (without the rejection step: the bias is below range / 2^64, far under any
// sampling noise the simulator reports). REQUIRES: range > 0.
inline uint64_t Bounded(uint64_t random, uint64_t range) noexcept {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(random) * range) >> 64);
}

// A double in the open interval (0, 1) from the top 53 bits.
inline double Unit(uint64_t random) noexcept {
  return (static_cast<double>(random >> 11) + 0.5) * 0x1.0p-53;
}

// The SplitMix64 generator: a stream of 64-bit values from a seed.
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(uint64_t seed) noexcept : state_(seed) {}
  uint64_t Next() noexcept {
    state_ += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, range), exact (Lemire's method with rejection). REQUIRES: range > 0.
  uint64_t Below(uint64_t range) noexcept {
    unsigned __int128 m = static_cast<unsigned __int128>(Next()) * range;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < range) {
      uint64_t threshold = -range % range;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(Next()) * range;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }
  double NextUnit() noexcept { return Unit(Next()); }

 private:
  uint64_t state_;
};

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RNG_H_
