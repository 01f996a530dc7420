// SPDX-License-Identifier: Apache-2.0
// Ring: a Ketama consistent-hash ring (Karger et al. 1997; libketama, 2007),
// built from a node list under a Profile.
//
// Layout: one array of {point, owner} entries in ascending point order (owner:
// the node's index in the list the ring was built from, in the caller's order
// even when the profile reorders nodes), so a lookup finds point and owner in
// one cache line. kPad sentinel entries {UINT32_MAX, owner of entry 0} follow
// the last entry: a scan needs no bounds test, and stopping on one is the wrap
// (their owner is the last entry's instead for a profile whose lookup does
// not wrap, PastLastPoint::kLastPoint: Varnish).
// points() and owners() are strided views of that array.
//
// A lookup returns the owner of the first point >= hash (or > hash, per
// profile), wrapping to the first point (or not: past_last). A bucket index on the top `bits` bits
// of the hash (bits = floor(log2 of the points made), capped at 26: 1-2 points
// per bucket on average) gives the first entry at or after the bucket's start;
// the kPad entries from there are compared with the hash without branches, and
// as the array is sorted, the count of points below the hash is the answer's
// offset (entries past the bucket are >= its end > hash, so the count never
// overshoots). Only when all kPad are below (a crowded bucket: ~1-4% of
// uniform hashes) does a branchless binary search finish inside the bucket.
// Answers are identical to std::lower_bound on the points (tests/core/ring_test.cc).
//
// Invariants: entries_ = size() entries sorted by point, then kPad sentinels;
// index_ has 2^bits + 1 entries, index_[b] = first entry with point >= b << shift_,
// index_[2^bits] = size().
// Thread-safety: immutable after Build; any number of threads may look up.
// Lookups are noexcept and allocation-free.
// Stability: for a named profile, the ring (points and owners) is stable across versions.
#ifndef CHSIM_RING_H_
#define CHSIM_RING_H_

#include <cassert>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string_view>
#include <vector>

#include "chsim/node.h"
#include "chsim/profile.h"

// XXH3 from xxHash's header, inlined into Locate: XXH_INLINE_ALL makes its
// functions static under an XXH_INLINE_ prefix (no clash with libxxhash's),
// the same code as libxxhash 0.8's XXH3_64bits, whose output is frozen since
// 0.8.0 (tests/core/ring_test.cc checks them equal). A call per key costs
// ~25% of an XXH3 lookup: it holds fewer lookups in flight.
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#define CHSIM_RING_H_XXH_INLINE_ALL
#endif
#include <xxhash.h>
#ifdef CHSIM_RING_H_XXH_INLINE_ALL
#undef XXH_INLINE_ALL
#undef CHSIM_RING_H_XXH_INLINE_ALL
#endif

namespace chsim {

class Ring {
 public:
  // One ring position: a point and the node index that owns it. Default
  // construction leaves both unset (a build sizes its array without a pass
  // of zeros, then writes every entry).
  struct Entry {
    Entry() noexcept {}
    constexpr Entry(uint32_t p, uint32_t o) noexcept : point(p), owner(o) {}
    uint32_t point;
    uint32_t owner;
  };
  // A read-only random-access view of one field of the entries, in ring order.
  template <uint32_t Entry::*kField>
  class Column {
   public:
    class iterator {
     public:
      using iterator_category = std::random_access_iterator_tag;
      using iterator_concept = std::random_access_iterator_tag;
      using value_type = uint32_t;
      using difference_type = std::ptrdiff_t;
      using pointer = const uint32_t*;
      using reference = const uint32_t&;
      iterator() = default;
      explicit iterator(const Entry* e) noexcept : e_(e) {}
      reference operator*() const noexcept { return e_->*kField; }
      pointer operator->() const noexcept { return &(e_->*kField); }
      reference operator[](difference_type i) const noexcept { return e_[i].*kField; }
      iterator& operator++() noexcept {
        ++e_;
        return *this;
      }
      iterator operator++(int) noexcept {
        iterator t = *this;
        ++e_;
        return t;
      }
      iterator& operator--() noexcept {
        --e_;
        return *this;
      }
      iterator operator--(int) noexcept {
        iterator t = *this;
        --e_;
        return t;
      }
      iterator& operator+=(difference_type i) noexcept {
        e_ += i;
        return *this;
      }
      iterator& operator-=(difference_type i) noexcept {
        e_ -= i;
        return *this;
      }
      friend iterator operator+(iterator a, difference_type i) noexcept { return a += i; }
      friend iterator operator+(difference_type i, iterator a) noexcept { return a += i; }
      friend iterator operator-(iterator a, difference_type i) noexcept { return a -= i; }
      friend difference_type operator-(iterator a, iterator b) noexcept { return a.e_ - b.e_; }
      friend bool operator==(iterator a, iterator b) noexcept { return a.e_ == b.e_; }
      friend auto operator<=>(iterator a, iterator b) noexcept { return a.e_ <=> b.e_; }

