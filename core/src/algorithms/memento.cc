// SPDX-License-Identifier: Apache-2.0
// `memento`: MementoHash (Coluzzi, Brocco, Antonucci & Leidi, "MementoHash: A
// Stateful, Minimal Memory, Best Performing Consistent Hash Algorithm",
// IEEE/ACM ToN 2024, arXiv:2306.09783).
//
// Jump hash over a b-array of n buckets, plus a replacement map holding only
// the removed buckets: removed bucket b -> (replacer r, previously removed
// bucket). r is the working-set size after b's removal; a key that lands on b
// is rehashed into [0, r) with a hash seeded by b, and follows replacements of
// buckets removed before b (replacer >= r) until it reaches a working bucket
// or one removed after b (replacer < r), which repeats the step. Removing the
// last bucket while nothing else is removed just shrinks n (plain jump); any
// other removal is remembered. Adding restores the most recently removed
// bucket, so ids map to buckets through a table. Memory grows with removals,
// not with capacity; no upper bound on nodes. Full consistency as anchor.
//
// Restoring a node has anchor's limit (anchor.cc): Add restores the bucket
// removed last, so failed nodes restored in reverse removal order get every
// key back, and in any other order each gets the last-removed bucket's keys
// (capabilities: history_free = false). An earlier-removed bucket cannot be
// handed back: the replacers recorded after it count it out of the working
// set, and changing them moves keys between survivors.
//
// The replacement map is an open-addressing table (linear probing,
// backward-shift deletion) so lookups are allocation-free.
#include "chsim/algorithms/jump.h"
#include "devirtualize.h"
#include "internal.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kMementoSpec;

namespace {

constexpr uint32_t kNone = UINT32_MAX;
constexpr ParamSpec kParams[] = {kKeyHasherParam};

// bucket -> (replacer, previous removed bucket).
class ReplacementMap {
 public:
  struct Entry {
    uint32_t bucket = kNone;
    uint32_t replacer = 0;
    uint32_t prev_removed = 0;
  };
  ReplacementMap() : slots_(16) {}

  uint32_t Replacer(uint32_t bucket) const noexcept {
    for (size_t i = Home(bucket);; i = (i + 1) & Mask()) {
      if (slots_[i].bucket == bucket) return slots_[i].replacer;
      if (slots_[i].bucket == kNone) return kNone;
    }
  }
  const Entry* Find(uint32_t bucket) const noexcept {
    for (size_t i = Home(bucket);; i = (i + 1) & Mask()) {
      if (slots_[i].bucket == bucket) return &slots_[i];
      if (slots_[i].bucket == kNone) return nullptr;
    }
  }
  void Put(const Entry& e) {
    if (2 * (size_ + 1) > slots_.size()) Grow();
    size_t i = Home(e.bucket);
    while (slots_[i].bucket != kNone) i = (i + 1) & Mask();
    slots_[i] = e;
    ++size_;
  }
  void Erase(uint32_t bucket) noexcept {
    size_t i = Home(bucket);
    while (slots_[i].bucket != bucket) i = (i + 1) & Mask();
    // Backward-shift deletion: pull later members of the probe run into the hole.
    for (size_t j = (i + 1) & Mask(); slots_[j].bucket != kNone; j = (j + 1) & Mask()) {
      const size_t home = Home(slots_[j].bucket);
      // Move j into the hole i unless j's home lies cyclically in (i, j].
      const bool stays = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
      if (!stays) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = Entry{};
    --size_;
  }
  size_t size() const noexcept { return size_; }
  size_t MemoryBytes() const noexcept { return slots_.capacity() * sizeof(Entry); }

 private:
  size_t Mask() const noexcept { return slots_.size() - 1; }
  size_t Home(uint32_t bucket) const noexcept { return Mix64(bucket) & Mask(); }
  void Grow() {
    std::vector<Entry> old(slots_.size() * 2);
    old.swap(slots_);
    size_ = 0;
    for (const Entry& e : old) {
      if (e.bucket != kNone) Put(e);
    }
  }
  std::vector<Entry> slots_;  // size a power of two, at most half full
  size_t size_ = 0;
};

class Memento final : public AlgorithmBase {
 public:
  Memento(std::span<const Node> nodes, const Params& p)
      : AlgorithmBase(kMementoSpec, nodes, p, LiveList::kUnordered),
        n_(static_cast<uint32_t>(nodes.size())),
        last_removed_(n_),
        buckets_(nodes.size()) {}

