// `ring`: the Ketama ring (Karger et al. 1997; libketama 2007) in its research
// form, ResearchProfile(hasher, points_per_node), behind the Algorithm
// interface.
//
// Ring points are 32-bit, so a 64-bit key hash is located by its low 32 bits
// (the same bits the ring itself uses for a key hashed by a 32- or 64-bit
// hasher). Add/Remove rebuild the ring from the live node list and map the
// ring's owners (indexes into that list) back to node ids. Unweighted, each
// node keeps its points whatever the others do, so disruption is minimal.
// Weighted lists use the peers' float formula, whose point counts depend on
// the total weight and node count: every node's points change on add/remove,
// and capabilities().minimal_disruption is false for such an instance.
#include "chsim/ring.h"

#include "chsim/profile.h"
#include "internal.h"

namespace chsim {
namespace algorithms_internal {
namespace {

constexpr std::string_view kName = "ring";

class RingAlgorithm final : public Algorithm {
 public:
  RingAlgorithm(std::span<const Node> nodes, const AlgorithmParams& p)
      : hasher_(&GetHasher(p.hasher)),
        points_(p.points_per_node),
        nodes_(nodes.begin(), nodes.end()),
        ids_(nodes.size()) {
    if (points_ == 0) throw std::invalid_argument("ring: points_per_node must be >= 1");
    Rebuild();
  }

  std::string_view name() const noexcept override { return kName; }
  Capabilities capabilities() const noexcept override {
    Capabilities c = kRingCapabilities;
    c.minimal_disruption = !weighted_;
    return c;
  }
  uint32_t Locate(uint64_t key_hash) const noexcept override {
    return ids_.ids()[ring_.LocateHash(static_cast<uint32_t>(key_hash))];
  }
  void LocateBatch(std::span<const uint64_t> hashes,
                   std::span<uint32_t> out) const noexcept override {
    const uint32_t* ids = ids_.ids().data();
    for (size_t i = 0; i < hashes.size(); ++i) {
      out[i] = ids[ring_.LocateHash(static_cast<uint32_t>(hashes[i]))];
    }
  }
  size_t num_nodes() const noexcept override { return nodes_.size(); }
  std::vector<uint32_t> live_ids() const override { return ids_.ids(); }

  uint32_t Add(const Node& node) override {
    CheckNewNode(kName, nodes_, node);
    nodes_.push_back(node);
    uint32_t id = ids_.Issue();
    try {
      Rebuild();
    } catch (...) {
      nodes_.pop_back();
      ids_.EraseAt(ids_.size() - 1);
      Rebuild();
      throw;
    }
    return id;
  }
  void Remove(uint32_t id) override {
    size_t i = ids_.IndexOf(kName, id);
    RequireNotLast(kName, nodes_.size());
    nodes_.erase(nodes_.begin() + static_cast<std::ptrdiff_t>(i));
    ids_.EraseAt(i);
    Rebuild();
  }

  size_t MemoryBytes() const noexcept override {
    return ring_.MemoryBytes() + ids_.ids().capacity() * sizeof(uint32_t);
  }
  std::optional<std::vector<double>> StructuralShares() const override {
    std::vector<double> by_index = ring_.StructuralShares();
    std::vector<double> shares(ids_.next(), 0.0);
    for (size_t i = 0; i < by_index.size(); ++i) shares[ids_.ids()[i]] = by_index[i];
    return shares;
  }

 private:
  void Rebuild() {
    weighted_ = false;
    for (const Node& n : nodes_) weighted_ = weighted_ || n.weight != 1;
    ring_ = Ring::Build(ResearchProfile(*hasher_, points_), nodes_, weighted_);
  }

  const Hasher* hasher_;
  uint32_t points_;
  std::vector<Node> nodes_;  // live nodes, parallel to ids_
  IdSet ids_;
  bool weighted_ = false;
  Ring ring_;
};

}  // namespace

std::unique_ptr<Algorithm> NewRing(std::span<const Node> nodes, const AlgorithmParams& p) {
  CheckNodes(kName, nodes);
  return std::make_unique<RingAlgorithm>(nodes, p);
}

}  // namespace algorithms_internal

}  // namespace chsim
