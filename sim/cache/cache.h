// SPDX-License-Identifier: Apache-2.0
// NodeCache: the cache of one simulated node, replayed request by request.
//
// Policies (docs/cache.md has the sources):
//   lru     least recently used: a hit moves the object to the head, a miss
//           evicts from the tail;
//   fifo    first in, first out: a hit changes nothing;
//   clock   FIFO with one reference bit (second chance): a hit sets the bit;
//           the tail is evicted when its bit is clear, else the bit is
//           cleared and the object goes back to the head;
//   s3fifo  S3-FIFO (Yang et al., "FIFO queues are all you need for cache
//           eviction", SOSP 2023, section 4): a small FIFO S (10% of the
//           capacity, at least one unit) that new objects enter, a main FIFO
//           M (the rest) with 2-bit frequencies and reinsertion, and a ghost
//           FIFO G of the ids evicted from S (90% of the capacity). An S
//           object hit twice moves to M on its way out (libCacheSim's
//           move-to-main threshold 2), others go to G; a miss found in G
//           enters M; an M object with frequency f > 0 is reinserted with
//           f - 1; objects larger than S are not admitted.
//
// Capacity is in units: objects (every object costs 1) or bytes (an object
// costs its size). A read that misses inserts the object at the size of that
// request, evicting until it fits; an object that can never fit is not
// inserted (its reads all miss), as libCacheSim does. A hit keeps the stored
// size. Erase drops an object (and an S3-FIFO ghost) with no other change.
//
// Layout: entries live in one slab (24 bytes each: id, size, two list links,
// frequency, queue) on intrusive doubly-linked lists, found through a table of
// groups, each one 64-byte cache line of 12 slots: 12 one-byte tags (7 bits of
// the id's hash under a set top bit; 0 marks an empty slot), a count of the ids
// placed beyond the group from it or a group before it, and 12 entry indices.
// An id's home group is fixed by the high bits of its hash; a lookup compares
// the group's 12 tags at once (SSE2) and goes on to the next group only while
// that count is not 0, so it usually reads one line of the table and one entry.
// Insertion takes the first empty slot from the home group on, counting itself
// in each full group it passes; deletion empties the slot and takes itself off
// those counts (the outbound overflow counts of Meta's F14 hash table): no
// tombstones, nothing degrades with deletions. Entries fill at most 3/4 of the
// slots. Get, Erase and every eviction are O(1) (amortized for the clock and
// S3-FIFO reinsertions) and allocate nothing: a cache of objects sizes its slab
// and table when built; a cache of bytes starts from a hint and doubles both
// when the slab is full, so it allocates O(log objects) times over its life,
// never on most requests. About 33 bytes per cached object (S3-FIFO: plus its
// ghosts); a slab or table of 2 MiB or more is rounded up to whole 2 MiB
// pages (CacheStorage), and the replay carves its caches' slabs and tables
// from 2 MiB pages shared by all the caches of a side (CacheArena).
//
// Thread-safety: none; one thread uses a cache at a time.
#ifndef CHSIM_SIM_CACHE_CACHE_H_
#define CHSIM_SIM_CACHE_CACHE_H_

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/cache/policy.h"

namespace chsim::sim {

// Storage of a cache's slab and table: a block of 2 MiB or more is asked for
// as transparent huge pages (madvise, 2 MiB aligned and rounded up), so the
// random probes of a large cache miss the TLB less; smaller blocks come from
// operator new.
void* AllocateCacheStorage(size_t bytes);
void FreeCacheStorage(void* p, size_t bytes) noexcept;

// Memory for many caches at once (the replay's caches of one side): blocks
// carved from chunks of 2 MiB transparent huge pages (AllocateCacheStorage),
// so that a hundred small caches' random probes miss the TLB as seldom as
// one large cache's. A block of 1 MiB or more is a chunk of its own. A freed
// block is kept and handed out again for a block of the same size (the
// caches of one replay have few sizes), so the arena holds at most what the
// caches held at once, plus one partly used chunk; everything is returned
// when it is destroyed, which must be after its caches are.
// Thread-safety: none; one thread uses an arena (and its caches) at a time.
class CacheArena {
 public:
  CacheArena() = default;
  ~CacheArena();
  CacheArena(const CacheArena&) = delete;
  CacheArena& operator=(const CacheArena&) = delete;

  void* Allocate(size_t bytes);  // 64-byte aligned
  void Free(void* p, size_t bytes) noexcept;