  uint32_t Locate(uint64_t key_hash) const noexcept override {
    uint32_t b = static_cast<uint32_t>(JumpConsistentHash(key_hash, static_cast<int32_t>(n_)));
    if (removed_.size() == 0) return buckets_.IdAt(b);  // no removals: plain jump
    uint32_t r = removed_.Replacer(b);
    while (r != kNone) {
      // b was removed leaving r working buckets: rehash into [0, r) seeded by b.
      b = static_cast<uint32_t>(Bounded(Mix64(Mix64(key_hash) ^ Mix64(b)), r));
      uint32_t u = removed_.Replacer(b);
      while (u != kNone && u >= r) {  // b removed before: follow its replacement
        b = u;
        u = removed_.Replacer(b);
      }
      r = u;  // working (kNone) or removed after the previous one: repeat
    }
    return buckets_.IdAt(b);
  }
  void LocateBatch(std::span<const uint64_t> hashes,
                   std::span<uint32_t> out) const noexcept override {
    LocateEach(*this, hashes, out);
  }
  bool ViewBuckets(BucketView* view) const noexcept override {
    *view = buckets_.View();
    return true;
  }
  size_t MemoryBytes() const noexcept override {
    return removed_.MemoryBytes() + buckets_.MemoryBytes();
  }

 private:
  void OnAdd(const Node&, uint32_t id) override {
    const uint32_t b = last_removed_;
    buckets_.Place(b, id);  // the only allocation, done first
    if (removed_.size() == 0) {
      last_removed_ = b + 1;
    } else {
      last_removed_ = removed_.Find(b)->prev_removed;
      removed_.Erase(b);
    }
    if (b >= n_) n_ = b + 1;
  }
  void OnRemove(size_t, uint32_t id) override {
    const uint32_t b = buckets_.BucketOf(id);
    if (removed_.size() == 0 && b == n_ - 1) {
      n_ = last_removed_ = b;  // plain jump shrink
    } else {
      const uint32_t working = n_ - static_cast<uint32_t>(removed_.size());
      removed_.Put({b, working - 1, last_removed_});  // may grow the map: done first
      last_removed_ = b;
    }
    buckets_.Release(id);
  }

  uint32_t n_;             // b-array size (jump's bucket count)
  uint32_t last_removed_;  // next bucket Add restores
  ReplacementMap removed_;
  BucketMap buckets_;  // ids on the working buckets
};

}  // namespace

constinit const AlgorithmSpec kMementoSpec{
    .name = "memento",
    .summary =
        "MementoHash: jump plus a replacement map of removed buckets; any node removable, "
        "no capacity",
    .paper =
        "Coluzzi, Brocco, Antonucci & Leidi, \"MementoHash: A Stateful, Minimal Memory, "
        "Best Performing Consistent Hash Algorithm\", IEEE/ACM Transactions on Networking "
        "2024",
    .year = 2024,
    .capabilities = kRemovalStackCapabilities,
    .views = {.buckets = true},
    .params = kParams,
    .balance_bound = 1,
    .memory_bytes = [](const Params&, uint64_t n) { return 8.0 * static_cast<double>(n) + 192; },
    .memory_doc = "8 bytes per node, 12 per removed bucket (an open-addressing map)",
    .key_hasher = KeyHasherOrXxh3,
    .make = MakeAs<Memento>,
};

}  // namespace chsim::algorithms_internal
