// Ring: a Ketama consistent-hash ring (Karger et al. 1997; libketama, 2007),
// built from a node list under a Profile.
//
// Points are 32-bit values in ascending order with a parallel array of owners
// (node indexes into the list the ring was built from, in the caller's order
// even when the profile reorders nodes). A lookup returns the owner of the
// first point >= hash (or > hash, per profile), wrapping to the first point.
//
// Lookups go through a bucket index on the top bits of the hash (the first
// ring position at or after each bucket's start), then a short scan, or a
// binary search inside the bucket when it is crowded; answers are identical to
// std::lower_bound on the point array (tests/core/ring_test.cc).
//
// Thread-safety: immutable after Build; any number of threads may look up.
// Lookups are noexcept and allocation-free.
// Stability: for a named profile, the ring layout is stable across versions.
#ifndef CHSIM_RING_H_
#define CHSIM_RING_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "chsim/node.h"
#include "chsim/profile.h"

namespace chsim {

class Ring {
 public:
  // Limits (enforced by Build with std::invalid_argument): at most kMaxNodes
  // nodes and kMaxPoints points in all. Building takes about 24 bytes per point
  // at its peak (12 resident), so the 2^28-point limit (10^6 nodes x 268
  // points) needs about 6.4 GB; a larger ring is refused, not swapped to death.
  static constexpr size_t kMaxNodes = 1u << 24;
  static constexpr size_t kMaxPoints = size_t{1} << 28;

  Ring() = default;

  // REQUIRES: !nodes.empty(). A list is weighted when any node's weight != 1
  // or `weighted` is forced (a list that spells weights out, even all 1).
  static Ring Build(const Profile& profile, std::span<const Node> nodes, bool weighted = false);

  // Owner of hash h (a value in the profile's 32-bit point space).
  uint32_t LocateHash(uint32_t h) const noexcept {
    if (edge_greater_) {
      if (h == UINT32_MAX) return owners_[0];
      ++h;
    }
    uint32_t lo = index_[h >> shift_];
    uint32_t hi = index_[(h >> shift_) + 1];
    if (hi - lo <= kScan) {
      while (lo < hi && points_[lo] < h) ++lo;
    } else {
      lo = LowerBound(lo, hi, h);
    }
    return owners_[lo];  // owners_[size()] == owners_[0]: the wrap
  }

  // Owner of a key: the profile's key hasher, low 32 bits, then LocateHash.
  uint32_t Locate(std::string_view key) const noexcept { return LocateHash(HashKey(key)); }
  // out[i] = Locate(keys[i]) for every i, with identical answers. When the key
  // hasher is md5, keys shorter than 56 bytes are hashed many at a time with
  // the multi-buffer SIMD MD5 (md5_batch.h); this is the simulator's path.
  // REQUIRES: out.size() >= keys.size().
  void LocateBatch(std::span<const std::string_view> keys, std::span<uint32_t> out) const noexcept;
  // out[i] = LocateHash(hashes[i]). REQUIRES: out.size() >= hashes.size().
  void LocateHashBatch(std::span<const uint32_t> hashes, std::span<uint32_t> out) const noexcept;

  // The profile's key hash, low 32 bits. MD5 goes through chsim's one-block
  // MD5 for short keys (md5_batch.h; equal to OpenSSL's, 15-25% faster).
  uint32_t HashKey(std::string_view key) const noexcept {
    return static_cast<uint32_t>(key_fn_(key.data(), key.size()));
  }

  size_t size() const noexcept { return points_.empty() ? 0 : points_.size() - 1; }
  size_t num_nodes() const noexcept { return num_nodes_; }
  // The ring in order, duplicates included where the profile keeps them.
  std::span<const uint32_t> points() const noexcept { return {points_.data(), size()}; }
  std::span<const uint32_t> owners() const noexcept { return {owners_.data(), size()}; }

  // Exact fraction of the 2^32 hash space each node owns (sums to 1).
  std::vector<double> StructuralShares() const;
  // The same as integer arc lengths (sum 2^32).
  std::vector<uint64_t> ArcLengths() const;

  size_t MemoryBytes() const noexcept;

 private:
  static constexpr uint32_t kScan = 8;
  uint32_t LowerBound(uint32_t lo, uint32_t hi, uint32_t h) const noexcept {
    uint32_t n = hi - lo;  // Khuong & Morin's branchless lower bound; n > kScan
    const uint32_t* base = points_.data() + lo;
    while (n > 1) {
      uint32_t half = n / 2;
      base = (base[half] < h) ? base + half : base;
      n -= half;
    }
    return static_cast<uint32_t>(base - points_.data()) + (*base < h ? 1 : 0);
  }

  std::vector<uint32_t> points_;  // ascending, plus one trailing sentinel
  std::vector<uint32_t> owners_;  // parallel; owners_[size()] = owners_[0]
  std::vector<uint32_t> index_;   // 2^bits + 1 entries
  int shift_ = 32;
  bool edge_greater_ = false;
  size_t num_nodes_ = 0;
  const Hasher* key_hasher_ = nullptr;
  HashFn key_fn_ = nullptr;  // key_hasher_->fn, or its faster equal for md5
  bool key_is_md5_ = false;  // key_hasher_->fn == HashMd5
};

}  // namespace chsim

#endif  // CHSIM_RING_H_
