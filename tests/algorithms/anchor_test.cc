// SPDX-License-Identifier: Apache-2.0
// AnchorHash (anchor.cc) against a direct transcription of the paper's
// Algorithm 3 (Mendelson et al., IEEE/ACM ToN 2021): the arrays A, K, W, L
// and the stack R of removed buckets, all `capacity` long, updated by
// ADDBUCKET / REMOVEBUCKET and read by GETBUCKET with chsim's hashes (the key
// spread by Mix64, h_b(k) = Mix64(k ^ Mix64(b)), Lemire's Bounded). chsim's
// anchor looks up differently (the never-restored tail of initial removals
// walked by arithmetic, a bitset of the working buckets tested before A, the
// batch in prefetched groups); over random sequences of adds and removals, at
// several capacities, every key must still land on the transcription's
// bucket, through Locate and LocateBatch alike.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/node.h"
#include "test_util.h"

namespace chsim {
namespace {

using testing::RandomHashes;
using testing::SplitMix64;

// Algorithm 3, line by line (buckets n..a-1 start removed, a-1 first).
class PaperAnchor {
 public:
  PaperAnchor(uint32_t a, uint32_t n) : a_(a), n_(n), A_(a, 0), K_(a), L_(a), W_(a) {
    for (uint32_t b = 0; b < a; ++b) K_[b] = L_[b] = W_[b] = b;
    for (uint32_t b = a; b-- > n;) R_.push_back(b), A_[b] = b;
  }
  uint32_t GetBucket(uint64_t key_hash) const {
    const uint64_t k = Mix64(key_hash);
    uint32_t b = static_cast<uint32_t>(Bounded(k, a_));
    while (A_[b] > 0) {
      uint32_t h = static_cast<uint32_t>(Bounded(Mix64(k ^ Mix64(b)), A_[b]));
      while (A_[h] >= A_[b]) h = K_[h];
      b = h;
    }
    return b;
  }
  uint32_t AddBucket() {
    const uint32_t b = R_.back();
    R_.pop_back();
    A_[b] = 0;
    L_[W_[n_]] = n_;
    W_[L_[b]] = K_[b] = b;
    ++n_;
    return b;
  }
  void RemoveBucket(uint32_t b) {
    R_.push_back(b);
    --n_;
    A_[b] = n_;
    W_[L_[b]] = K_[b] = W_[n_];
    L_[W_[n_]] = L_[b];
  }

 private:
  uint32_t a_, n_;
  std::vector<uint32_t> A_, K_, L_, W_, R_;
};

struct Shape {
  uint32_t nodes, capacity;
};

class AnchorEqualsPaper : public ::testing::TestWithParam<Shape> {};

TEST_P(AnchorEqualsPaper, OverRandomAddsAndRemovals) {
  const auto [n, capacity] = GetParam();
  auto a = MakeAlgorithm("anchor", MakeNumberedNodes(n), {{"capacity", uint64_t{capacity}}});
  PaperAnchor paper(capacity, n);
  std::vector<uint32_t> id_at(capacity, UINT32_MAX);  // bucket -> id, as the ids were issued
  std::vector<uint32_t> bucket_of(n);                 // id -> bucket
  for (uint32_t b = 0; b < n; ++b) id_at[b] = bucket_of[b] = b;
  const auto keys = RandomHashes(4000, 31 + n);
  std::vector<uint32_t> batch(keys.size());
  SplitMix64 rng(32 + capacity);
  uint32_t fresh = n;
  for (int step = 0; step < 400; ++step) {
    const auto live = a->live_ids();
    // Mostly adds while few are live, mostly removals near capacity: the
    // tail of initial removals is restored and emptied again.
    const bool add =
        live.size() < capacity && (live.size() < 2 || rng.Below(capacity) >= live.size());
    if (add) {
      const uint32_t id = a->Add(MakeNumberedNodes(1, fresh++)[0]);
      const uint32_t b = paper.AddBucket();
      ASSERT_EQ(id, bucket_of.size());
      bucket_of.push_back(b);
      id_at[b] = id;
    } else {
      const uint32_t id = live[rng.Below(live.size())];
      a->Remove(id);
      paper.RemoveBucket(bucket_of[id]);
      id_at[bucket_of[id]] = UINT32_MAX;
    }
    a->LocateBatch(keys, batch);
    for (size_t i = 0; i < keys.size(); ++i) {
      const uint32_t want = id_at[paper.GetBucket(keys[i])];
      ASSERT_EQ(a->Locate(keys[i]), want) << "step " << step << " key " << i;
      ASSERT_EQ(batch[i], want) << "step " << step << " key " << i;
    }
  }
}

// A long tail (capacity 16n), the default (2n), a short one and none.
INSTANTIATE_TEST_SUITE_P(Capacities, AnchorEqualsPaper,
                         ::testing::Values(Shape{5, 80}, Shape{40, 80}, Shape{50, 53},
                                           Shape{30, 30}));

}  // namespace
}  // namespace chsim
