// SPDX-License-Identifier: Apache-2.0
#include "sim/cache/cache.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <new>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace chsim::sim {
namespace {

constexpr uint8_t kFree = 0xff;       // Entry::queue of a free entry
constexpr uint8_t kMaxFrequency = 3;  // S3-FIFO's 2-bit counter
constexpr uint8_t kMoveToMain = 2;    // hits in S that move an object to M
constexpr size_t kDefaultEntries = 1024;

constexpr size_t kHugePage = size_t{2} << 20;
constexpr std::align_val_t kLine{64};

}  // namespace

void* AllocateCacheStorage(size_t bytes) {
  if (bytes < kHugePage) return ::operator new(bytes, kLine);
  void* p = std::aligned_alloc(kHugePage, (bytes + kHugePage - 1) / kHugePage * kHugePage);
  if (p == nullptr) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  ::madvise(p, (bytes + kHugePage - 1) / kHugePage * kHugePage, MADV_HUGEPAGE);  // a hint
#endif
  return p;
}

void FreeCacheStorage(void* p, size_t bytes) noexcept {
  if (bytes < kHugePage) {
    ::operator delete(p, kLine);
  } else {
    std::free(p);
  }
}

constexpr size_t kChunk = kHugePage;      // an arena's chunks
constexpr size_t kOwnChunk = kChunk / 2;  // blocks this large get a chunk of their own

CacheArena::~CacheArena() {
  for (const Block& c : chunks_) FreeCacheStorage(c.p, c.bytes);
}

void* CacheArena::Allocate(size_t bytes) {
  bytes = (bytes + 63) / 64 * 64;
  for (Block& b : free_) {
    if (b.bytes != bytes) continue;
    void* p = b.p;
    b = free_.back();
    free_.pop_back();
    return p;
  }
  if (bytes >= kOwnChunk) {
    chunks_.reserve(chunks_.size() + 1);
    chunks_.push_back({AllocateCacheStorage(bytes), bytes});
    return chunks_.back().p;
  }
  if (left_ < bytes) {
    chunks_.reserve(chunks_.size() + 1);
    chunks_.push_back({AllocateCacheStorage(kChunk), kChunk});
    next_ = static_cast<char*>(chunks_.back().p);
    left_ = kChunk;
  }
  void* p = next_;
  next_ += bytes;
  left_ -= bytes;
  return p;
}

void CacheArena::Free(void* p, size_t bytes) noexcept {
  if (p == nullptr) return;
  // A failed push (no memory) only loses the block until the arena goes.
  try {
    free_.push_back({p, (bytes + 63) / 64 * 64});
  } catch (const std::bad_alloc&) {
  }
}

NodeCache::NodeCache(CachePolicy policy, uint64_t capacity, bool by_bytes,
                     uint64_t expected_objects, CacheArena* arena)
    : policy_(policy),
      by_bytes_(by_bytes),
      capacity_(std::max<uint64_t>(capacity, 1)),
      entries_(CacheStorage<Entry>(arena)),
      groups_(CacheStorage<Group>(arena)) {
  admit_limit_ = capacity_;
  uint64_t most = capacity_;  // entries a cache of objects can hold at once
  if (policy_ == CachePolicy::kS3Fifo) {
    small_capacity_ = std::max<uint64_t>(1, capacity_ / 10);
    main_capacity_ = capacity_ - std::min(small_capacity_, capacity_);
    ghost_capacity_ = capacity_ * 9 / 10;
    admit_limit_ = small_capacity_;
    most += ghost_capacity_;
  }
  const uint64_t hint = expected_objects > 0 ? expected_objects : kDefaultEntries;
  initial_entries_ = static_cast<size_t>(by_bytes_ ? std::min(most, hint) : most);
  Resize(initial_entries_);
}

NodeCache::NodeCache(const NodeCache& other, CacheArena* arena)
    : policy_(other.policy_),
      by_bytes_(other.by_bytes_),
      capacity_(other.capacity_),
      small_capacity_(other.small_capacity_),
      main_capacity_(other.main_capacity_),
      ghost_capacity_(other.ghost_capacity_),
      admit_limit_(other.admit_limit_),
      stored_bytes_(other.stored_bytes_),
      entries_(CacheStorage<Entry>(arena)),
      free_(other.free_),
      groups_(other.groups_, CacheStorage<Group>(arena)),
      group_count_(other.group_count_),
      victim_group_(other.victim_group_),
      max_entries_(other.max_entries_),
      initial_entries_(other.initial_entries_) {
  std::copy(std::begin(other.lists_), std::end(other.lists_), std::begin(lists_));
  entries_.reserve(max_entries_);
  entries_ = other.entries_;
}

