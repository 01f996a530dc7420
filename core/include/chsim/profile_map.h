// SPDX-License-Identifier: Apache-2.0
// ProfileMap: what a named profile builds when it is not a 32-bit Ring
// (Profile::engine): pymemcache's rendezvous hashing, which scores the key's
// text against each server; the 64-bit rings of Envoy ring_hash and Jedis;
// Envoy's maglev table. Each is built and searched exactly as the program
// does; the rules and their sources are in profile.cc (ApplyPymemcache,
// ApplyEnvoyRing, ApplyEnvoyMaglev, ApplyJedis) and docs/design.md#proxies.
//
// Keys: Locate(key) maps key bytes as the program maps that key. LocateHash
// maps a 64-bit key hash, the simulator's input (Algorithm::Locate). The
// rings and the table look up the key's 64-bit hash (HashKey), so
// LocateHash(HashKey(key)) == Locate(key). Rendezvous scores the key text
// itself, so there LocateHash(h) maps the key whose text is h in decimal (the
// same rule over other keys: its balance and churn, not a given key's place).
//
// Thread-safety: immutable after Build; lookups are noexcept and allocate
// only for a rendezvous key longer than 4,096 bytes.
#ifndef CHSIM_PROFILE_MAP_H_
#define CHSIM_PROFILE_MAP_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chsim/node.h"
#include "chsim/profile.h"

namespace chsim {

// A count of 64-bit key hashes: up to 2^64 itself.
using HashCount = unsigned __int128;

// The key hashes each owner of a 64-bit ring holds, searched as Envoy's
// ring_hash and Jedis do (the first point >= the hash, else the first
// point): point k owns the hashes after point k-1 up to itself, so its arc is
// points[k] - points[k-1], and point 0's wraps past 2^64 - 1: 2^64 -
// points[last] + points[0] (2^64 for a ring whose points are all equal). An
// equal point after the first owns nothing. out[owners[k]] += each arc.
// REQUIRES: points sorted ascending, owners.size() == points.size(), every
// owner < out.size(). Allocation-free.
void RingArcCounts(std::span<const uint64_t> points, std::span<const uint32_t> owners,
                   std::span<HashCount> out) noexcept;

class ProfileMap {
 public:
  ProfileMap() = default;

  // Throws std::invalid_argument (one line) for what the program refuses or
  // cannot build: CheckProfileMap's refusals. REQUIRES: p.engine != kRing.
  static ProfileMap Build(const Profile& p, std::span<const Node> nodes);

  // Owner (an index into the build list) of a key, as the program maps it.
  uint32_t Locate(std::string_view key) const noexcept;
  void LocateBatch(std::span<const std::string_view> keys, std::span<uint32_t> out) const noexcept;
  // Owner of a 64-bit key hash (see above).
  uint32_t LocateHash(uint64_t h) const noexcept;
  // The 64-bit hash LocateHash takes for a key (pymemcache: xxh3, the
  // simulator's stand-in).
  uint64_t HashKey(std::string_view key) const noexcept {
    return key_hasher_->fn(key.data(), key.size());
  }

  Engine engine() const noexcept { return engine_; }
  size_t num_nodes() const noexcept { return num_nodes_; }
  size_t MemoryBytes() const noexcept;

  // The 64-bit rings' points in the program's search order (kJedis: signed
  // order, each point as the unsigned bits of its Java long), with the
  // owner of each; empty for the other engines.
  std::span<const uint64_t> points() const noexcept { return {ring_points_.data(), ring_size_}; }
  std::span<const uint32_t> point_owners() const noexcept {
    return {ring_owners_.data(), ring_size_};
  }
  // The maglev table: the owner of each entry; empty for the other engines.
  std::span<const uint32_t> table() const noexcept { return owners_table_; }

  // Exact shares: out[i] += how many of the 2^64 key hashes node i (build
  // index) owns, for the 64-bit rings (RingArcCounts) and the maglev table
  // (entry e owns the hashes h with h % M == e: floor(2^64 / M), one more
  // for e < 2^64 % M). False for rendezvous, which has none.
  // REQUIRES: out.size() == num_nodes(). Allocation-free.
  bool KeyHashCounts(std::span<HashCount> out) const noexcept;

 private:
  static constexpr size_t kPad = 4;  // points compared per ring lookup; sentinels

  uint32_t RendezvousOwner(std::string_view key) const noexcept;
  // The owner of the first point >= h (h already in the ring's order), else
  // of the first point.
  uint32_t RingOwner(uint64_t h) const noexcept;
  // RingOwner's answer (a point index) when the kPad points from h's bucket
  // start are all below h.
  [[gnu::pure]] uint32_t Crowded(uint64_t h) const noexcept;
  void BuildEnvoyRing(const Profile& p, std::span<const Node> nodes);
  void BuildEnvoyMaglev(const Profile& p, std::span<const Node> nodes);
  void BuildJedis(const Profile& p, std::span<const Node> nodes);
  void BuildIndex();

  Engine engine_ = Engine::kRendezvous;
  const Hasher* key_hasher_ = nullptr;
  size_t num_nodes_ = 0;
  // The rings: ring_size_ sorted points (kJedis: sign bit flipped, so that
  // unsigned order is Java's signed order) and their owners, then kPad
  // sentinels: point UINT64_MAX owned by the first point's owner (the wrap).
  // points() and point_owners() are the ring without the sentinels.
  std::vector<uint64_t> ring_points_;
  std::vector<uint32_t> ring_owners_;
  size_t ring_size_ = 0;
  // A bucket index on the top bits of a hash: index_[b] is the first point
  // >= b << shift_ (2^bits + 1 entries, bits = floor(log2 of the points):
  // 1-2 points per bucket), as Ring's (chsim/ring.h): a lookup counts,
  // without branches, the kPad points from its bucket's start below the hash.
  std::vector<uint32_t> index_;
  int shift_ = 63;
  std::vector<uint32_t> owners_table_;  // maglev
  // Per node, the murmur3 state after the whole 4-byte blocks of
  // "host:port-", the 0-3 bytes left, its length and its name for ties.
  struct Scorer {
    uint32_t state;
    uint8_t rest[3];
    uint8_t rest_len;
    uint32_t prefix_len;
    std::string name;
  };
  std::vector<Scorer> scorers_;
};

// Refuses, as ProfileMap::Build would, what depends on the profile and the
// nodes' count and weights only (validation reads no labels): no node, a
// weight of 0 or above the program's limit, Envoy weights summing above
// 2^32 - 1. Throws std::invalid_argument.
void CheckProfileMap(const Profile& p, std::span<const Node> nodes);

// pymemcache's murmur3_32 (pymemcache/client/murmur3.py) of a Python str:
// the key bytes decoded as UTF-8 (a byte that is not UTF-8 counts as itself,
// as Python's surrogateescape would give it), each code point's low 8 bits
// hashed (ord(c) & 0xff; the unmasked 4th byte of a block only sets bits the
// final mask drops), and the length in code points.
uint32_t PymemcacheMurmur3(std::string_view text) noexcept;

}  // namespace chsim

#endif  // CHSIM_PROFILE_MAP_H_