 private:
  struct Block {
    void* p;
    size_t bytes;
  };
  std::vector<Block> chunks_, free_;
  char* next_ = nullptr;  // the current chunk's unused bytes
  size_t left_ = 0;
};

// The allocator of a cache's slab and table: from `arena`, or without one
// from AllocateCacheStorage. Two are equal when they share the arena.
template <typename T>
struct CacheStorage {
  using value_type = T;
  CacheArena* arena = nullptr;
  CacheStorage() = default;
  explicit CacheStorage(CacheArena* a) noexcept : arena(a) {}
  template <typename U>
  CacheStorage(const CacheStorage<U>& other) noexcept : arena(other.arena) {}
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    return static_cast<T*>(arena ? arena->Allocate(bytes) : AllocateCacheStorage(bytes));
  }
  void deallocate(T* p, size_t n) noexcept {
    if (arena) return arena->Free(p, n * sizeof(T));
    FreeCacheStorage(p, n * sizeof(T));
  }
  friend bool operator==(const CacheStorage& a, const CacheStorage& b) noexcept {
    return a.arena == b.arena;
  }
};

class NodeCache {
 public:
  // A cache of `capacity` units (REQUIRES: capacity >= 1): objects, or bytes
  // when `by_bytes`. `expected_objects` sizes a cache of bytes at the start
  // (0: a small default); a cache of objects ignores it. Its memory comes
  // from `arena` when given (which must outlive the cache).
  NodeCache(CachePolicy policy, uint64_t capacity, bool by_bytes, uint64_t expected_objects = 0,
            CacheArena* arena = nullptr);
  // The same content, order and state, with memory of its own (as much as
  // `other` reserved: the copy allocates no more on its requests than it
  // would), from `arena` when given.
  NodeCache(const NodeCache& other, CacheArena* arena = nullptr);
  NodeCache& operator=(const NodeCache&) = delete;

  // A read of object `id` of `size` bytes: true on a hit. A miss inserts it.
  bool Get(uint64_t id, uint32_t size) noexcept { return Get(id, size, Probe{Mixed(id)}); }
  // Drops `id` (a delete, or a write that invalidates); true if it was cached.
  bool Erase(uint64_t id) noexcept;
  // Empties the cache (a node that leaves or restarts), keeping its memory.
  void Clear() noexcept;
  // Empties the cache and returns its memory (a node that has left).
  void Release() noexcept;

  CachePolicy policy() const noexcept { return policy_; }
  uint64_t capacity() const noexcept { return capacity_; }
  bool by_bytes() const noexcept { return by_bytes_; }
  uint64_t objects() const noexcept;  // cached objects (not ghosts)
  uint64_t stored_bytes() const noexcept { return stored_bytes_; }
  uint64_t used() const noexcept;  // units held: objects() or stored_bytes()
  // Heap bytes of the slab and the table.
  size_t MemoryBytes() const noexcept;

 private:
  template <typename CacheOf>
  friend void ServeLoop(CacheOf, std::span<const uint64_t>, std::span<const uint32_t>,
                        std::span<const RequestOp>, std::span<uint8_t>) noexcept;
  // An id's hash, for ServeRequests to run ahead of Get: Aim makes it and
  // brings the id's home group towards the CPU; PrefetchEntries (once the
  // group is near) brings the entries its tags point to; Get(id, size,
  // probe) then looks the id up from its home (HomeOf, valid whatever the
  // table's size). Aim and PrefetchEntries are hints: they change nothing.
  // (A hit's list neighbours are only written, which does not wait for them.)
  struct Probe {
    uint64_t hash;  // Mixed(id)
  };
  Probe Aim(uint64_t id) const noexcept;
  // Also, when the id is surely missing (no tag matches and nothing was
  // placed beyond the group), the main list's tail (the entry an LRU or FIFO
  // miss evicts) and victim_group_, with no load that waits on memory.
  void PrefetchEntries(const Probe& p) const noexcept;
  bool Get(uint64_t id, uint32_t size, const Probe& p) noexcept;
  bool Serve(uint64_t id, uint32_t size, const Probe& p) noexcept;  // Get, inlined

  static constexpr uint32_t kNil = UINT32_MAX;
  enum Queue : uint8_t { kMain = 0, kSmall = 1, kGhost = 2 };  // lru/fifo/clock use kMain

  struct Entry {
    uint64_t id;
    uint32_t size;
    uint32_t prev, next;
    uint8_t freq, queue;
  };
  struct List {
    uint32_t head = kNil, tail = kNil;
    uint64_t used = 0, count = 0;  // units, entries
  };

