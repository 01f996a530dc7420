// Shared helpers for the algorithm tests: deterministic keys and random
// numbers (SplitMix64, Lemire's bounded integers; no <random>).
#ifndef CHSIM_TESTS_ALGORITHMS_TEST_UTIL_H_
#define CHSIM_TESTS_ALGORITHMS_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "chsim/hasher.h"

namespace chsim::testing {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) (Lemire's multiply-shift; bias < n / 2^64).
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
  }

 private:
  uint64_t s_;
};

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
