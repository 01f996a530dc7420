// SPDX-License-Identifier: Apache-2.0
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
#ifndef CHSIM_SIM_BASE_RNG_H_
#define CHSIM_SIM_BASE_RNG_H_

#include <cstdint>
#include <string_view>

#include "chsim/splitmix.h"

namespace chsim::sim {

// The simulator's names for core's one mixer (chsim/splitmix.h).
inline constexpr uint64_t Mix(uint64_t x) noexcept { return Mix64(x); }
inline constexpr uint64_t Derive(uint64_t seed, uint64_t index) noexcept {
  return DeriveSeed(seed, index);
}
inline constexpr uint64_t Tag(std::string_view name) noexcept { return SeedTag(name); }
inline constexpr double Unit(uint64_t random) noexcept { return UnitOpen(random); }
using chsim::Bounded;
using chsim::SplitMix64;

}  // namespace chsim::sim

#endif  // CHSIM_SIM_BASE_RNG_H_
