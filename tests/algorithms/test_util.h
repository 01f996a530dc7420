// SPDX-License-Identifier: Apache-2.0
// Shared helpers for the algorithm tests: deterministic keys, random numbers
// (chsim/splitmix.h: SplitMix64, Lemire's bounded integers; no <random>) and
// load statistics.
#ifndef CHSIM_TESTS_ALGORITHMS_TEST_UTIL_H_
#define CHSIM_TESTS_ALGORITHMS_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "chsim/hasher.h"
#include "chsim/splitmix.h"

namespace chsim::testing {

// The one SplitMix64 (chsim/splitmix.h). Its Below(n) is exact (Lemire with
// rejection); it draws the same values as the multiply-shift these tests used
// before except with probability n / 2^64 per draw.
using chsim::SplitMix64;

// xxh3 of "key:i" for i in [0, count): the keys the report's figures use.
inline std::vector<uint64_t> KeyHashes(size_t count, std::string_view prefix = "key:") {
  std::vector<uint64_t> h(count);
  std::string k(prefix);
  for (size_t i = 0; i < count; ++i) {
    k.resize(prefix.size());
    k += std::to_string(i);
    h[i] = HashXxh3(k.data(), k.size());
  }
  return h;
}

// `count` uniform 64-bit key hashes from SplitMix64(seed).
inline std::vector<uint64_t> RandomHashes(size_t count, uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<uint64_t> h(count);
  for (uint64_t& x : h) x = rng.Next();
  return h;
}

struct LoadStats {
  double mean = 0, max = 0, min = 0, rel_std = 0;  // over live nodes
};

// Stats of counts[id] over the ids in `live`.
inline LoadStats Stats(const std::vector<double>& counts, const std::vector<uint32_t>& live) {
  LoadStats s;
  s.min = 1e300;
  for (uint32_t id : live) {
    s.mean += counts[id];
    s.max = std::max(s.max, counts[id]);
    s.min = std::min(s.min, counts[id]);
  }
  s.mean /= static_cast<double>(live.size());
  double var = 0;
  for (uint32_t id : live) var += (counts[id] - s.mean) * (counts[id] - s.mean);
  s.rel_std = std::sqrt(var / static_cast<double>(live.size())) / s.mean;
  return s;
}

}  // namespace chsim::testing

#endif  // CHSIM_TESTS_ALGORITHMS_TEST_UTIL_H_