uint64_t NodeCache::objects() const noexcept { return lists_[kMain].count + lists_[kSmall].count; }

uint64_t NodeCache::used() const noexcept { return lists_[kMain].used + lists_[kSmall].used; }

size_t NodeCache::MemoryBytes() const noexcept {
  return entries_.capacity() * sizeof(Entry) + groups_.capacity() * sizeof(Group);
}

// --- Table -----------------------------------------------------------------

#if defined(__SSE2__)
[[gnu::always_inline]] inline uint32_t NodeCache::Match(const Group& g, uint8_t tag) noexcept {
  const __m128i t = _mm_load_si128(reinterpret_cast<const __m128i*>(g.tag));
  return static_cast<uint32_t>(
             _mm_movemask_epi8(_mm_cmpeq_epi8(t, _mm_set1_epi8(static_cast<char>(tag))))) &
         kSlotMask;
}
#else
[[gnu::always_inline]] inline uint32_t NodeCache::Match(const Group& g, uint8_t tag) noexcept {
  uint32_t m = 0;
  for (size_t s = 0; s < kSlots; ++s) m |= static_cast<uint32_t>(g.tag[s] == tag) << s;
  return m;
}
#endif

[[gnu::always_inline]] inline uint32_t NodeCache::FindFrom(const Home& p,
                                                           uint64_t id) const noexcept {
  // At most one lap (saturated counts could otherwise keep it going).
  for (size_t g = p.group, left = group_count_; left > 0; g = NextGroup(g), --left) {
    const Group& group = groups_[g];
    for (uint32_t m = Match(group, p.tag); m != 0; m &= m - 1) {
      const uint32_t i = group.index[std::countr_zero(m)];
      if (entries_[i].id == id) return i;
    }
    if (group.tag[kOverflow] == 0) break;  // no id placed beyond it from here
  }
  return kNil;
}

[[gnu::always_inline]] inline NodeCache::Probe NodeCache::Aim(uint64_t id) const noexcept {
  const Probe p{Mixed(id)};
  __builtin_prefetch(&groups_[HomeOf(p).group]);
  return p;
}

[[gnu::always_inline]] inline void NodeCache::PrefetchEntries(const Probe& probe) const noexcept {
  const Home p = HomeOf(probe);
  const Group& group = groups_[p.group];
  const uint32_t match = Match(group, p.tag);
  for (uint32_t m = match; m != 0; m &= m - 1) {
    const char* e = reinterpret_cast<const char*>(&entries_[group.index[std::countr_zero(m)]]);
    __builtin_prefetch(e);
    __builtin_prefetch(e + sizeof(Entry) - 1);  // its second line, when it straddles two
  }
  if (match != 0 || group.tag[kOverflow] != 0) return;
  const uint32_t t = lists_[kMain].tail;
  if (t == kNil) return;
  __builtin_prefetch(&entries_[t]);
  __builtin_prefetch(&groups_[victim_group_]);
}

// For the entry a miss would evict next (a list's tail): the entry before it
// (its unlinking writes there) and its group (its slot is erased), which
// PrefetchEntries fetches again just before a sure miss.
[[gnu::always_inline]] inline void NodeCache::PrefetchVictim() noexcept {
  const List& l = lists_[policy_ == CachePolicy::kS3Fifo && lists_[kSmall].count ? kSmall : kMain];
  if (l.tail == kNil) return;
  const Entry& t = entries_[l.tail];
  if (t.prev != kNil) __builtin_prefetch(&entries_[t.prev]);
  victim_group_ = HomeOf(t.id).group;
  __builtin_prefetch(&groups_[victim_group_]);
}

// The first empty slot from the home group on; each full group passed counts
// one more id placed beyond it (saturating: a group at the limit keeps it).
[[gnu::always_inline]] inline void NodeCache::PlaceSlot(uint64_t id, uint32_t index) noexcept {
  const Home p = HomeOf(id);
  for (size_t g = p.group;; g = NextGroup(g)) {
    Group& group = groups_[g];
    const uint32_t free = Match(group, kEmpty);
    if (free == 0) {
      group.tag[kOverflow] += group.tag[kOverflow] != kSaturated;
      continue;
    }
    const int s = std::countr_zero(free);
    group.tag[s] = p.tag;
    group.index[s] = index;
    return;
  }
}

