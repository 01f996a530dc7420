// SPDX-License-Identifier: Apache-2.0
// NodeCache against small hand-worked sequences and against a plain model of
// each policy (std::list and std::map, written from the policy's definition
// in docs/cache.md, sharing nothing with the slab and table), over seeded
// random streams with repeats, deletes, varying sizes, objects and bytes.
#include "sim/cache/cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <list>
#include <map>
#include <memory>
#include <vector>

#include "sim/base/rng.h"

namespace chsim::sim {
namespace {

// The plain model: one list per queue, front = head.
class Model {
 public:
  Model(CachePolicy p, uint64_t capacity, bool by_bytes) : p_(p), cap_(capacity), bytes_(by_bytes) {
    if (p_ == CachePolicy::kS3Fifo) {
      small_cap_ = std::max<uint64_t>(1, cap_ / 10);
      ghost_cap_ = cap_ * 9 / 10;
    }
  }

  bool Get(uint64_t id, uint32_t size) {
    if (p_ == CachePolicy::kS3Fifo) return GetS3(id, size);
    auto it = Locate(main_, id);
    if (it != main_.end()) {
      if (p_ == CachePolicy::kLru) main_.splice(main_.begin(), main_, it);
      if (p_ == CachePolicy::kClock) it->freq = 1;
      return true;
    }
    if (Charge(size) > cap_) return false;
    while (Used() + Charge(size) > cap_) {
      if (p_ == CachePolicy::kClock) {
        while (main_.back().freq) {
          main_.back().freq = 0;
          main_.splice(main_.begin(), main_, std::prev(main_.end()));
        }
      }
      main_.pop_back();
    }
    main_.push_front({id, size, 0});
    return false;
  }

  bool Erase(uint64_t id) {
    for (auto* l : {&small_, &main_}) {
      auto it = Locate(*l, id);
      if (it != l->end()) {
        l->erase(it);
        return true;
      }
    }
    auto g = Locate(ghost_, id);
    if (g != ghost_.end()) ghost_.erase(g);
    return false;
  }

  uint64_t Objects() const { return small_.size() + main_.size(); }
  uint64_t Bytes() const {
    uint64_t b = 0;
    for (auto* l : {&small_, &main_}) {
      for (const Obj& o : *l) b += o.size;
    }
    return b;
  }

 private:
  struct Obj {
    uint64_t id;
    uint32_t size;
    int freq;
  };
  using L = std::list<Obj>;
  static L::iterator Locate(L& l, uint64_t id) {
    for (auto it = l.begin(); it != l.end(); ++it) {
      if (it->id == id) return it;
    }
    return l.end();
  }
  uint64_t Charge(uint32_t size) const { return bytes_ ? std::max<uint32_t>(size, 1) : 1; }
  uint64_t Sum(const L& l) const {
    uint64_t u = 0;
    for (const Obj& o : l) u += Charge(o.size);
    return u;
  }
  uint64_t Used() const { return Sum(small_) + Sum(main_); }

  bool GetS3(uint64_t id, uint32_t size) {
    for (auto* l : {&small_, &main_}) {
      auto it = Locate(*l, id);
      if (it != l->end()) {
        it->freq = std::min(it->freq + 1, 3);
        return true;
      }
    }
    bool to_main = false;
    auto g = Locate(ghost_, id);
    if (g != ghost_.end()) {
      ghost_.erase(g);
      to_main = true;
    }
    if (Charge(size) > small_cap_) return false;
    while (Used() + Charge(size) > cap_) {
      if (Sum(main_) > cap_ - small_cap_ || small_.empty()) {
        EvictMain();
      } else {
        EvictSmall();
      }
    }
    (to_main ? main_ : small_).push_front({id, size, 0});
    return false;
  }
  void EvictSmall() {
    while (!small_.empty()) {
      Obj t = small_.back();
      small_.pop_back();
      if (t.freq >= 2) {
        main_.push_front({t.id, t.size, 0});
        continue;
      }
      if (Charge(t.size) <= ghost_cap_) {
        while (Sum(ghost_) + Charge(t.size) > ghost_cap_) ghost_.pop_back();
        ghost_.push_front({t.id, t.size, 0});
      }
      return;
    }
  }
  void EvictMain() {
    while (!main_.empty()) {
      Obj t = main_.back();
      main_.pop_back();
      if (t.freq == 0) return;
      main_.push_front({t.id, t.size, t.freq - 1});
    }
  }