     private:
      const Entry* e_ = nullptr;
    };
    Column(const Entry* data, size_t n) noexcept : data_(data), n_(n) {}
    iterator begin() const noexcept { return iterator(data_); }
    iterator end() const noexcept { return iterator(data_ + n_); }
    size_t size() const noexcept { return n_; }
    bool empty() const noexcept { return n_ == 0; }
    uint32_t operator[](size_t i) const noexcept { return data_[i].*kField; }

   private:
    const Entry* data_;
    size_t n_;
  };

  // Limits (enforced by Build with std::invalid_argument): at most kMaxNodes
  // nodes and kMaxPoints points in all. Building takes at most 16 bytes per
  // point at its peak below 2^18 points (4 MiB) and about 13 above (8 to 12
  // resident: 8 per entry, 1 to 4 of index), so the 2^28-point limit (10^6
  // nodes x 268 points) needs about 3.5 GB; a larger ring is refused, not
  // swapped to death.
  static constexpr size_t kMaxNodes = 1u << 24;
  static constexpr size_t kMaxPoints = size_t{1} << 28;

  Ring() = default;

  // REQUIRES: !nodes.empty(). A list is weighted when any node's weight != 1
  // or `weighted` is forced (a list that spells weights out, even all 1).
  static Ring Build(const Profile& profile, std::span<const Node> nodes, bool weighted = false);

  // Owner of hash h, a value in the profile's key space (the profile's key
  // hasher never sets a bit above it; mask other hashes with space_mask()).
  // REQUIRES: h <= space_mask().
  uint32_t LocateHash(uint32_t h) const noexcept {
    assert(h <= space_mask_);
    if (edge_greater_) {
      if (h == space_mask_) return entries_[0].owner;
      ++h;
    }
    const Entry* e = entries_.data() + index_[h >> shift_];
    // Branch-free count of the 4 (= kPad) entries from the bucket's start below h.
    const uint32_t below =
        static_cast<uint32_t>(e[0].point < h) + static_cast<uint32_t>(e[1].point < h) +
        static_cast<uint32_t>(e[2].point < h) + static_cast<uint32_t>(e[3].point < h);
    if (below == kPad) [[unlikely]]
      return entries_[Crowded(h)].owner;
    return e[below].owner;
  }

  // The entry (an index into points() and owners()) whose owner LocateHash(h)
  // answers: where a clockwise walk from h starts, 0 past the last point (the
  // wrap). The same search as LocateHash. REQUIRES: h <= space_mask(), a
  // non-empty ring.
  size_t LocateIndex(uint32_t h) const noexcept {
    assert(h <= space_mask_);
    if (edge_greater_) {
      if (h == space_mask_) return 0;
      ++h;
    }
    const uint32_t first = index_[h >> shift_];
    const Entry* e = entries_.data() + first;
    const uint32_t below =
        static_cast<uint32_t>(e[0].point < h) + static_cast<uint32_t>(e[1].point < h) +
        static_cast<uint32_t>(e[2].point < h) + static_cast<uint32_t>(e[3].point < h);
    const size_t i = below == kPad ? Crowded(h) : first + below;
    return i == size() ? 0 : i;  // the first sentinel: the wrap
  }

  // 2^hash_space_bits - 1: the largest key hash (UINT32_MAX but for nginx-hash).
  uint32_t space_mask() const noexcept { return space_mask_; }

