// SPDX-License-Identifier: Apache-2.0
#include "sim/cache/cache.h"

#include <algorithm>
#include <array>

namespace chsim::sim {
namespace {

constexpr std::array<std::string_view, 4> kPolicyDocs = {
    "least recently used: a hit moves the object to the head, eviction takes the tail",
    "first in, first out: a hit changes nothing",
    "FIFO with a reference bit (second chance): a hit sets it, eviction reinserts once",
    "S3-FIFO (Yang et al., SOSP 2023): a small FIFO of new objects, a main FIFO with "
    "frequencies, a ghost FIFO of evicted ids"};
constexpr uint8_t kFree = 0xff;       // Entry::queue of a free entry
constexpr uint8_t kMaxFrequency = 3;  // S3-FIFO's 2-bit counter
constexpr uint8_t kMoveToMain = 2;    // hits in S that move an object to M
constexpr double kMaxLoad = 0.7;      // table fill
constexpr size_t kDefaultEntries = 1024;

}  // namespace

std::span<const std::string_view> CachePolicyNames() noexcept { return kCachePolicyNames; }

std::string_view CachePolicyName(CachePolicy p) noexcept {
  return kCachePolicyNames[static_cast<size_t>(p)];
}

std::string_view CachePolicyDoc(CachePolicy p) noexcept {
  return kPolicyDocs[static_cast<size_t>(p)];
}

std::optional<CachePolicy> FindCachePolicy(std::string_view name) noexcept {
  for (size_t i = 0; i < std::size(kCachePolicyNames); ++i) {
    if (kCachePolicyNames[i] == name) return static_cast<CachePolicy>(i);
  }
  return std::nullopt;
}

NodeCache::NodeCache(CachePolicy policy, uint64_t capacity, bool by_bytes,
                     uint64_t expected_objects)
    : policy_(policy), by_bytes_(by_bytes), capacity_(std::max<uint64_t>(capacity, 1)) {
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

uint64_t NodeCache::objects() const noexcept { return lists_[kMain].count + lists_[kSmall].count; }

uint64_t NodeCache::used() const noexcept { return lists_[kMain].used + lists_[kSmall].used; }

size_t NodeCache::MemoryBytes() const noexcept {
  return entries_.capacity() * sizeof(Entry) + slots_.capacity() * sizeof(uint64_t);
}

// --- Table -----------------------------------------------------------------

uint32_t NodeCache::Find(uint64_t id) const noexcept {
  const uint32_t tag = static_cast<uint32_t>(Mixed(id) >> 32);
  for (size_t p = HomeOfTag(tag);; p = Next(p)) {
    const uint64_t s = slots_[p];
    if (s == 0) return kNil;
    if (static_cast<uint32_t>(s >> 32) == tag) {
      const uint32_t i = static_cast<uint32_t>(s) - 1;
      if (entries_[i].id == id) return i;
    }
  }
}

void NodeCache::Prefetch(uint64_t id, int stage) const noexcept {
  if (stage == 0) {
    __builtin_prefetch(&slots_[HomeOfTag(static_cast<uint32_t>(Mixed(id) >> 32))]);
    return;
  }
  const uint32_t i = Find(id);  // its slots are in cache by now
  if (i != kNil) {
    const Entry& e = entries_[i];
    if (stage == 1) {
      __builtin_prefetch(&e);
    } else if (policy_ == CachePolicy::kLru) {  // a hit moves the entry: its neighbours
      if (e.prev != kNil) __builtin_prefetch(&entries_[e.prev]);
      if (e.next != kNil) __builtin_prefetch(&entries_[e.next]);
    }
    return;
  }
  // A miss evicts (when full) from a tail: that entry, then its neighbour
  // and its slot.
  const List& l = lists_[policy_ == CachePolicy::kS3Fifo && lists_[kSmall].count ? kSmall : kMain];
  if (l.tail == kNil || used() + 1 <= capacity_) return;
  const Entry& t = entries_[l.tail];
  if (stage == 1) {
    __builtin_prefetch(&t);
    return;
  }
  if (t.prev != kNil) __builtin_prefetch(&entries_[t.prev]);
  __builtin_prefetch(&slots_[HomeOfTag(static_cast<uint32_t>(Mixed(t.id) >> 32))]);
}

void NodeCache::InsertSlot(uint64_t id, uint32_t index) noexcept {
  const uint32_t tag = static_cast<uint32_t>(Mixed(id) >> 32);
  size_t p = HomeOfTag(tag);
  while (slots_[p] != 0) p = Next(p);
  slots_[p] = static_cast<uint64_t>(tag) << 32 | (static_cast<uint64_t>(index) + 1);
}

// Linear probing's deletion without tombstones (Knuth, TAOCP vol. 3, 6.4,
// Algorithm R): later entries of the run move back into the hole unless
// their home lies cyclically in (hole, their slot].
void NodeCache::EraseSlot(uint64_t id) noexcept {
  const uint32_t tag = static_cast<uint32_t>(Mixed(id) >> 32);
  size_t hole = HomeOfTag(tag);
  while (!(static_cast<uint32_t>(slots_[hole] >> 32) == tag &&
           entries_[static_cast<uint32_t>(slots_[hole]) - 1].id == id)) {
    hole = Next(hole);
  }
  for (size_t j = Next(hole);; j = Next(j)) {
    const uint64_t s = slots_[j];
    if (s == 0) break;
    const size_t home = HomeOfTag(static_cast<uint32_t>(s >> 32));
    const bool stays = hole < j ? (hole < home && home <= j) : (hole < home || home <= j);
    if (stays) continue;
    slots_[hole] = s;
    hole = j;
  }
  slots_[hole] = 0;
}

// Gives the slab room for `entries` and rebuilds the table for them.
void NodeCache::Resize(size_t entries) {
  max_entries_ = std::max<size_t>(entries, 1);
  entries_.reserve(max_entries_);
  const size_t slots = std::max<size_t>(8, static_cast<size_t>(max_entries_ / kMaxLoad) + 1);
  slots_.assign(slots, 0);
  for (uint32_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].queue != kFree) InsertSlot(entries_[i].id, i);
  }
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
  InsertSlot(id, i);
  return i;
}