  CachePolicy p_;
  uint64_t cap_;
  bool bytes_;
  uint64_t small_cap_ = 0, ghost_cap_ = 0;
  L small_, main_, ghost_;
};

constexpr CachePolicy kAll[] = {CachePolicy::kLru, CachePolicy::kFifo, CachePolicy::kClock,
                                CachePolicy::kS3Fifo};

// Replays `ops` (id, size; size 0 with erase = true deletes) through both.
// The cache's memory comes from `arena` when given.
void Compare(CachePolicy p, uint64_t capacity, bool by_bytes, uint64_t seed, int requests,
             uint64_t objects, uint32_t max_size, bool hint, CacheArena* arena = nullptr) {
  NodeCache cache(p, capacity, by_bytes, hint ? 4 : 0, arena);
  Model model(p, capacity, by_bytes);
  SplitMix64 rng(seed);
  for (int r = 0; r < requests; ++r) {
    // Skewed ids: a small hot set and a long tail.
    const uint64_t x = rng.Next();
    const uint64_t id = (x & 3) ? Bounded(rng.Next(), objects / 8 + 1) : Bounded(x, objects);
    const uint64_t obj = Mix(id);  // ids are hashes in the simulator
    const uint32_t size = static_cast<uint32_t>(Mix(id ^ 77) % max_size);  // 0 allowed
    if (Bounded(rng.Next(), 50) == 0) {
      ASSERT_EQ(cache.Erase(obj), model.Erase(obj)) << CachePolicyName(p) << " erase " << r;
      continue;
    }
    ASSERT_EQ(cache.Get(obj, size), model.Get(obj, size)) << CachePolicyName(p) << " request " << r;
    ASSERT_EQ(cache.objects(), model.Objects()) << CachePolicyName(p) << " request " << r;
    ASSERT_EQ(cache.stored_bytes(), model.Bytes()) << CachePolicyName(p) << " request " << r;
    ASSERT_LE(cache.used(), capacity);
  }
}

TEST(CacheTest, MatchesPlainModelInObjects) {
  for (CachePolicy p : kAll) {
    for (uint64_t capacity : {1, 2, 7, 10, 64}) {
      Compare(p, capacity, false, 11 + capacity, 6000, 400, 100, false);
    }
  }
}

TEST(CacheTest, MatchesPlainModelInBytesWithGrowth) {
  for (CachePolicy p : kAll) {
    for (uint64_t capacity : {50, 1000, 20000}) {
      Compare(p, capacity, true, 5 + capacity, 6000, 600, 400, true);
    }
  }
}

// Caches of bytes that grow, one after another from one arena (each reuses
// the blocks the ones before it freed), answer as the model.
TEST(CacheTest, ArenaCachesMatchPlainModel) {
  CacheArena arena;
  for (int round = 0; round < 2; ++round) {
    for (CachePolicy p : kAll) {
      for (uint64_t capacity : {50, 20000}) {
        Compare(p, capacity, true, 9 + capacity, 4000, 600, 400, true, &arena);
      }
    }
  }
}

TEST(CacheArenaTest, HandsOutAlignedBlocksAndReusesFreedOnes) {
  CacheArena arena;
  char* a = static_cast<char*>(arena.Allocate(1000));
  char* b = static_cast<char*>(arena.Allocate(1000));
  char* big = static_cast<char*>(arena.Allocate(size_t{3} << 20));  // a chunk of its own
  for (char* p : {a, b, big}) EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  EXPECT_GE(b - a, 1000);
  std::fill_n(a, 1000, 'a');
  std::fill_n(b, 1000, 'b');
  std::fill_n(big, size_t{3} << 20, 'c');
  EXPECT_EQ(a[999], 'a');
  arena.Free(a, 1000);
  EXPECT_NE(arena.Allocate(2000), a);  // another size: not the freed block
  EXPECT_EQ(arena.Allocate(1000), a);
  arena.Free(big, size_t{3} << 20);
  EXPECT_EQ(arena.Allocate(size_t{3} << 20), big);
}

// A copy made into another arena (the twin's) goes on as the original does.
TEST(CacheTest, CopyIntoArenaGoesOnAsTheOriginal) {
  CacheArena run_arena, twin_arena;
  for (CachePolicy p : kAll) {
    NodeCache run(p, 300, true, 4, &run_arena);
    SplitMix64 rng(3);
    for (int r = 0; r < 3000; ++r) run.Get(Mix(Bounded(rng.Next(), 500)), 7);
    NodeCache twin(run, &twin_arena);
    for (int r = 0; r < 3000; ++r) {
      const uint64_t id = Mix(Bounded(rng.Next(), 500));
      const uint32_t size = static_cast<uint32_t>(Bounded(rng.Next(), 30));
      ASSERT_EQ(run.Get(id, size), twin.Get(id, size)) << CachePolicyName(p) << " request " << r;
    }
    EXPECT_EQ(run.stored_bytes(), twin.stored_bytes());
    run.Release();
    EXPECT_EQ(run.objects(), 0u);
    EXPECT_FALSE(run.Get(Mix(1), 1));
    EXPECT_TRUE(run.Get(Mix(1), 1));
  }
}

// Ids whose table hash (id times the golden ratio, cache.cc) has its high
// 32 bits in [0, spread): they share one or a few home groups, so lookups run
// on past full groups, and with 2,000 objects in one home group the groups'
// overflow counts saturate.
uint64_t CrowdedId(uint64_t i, uint64_t spread) {
  constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
  uint64_t inverse = kGolden;  // Newton's iteration for the inverse mod 2^64
  for (int k = 0; k < 6; ++k) inverse *= 2 - kGolden * inverse;
  const uint64_t hash = (Mix(i) % spread) << 32 | (Mix(i ^ 99) & 0xffffffffULL);
  return hash * inverse;
}

TEST(CacheTest, CrowdedHomeGroupsMatchPlainModel) {
  for (CachePolicy p : kAll) {
    for (auto [spread, capacity] :
         {std::pair<uint64_t, uint64_t>{1, 300}, {1, 2000}, {1000, 300}, {100000, 300}}) {
      NodeCache cache(p, capacity, false);
      Model model(p, capacity, false);
      SplitMix64 rng(spread + capacity);
      for (int r = 0; r < 30000; ++r) {
        const uint64_t id = CrowdedId(Bounded(rng.Next(), 3 * capacity), spread);
        if (Bounded(rng.Next(), 10) == 0) {
          ASSERT_EQ(cache.Erase(id), model.Erase(id)) << CachePolicyName(p) << " erase " << r;
          continue;
        }
        ASSERT_EQ(cache.Get(id, 1), model.Get(id, 1)) << CachePolicyName(p) << " request " << r;
        ASSERT_EQ(cache.objects(), model.Objects()) << CachePolicyName(p) << " request " << r;
      }
    }
  }
}

// ServeRequests (prefetching ahead, requests for one id close together,
// several caches or one, blocks of any length) answers as Get and Erase one
// by one.
TEST(CacheTest, ServeRequestsMatchesPlainModel) {
  for (CachePolicy p : kAll) {
    std::vector<std::unique_ptr<NodeCache>> owned;
    std::vector<NodeCache*> caches;
    std::vector<Model> models;
    for (uint64_t capacity : {5, 64, 700}) {
      owned.push_back(std::make_unique<NodeCache>(p, capacity, false));
      caches.push_back(owned.back().get());
      models.emplace_back(p, capacity, false);
    }
    SplitMix64 rng(7);
    for (size_t block : {1, 7, 16, 17, 300, 1024}) {
      std::vector<uint32_t> owners(block), sizes(block, 1);
      std::vector<uint64_t> ids(block);
      std::vector<RequestOp> ops(block);
      std::vector<uint8_t> hits(block);
      for (int round = 0; round < 20; ++round) {
        for (size_t j = 0; j < block; ++j) {
          const uint64_t x = rng.Next();
          ids[j] = Mix((x & 7) ? Bounded(rng.Next(), 40) : Bounded(x, 2000));
          // Odd rounds send the whole block to one cache (ServeRequests' one-cache loop).
          owners[j] = round % 2 ? static_cast<uint32_t>(round % caches.size())
                                : static_cast<uint32_t>(ids[j] % caches.size());
          ops[j] = Bounded(rng.Next(), 25) == 0 ? RequestOp::kDelete : RequestOp::kRead;
        }
        ServeRequests(caches.data(), owners, ids, sizes, ops, hits);
        for (size_t j = 0; j < block; ++j) {
          Model& m = models[owners[j]];
          const bool want = ops[j] == RequestOp::kRead && m.Get(ids[j], 1);
          if (ops[j] != RequestOp::kRead) m.Erase(ids[j]);
          ASSERT_EQ(hits[j], want) << CachePolicyName(p) << " block " << block << " j " << j;
        }
      }
    }
  }
}

// A copy has the same content and order as its source, and then lives its
// own life: each answers as the model would from the moment of the copy.
TEST(CacheTest, CopyContinuesLikeItsSource) {
  for (CachePolicy p : kAll) {
    for (bool by_bytes : {false, true}) {
      const uint64_t capacity = by_bytes ? 3000 : 100;
      NodeCache cache(p, capacity, by_bytes);
      Model model(p, capacity, by_bytes);
      SplitMix64 rng(5);
      auto request = [&](NodeCache& c, Model& m) {
        const uint64_t id = Mix(Bounded(rng.Next(), 300));
        const uint32_t size = static_cast<uint32_t>(1 + Mix(id) % 60);
        ASSERT_EQ(c.Get(id, size), m.Get(id, size)) << CachePolicyName(p);
      };
      for (int r = 0; r < 5000; ++r) request(cache, model);
      const size_t memory = cache.MemoryBytes();
      NodeCache copy(cache);
      Model copy_model = model;
      EXPECT_EQ(copy.objects(), cache.objects());
      EXPECT_EQ(copy.stored_bytes(), cache.stored_bytes());
      EXPECT_EQ(copy.MemoryBytes(), memory);
      for (int r = 0; r < 5000; ++r) {
        request(cache, model);
        request(copy, copy_model);
      }
      EXPECT_EQ(copy.objects(), copy_model.Objects());
      EXPECT_EQ(cache.objects(), model.Objects());
    }
  }
}

TEST(CacheTest, LruEvictsLeastRecentlyUsed) {
  NodeCache c(CachePolicy::kLru, 3, false);
  for (uint64_t id : {1, 2, 3}) EXPECT_FALSE(c.Get(id, 1));
  EXPECT_TRUE(c.Get(1, 1));   // order now 1 3 2
  EXPECT_FALSE(c.Get(4, 1));  // evicts 2
  EXPECT_TRUE(c.Get(3, 1));
  EXPECT_TRUE(c.Get(1, 1));
  EXPECT_FALSE(c.Get(2, 1));
}

TEST(CacheTest, FifoIgnoresHits) {
  NodeCache c(CachePolicy::kFifo, 3, false);
  for (uint64_t id : {1, 2, 3}) EXPECT_FALSE(c.Get(id, 1));
  EXPECT_TRUE(c.Get(1, 1));
  EXPECT_FALSE(c.Get(4, 1));  // evicts 1, the first in
  EXPECT_FALSE(c.Get(1, 1));
}

TEST(CacheTest, ClockGivesASecondChance) {
  NodeCache c(CachePolicy::kClock, 3, false);
  for (uint64_t id : {1, 2, 3}) EXPECT_FALSE(c.Get(id, 1));
  EXPECT_TRUE(c.Get(1, 1));   // 1's bit set
  EXPECT_FALSE(c.Get(4, 1));  // 1 goes round, 2 is evicted
  EXPECT_TRUE(c.Get(1, 1));
  EXPECT_FALSE(c.Get(2, 1));
}

TEST(CacheTest, S3FifoGhostHitEntersMain) {
  // Capacity 10: S holds 1, M 9, G 9.
  NodeCache c(CachePolicy::kS3Fifo, 10, false);
  // S takes new objects until the whole cache is full; then 1 and 2, never
  // hit, leave S for G as 11 and 12 arrive.
  for (uint64_t id = 1; id <= 12; ++id) EXPECT_FALSE(c.Get(id, 1));
  EXPECT_EQ(c.objects(), 10u);
  EXPECT_TRUE(c.Get(3, 1));
  // 1 is remembered by G: a miss now, admitted to M.
  EXPECT_FALSE(c.Get(1, 1));
  EXPECT_TRUE(c.Get(1, 1));
}

TEST(CacheTest, BytesCapacityAndOversizedObjects) {
  NodeCache c(CachePolicy::kLru, 100, true);
  EXPECT_FALSE(c.Get(1, 60));
  EXPECT_FALSE(c.Get(2, 30));
  EXPECT_EQ(c.stored_bytes(), 90u);
  EXPECT_FALSE(c.Get(3, 20));  // evicts 1
  EXPECT_EQ(c.stored_bytes(), 50u);
  EXPECT_FALSE(c.Get(4, 101));  // never fits: not inserted
  EXPECT_FALSE(c.Get(4, 101));
  EXPECT_EQ(c.objects(), 2u);
  EXPECT_TRUE(c.Get(2, 999));  // a hit keeps the stored size
  EXPECT_EQ(c.stored_bytes(), 50u);
}

TEST(CacheTest, EraseClearAndRelease) {
  NodeCache c(CachePolicy::kLru, 1000, false);
  for (uint64_t id = 0; id < 1000; ++id) c.Get(Mix(id), 1);
  EXPECT_TRUE(c.Erase(Mix(5)));
  EXPECT_FALSE(c.Erase(Mix(5)));
  EXPECT_EQ(c.objects(), 999u);
  c.Clear();
  EXPECT_EQ(c.objects(), 0u);
  EXPECT_FALSE(c.Get(Mix(7), 1));
  c.Release();
  EXPECT_EQ(c.objects(), 0u);
  for (uint64_t id = 0; id < 2000; ++id) c.Get(Mix(id), 1);
  EXPECT_EQ(c.objects(), 1000u);
}

// Capacity of objects: the slab and table are sized once; a long stream
// allocates nothing more (MemoryBytes does not move).
TEST(CacheTest, ObjectsCacheNeverGrows) {
  for (CachePolicy p : kAll) {
    NodeCache c(p, 5000, false);
    const size_t before = c.MemoryBytes();
    SplitMix64 rng(3);
    for (int r = 0; r < 200000; ++r) c.Get(rng.Next() % 20000, 1);
    EXPECT_EQ(c.MemoryBytes(), before) << CachePolicyName(p);
    EXPECT_LE(before, 5000u * (p == CachePolicy::kS3Fifo ? 70 : 40)) << CachePolicyName(p);
  }
}

// A cache whose slab and table take 2 MiB and more (huge-page storage):
// LRU order over 200,000 objects, a copy that continues like its source,
// and Release then reuse.
TEST(CacheTest, LargeCacheKeepsLruOrder) {
  constexpr uint64_t kCap = 200000;
  NodeCache c(CachePolicy::kLru, kCap, false);
  ASSERT_GE(c.MemoryBytes(), size_t{4} << 20);
  for (uint64_t i = 0; i < kCap; ++i) ASSERT_FALSE(c.Get(Mix(i), 1)) << i;
  for (uint64_t i = 0; i < kCap; ++i) ASSERT_TRUE(c.Get(Mix(i), 1)) << i;
  for (uint64_t i = kCap; i < kCap + kCap / 2; ++i) ASSERT_FALSE(c.Get(Mix(i), 1)) << i;
  NodeCache copy(c);
  for (NodeCache* x : {&c, &copy}) {
    for (uint64_t i = kCap / 2; i < kCap + kCap / 2; ++i) ASSERT_TRUE(x->Get(Mix(i), 1)) << i;
    ASSERT_FALSE(x->Get(Mix(0), 1));  // evicted by the new half
    EXPECT_EQ(x->objects(), kCap);
  }
  c.Release();
  EXPECT_EQ(c.objects(), 0u);
  EXPECT_FALSE(c.Get(Mix(7), 1));
  EXPECT_TRUE(c.Get(Mix(7), 1));
}

TEST(CacheTest, PolicyNames) {
  for (std::string_view n : CachePolicyNames()) {
    ASSERT_TRUE(FindCachePolicy(n).has_value());
    EXPECT_EQ(CachePolicyName(*FindCachePolicy(n)), n);
  }
  EXPECT_FALSE(FindCachePolicy("arc").has_value());
}

}  // namespace
}  // namespace chsim::sim
