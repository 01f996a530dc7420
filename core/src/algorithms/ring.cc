// SPDX-License-Identifier: Apache-2.0
// `ring`: the Ketama ring (Karger et al. 1997; libketama 2007) in its research
// form, ResearchProfile(hasher, points_per_node), behind the Algorithm
// interface.
//
// Ring points are 32-bit, so a 64-bit key hash is located by its low 32 bits
// (the same bits the ring itself uses for a key hashed by a 32- or 64-bit
// hasher). Add/Remove rebuild the ring from the live node list and map the
// ring's owners (indexes into that list) back to node ids (ProfileRing, which
// `ketama` shares). Unweighted, each
// node keeps its points whatever the others do, so disruption is minimal.
// Weighted lists use the peers' float formula, whose point counts depend on
// the total weight and node count: every node's points change on add/remove,
// and capabilities().minimal_disruption is false for such an instance.
#include "chsim/ring.h"

#include "internal.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kRingSpec;

namespace {

class ProfileRing final : public AlgorithmBase {
 public:
  ProfileRing(const AlgorithmSpec& spec, std::span<const Node> nodes, const Params& p,
              Profile profile, bool weighted_list, double theory_points)
      : AlgorithmBase(spec, nodes, p),
        profile_(std::move(profile)),
        weighted_list_(weighted_list && p.weighted_list),
        theory_points_(theory_points) {
    Rebuild();
  }

  Capabilities capabilities() const noexcept override {
    Capabilities c = AlgorithmBase::capabilities();
    c.minimal_disruption = c.minimal_disruption && !weighted_;
    return c;
  }
  // Any 64-bit hash: its low bits in the profile's key space.
  uint32_t Locate(uint64_t key_hash) const noexcept override {
    return ids_[ring_.LocateHash(static_cast<uint32_t>(key_hash) & ring_.space_mask())];
  }
  void LocateBatch(std::span<const uint64_t> hashes,
                   std::span<uint32_t> out) const noexcept override {
    const uint32_t* ids = ids_.data();
    const uint32_t mask = ring_.space_mask();
    for (size_t i = 0; i < hashes.size(); ++i) {
      out[i] = ids[ring_.LocateHash(static_cast<uint32_t>(hashes[i]) & mask)];
    }
  }
  size_t MemoryBytes() const noexcept override { return ring_.MemoryBytes() + IdBytes(); }
  // The ring Locate reads; its owners index the live list, ids_.
  bool ViewRing(RingView* view) const noexcept override {
    *view = RingView{&ring_, ids_};
    return true;
  }
  std::optional<std::vector<double>> StructuralShares() const override {
    std::vector<double> by_index = ring_.StructuralShares();
    std::vector<double> shares(next_id_, 0.0);
    for (size_t i = 0; i < by_index.size(); ++i) shares[ids_[i]] = by_index[i];
    return shares;
  }
  double RingPointsPerNode() const noexcept override {
    // No Karger ring theory for nginx-hash (runs of a modulo, not points),
    // PHP memcache (runs of 1,024 buckets) or HAProxy (a point owns half the
    // gap on each side, not the gap before it).
    if (weighted_ || profile_.point_rule == PointRule::kWeightModulo ||
        profile_.buckets != 0 || profile_.edge == LookupEdge::kNearest) {
      return 0;
    }
    return theory_points_ > 0
               ? theory_points_
               : static_cast<double>(ring_.size()) / static_cast<double>(ids_.size());
  }

 private:
  void OnAdd(const Node&, uint32_t) override { Rebuild(); }
  void OnRemove(size_t, uint32_t) override { Rebuild(); }
  void Rebuild() {
    ring_ = Ring::Build(profile_, nodes_, weighted_list_);  // the old ring stays if this throws
    weighted_ = weighted_list_ || HasWeights(nodes_);
  }

  Profile profile_;
  bool weighted_list_;
  double theory_points_;
  bool weighted_ = false;
  Ring ring_;
};

void Admit(const Params& p, const TimelineStep& step) {
  AdmitRing(ResearchRingProfile(p), step.live, false);
}

double Memory(const Params& p, uint64_t n) {
  return 10.0 * static_cast<double>(n * p.Integer("points_per_node")) +
         4.0 * static_cast<double>(n);
}

constexpr ParamSpec kParams[] = {kHasherParam, kKeyHasherParam, kPointsParam};

}  // namespace

std::unique_ptr<Algorithm> NewProfileRing(const AlgorithmSpec& spec, std::span<const Node> nodes,
                                          const Params& params, Profile profile, bool weighted_list,
                                          double theory_points) {
  return std::make_unique<ProfileRing>(spec, nodes, params, std::move(profile), weighted_list,
                                       theory_points);
}

constinit const AlgorithmSpec kRingSpec{
    .name = "ring",
    .summary = "Ketama ring with any hasher and points per node",
    .paper =
        "Karger, Lehman, Leighton, Panigrahy, Levine & Lewin, \"Consistent Hashing and "
        "Random Trees\", STOC 1997; libketama (last.fm, 2007)",
    .year = 1997,
    .capabilities = {.weights = true,
                     .arbitrary_removal = true,
                     .incremental = false,
                     .exact_shares = true,
                     .stateful = false,
                     .minimal_disruption = true,  // unweighted
                     .history_free = true},
    .views = {.ring = true},
    .params = kParams,
    .tuned_param = "points_per_node",
    .balance_bound = 1.35,
    .memory_bytes = Memory,
    .memory_doc = "8-12 bytes per point (points x nodes), 4 per node",
    .key_hasher = KeyHasherOrPointHasher,
    .admit = Admit,
    .make =
        [](std::span<const Node> nodes, const Params& p) {
          return NewProfileRing(kRingSpec, nodes, p, ResearchRingProfile(p), false,
                                static_cast<double>(p.Integer("points_per_node")));
        },
};

}  // namespace chsim::algorithms_internal
