// SPDX-License-Identifier: Apache-2.0
// Internal to core/src/algorithms: the base every algorithm derives from (the
// live nodes and their ids, the node rules, the one rollback rule), the
// parameter rows several algorithms share, and the helpers they use: node
// seeds, pair mixing (on chsim/splitmix.h, the one SplitMix64), bucket maps.
//
// Adding an algorithm: one file here that defines its class (derived from
// AlgorithmBase) and its `const AlgorithmSpec kXxxSpec`, plus one row in
// registry.cc. docs/extending.md ("An algorithm") walks through an example.
//
// Determinism: every per-node random value derives from the node's label
// hashed with the registry hasher named by the `hasher` parameter, then mixed
// with Mix64 (chsim/splitmix.h); nothing uses std::hash or <random>.
#ifndef CHSIM_CORE_SRC_ALGORITHMS_INTERNAL_H_
#define CHSIM_CORE_SRC_ALGORITHMS_INTERNAL_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/node.h"
#include "chsim/params.h"
#include "chsim/profile.h"
#include "chsim/splitmix.h"

namespace chsim::algorithms_internal {

// A spec's factory for algorithm class T, built from the nodes and the
// parameters: `.make = MakeAs<T>`.
template <class T>
std::unique_ptr<Algorithm> MakeAs(std::span<const Node> nodes, const Params& p) {
  return std::make_unique<T>(nodes, p);
}

// Base of every algorithm: the live nodes, their ids, and Add/Remove with the
// rules every algorithm shares, checked before anything changes:
//   Add:    weight 0 or a live label (std::invalid_argument); a weight other
//           than 1 when the spec has no weights, kMaxNodes reached
//           (Unsupported); the spec's admission check with the node appended.
//   Remove: an unknown or dead id (std::invalid_argument); the last live node
//           (Unsupported); any node but the most recently added live one when
//           the spec lacks arbitrary_removal (Unsupported); the spec's
//           admission check without the node.
// Then the live lists change and the structure's hook runs. Rollback rule: a
// hook that throws (only std::bad_alloc is expected: every refusal is in the
// checks above) must leave its structure as it was (build into a temporary,
// then swap), and the base restores its lists; the instance is then exactly
// as before the call.
//
// The live lists nodes_ and ids_ (parallel) come in one of two orders
// (LiveList), chosen by the derived class:
//   kInOrder:   ascending ids, which the lookups of jump, modulo, rings,
//               maglev and rendezvous read as their bucket -> node map.
//               Removing the most recently added node is O(1); any other
//               shifts the lists, O(n) (those structures rebuild in O(n) or
//               more anyway).
//   kUnordered: any order (a removal moves the last entry into the hole), for
//               algorithms that map ids themselves (anchor, memento, dx): every
//               removal O(1). Requires arbitrary_removal.
// Add finds live labels in a hash set built on the first Add (O(n) once, then
// O(1) expected per call; builds pay nothing). Ids are found by binary search
// (kInOrder) or a slot table (kUnordered).
//
// Invariants: nodes_ and ids_ parallel, their ids the live ones (kInOrder:
// ascending; kUnordered: slot_[id] is id's index, kNoSlot once removed);
// next_id_ > every id issued; labels_ (once built) holds the live labels.
class AlgorithmBase : public Algorithm {
 public:
  // Live nodes an instance may hold (jump's and memento's bucket indexes are
  // int32).
  static constexpr size_t kMaxNodes = INT32_MAX;

  std::string_view name() const noexcept final;
  Capabilities capabilities() const noexcept override;
  size_t num_nodes() const noexcept final { return ids_.size(); }
  std::vector<uint32_t> live_ids() const final;
  uint32_t Add(const Node& node) final;
  void Remove(uint32_t id) final;

  // The checks of Make at build: empty list, too many nodes, weight 0,
  // duplicate labels (std::invalid_argument), weights when unsupported
  // (Unsupported), then the spec's admission check.
  static void AdmitBuild(const AlgorithmSpec& spec, std::span<const Node> nodes,
                         const Params& params);

 protected:
  enum class LiveList { kInOrder, kUnordered };

  // `params` resolved. REQUIRES: AdmitBuild(spec, nodes, params) passed;
  // kUnordered only for a spec with arbitrary_removal.
  AlgorithmBase(const AlgorithmSpec& spec, std::span<const Node> nodes, const Params& params,
                LiveList order = LiveList::kInOrder);

