// Internal to core/src/algorithms: the factory of each algorithm (registry.cc
// dispatches to them) and the helpers they share: node seeds, pair mixing (on
// chsim/splitmix.h, the one SplitMix64), argument checks and the live-id
// bookkeeping every algorithm needs.
//
// Determinism: every per-node random value derives from the node's label
// hashed with the registry hasher named in AlgorithmParams::hasher, then mixed
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
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/node.h"
#include "chsim/splitmix.h"

namespace chsim::algorithms_internal {

std::unique_ptr<Algorithm> NewRing(std::span<const Node> nodes, const AlgorithmParams& p);
std::unique_ptr<Algorithm> NewModulo(std::span<const Node> nodes, const AlgorithmParams& p);
std::unique_ptr<Algorithm> NewJump(std::span<const Node> nodes, const AlgorithmParams& p);
std::unique_ptr<Algorithm> NewRendezvous(std::span<const Node> nodes, const AlgorithmParams& p);
std::unique_ptr<Algorithm> NewMaglev(std::span<const Node> nodes, const AlgorithmParams& p);
std::unique_ptr<Algorithm> NewMultiProbe(std::span<const Node> nodes, const AlgorithmParams& p);
std::unique_ptr<Algorithm> NewBoundedLoad(std::span<const Node> nodes, const AlgorithmParams& p);
std::unique_ptr<Algorithm> NewAnchor(std::span<const Node> nodes, const AlgorithmParams& p);
std::unique_ptr<Algorithm> NewMemento(std::span<const Node> nodes, const AlgorithmParams& p);

// Static capabilities (AllAlgorithms() and each instance's capabilities()).
inline constexpr Capabilities kRingCapabilities{.weights = true,
                                                .arbitrary_removal = true,
                                                .lifo_removal = true,
                                                .incremental = false,
                                                .exact_shares = true,
                                                .stateful = false,
                                                .minimal_disruption = true,  // unweighted
                                                .history_free = true};
inline constexpr Capabilities kModuloCapabilities{.weights = false,
                                                  .arbitrary_removal = true,
                                                  .lifo_removal = true,
                                                  .incremental = true,
                                                  .exact_shares = true,
                                                  .stateful = false,
                                                  .minimal_disruption = false,
                                                  .history_free = false};
inline constexpr Capabilities kJumpCapabilities{.weights = false,
                                                .arbitrary_removal = false,
                                                .lifo_removal = true,
                                                .incremental = true,
                                                .exact_shares = false,
                                                .stateful = false,
                                                .minimal_disruption = true,
                                                .history_free = false};
inline constexpr Capabilities kRendezvousCapabilities{.weights = true,
                                                      .arbitrary_removal = true,
                                                      .lifo_removal = true,
                                                      .incremental = true,
                                                      .exact_shares = false,
                                                      .stateful = false,
                                                      .minimal_disruption = true,
                                                      .history_free = true};
inline constexpr Capabilities kMaglevCapabilities{.weights = true,
                                                  .arbitrary_removal = true,
                                                  .lifo_removal = true,
                                                  .incremental = false,
                                                  .exact_shares = true,
                                                  .stateful = false,
                                                  .minimal_disruption = false,
                                                  .history_free = false};
inline constexpr Capabilities kMultiProbeCapabilities{.weights = false,
                                                      .arbitrary_removal = true,
                                                      .lifo_removal = true,
                                                      .incremental = true,
                                                      .exact_shares = false,
                                                      .stateful = false,
                                                      .minimal_disruption = true,
                                                      .history_free = true};
inline constexpr Capabilities kBoundedLoadCapabilities{.weights = false,
                                                       .arbitrary_removal = true,
                                                       .lifo_removal = true,
                                                       .incremental = false,
                                                       .exact_shares = false,
                                                       .stateful = true,
                                                       .minimal_disruption = false,
                                                       .history_free = false};
inline constexpr Capabilities kAnchorCapabilities{.weights = false,
                                                  .arbitrary_removal = true,
                                                  .lifo_removal = true,
                                                  .incremental = true,
                                                  .exact_shares = false,
                                                  .stateful = false,
                                                  .minimal_disruption = true,
                                                  .history_free = false};
inline constexpr Capabilities kMementoCapabilities{.weights = false,
                                                   .arbitrary_removal = true,
                                                   .lifo_removal = true,
                                                   .incremental = true,
                                                   .exact_shares = false,
                                                   .stateful = false,
                                                   .minimal_disruption = true,
                                                   .history_free = false};

// A 64-bit value for the pair (a, b): a full mix of a, combined with b, mixed
// again, so that for a fixed b it is a bijection of a and for distinct b the
// outputs look independent.
inline uint64_t Mix2(uint64_t a, uint64_t b) noexcept { return Mix64(Mix64(a) ^ b); }

// A node's seed: its label hashed with `hasher`, spread to 64 bits (32-bit
// hashers are zero-extended by the registry) by Mix64.
inline uint64_t NodeSeed(const Hasher& hasher, const Node& node) noexcept {
  return Mix64(hasher(node.label));
}

// Throws Unsupported when a node of `nodes` has a weight other than 1.
inline void RequireUnweighted(std::string_view algorithm, std::span<const Node> nodes) {
  for (const Node& n : nodes) {
    if (n.weight != 1) {
      throw Unsupported(std::string(algorithm) + " does not support weights (node '" + n.label +
                        "' has weight " + std::to_string(n.weight) +
                        "); use ring, rendezvous or maglev, or drop the weights");
    }
  }
}

// Throws std::invalid_argument for an empty list, a zero weight, or a label
// that appears twice (label-seeded algorithms could not tell the nodes apart).
void CheckNodes(std::string_view algorithm, std::span<const Node> nodes);
// Throws std::invalid_argument when `node` would duplicate a live label or has weight 0.
void CheckNewNode(std::string_view algorithm, std::span<const Node> live, const Node& node);

// Live ids in ascending order plus the next id to issue. Ids are issued
// 0, 1, 2, ... and never reused.
class IdSet {
 public:
  explicit IdSet(size_t n) : next_(static_cast<uint32_t>(n)) {
    ids_.resize(n);
    for (size_t i = 0; i < n; ++i) ids_[i] = static_cast<uint32_t>(i);
  }
  uint32_t Issue() {
    ids_.push_back(next_);
    return next_++;
  }
  // Index of `id` among the live ids; throws std::invalid_argument if `id` is
  // not live. Does not remove it.
  size_t IndexOf(std::string_view algorithm, uint32_t id) const {
    auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
    if (it == ids_.end() || *it != id) {
      throw std::invalid_argument(std::string(algorithm) + ": node id " + std::to_string(id) +
                                  (id < next_ ? " was already removed" : " was never issued"));
    }
    return static_cast<size_t>(it - ids_.begin());
  }
  void EraseAt(size_t index) { ids_.erase(ids_.begin() + static_cast<std::ptrdiff_t>(index)); }
  const std::vector<uint32_t>& ids() const noexcept { return ids_; }
  uint32_t next() const noexcept { return next_; }
  size_t size() const noexcept { return ids_.size(); }

