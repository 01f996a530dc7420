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
// frequency, queue) on intrusive doubly-linked lists, found through an
// open-addressing table of 8-byte slots (a 32-bit tag of the id that also
// fixes its home slot, and the entry's index) with linear probing and
// backward-shift deletion, at most 70% full. Get, Erase and every eviction
// are O(1) (amortized for the clock and S3-FIFO reinsertions) and allocate
// nothing: a cache of objects sizes its slab and table when built; a cache of
// bytes starts from a hint and doubles both when the slab is full, so it
// allocates O(log objects) times over its life, never on most requests.
// About 35 bytes per cached object (S3-FIFO: plus its ghosts).
//
// Thread-safety: none; one thread uses a cache at a time.
#ifndef CHSIM_SIM_CACHE_CACHE_H_
#define CHSIM_SIM_CACHE_CACHE_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace chsim::sim {

enum class CachePolicy : uint8_t { kLru, kFifo, kClock, kS3Fifo };

// What a request does to the cache of its node: a read goes through it (a
// miss inserts the object); a write or a delete drops the object.
enum class RequestOp : uint8_t { kRead, kWrite, kDelete };

// The policies' names, in CachePolicy's order (the scenario rows use it).
inline constexpr std::string_view kCachePolicyNames[] = {"lru", "fifo", "clock", "s3fifo"};
std::span<const std::string_view> CachePolicyNames() noexcept;
std::string_view CachePolicyName(CachePolicy p) noexcept;
// One line: what the policy does (chsim list).
std::string_view CachePolicyDoc(CachePolicy p) noexcept;
std::optional<CachePolicy> FindCachePolicy(std::string_view name) noexcept;

class NodeCache {
 public:
  // A cache of `capacity` units (REQUIRES: capacity >= 1): objects, or bytes
  // when `by_bytes`. `expected_objects` sizes a cache of bytes at the start
  // (0: a small default); a cache of objects ignores it.
  NodeCache(CachePolicy policy, uint64_t capacity, bool by_bytes, uint64_t expected_objects = 0);

  // A read of object `id` of `size` bytes: true on a hit. A miss inserts it.
  bool Get(uint64_t id, uint32_t size) noexcept;
  // Drops `id` (a delete, or a write that invalidates); true if it was cached.
  bool Erase(uint64_t id) noexcept;
  // Empties the cache (a node that leaves or restarts), keeping its memory.
  void Clear() noexcept;
  // Empties the cache and returns its memory (a node that has left).
  void Release() noexcept;
  // Brings towards the CPU what Get(id) will touch, a stage at a time (a
  // hint; changes nothing): 0 the home slot; 1 the entry, or on a miss the
  // tail entry an eviction would take; 2 the entry's list neighbours, or the
  // tail's neighbour and slot. Stages 1 and 2 read the slots.
  void Prefetch(uint64_t id, int stage = 0) const noexcept;

  CachePolicy policy() const noexcept { return policy_; }
  uint64_t capacity() const noexcept { return capacity_; }
  bool by_bytes() const noexcept { return by_bytes_; }
  uint64_t objects() const noexcept;  // cached objects (not ghosts)
  uint64_t stored_bytes() const noexcept { return stored_bytes_; }
  uint64_t used() const noexcept;  // units held: objects() or stored_bytes()
  // Heap bytes of the slab and the table.
  size_t MemoryBytes() const noexcept;

 private:
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
  static uint64_t Mixed(uint64_t id) noexcept { return id * 0x9e3779b97f4a7c15ULL; }
  size_t HomeOfTag(uint32_t tag) const noexcept {
    return static_cast<size_t>((static_cast<uint64_t>(tag) * slots_.size()) >> 32);
  }
  size_t Next(size_t i) const noexcept { return i + 1 == slots_.size() ? 0 : i + 1; }
  uint32_t Find(uint64_t id) const noexcept;
  void InsertSlot(uint64_t id, uint32_t index) noexcept;
  void EraseSlot(uint64_t id) noexcept;
  void Resize(size_t entries);
  // Lists.
  void PushHead(Queue q, uint32_t i) noexcept;
  void Unlink(uint32_t i) noexcept;
  uint32_t NewEntry(uint64_t id, uint32_t size) noexcept;
  void Free(uint32_t i) noexcept;  // frees the slot and the unlinked entry
  void Drop(uint32_t i) noexcept;  // unlinks, then Free
  // Policies.
  void Admit(Queue q, uint64_t id, uint32_t size) noexcept;
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
  std::vector<Entry> entries_;   // slab; size() = entries ever made, capacity fixed between resizes
  uint32_t free_ = kNil;         // free entries, linked through next
  std::vector<uint64_t> slots_;  // 0 empty, else tag << 32 | (index + 1)
  size_t max_entries_ = 0;       // slab capacity before the next resize
  size_t initial_entries_ = 0;   // the slab a fresh cache gets
};

// The replay's inner loop: request j (object ids[j] of sizes[j] bytes, op
// ops[j]) goes to caches[owners[j]], in order; hits[j] = 1 for a read that
// hit, else 0. Prefetches each cache's slot a few requests ahead.
// REQUIRES: every owner names a cache; the spans are as long as `ids`.
void ServeRequests(NodeCache* const* caches, std::span<const uint32_t> owners,
                   std::span<const uint64_t> ids, std::span<const uint32_t> sizes,
                   std::span<const RequestOp> ops, std::span<uint8_t> hits) noexcept;

}  // namespace chsim::sim

#endif  // CHSIM_SIM_CACHE_CACHE_H_