  // Units an object takes: 1, or its size (a size of 0 counts as 1 byte).
  uint64_t Charge(uint32_t size) const noexcept {
    return by_bytes_ ? std::max<uint64_t>(size, 1) : 1;
  }
  // Table.
  static constexpr size_t kSlots = 12;  // per group
  // tag[s] for slot s < kSlots: kEmpty or a tag 0x80..0xff; tag[kOverflow]:
  // ids placed beyond this group whose home is this group or one before it
  // (a lookup that gets here goes on only while it is not 0).
  static constexpr uint8_t kEmpty = 0, kSaturated = 0xff;
  static constexpr size_t kOverflow = 15;
  static constexpr uint32_t kSlotMask = (1u << kSlots) - 1;
  struct alignas(64) Group {
    uint8_t tag[16] = {};
    uint32_t index[kSlots] = {};
  };
  static uint64_t Mixed(uint64_t id) noexcept { return id * 0x9e3779b97f4a7c15ULL; }
  // Where an id's lookup starts: its home group and its tag.
  struct Home {
    uint32_t group;
    uint8_t tag;
  };
  // Hash bits 32..63 pick the home group, bits 25..31 the tag.
  Home HomeOf(const Probe& p) const noexcept {
    return {static_cast<uint32_t>(((p.hash >> 32) * group_count_) >> 32),
            static_cast<uint8_t>((p.hash >> 25) | 0x80)};
  }
  Home HomeOf(uint64_t id) const noexcept { return HomeOf(Probe{Mixed(id)}); }
  size_t NextGroup(size_t g) const noexcept { return g + 1 == group_count_ ? 0 : g + 1; }
  static uint32_t Match(const Group& g, uint8_t tag) noexcept;  // bit s < kSlots: tag[s] == tag
  uint32_t FindFrom(const Home& p, uint64_t id) const noexcept;
  uint32_t Find(uint64_t id) const noexcept { return FindFrom(HomeOf(id), id); }
  void PlaceSlot(uint64_t id, uint32_t index) noexcept;
  void EraseSlot(uint64_t id, uint32_t index) noexcept;
  void Rebuild() noexcept;
  void Resize(size_t entries);
  // Fetches the entry before the next victim (a list's tail) and the
  // victim's group, and notes that group in victim_group_.
  void PrefetchVictim() noexcept;
  // Lists.
  void PushHead(Queue q, uint32_t i) noexcept;
  void Unlink(uint32_t i) noexcept;
  void MoveToHead(uint32_t i) noexcept;
  uint32_t NewEntry(uint64_t id, uint32_t size) noexcept;
  void Free(uint32_t i) noexcept;  // frees the slot and the unlinked entry
  void Drop(uint32_t i) noexcept;  // unlinks, then Free
  // Policies.
  void Admit(Queue q, uint64_t id, uint32_t size) noexcept;
  void ReplaceTail(uint64_t id, uint32_t size) noexcept;
  void MakeRoom(uint64_t charge) noexcept;
  void EvictClock() noexcept;
  void EvictSmall() noexcept;
  void EvictMain() noexcept;
  bool GetS3Fifo(uint32_t i, uint64_t id, uint32_t size) noexcept;

  CachePolicy policy_;
  bool by_bytes_;
  uint64_t capacity_;
  uint64_t small_capacity_ = 0, main_capacity_ = 0, ghost_capacity_ = 0;  // s3fifo
  uint64_t admit_limit_;                                                  // largest charge admitted
  uint64_t stored_bytes_ = 0;
  List lists_[3];
  std::vector<Entry, CacheStorage<Entry>>
      entries_;           // slab; size() = entries ever made, capacity fixed between resizes
  uint32_t free_ = kNil;  // free entries, linked through next
  std::vector<Group, CacheStorage<Group>> groups_;
  size_t group_count_ = 0;      // groups_.size()
  size_t victim_group_ = 0;     // a hint, < group_count_: the last victim PrefetchVictim saw
  size_t max_entries_ = 0;      // slab capacity before the next resize
  size_t initial_entries_ = 0;  // the slab a fresh cache gets
};

// The replay's inner loop: request j (object ids[j] of sizes[j] bytes, op
// ops[j]) goes to caches[owners[j]], in order; hits[j] = 1 for a read that
// hit, else 0. Runs each request's Prefetch stages a few requests ahead of
// its Get, so that many requests' memory accesses are in
// flight at once.
// REQUIRES: every owner names a cache; the spans are as long as `ids`.
void ServeRequests(NodeCache* const* caches, std::span<const uint32_t> owners,
                   std::span<const uint64_t> ids, std::span<const uint32_t> sizes,
                   std::span<const RequestOp> ops, std::span<uint8_t> hits) noexcept;
// The same with every request sent to `cache`.
void ServeRequests(NodeCache& cache, std::span<const uint64_t> ids, std::span<const uint32_t> sizes,
                   std::span<const RequestOp> ops, std::span<uint8_t> hits) noexcept;

}  // namespace chsim::sim

#endif  // CHSIM_SIM_CACHE_CACHE_H_