void NodeCache::Free(uint32_t i) noexcept {
  EraseSlot(entries_[i].id);
  entries_[i].queue = kFree;
  entries_[i].next = free_;
  free_ = i;
}

void NodeCache::Drop(uint32_t i) noexcept {
  Unlink(i);
  Free(i);
}

// --- Policies --------------------------------------------------------------

bool NodeCache::Get(uint64_t id, uint32_t size) noexcept {
  const uint32_t i = Find(id);
  if (policy_ == CachePolicy::kS3Fifo) return GetS3Fifo(i, id, size);
  if (i != kNil) {
    if (policy_ == CachePolicy::kLru) {
      Unlink(i);
      PushHead(kMain, i);
    } else if (policy_ == CachePolicy::kClock) {
      entries_[i].freq = 1;
    }
    return true;
  }
  Admit(kMain, id, size);
  return false;
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
void NodeCache::Admit(Queue q, uint64_t id, uint32_t size) noexcept {
  const uint64_t charge = Charge(size);
  if (charge > admit_limit_) return;
  MakeRoom(charge);
  PushHead(q, NewEntry(id, size));
}

void NodeCache::MakeRoom(uint64_t charge) noexcept {
  while (used() + charge > capacity_) {
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
  }
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
  std::fill(slots_.begin(), slots_.end(), 0);
  free_ = kNil;
  for (List& l : lists_) l = List{};
  stored_bytes_ = 0;
}

void NodeCache::Release() noexcept {
  Clear();
  std::vector<Entry>().swap(entries_);
  std::vector<uint64_t>(8, 0).swap(slots_);
  max_entries_ = 0;
}

void ServeRequests(NodeCache* const* caches, std::span<const uint32_t> owners,
                   std::span<const uint64_t> ids, std::span<const uint32_t> sizes,
                   std::span<const RequestOp> ops, std::span<uint8_t> hits) noexcept {
  // Three prefetches per request, each a stage further into what Get will
  // touch (the slot, then the entry, then its list neighbours), so many
  // requests' memory accesses are in flight at once.
  constexpr size_t kAhead[] = {24, 14, 6};
  const size_t m = ids.size();
  auto prefetch = [&](size_t k, int stage) {
    if (k < m) caches[owners[k]]->Prefetch(ids[k], stage);
  };
  for (size_t j = 0; j < kAhead[0]; ++j) {
    for (int stage = 0; stage < 3; ++stage) {
      if (j < kAhead[stage]) prefetch(j, stage);
    }
  }
  for (size_t j = 0; j < m; ++j) {
    for (int stage = 0; stage < 3; ++stage) prefetch(j + kAhead[stage], stage);
    NodeCache& c = *caches[owners[j]];
    if (ops[j] == RequestOp::kRead) {
      hits[j] = c.Get(ids[j], sizes[j]);
    } else {
      c.Erase(ids[j]);
      hits[j] = 0;
    }
  }
}

}  // namespace chsim::sim