// Empties the slot, and takes the id off the overflow counts of the groups
// its placing passed (those before its own).
[[gnu::always_inline]] inline void NodeCache::EraseSlot(uint64_t id, uint32_t index) noexcept {
  const Home p = HomeOf(id);
  for (size_t g = p.group;; g = NextGroup(g)) {
    Group& group = groups_[g];
    for (uint32_t m = Match(group, p.tag); m != 0; m &= m - 1) {
      const int s = std::countr_zero(m);
      if (group.index[s] != index) continue;
      group.tag[s] = kEmpty;
      return;
    }
    group.tag[kOverflow] -= group.tag[kOverflow] != kSaturated;
  }
}

// Places every entry again in an empty table.
void NodeCache::Rebuild() noexcept {
  for (Group& g : groups_) g = Group{};
  for (uint32_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].queue != kFree) PlaceSlot(entries_[i].id, i);
  }
}

// Gives the slab room for `entries` and rebuilds the table for them.
void NodeCache::Resize(size_t entries) {
  max_entries_ = std::max<size_t>(entries, 1);
  entries_.reserve(max_entries_);
  const size_t groups = (max_entries_ * 5 + 3 * kSlots - 1) / (3 * kSlots);  // at most 3/5 full
  groups_.assign(groups, Group{});
  group_count_ = groups;
  victim_group_ = 0;
  Rebuild();
}

// --- Lists -----------------------------------------------------------------

void NodeCache::PushHead(Queue q, uint32_t i) noexcept {
  Entry& e = entries_[i];
  List& l = lists_[q];
  e.queue = q;
  e.prev = kNil;
  e.next = l.head;
  if (l.head != kNil) {
    entries_[l.head].prev = i;
  } else {
    l.tail = i;
  }
  l.head = i;
  l.used += Charge(e.size);
  ++l.count;
  if (q != kGhost) stored_bytes_ += e.size;
}

void NodeCache::Unlink(uint32_t i) noexcept {
  Entry& e = entries_[i];
  List& l = lists_[e.queue];
  (e.prev != kNil ? entries_[e.prev].next : l.head) = e.next;
  (e.next != kNil ? entries_[e.next].prev : l.tail) = e.prev;
  l.used -= Charge(e.size);
  --l.count;
  if (e.queue != kGhost) stored_bytes_ -= e.size;
}

// Unlink then PushHead within the main list, without the tallies (they
// stay). An LRU hit: its entries are all on the main list.
[[gnu::always_inline]] inline void NodeCache::MoveToHead(uint32_t i) noexcept {
  Entry& e = entries_[i];
  List& l = lists_[kMain];
  if (l.head == i) return;
  entries_[e.prev].next = e.next;  // e is not the head: it has a prev
  (e.next != kNil ? entries_[e.next].prev : l.tail) = e.prev;
  e.prev = kNil;
  e.next = l.head;
  entries_[l.head].prev = i;
  l.head = i;
}

uint32_t NodeCache::NewEntry(uint64_t id, uint32_t size) noexcept {
  uint32_t i = free_;
  if (i != kNil) {
    free_ = entries_[i].next;
  } else {
    if (entries_.size() == max_entries_) {  // bytes (or after Release): amortized
      Resize(std::max(max_entries_ * 2, initial_entries_));
    }
    i = static_cast<uint32_t>(entries_.size());
    entries_.push_back(Entry{});
  }
  entries_[i] = Entry{id, size, kNil, kNil, 0, kFree};
  PlaceSlot(id, i);
  return i;
}

void NodeCache::Free(uint32_t i) noexcept {
  EraseSlot(entries_[i].id, i);
  entries_[i].queue = kFree;
  entries_[i].next = free_;
  free_ = i;
}

void NodeCache::Drop(uint32_t i) noexcept {
  Unlink(i);
  Free(i);
}

// --- Policies --------------------------------------------------------------

bool NodeCache::Get(uint64_t id, uint32_t size, const Probe& p) noexcept {
  const uint32_t i = FindFrom(HomeOf(p), id);
  if (policy_ == CachePolicy::kS3Fifo) return GetS3Fifo(i, id, size);
  if (i != kNil) {
    if (policy_ == CachePolicy::kLru) {
      MoveToHead(i);
    } else if (policy_ == CachePolicy::kClock) {
      entries_[i].freq = 1;
    }
    return true;
  }
  Admit(kMain, id, size);
  return false;
}