  // The structure's part of Add: `node` is already last in nodes_ with `id`.
  virtual void OnAdd(const Node& node, uint32_t id) = 0;
  // The structure's part of Remove: `id` was at index `index` of the live
  // lists and is already gone from them.
  virtual void OnRemove(size_t index, uint32_t id) = 0;

  const Params& params() const noexcept { return params_; }
  // Bytes of the id list (most algorithms' MemoryBytes include it).
  size_t IdBytes() const noexcept { return ids_.capacity() * sizeof(uint32_t); }

  std::vector<Node> nodes_;    // live nodes, parallel to ids_
  std::vector<uint32_t> ids_;  // live ids (kInOrder: ascending)
  uint32_t next_id_;           // the id the next Add issues

 private:
  static constexpr uint32_t kNoSlot = UINT32_MAX;

  bool LabelIsLive(const std::string& label);
  // Appends `node` as `id` (strong guarantee), and takes it off again.
  void Link(const Node& node, uint32_t id);
  void Unlink();
  // Index of live `id` in the lists; refuses a dead or unknown one.
  size_t LiveIndex(uint32_t id) const;
  // Takes the node at `index` (id `id`) out of the lists, and puts it back
  // exactly where it was (no allocation: Detach left the room).
  Node Detach(size_t index, uint32_t id);
  void Reattach(size_t index, uint32_t id, Node node) noexcept;
  void Admit(TimelineStep::Op op) const;

