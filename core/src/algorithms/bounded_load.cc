// SPDX-License-Identifier: Apache-2.0
// `bounded_load`: consistent hashing with bounded loads (Mirrokni, Thorup &
// Zadimoghaddam, SODA 2018) on the research ring (ResearchProfile(hasher,
// points)), with balance factor c = the balance_factor parameter.
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

#include "chsim/ring.h"
#include "internal.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kBoundedLoadSpec;

namespace {

class BoundedLoad final : public AlgorithmBase {
 public:
  BoundedLoad(std::span<const Node> nodes, const Params& p)
      : AlgorithmBase(kBoundedLoadSpec, nodes, p),
        profile_(ResearchRingProfile(p)),
        c_(p.Number("balance_factor")),
        loads_(nodes.size(), 0) {
    ring_ = Ring::Build(profile_, nodes_, false);
  }

  uint32_t Locate(uint64_t key_hash) const noexcept override { return ids_[Choose(key_hash)]; }
  uint32_t Assign(uint64_t key_hash) override {
    size_t i = Choose(key_hash);
    ++loads_[i];
    ++placed_;
    return ids_[i];
  }
  void ResetAssignments() override {
    std::fill(loads_.begin(), loads_.end(), 0);
    placed_ = 0;
  }
  size_t MemoryBytes() const noexcept override {
    return ring_.MemoryBytes() + loads_.capacity() * sizeof(uint64_t) + IdBytes();
  }

 private:
  void OnAdd(const Node&, uint32_t) override {
    Ring ring = Ring::Build(profile_, nodes_, false);
    loads_.push_back(0);
    ring_ = std::move(ring);
  }
  void OnRemove(size_t i, uint32_t) override {
    Ring ring = Ring::Build(profile_, nodes_, false);
    placed_ -= loads_[i];
    loads_.erase(loads_.begin() + static_cast<std::ptrdiff_t>(i));
    ring_ = std::move(ring);
  }
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

  Profile profile_;
  double c_;
  std::vector<uint64_t> loads_;  // parallel to nodes_
  uint64_t placed_ = 0;
  Ring ring_;
};

void Admit(const Params& p, const TimelineStep& step) {
  AdmitRing(ResearchRingProfile(p), step.live, false);
}

constexpr ParamSpec kParams[] = {
    kHasherParam,
    kKeyHasherParam,
    kPointsParam,
    {.name = "balance_factor",
     .type = ParamType::kNumber,
     .doc = "c: no node holds more than ceil(c m / n) of m keys; the paper uses 1 + eps",
     .default_number = 1.25,
     .min = 1,
     .max = 100,
     .min_exclusive = true,
     .symbol = "c"},
};

}  // namespace

constinit const AlgorithmSpec kBoundedLoadSpec{
    .name = "bounded_load",
    .summary = "consistent hashing with bounded loads on a ring; stateful: keys placed in order",
    .paper =
        "Mirrokni, Thorup & Zadimoghaddam, \"Consistent Hashing with Bounded Loads\", "
        "SODA 2018",
    .year = 2018,
    .capabilities = {.weights = false,
                     .arbitrary_removal = true,
                     .incremental = false,
                     .exact_shares = false,
                     .stateful = true,
                     .minimal_disruption = false,
                     .history_free = false},
    .params = kParams,
    .balance_bound = 1.25,
    .memory_bytes =
        [](const Params& p, uint64_t n) {
          return 10.0 * static_cast<double>(n * p.Integer("points_per_node")) +
                 12.0 * static_cast<double>(n);
        },
    .memory_doc = "8-12 bytes per ring point, 12 per node (load, id)",
    .key_hasher = KeyHasherOrXxh3,
    .admit = Admit,
    .make = MakeAs<BoundedLoad>,
};

}  // namespace chsim::algorithms_internal
