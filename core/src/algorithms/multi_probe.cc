// `multi_probe`: multi-probe consistent hashing (Appleton & O'Reilly,
// "Multi-Probe Consistent Hashing", arXiv:1505.00062, 2015).
//
// Each node has one point on a 64-bit ring (its label's seed). A key is hashed
// `probes` times; for each probe the distance to the next node point clockwise
// is measured, and the key goes to the node at the smallest distance (ties:
// the earlier probe). With 21 probes the paper reports a peak-to-mean load of
// about 1.05 with one point per node. Probe i is h1 + i * h2 (Kirsch &
// Mitzenmacher double hashing, as the authors' Go library does) with h1, h2
// two mixes of the key hash, h2 odd.
//
// Adding a node can only shorten some distances, to itself; removing one only
// affects the keys it won: disruption is minimal. No weights (the paper has
// none): a weighted list is refused with Unsupported.
#include "internal.h"

namespace chsim::algorithms_internal {
namespace {

constexpr std::string_view kName = "multi_probe";

class MultiProbe final : public Algorithm {
 public:
  MultiProbe(std::span<const Node> nodes, const Hasher& hasher, uint32_t probes)
      : hasher_(&hasher), probes_(probes), ids_(nodes.size()) {
    for (size_t i = 0; i < nodes.size(); ++i) Insert(nodes[i], static_cast<uint32_t>(i));
  }

  std::string_view name() const noexcept override { return kName; }
  Capabilities capabilities() const noexcept override { return kMultiProbeCapabilities; }
  uint32_t Locate(uint64_t key_hash) const noexcept override {
    const uint64_t h1 = Mix64(key_hash);
    const uint64_t h2 = Mix64(h1 ^ 0x70726f6265ULL) | 1;  // "probe"
    const size_t n = points_.size();
    const uint64_t* pts = points_.data();
    uint64_t best_distance = UINT64_MAX;
    size_t best = 0;
    uint64_t probe = h1;
    for (uint32_t i = 0; i < probes_; ++i, probe += h2) {
      size_t j = static_cast<size_t>(std::lower_bound(pts, pts + n, probe) - pts);
      if (j == n) j = 0;                  // wrap
      const uint64_t d = pts[j] - probe;  // clockwise distance, mod 2^64
      if (d < best_distance) best_distance = d, best = j;
    }
    return owners_[best];
  }
  size_t num_nodes() const noexcept override { return ids_.size(); }
  std::vector<uint32_t> live_ids() const override { return ids_.ids(); }

  uint32_t Add(const Node& node) override {
    CheckNewNode(kName, nodes_, node);
    RequireUnweighted(kName, std::span<const Node>(&node, 1));
    Insert(node, ids_.next());
    return ids_.Issue();
  }
  void Remove(uint32_t id) override {
    size_t i = ids_.IndexOf(kName, id);
    RequireNotLast(kName, ids_.size());
    nodes_.erase(nodes_.begin() + static_cast<std::ptrdiff_t>(i));
    ids_.EraseAt(i);
    size_t j = static_cast<size_t>(std::find(owners_.begin(), owners_.end(), id) - owners_.begin());
    points_.erase(points_.begin() + static_cast<std::ptrdiff_t>(j));
    owners_.erase(owners_.begin() + static_cast<std::ptrdiff_t>(j));
  }
  size_t MemoryBytes() const noexcept override {
    return points_.capacity() * sizeof(uint64_t) + owners_.capacity() * sizeof(uint32_t) +
           ids_.ids().capacity() * sizeof(uint32_t);
  }

 private:
  void Insert(const Node& node, uint32_t id) {
    nodes_.push_back(node);
    const uint64_t point = NodeSeed(*hasher_, node);
    // Equal points (a 64-bit collision): the later node sorts after and is
    // never nearest; deterministic either way.
    auto at = std::upper_bound(points_.begin(), points_.end(), point);
    owners_.insert(owners_.begin() + (at - points_.begin()), id);
    points_.insert(at, point);
  }

  const Hasher* hasher_;
  uint32_t probes_;
  std::vector<Node> nodes_;       // live, parallel to ids_
  std::vector<uint64_t> points_;  // ascending
  std::vector<uint32_t> owners_;  // parallel: node id
  IdSet ids_;
};

}  // namespace

std::unique_ptr<Algorithm> NewMultiProbe(std::span<const Node> nodes, const AlgorithmParams& p) {
  CheckNodes(kName, nodes);
  RequireUnweighted(kName, nodes);
  if (p.probes == 0 || p.probes > 1024) {
    throw std::invalid_argument("multi_probe: probes must be in [1, 1024] (got " +
                                std::to_string(p.probes) + "); the paper uses 21");
  }
  return std::make_unique<MultiProbe>(nodes, GetHasher(p.hasher), p.probes);
}

}  // namespace chsim::algorithms_internal