  const AlgorithmSpec* spec_;
  Params params_;
  size_t built_;  // nodes at construction
  LiveList order_;
  std::vector<uint32_t> slot_;              // kUnordered: id -> index, kNoSlot once removed
  std::unordered_set<std::string> labels_;  // live labels, once built
  bool labels_built_ = false;
};

// An instance of `spec` whose structure is nothing: the node rules and the
// admission checks of AlgorithmBase, no lookups (AlgorithmSpec::MakeShadow).
std::unique_ptr<Algorithm> NewShadow(const AlgorithmSpec& spec, std::span<const Node> nodes,
                                     const Params& params);

// Hasher names, for kString parameters that take one.
std::vector<std::string_view> HasherNames();

// Parameter rows several algorithms share.
// `hasher`: the registry hasher of node labels (seeds, ring points).
inline constexpr ParamSpec kHasherParam{
    .name = "hasher",
    .type = ParamType::kString,
    .doc = "hasher of node labels (node seeds, ring points)",
    .default_text = "xxh3",
    .choices = HasherNames,
    .bare = true,
};
// `key_hasher`: the hasher applied to key bytes; "" means the algorithm's
// default (KeyHasherOrPointHasher, KeyHasherOrXxh3).
inline constexpr ParamSpec kKeyHasherParam{
    .name = "key_hasher",
    .type = ParamType::kString,
    .doc = "hasher applied to key bytes before lookup (default: the algorithm's)",
    .default_text = "",
    .choices = HasherNames,
};
// `points_per_node` of a research ring (ring, bounded_load).
inline constexpr ParamSpec kPointsParam{
    .name = "points_per_node",
    .type = ParamType::kInteger,
    .doc = "ring points per node (weighted lists: the peers' float formula around it)",
    .default_number = 160,
    .min = 1,
    .max = 100000,
    .symbol = "v",
};

// The research ring a spec's `hasher` and `points_per_node` describe (ring,
// bounded_load).
inline Profile ResearchRingProfile(const Params& p) {
  return ResearchProfile(GetHasher(p.Text("hasher")),
                         static_cast<uint32_t>(p.Integer("points_per_node")));
}

// AlgorithmSpec::key_hasher functions: key_hasher when given, else the
// `hasher` parameter (rings: keys and points in one hash space) or xxh3.
std::string_view KeyHasherOrPointHasher(const Params& p);
std::string_view KeyHasherOrXxh3(const Params& p);

// The instance for a profile whose engine is a ProfileMap (profile_map.cc).
std::unique_ptr<Algorithm> NewProfileMap(const AlgorithmSpec& spec, std::span<const Node> nodes,
                                         const Params& params, Profile profile);

// A Ketama ring over the live nodes, rebuilt on every add and remove, keys
// located by the low 32 bits of their hash: the `ring` and `ketama`
// algorithms. `weighted_list`: whether params.weighted_list (a list that
// spells weights) selects the peers' weighted path (ketama) or is ignored
// (ring). `theory_points`: RingPointsPerNode for equal weights (0: the ring's
// points / nodes). A weighted instance is not minimally disruptive: the
// weighted formulas give every node new points when n changes.
std::unique_ptr<Algorithm> NewProfileRing(const AlgorithmSpec& spec, std::span<const Node> nodes,
                                          const Params& params, Profile profile, bool weighted_list,
                                          double theory_points);

// Points a ring built with `profile` over `nodes` would hold (Ring::Build's
// count, computed without hashing), and the admission check of a ring: at
// most Ring::kMaxNodes nodes, 1..Ring::kMaxPoints points, with Ring::Build's
// messages. `weighted`: the list spells weights out.
uint64_t RingPointCount(const Profile& profile, std::span<const Node> nodes, bool weighted);
void AdmitRing(const Profile& profile, std::span<const Node> nodes, bool weighted);

// What the bucket algorithms that restore from a stack of removed buckets
// declare (anchor, memento, dx): any node removable, minimal disruption, keys
// back after fail + restore in reverse order only (Add takes the bucket
// removed last), no weights.
inline constexpr Capabilities kRemovalStackCapabilities{.weights = false,
                                                        .arbitrary_removal = true,
                                                        .incremental = true,
                                                        .exact_shares = false,
                                                        .stateful = false,
                                                        .minimal_disruption = true,
                                                        .history_free = false};
// `capacity`: the bucket array's size (anchor's a, DxHash's NSArray).
inline constexpr ParamSpec kCapacityParam{
    .name = "capacity",
    .type = ParamType::kInteger,
    .doc = "most live nodes (the bucket array's size); 0 means twice the initial nodes",
    .default_number = 0,
    .min = 0,
    .max = 2147483648.0,
};

// The `capacity` parameter of a fixed-capacity bucket array (anchor, dx): the
// most live nodes an instance holds, 0 meaning twice the nodes built over.
uint64_t CapacityOf(const Params& p, size_t built);
// Its admission check: at build, at least the nodes and below 2^32 - 1
// (std::invalid_argument); at any later step, no more live nodes than it
// (Unsupported: "capacity C reached"). `algorithm` names it in the messages.
void AdmitCapacity(std::string_view algorithm, const Params& p, const TimelineStep& step);

// Makes room for one more element the way push_back would (libstdc++: double,
// at least 1), so that a hook can reserve every vector it grows before
// changing any: a throw then changes nothing, and capacities (MemoryBytes)
// are those of plain push_backs.
template <typename Vector>
void ReserveOneMore(Vector& v) {
  if (v.size() == v.capacity()) v.reserve(v.size() + std::max<size_t>(v.size(), 1));
}

// `c ? x : y` without a branch, for a condition that is a coin flip (a
// mispredicted branch costs more than computing both sides). The empty asm
// hides the mask's origin so that the compiler cannot turn it back into a
// branch.
inline uint32_t Choose(bool c, uint32_t x, uint32_t y) noexcept {
  uint32_t mask = -static_cast<uint32_t>(c);
  asm("" : "+r"(mask));
  return (x & mask) | (y & ~mask);
}

// A 64-bit value for the pair (a, b): a full mix of a, combined with b, mixed
// again, so that for a fixed b it is a bijection of a and for distinct b the
// outputs look independent.
inline uint64_t Mix2(uint64_t a, uint64_t b) noexcept { return Mix64(Mix64(a) ^ b); }

// A node's seed: its label hashed with `hasher`, spread to 64 bits (32-bit
// hashers are zero-extended by the registry) by Mix64.
inline uint64_t NodeSeed(const Hasher& hasher, const Node& node) noexcept {
  return Mix64(hasher(node.label));
}

// The node ids on the working buckets of a bucket algorithm (anchor, memento,
// dx, the range hashes), as its lookups read them from a table `table[b]`:
// while every working bucket b holds node id b (no node was re-added onto a
// bucket other than its id, or every such node is gone again), Id answers b
// without reading the table, a random read saved on every lookup. The owner
// reports each change (Placed, Released) and passes its table to Id.
class BucketIds {
 public:
  uint32_t Id(const uint32_t* table, uint32_t bucket) const noexcept {
    return moved_ == 0 ? bucket : table[bucket];
  }
  // ids[i] = Id(table, ids[i]) for every i.
  void MapInPlace(const uint32_t* table, std::span<uint32_t> ids) const noexcept {
    if (moved_ == 0) return;
    for (uint32_t& id : ids) id = table[id];
  }
  void Placed(uint32_t bucket, uint32_t id) noexcept { moved_ += bucket != id; }
  void Released(uint32_t bucket, uint32_t id) noexcept { moved_ -= bucket != id; }