 private:
  std::vector<uint32_t> ids_;
  uint32_t next_;
};

// Throws Unsupported unless more than one node is live (every algorithm needs
// one live node to answer lookups).
void RequireNotLast(std::string_view algorithm, size_t live);

// The node side of a bucket-based algorithm (anchor, memento): the live nodes
// (for duplicate-label checks), their ids, and the maps bucket -> id (kNoNode
// on a removed bucket) and id -> bucket (every id ever issued). The nodes
// given at construction sit on buckets 0..n-1 with ids 0..n-1.
class BucketNodes {
 public:
  static constexpr uint32_t kNoNode = UINT32_MAX;

  BucketNodes(std::span<const Node> nodes, size_t buckets)
      : bucket_id_(std::max(buckets, nodes.size()), kNoNode),
        nodes_(nodes.begin(), nodes.end()),
        ids_(nodes.size()) {
    for (uint32_t b = 0; b < nodes.size(); ++b) bucket_id_[b] = b, id_bucket_.push_back(b);
  }

  // Throws std::invalid_argument / Unsupported unless `node` may join: its
  // label is not live and its weight is 1 (bucket algorithms are unweighted).
  void CheckNew(std::string_view algorithm, const Node& node) const {
    CheckNewNode(algorithm, nodes_, node);
    RequireUnweighted(algorithm, std::span<const Node>(&node, 1));
  }
  // Puts `node` (checked by CheckNew) on the free `bucket`; returns its new id.
  uint32_t Place(uint32_t bucket, const Node& node) {
    if (bucket >= bucket_id_.size()) bucket_id_.resize(size_t{bucket} + 1, kNoNode);
    nodes_.push_back(node);
    const uint32_t id = ids_.Issue();
    bucket_id_[bucket] = id;
    id_bucket_.push_back(bucket);
    return id;
  }
  // Takes live `id` off its bucket and returns the bucket. Throws
  // std::invalid_argument for an unknown or dead id, Unsupported for the last
  // live node; nothing changes then.
  uint32_t Release(std::string_view algorithm, uint32_t id) {
    const size_t i = ids_.IndexOf(algorithm, id);
    RequireNotLast(algorithm, ids_.size());
    const uint32_t bucket = id_bucket_[id];
    bucket_id_[bucket] = kNoNode;
    nodes_.erase(nodes_.begin() + static_cast<std::ptrdiff_t>(i));
    ids_.EraseAt(i);
    return bucket;
  }

  // The node id on a working bucket. REQUIRES: the bucket is working.
  uint32_t IdAt(uint32_t bucket) const noexcept { return bucket_id_[bucket]; }
  size_t size() const noexcept { return ids_.size(); }
  const std::vector<uint32_t>& ids() const noexcept { return ids_.ids(); }
  size_t MemoryBytes() const noexcept {
    return (bucket_id_.capacity() + id_bucket_.capacity()) * sizeof(uint32_t);
  }

 private:
  std::vector<uint32_t> bucket_id_;  // bucket -> node id
  std::vector<uint32_t> id_bucket_;  // node id -> bucket
  std::vector<Node> nodes_;          // live, parallel to ids_
  IdSet ids_;
};

}  // namespace chsim::algorithms_internal

#endif  // CHSIM_CORE_SRC_ALGORITHMS_INTERNAL_H_
