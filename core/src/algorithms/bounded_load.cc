// `bounded_load`: consistent hashing with bounded loads (Mirrokni, Thorup &
// Zadimoghaddam, SODA 2018) on the research ring (ResearchProfile(hasher,
// points)), with balance factor c = AlgorithmParams::balance_factor.
//
// Stateful: Assign(k) places one key at the first node clockwise from k's
// ring position whose load is below BoundedLoadCapacity(c, m + 1, n), m the
// keys placed so far, and counts it; so answers depend on arrival order.
// Locate(k) answers where Assign(k) would place k now, without placing it
// (with nothing placed, the plain ring answer). Keys never leave: departures
// are modelled by ResetAssignments and replaying the live keys.
// Add/Remove rebuild the ring; a removed node's load is dropped (its keys are
// unplaced and must be assigned again by the caller); survivors keep theirs.
// No weights (the paper's capacities are uniform): Unsupported.
#include "chsim/algorithms/bounded_load.h"

#include "chsim/profile.h"
#include "chsim/ring.h"
#include "internal.h"

namespace chsim::algorithms_internal {
namespace {

constexpr std::string_view kName = "bounded_load";

class BoundedLoad final : public Algorithm {
 public:
  BoundedLoad(std::span<const Node> nodes, const AlgorithmParams& p)
      : hasher_(&GetHasher(p.hasher)),
        points_(p.points_per_node),
        c_(p.balance_factor),
        nodes_(nodes.begin(), nodes.end()),
        loads_(nodes.size(), 0),
        ids_(nodes.size()) {
    Rebuild();
  }

  std::string_view name() const noexcept override { return kName; }
  Capabilities capabilities() const noexcept override { return kBoundedLoadCapabilities; }
  uint32_t Locate(uint64_t key_hash) const noexcept override {
    return ids_.ids()[Choose(key_hash)];
  }
  uint32_t Assign(uint64_t key_hash) override {
    size_t i = Choose(key_hash);
    ++loads_[i];
    ++placed_;
    return ids_.ids()[i];
  }
  void ResetAssignments() override {
    std::fill(loads_.begin(), loads_.end(), 0);
    placed_ = 0;
  }
  size_t num_nodes() const noexcept override { return ids_.size(); }
  std::vector<uint32_t> live_ids() const override { return ids_.ids(); }

  uint32_t Add(const Node& node) override {
    CheckNewNode(kName, nodes_, node);
    RequireUnweighted(kName, std::span<const Node>(&node, 1));
    nodes_.push_back(node);
    loads_.push_back(0);
    uint32_t id = ids_.Issue();
    Rebuild();
    return id;
  }
  void Remove(uint32_t id) override {
    size_t i = ids_.IndexOf(kName, id);
    RequireNotLast(kName, ids_.size());
    placed_ -= loads_[i];
    nodes_.erase(nodes_.begin() + static_cast<std::ptrdiff_t>(i));
    loads_.erase(loads_.begin() + static_cast<std::ptrdiff_t>(i));
    ids_.EraseAt(i);
    Rebuild();
  }
  size_t MemoryBytes() const noexcept override {
    return ring_.MemoryBytes() + loads_.capacity() * sizeof(uint64_t) +
           ids_.ids().capacity() * sizeof(uint32_t);
  }

 private:
  // Index (into the live list) of the first node clockwise from the key's
  // ring position with room for one more key. Terminates within one lap:
  // c > 1 makes n * capacity >= m + 1 > placed, so some node has room.
  size_t Choose(uint64_t key_hash) const noexcept {
    const uint64_t cap = BoundedLoadCapacity(c_, placed_ + 1, loads_.size());
    auto pts = ring_.points();
    auto owners = ring_.owners();
    const uint32_t h = static_cast<uint32_t>(key_hash);  // ring points are 32-bit
    size_t j = static_cast<size_t>(std::lower_bound(pts.begin(), pts.end(), h) - pts.begin());
    for (size_t step = 0; step < pts.size(); ++step, ++j) {
      if (j == pts.size()) j = 0;
      if (loads_[owners[j]] < cap) return owners[j];
    }
    return owners[0];  // unreachable (see above)
  }
  void Rebuild() { ring_ = Ring::Build(ResearchProfile(*hasher_, points_), nodes_, false); }

  const Hasher* hasher_;
  uint32_t points_;
  double c_;
  std::vector<Node> nodes_;      // live, parallel to ids_
  std::vector<uint64_t> loads_;  // parallel to nodes_
  uint64_t placed_ = 0;
  IdSet ids_;
  Ring ring_;
};

}  // namespace

std::unique_ptr<Algorithm> NewBoundedLoad(std::span<const Node> nodes, const AlgorithmParams& p) {
  CheckNodes(kName, nodes);
  RequireUnweighted(kName, nodes);
  if (!(p.balance_factor > 1.0) || !(p.balance_factor <= 1e6)) {
    throw std::invalid_argument("bounded_load: balance_factor must be > 1 (got " +
                                std::to_string(p.balance_factor) + "); the paper uses 1 + eps");
  }
  if (p.points_per_node == 0) {
    throw std::invalid_argument("bounded_load: points_per_node must be >= 1");
  }
  return std::make_unique<BoundedLoad>(nodes, p);
}

}  // namespace chsim::algorithms_internal