 private:
  size_t moved_ = 0;  // working buckets whose node id is not the bucket
};

// One bit per bucket, set while the bucket works: what a lookup tests first
// (dx's NSArray; anchor's A[b] = 0), 1/8 byte per bucket, so that at 10^6
// buckets it stays in a core's cache where a 4-byte array would not.
class WorkingBits {
 public:
  // Buckets 0..working-1 of `buckets` work.
  WorkingBits(size_t buckets, size_t working) : words_((buckets + 63) / 64, 0) {
    for (size_t w = 0; w < working / 64; ++w) words_[w] = ~uint64_t{0};
    if (working % 64 != 0) words_[working / 64] = (uint64_t{1} << (working % 64)) - 1;
  }
  bool Test(uint32_t b) const noexcept { return (words_[b / 64] >> (b % 64)) & 1; }
  void Set(uint32_t b) noexcept { words_[b / 64] |= uint64_t{1} << (b % 64); }
  void Clear(uint32_t b) noexcept { words_[b / 64] &= ~(uint64_t{1} << (b % 64)); }
  void Prefetch(uint32_t b) const noexcept { __builtin_prefetch(&words_[b / 64]); }
  size_t MemoryBytes() const noexcept { return words_.capacity() * sizeof(uint64_t); }

 private:
  std::vector<uint64_t> words_;
};

// The buckets Add restores, in order (anchor's stack R, dx's free list): the
// last removed first, then the buckets not used since the build, lowest
// first. Those are held implicitly by the lowest of them (tail): 4 bytes per
// removal, none per unused bucket. Push may allocate; the rest does not.
class RestoreStack {
 public:
  explicit RestoreStack(uint32_t first_unused) : tail_(first_unused) {}
  // REQUIRES for Top and Pop: a bucket to restore (the capacity not reached).
  uint32_t Top() const noexcept { return removed_.empty() ? tail_ : removed_.back(); }
  void Pop() noexcept {
    if (removed_.empty()) {
      ++tail_;
    } else {
      removed_.pop_back();
    }
  }
  void Push(uint32_t bucket) { removed_.push_back(bucket); }
  // Buckets tail()..capacity-1 have not been used since the build.
  uint32_t tail() const noexcept { return tail_; }
  size_t MemoryBytes() const noexcept { return removed_.capacity() * sizeof(uint32_t); }

 private:
  std::vector<uint32_t> removed_;  // removed since the build, last removed at the back
  uint32_t tail_;
};

// The bucket side of a bucket-based algorithm (anchor, memento, dx): the maps
// bucket -> id (kNoNode on a removed bucket; as long as the highest bucket
// that ever held a node) and id -> bucket (every id ever issued). The nodes
// given at construction sit on buckets 0..n-1 with ids 0..n-1.
class BucketMap {
 public:
  static constexpr uint32_t kNoNode = UINT32_MAX;

  explicit BucketMap(size_t nodes) : bucket_id_(nodes) {
    for (uint32_t b = 0; b < nodes; ++b) bucket_id_[b] = b, id_bucket_.push_back(b);
  }
  // Puts `id` (the next id issued) on the free `bucket`.
  void Place(uint32_t bucket, uint32_t id) {
    if (bucket >= bucket_id_.size()) bucket_id_.resize(size_t{bucket} + 1, kNoNode);
    id_bucket_.push_back(bucket);  // id == id_bucket_.size() - 1
    bucket_id_[bucket] = id;
    ids_.Placed(bucket, id);
  }
  uint32_t BucketOf(uint32_t id) const noexcept { return id_bucket_[id]; }
  // Takes `id` off its bucket.
  void Release(uint32_t id) noexcept {
    bucket_id_[id_bucket_[id]] = kNoNode;
    ids_.Released(id_bucket_[id], id);
  }
  // The node id on a working bucket. REQUIRES: the bucket is working.
  uint32_t IdAt(uint32_t bucket) const noexcept { return ids_.Id(bucket_id_.data(), bucket); }
  // bucket -> node id (kNoNode when removed), up to the highest bucket used:
  // the instance's BucketView, with jump as its range hash.
  BucketView View() const noexcept { return BucketView{.ids = bucket_id_}; }
  size_t MemoryBytes() const noexcept {
    return (bucket_id_.capacity() + id_bucket_.capacity()) * sizeof(uint32_t);
  }

 private:
  std::vector<uint32_t> bucket_id_;  // bucket -> node id
  std::vector<uint32_t> id_bucket_;  // node id -> bucket
  BucketIds ids_;                    // the lookups' shortcut over bucket_id_
};

}  // namespace chsim::algorithms_internal

#endif  // CHSIM_CORE_SRC_ALGORITHMS_INTERNAL_H_
