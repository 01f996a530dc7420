// SPDX-License-Identifier: Apache-2.0
// `jumpback_anchor`: Dynatrace's hash4j ConsistentHashing.jumpBackAnchorHash
// (Ertl, 2025; class ConsistentJumpBackAnchorBucketSetHasher, here with
// PseudoRandomGeneratorProvider.splitMix64_V1()): the removal chains of
// AnchorHash's minimal-memory form (Mendelson et al., anchor.cc) over
// JumpBackHash (jumpback.h) instead of an anchor of fixed size, so any node
// is removable and there is no capacity. Bucket for bucket hash4j's answer
// for the same 64-bit hash and the same history of adds and removes
// (tests/compat/hash4j_golden_test.cc, goldens written by hash4j itself).
//
// State: a, the most buckets the history has held at once (hash4j's
// historicMaxNumBuckets, the paper's a); the stack of removed buckets; for
// each removed bucket b the pair view[b] = the working count just after b's
// removal and next[b] = the bucket that stood at position view[b] of the
// working order then (the one that takes b's position). view[b] = 0 means b
// works. A bucket's position in view v (the order when v buckets worked) is
// resolved by AtView: start at the position and follow next while the bucket
// there was removed at a view >= v.
//
// Lookup: b = JumpBackWalk(a) on SplitMix64(hash); while b is removed, draw
// a position below view[b] from the same stream (Below32) and resolve it in
// that view. Cost after random removals O(1 + ln^2(a / n)) steps (hash4j's
// Javadoc; a chosen removal order can make it O(a / n)). Without removals it
// is jumpback's walk and one test.
//
// Remove: the bucket a - 1 with nothing else removed shrinks a (jumpback's
// LIFO removal); any other is pushed with its pair. Add takes the bucket on
// top of the stack and clears its pair, or bucket a when the stack is empty
// (a grows). So a restore is the exact undo of the last removal; nodes failed
// and restored in reverse order get every key back, in any other order each
// restored node takes the key space of the bucket removed last, as anchor and
// memento (capabilities: history_free = false; restore_test.cc predicts every
// key). hash4j reuses ids the same way: its ids are chsim's buckets, and node
// ids map to buckets through a table. No weights; at most kMaxNodes buckets.
//
// Memory: 8 bytes per node (the id maps), 8 per bucket up to the highest one
// removed (the pairs, grown on demand) with 1 bit each (which are removed:
// what a lookup tests first, so that at 10^6 buckets it stays in a core's
// cache where the pairs do not) and 4 per removed bucket (the stack).
#include "devirtualize.h"
#include "internal.h"
#include "jumpback.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kJumpBackAnchorSpec;

namespace {

class JumpBackAnchor final : public AlgorithmBase {
 public:
  JumpBackAnchor(std::span<const Node> nodes, const Params& p)
      : AlgorithmBase(kJumpBackAnchorSpec, nodes, p, LiveList::kUnordered), buckets_(nodes.size()) {
    SetA(static_cast<uint32_t>(nodes.size()));
  }

  uint32_t Locate(uint64_t key_hash) const noexcept override {
    return buckets_.IdAt(Bucket(key_hash));
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
    return pairs_.capacity() * sizeof(Pair) + removed_bits_.capacity() * sizeof(uint64_t) +
           removed_.capacity() * sizeof(uint32_t) + buckets_.MemoryBytes();
  }

 private:
  struct Pair {
    uint32_t view = 0;  // working count just after the removal; 0: working
    uint32_t next = 0;  // the bucket that took this one's position
  };

  uint32_t Bucket(uint64_t key_hash) const noexcept {
    if (a_ <= 1) return 0;
    SplitMix64 random(key_hash);
    uint32_t b = JumpBackWalk(a_, level_mask_, random);
    if (removed_.empty()) return b;
    while (Removed(b)) {
      const uint32_t v = pairs_[b].view;
      b = AtView(Below32(random, v), v);
    }
    return b;
  }
  // The bucket at position `b` of the working order when `v` buckets worked.
  uint32_t AtView(uint32_t b, uint32_t v) const noexcept {
    while (Removed(b) && pairs_[b].view >= v) b = pairs_[b].next;
    return b;
  }
  // The bit first: a working bucket (most, after random removals) costs no
  // read of the pairs, 64 times larger.
  bool Removed(uint32_t b) const noexcept {
    return b < pairs_.size() && ((removed_bits_[b / 64] >> (b % 64)) & 1) != 0;
  }

  void OnAdd(const Node&, uint32_t id) override {
    const uint32_t b = removed_.empty() ? a_ : removed_.back();
    buckets_.Place(b, id);  // the only allocation, done first
    if (removed_.empty()) {
      SetA(a_ + 1);
    } else {
      removed_.pop_back();
      pairs_[b] = Pair{};
      removed_bits_[b / 64] &= ~(uint64_t{1} << (b % 64));
    }
  }
  void OnRemove(size_t, uint32_t id) override {
    const uint32_t b = buckets_.BucketOf(id);
    if (removed_.empty() && b == a_ - 1) {
      SetA(b);
    } else {
      ReserveOneMore(removed_);  // the allocations, done first
      if (b >= pairs_.size()) {  // zeros: either growth alone changes nothing
        removed_bits_.resize(size_t{b} / 64 + 1);
        pairs_.resize(size_t{b} + 1);
      }
      removed_.push_back(b);
      removed_bits_[b / 64] |= uint64_t{1} << (b % 64);
      const uint32_t n = a_ - static_cast<uint32_t>(removed_.size());
      pairs_[b] = Pair{n, AtView(n, n + 1)};
    }
    buckets_.Release(id);
  }
  void SetA(uint32_t a) noexcept {
    a_ = a;
    level_mask_ = JumpBackLevelMask(a);
  }

  uint32_t a_ = 0;                      // buckets 0..a-1 exist, working or removed
  uint32_t level_mask_ = 0;             // JumpBackLevelMask(a_)
  std::vector<Pair> pairs_;             // by bucket; buckets past its end work
  std::vector<uint64_t> removed_bits_;  // bit b set <=> pairs_[b].view != 0
  std::vector<uint32_t> removed_;       // removed buckets, the last removed at the back
  BucketMap buckets_;                   // ids on the working buckets
};

constexpr ParamSpec kParams[] = {kKeyHasherParam};

}  // namespace

constinit const AlgorithmSpec kJumpBackAnchorSpec{
    .name = "jumpback_anchor",
    .summary =
        "JumpBackAnchor (hash4j): AnchorHash's removal chains over JumpBackHash; any node "
        "removable, no capacity",
    .paper =
        "Ertl, hash4j ConsistentHashing.jumpBackAnchorHash (Dynatrace), after Mendelson et "
        "al., \"AnchorHash\", IEEE/ACM ToN 2021 and Ertl, \"JumpBackHash\", arXiv:2403.18682",
    .year = 2025,
    .capabilities = kRemovalStackCapabilities,
    .views = {.buckets = true},
    .params = kParams,
    .balance_bound = 1,
    .memory_bytes = [](const Params&, uint64_t n) { return 8.0 * static_cast<double>(n); },
    .memory_doc =
        "8 bytes per node; 8 and 1 bit per bucket up to the highest removed one, 4 per removal",
    .key_hasher = KeyHasherOrXxh3,
    .make = MakeAs<JumpBackAnchor>,
};

}  // namespace chsim::algorithms_internal