// Get with the LRU and FIFO paths inline (the replay's common case); the
// miss's insertion and the other policies out of line.
[[gnu::always_inline]] inline bool NodeCache::Serve(uint64_t id, uint32_t size,
                                                    const Probe& p) noexcept {
  if (policy_ != CachePolicy::kLru && policy_ != CachePolicy::kFifo) return Get(id, size, p);
  const uint32_t i = FindFrom(HomeOf(p), id);
  if (i == kNil) {
    const List& l = lists_[kMain];
    if (!by_bytes_ && l.count == capacity_ && l.tail != kNil) {
      ReplaceTail(id, size);
    } else {
      Admit(kMain, id, size);
    }
    return false;
  }
  if (policy_ == CachePolicy::kLru) MoveToHead(i);
  return true;
}

// A miss of a full LRU or FIFO cache of objects: what Admit does there (the
// tail dropped, its slot erased, the object placed in the entry the tail
// freed and pushed at the head), in one step with no free-list round trip.
[[gnu::noinline]] void NodeCache::ReplaceTail(uint64_t id, uint32_t size) noexcept {
  List& l = lists_[kMain];
  const uint32_t t = l.tail;
  Entry& e = entries_[t];
  EraseSlot(e.id, t);
  l.tail = e.prev;
  (e.prev != kNil ? entries_[e.prev].next : l.head) = kNil;
  stored_bytes_ = stored_bytes_ - e.size + size;
  e = Entry{id, size, kNil, l.head, 0, kMain};
  (l.head != kNil ? entries_[l.head].prev : l.tail) = t;
  l.head = t;
  PlaceSlot(id, t);
  PrefetchVictim();
}

bool NodeCache::GetS3Fifo(uint32_t i, uint64_t id, uint32_t size) noexcept {
  if (i != kNil && entries_[i].queue != kGhost) {
    Entry& e = entries_[i];
    e.freq = static_cast<uint8_t>(std::min<int>(e.freq + 1, kMaxFrequency));
    return true;
  }
  Queue to = kSmall;
  if (i != kNil) {  // remembered by the ghost queue: a miss that goes to M
    Drop(i);
    to = kMain;
  }
  Admit(to, id, size);
  return false;
}

// A miss: makes room and inserts the object at the head of `q`, unless it
// is larger than the policy admits.
[[gnu::noinline]] void NodeCache::Admit(Queue q, uint64_t id, uint32_t size) noexcept {
  const uint64_t charge = Charge(size);
  if (charge > admit_limit_) return;
  MakeRoom(charge);
  PushHead(q, NewEntry(id, size));
}

void NodeCache::MakeRoom(uint64_t charge) noexcept {
  if (used() + charge <= capacity_) return;
  do {
    switch (policy_) {
      case CachePolicy::kLru:
      case CachePolicy::kFifo:
        Drop(lists_[kMain].tail);
        break;
      case CachePolicy::kClock:
        EvictClock();
        break;
      case CachePolicy::kS3Fifo:
        if (lists_[kMain].used > main_capacity_ || lists_[kSmall].count == 0) {
          EvictMain();
        } else {
          EvictSmall();
        }
        break;
    }
  } while (used() + charge > capacity_);
  PrefetchVictim();  // a full cache evicts again soon
}

void NodeCache::EvictClock() noexcept {
  List& l = lists_[kMain];
  while (entries_[l.tail].freq != 0) {
    const uint32_t t = l.tail;
    entries_[t].freq = 0;
    Unlink(t);
    PushHead(kMain, t);
  }
  Drop(l.tail);
}

// S3-FIFO's evictS: the tail of S moves to M if it was hit often enough,
// else its id goes to G; repeats until one object has left the cache.
void NodeCache::EvictSmall() noexcept {
  List& small = lists_[kSmall];
  while (small.count > 0) {
    const uint32_t t = small.tail;
    Unlink(t);
    if (entries_[t].freq >= kMoveToMain) {
      entries_[t].freq = 0;
      PushHead(kMain, t);
      continue;
    }
    const uint64_t charge = Charge(entries_[t].size);
    if (charge > ghost_capacity_) {
      Free(t);
      return;
    }
    while (lists_[kGhost].used + charge > ghost_capacity_) Drop(lists_[kGhost].tail);
    entries_[t].freq = 0;
    PushHead(kGhost, t);
    return;
  }
}

