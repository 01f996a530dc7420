// SPDX-License-Identifier: Apache-2.0
// Consistent hashing with bounded loads: the guarantee max load <=
// ceil(c * m / n) after every placement, the stateful contract, and the
// plain-ring answer when nothing is placed.
#include "chsim/algorithms/bounded_load.h"

#include <gtest/gtest.h>

#include "chsim/algorithm.h"
#include "chsim/node.h"
#include "test_util.h"

namespace chsim {
namespace {

TEST(BoundedLoad, MaxLoadNeverExceedsCeilCTimesAverage) {
  const auto keys = testing::KeyHashes(200000);
  for (double c : {1.05, 1.25, 2.0}) {
    for (uint32_t n : {10u, 100u}) {
      SCOPED_TRACE(::testing::Message() << "c=" << c << " n=" << n);
      Params p{{"balance_factor", c}};
      auto a = MakeAlgorithm("bounded_load", MakeNumberedNodes(n), p);
      ASSERT_TRUE(a->capabilities().stateful);
      std::vector<uint64_t> load(n, 0);
      uint64_t max = 0;
      for (size_t m = 1; m <= keys.size(); ++m) {
        const uint32_t predicted = a->Locate(keys[m - 1]);
        const uint32_t id = a->Assign(keys[m - 1]);
        ASSERT_EQ(id, predicted) << "Locate answers where Assign will place";
        max = std::max(max, ++load[id]);
        // Independent integer check of ceil(c m / n) for these exact c.
        const uint64_t num = static_cast<uint64_t>(c * 100 + 0.5);  // c = num / 100
        const uint64_t bound = (num * m + 100 * n - 1) / (100 * n);
        ASSERT_LE(max, bound) << "after " << m << " keys";
        ASSERT_EQ(bound, BoundedLoadCapacity(c, m, n));
      }
      // The ring alone (160 points) has max/mean about 1.1-1.2 here, so at
      // c = 1.05 the bound binds exactly.
      if (c < 1.1) {
        EXPECT_EQ(max, BoundedLoadCapacity(c, keys.size(), n));
      }
    }
  }
}

TEST(BoundedLoad, WithNothingPlacedItIsTheRing) {
  const auto keys = testing::KeyHashes(20000);
  auto nodes = MakeNumberedNodes(30);
  Params p{{"balance_factor", 1.05}};  // below the ring's own max/mean: some nodes fill up
  auto bl = MakeAlgorithm("bounded_load", nodes, p);
  auto ring = MakeAlgorithm("ring", nodes);
  for (uint64_t k : keys) ASSERT_EQ(bl->Locate(k), ring->Locate(k));
  size_t differ = 0;
  for (uint64_t k : keys) differ += bl->Assign(k) != ring->Locate(k);
  EXPECT_GT(differ, 100u) << "full nodes push keys onward";
  bl->ResetAssignments();
  for (uint64_t k : keys) ASSERT_EQ(bl->Locate(k), ring->Locate(k));
}

TEST(BoundedLoad, RemovalDropsTheRemovedNodesLoad) {
  const auto keys = testing::KeyHashes(10000);
  Params p{{"balance_factor", 1.1}};
  auto a = MakeAlgorithm("bounded_load", MakeNumberedNodes(10), p);
  std::vector<uint32_t> where;
  for (uint64_t k : keys) where.push_back(a->Assign(k));
  a->Remove(3);
  // Replace node 3's keys: the guarantee holds over the 10,000 keys on 9 nodes.
  std::vector<uint64_t> load(10, 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (where[i] != 3) ++load[where[i]];
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    if (where[i] == 3) ++load[a->Assign(keys[i])];
  }
  EXPECT_EQ(load[3], 0u);
  for (uint64_t l : load) EXPECT_LE(l, BoundedLoadCapacity(1.1, keys.size(), 9));
}

}  // namespace
}  // namespace chsim
