// SPDX-License-Identifier: Apache-2.0
// DxHash (dx.cc): balance over the working buckets at 0%, 10% and 50%
// removed, minimal disruption over random removals and additions, the
// capacity limit, and agreement with a direct transcription of the paper's
// lookup (walk the key's pseudo-random sequence, first working bucket).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "chsim/algorithm.h"
#include "chsim/node.h"
#include "test_util.h"

namespace chsim {
namespace {

using testing::RandomHashes;
using testing::SplitMix64;

TEST(Dx, BalanceOverWorkingBucketsAfterRemovals) {
  const auto keys = RandomHashes(300000, 21);
  for (double removed : {0.0, 0.1, 0.5}) {
    auto a = MakeAlgorithm("dx", MakeNumberedNodes(200));
    SplitMix64 rng(22);
    for (int r = 0; r < static_cast<int>(removed * 200); ++r) {
      const auto live = a->live_ids();
      a->Remove(live[rng.Below(live.size())]);
    }
    std::vector<uint32_t> out(keys.size());
    a->LocateBatch(keys, out);
    std::vector<double> counts(200, 0.0);
    for (uint32_t id : out) counts[id] += 1;
    const auto live = a->live_ids();
    const double expect = static_cast<double>(keys.size()) / static_cast<double>(live.size());
    double chi2 = 0;
    for (uint32_t id : live) chi2 += (counts[id] - expect) * (counts[id] - expect) / expect;
    // chi-square with live - 1 dof: its 1 - 1e-6 quantile (Wilson-Hilferty, z = 4.753).
    const double dof = static_cast<double>(live.size()) - 1, w = 2 / (9 * dof);
    EXPECT_LT(chi2, dof * std::pow(1 - w + 4.753 * std::sqrt(w), 3)) << removed;
  }
}

TEST(Dx, EqualsThePaperLookupAndMovesOnlyTheChangedNodesKeys) {
  const auto keys = RandomHashes(50000, 23);
  const uint32_t capacity = 64;
  auto a = MakeAlgorithm("dx", MakeNumberedNodes(40), {{"capacity", uint64_t{capacity}}});
  std::vector<uint32_t> bucket_of(1000);  // id -> bucket, tracked from the stack rule
  std::vector<uint32_t> free_stack;       // Add takes the back
  for (uint32_t b = 0; b < 40; ++b) bucket_of[b] = b;
  for (uint32_t b = capacity; b-- > 40;) free_stack.push_back(b);
  std::vector<uint32_t> before(keys.size()), after(keys.size());
  a->LocateBatch(keys, before);
  SplitMix64 rng(24);
  uint32_t fresh = 40;
  for (int step = 0; step < 200; ++step) {
    const auto live = a->live_ids();
    uint32_t changed;
    const bool add = live.size() < 3 || (live.size() < capacity && rng.Below(2) == 0);
    if (add) {
      changed = a->Add(MakeNumberedNodes(1, fresh++)[0]);
      bucket_of[changed] = free_stack.back();
      free_stack.pop_back();
    } else {
      changed = live[rng.Below(live.size())];
      a->Remove(changed);
      free_stack.push_back(bucket_of[changed]);
    }
    a->LocateBatch(keys, after);
    // The paper's lookup over the working buckets, by hand.
    std::vector<int64_t> id_at(capacity, -1);
    for (uint32_t id : a->live_ids()) id_at[bucket_of[id]] = id;
    for (size_t i = 0; i < keys.size(); i += 7) {
      SplitMix64 walk(keys[i]);
      int64_t id = -1;
      while (id < 0) id = id_at[Bounded(walk.Next(), capacity)];
      ASSERT_EQ(after[i], static_cast<uint32_t>(id)) << "step " << step << " key " << i;
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      if (after[i] != before[i]) {
        ASSERT_TRUE(add ? after[i] == changed : before[i] == changed)
            << "step " << step << ": key " << i << " moved between survivors";
      }
    }
    before.swap(after);
  }
}

TEST(Dx, CapacityBoundsAdds) {
  auto a = MakeAlgorithm("dx", MakeNumberedNodes(4), {{"capacity", uint64_t{5}}});
  EXPECT_EQ(a->Add(MakeNumberedNodes(1, 4)[0]), 4u);
  EXPECT_THROW(a->Add(MakeNumberedNodes(1, 5)[0]), Unsupported);
  EXPECT_THROW(MakeAlgorithm("dx", MakeNumberedNodes(4), {{"capacity", uint64_t{3}}}),
               std::invalid_argument);
  auto d = MakeAlgorithm("dx", MakeNumberedNodes(10));  // default: twice the initial nodes
  for (uint32_t i = 0; i < 10; ++i) d->Add(MakeNumberedNodes(1, 10 + i)[0]);
  EXPECT_THROW(d->Add(MakeNumberedNodes(1, 99)[0]), Unsupported);
  EXPECT_TRUE(d->capabilities().arbitrary_removal);
  EXPECT_FALSE(d->capabilities().history_free);
}

}  // namespace
}  // namespace chsim