// S3-FIFO's evictM: the tail of M is reinserted with one frequency less
// while it has any, else evicted.
void NodeCache::EvictMain() noexcept {
  List& main = lists_[kMain];
  while (main.count > 0) {
    const uint32_t t = main.tail;
    if (entries_[t].freq == 0) {
      Drop(t);
      return;
    }
    --entries_[t].freq;
    Unlink(t);
    PushHead(kMain, t);
  }
}

bool NodeCache::Erase(uint64_t id) noexcept {
  const uint32_t i = Find(id);
  if (i == kNil) return false;
  const bool cached = entries_[i].queue != kGhost;
  Drop(i);
  return cached;
}

void NodeCache::Clear() noexcept {
  entries_.clear();
  Rebuild();
  free_ = kNil;
  for (List& l : lists_) l = List{};
  stored_bytes_ = 0;
}

void NodeCache::Release() noexcept {
  Clear();
  decltype(entries_)(entries_.get_allocator()).swap(entries_);
  decltype(groups_)(1, Group{}, groups_.get_allocator()).swap(groups_);
  group_count_ = 1;
  victim_group_ = 0;
  max_entries_ = 0;
}

// The loop of ServeRequests; cache_of(j) is request j's cache.
template <typename CacheOf>
[[gnu::always_inline]] inline void ServeLoop(CacheOf cache_of, std::span<const uint64_t> ids,
                                             std::span<const uint32_t> sizes,
                                             std::span<const RequestOp> ops,
                                             std::span<uint8_t> hits) noexcept {
  // While request j is served, request j + kAim has its probe made and its
  // group fetched, and request j + kEntries its entries fetched.
  constexpr size_t kAim = 16, kEntries = 8, kRing = 32;
  static_assert(kAim < kRing && (kRing & (kRing - 1)) == 0);
  const size_t m = ids.size();
  NodeCache::Probe probe[kRing];
  NodeCache* cache[kRing];  // request k's cache, cache_of(k), at k % kRing
  for (size_t k = 0; k < std::min(m, kAim); ++k) {
    cache[k] = &cache_of(k);
    probe[k] = cache[k]->Aim(ids[k]);
    if (k < kEntries) cache[k]->PrefetchEntries(probe[k]);
  }
  for (size_t j = 0; j < m; ++j) {
    if (j + kAim < m) {
      NodeCache* ahead = &cache_of(j + kAim);
      cache[(j + kAim) % kRing] = ahead;
      probe[(j + kAim) % kRing] = ahead->Aim(ids[j + kAim]);
    }
    if (j + kEntries < m) {
      cache[(j + kEntries) % kRing]->PrefetchEntries(probe[(j + kEntries) % kRing]);
    }
    NodeCache& c = *cache[j % kRing];
    if (ops[j] == RequestOp::kRead) {
      hits[j] = c.Serve(ids[j], sizes[j], probe[j % kRing]);
    } else {
      c.Erase(ids[j]);
      hits[j] = 0;
    }
  }
}

void ServeRequests(NodeCache* const* caches, std::span<const uint32_t> owners,
                   std::span<const uint64_t> ids, std::span<const uint32_t> sizes,
                   std::span<const RequestOp> ops, std::span<uint8_t> hits) noexcept {
  if (ids.empty()) return;
  const uint32_t first = owners[0];
  if (std::all_of(owners.begin(), owners.end(), [first](uint32_t o) { return o == first; })) {
    NodeCache& only = *caches[first];  // one cache: no lookup of it per request
    return ServeLoop([&only](size_t) -> NodeCache& { return only; }, ids, sizes, ops, hits);
  }
  ServeLoop([caches, owners](size_t j) -> NodeCache& { return *caches[owners[j]]; }, ids, sizes,
            ops, hits);
}

void ServeRequests(NodeCache& cache, std::span<const uint64_t> ids, std::span<const uint32_t> sizes,
                   std::span<const RequestOp> ops, std::span<uint8_t> hits) noexcept {
  if (ids.empty()) return;
  ServeLoop([&cache](size_t) -> NodeCache& { return cache; }, ids, sizes, ops, hits);
}

}  // namespace chsim::sim