  // Owner of a key: the profile's key hasher, low 32 bits, then LocateHash.
  uint32_t Locate(std::string_view key) const noexcept { return LocateHash(HashKey(key)); }
  // out[i] = Locate(keys[i]) for every i, with identical answers. Keys are
  // hashed a chunk at a time, then searched; when the key hasher is md5, keys
  // shorter than 56 bytes are hashed many at a time with the multi-buffer SIMD
  // MD5 (md5_batch.h); this is the simulator's path.
  // REQUIRES: out.size() >= keys.size().
  void LocateBatch(std::span<const std::string_view> keys, std::span<uint32_t> out) const noexcept;
  // out[i] = LocateHash(hashes[i]). REQUIRES: out.size() >= hashes.size(), and
  // every hash <= space_mask().
  void LocateHashBatch(std::span<const uint32_t> hashes, std::span<uint32_t> out) const noexcept;

  // The profile's key hash, low 32 bits; XXH3 inline from xxHash's header
  // (equal to libxxhash's, no call per key).
  uint32_t HashKey(std::string_view key) const noexcept {
    if (key_is_xxh3_) return static_cast<uint32_t>(XXH3_64bits(key.data(), key.size()));
    return HashByFn(key);
  }

  size_t size() const noexcept { return entries_.empty() ? 0 : entries_.size() - kPad; }
  size_t num_nodes() const noexcept { return num_nodes_; }
  // The ring in order, duplicates included where the profile keeps them.
  Column<&Entry::point> points() const noexcept { return {entries_.data(), size()}; }
  Column<&Entry::owner> owners() const noexcept { return {entries_.data(), size()}; }

  // Exact fraction of the 2^32 hash space each node owns (sums to 1).
  std::vector<double> StructuralShares() const;
  // The same as integer arc lengths (sum 2^32).
  std::vector<uint64_t> ArcLengths() const;

  size_t MemoryBytes() const noexcept;

 private:
  static constexpr uint32_t kPad = 4;  // entries compared per lookup; sentinels
  // The out-of-line calls a lookup may make are pure (they write no memory):
  // a caller's loop then keeps its pointers and counts in registers across
  // them instead of reloading everything after each lookup.
  //
  // Entry index of the answer for h (after the edge adjustment) when the kPad
  // entries from its bucket's start are all below h.
  [[gnu::pure]] uint32_t Crowded(uint32_t h) const noexcept;
  // HashKey for hashers other than xxh3: key_fn_ (md5: HashMd5, which takes
  // the one-block MD5 for short keys).
  [[gnu::pure]] uint32_t HashByFn(std::string_view key) const noexcept;

  std::vector<Entry> entries_;        // ascending by point, then kPad sentinels
  std::vector<uint32_t> index_;       // 2^bits + 1 entries
  int shift_ = 31;                    // 32 - bits
  int space_bits_ = 32;               // key hashes are below 2^space_bits_ (ArcLengths)
  uint32_t space_mask_ = UINT32_MAX;  // 2^space_bits_ - 1
  bool edge_greater_ = false;
  size_t num_nodes_ = 0;
  const Hasher* key_hasher_ = nullptr;
  HashFn key_fn_ = nullptr;   // key_hasher_->fn
  bool key_is_xxh3_ = false;  // key_hasher_->fn == HashXxh3: hashed inline
};

// A ring-like algorithm's ring as its Locate reads it (Algorithm::ViewRing):
// the owner o of an entry is node id owner_ids[o], and a 64-bit key hash is
// located by its low 32 bits within the ring's key space.
struct RingView {
  const Ring* ring = nullptr;
  std::span<const uint32_t> owner_ids;

  // The entry a clockwise walk for the key starts at.
  size_t Start(uint64_t key_hash) const noexcept {
    return ring->LocateIndex(static_cast<uint32_t>(key_hash) & ring->space_mask());
  }
  // The node id that owns entry `i`.
  uint32_t IdAt(size_t i) const noexcept { return owner_ids[ring->owners()[i]]; }
};

}  // namespace chsim

#endif  // CHSIM_RING_H_
