// SPDX-License-Identifier: Apache-2.0
// `nts`: Apache Cassandra's NetworkTopologyStrategy (calculateNaturalReplicas,
// src/java/org/apache/cassandra/locator/NetworkTopologyStrategy.java): one
// clockwise walk of the ring from the key's point serves every datacenter;
// each endpoint met counts for its own datacenter only, and a datacenter
// stops taking copies once it holds min(RF_dc, its nodes). Inside a
// datacenter the rack rule spreads the copies over its racks:
//  - in_walk (Cassandra 3.0 and later, DatacenterEndpoints): an endpoint of
//    a rack that holds no copy yet is taken; one of a rack that holds a copy
//    is taken only while acceptableRackRepeats = RF_dc - racks_dc > 0 (then
//    decremented), so with RF_dc > racks the first repeats met fill the rest;
//  - after_racks (Cassandra 2.x, skippedDcEndpoints): an endpoint of a rack
//    that holds a copy is skipped (remembered in walk order) until every rack
//    of the datacenter holds one; then the skipped endpoints are appended in
//    walk order, and every endpoint met after is taken.
// Both give the same set; they order the copies beyond the racks
// differently (the primary is the same). A node held already is passed.
//
// In chsim: datacenters are the topology's zones (none: one datacenter),
// racks the domains of the level asked (none asked: racks when the topology
// has them, else each datacenter is one rack, SimpleStrategy inside it).
// The K copies are split over the zones as Cassandra operators set RF per
// datacenter: K / Z each, the first K mod Z zones (by id) one more; K must be
// at least the zones. A zone with fewer live nodes than its share gives what
// it has, so the answer may be short.
//
// Minimal without domains (one datacenter, one rack: the walk). With racks,
// removing a node can change sets that did not hold it: the nodes it kept out
// by rack rule may now enter earlier ones.
//
// Cost: one lookup, then one entry per step until every datacenter is full
// (k steps for k << n when points interleave); per-datacenter state lives on
// the stack (at most kMaxReplicas datacenters, as K >= Z).
#include <array>

#include "chsim/ring.h"
#include "internal.h"

namespace chsim::replicas_internal {

extern const ReplicaStrategy kNtsStrategy;

namespace {

// What the request makes of the topology: each node's datacenter and rack
// (by id), each datacenter's share, nodes and racks among the live nodes.
struct Datacenters {
  std::span<const uint32_t> dc_of, rack_of;  // empty: one datacenter / one rack each
  uint32_t count = 1;
  std::array<uint32_t, kMaxReplicas> rf{}, nodes{}, racks{};

  uint32_t Dc(uint32_t id) const noexcept { return dc_of.empty() ? 0 : dc_of[id]; }
  uint32_t Rack(uint32_t id) const noexcept { return rack_of.empty() ? 0 : rack_of[id]; }
};

std::optional<DomainLevel> RackLevel(const ReplicaInput& in) {
  if (in.domain) return in.domain;
  if (in.topology != nullptr && in.topology->Has(DomainLevel::kRack)) return DomainLevel::kRack;
  return std::nullopt;
}

Datacenters Layout(const ReplicaInput& in) {
  Datacenters d;
  if (in.topology != nullptr && in.topology->Has(DomainLevel::kZone)) {
    d.dc_of = in.topology->Of(DomainLevel::kZone);
    d.count = in.topology->Count(DomainLevel::kZone);
  }
  if (const auto level = RackLevel(in)) d.rack_of = in.topology->Of(*level);
  for (uint32_t z = 0; z < d.count; ++z) d.rf[z] = in.k / d.count + (z < in.k % d.count);
  std::vector<std::vector<uint32_t>> racks(d.count);
  for (uint32_t id : in.algorithm->live_ids()) {
    ++d.nodes[d.Dc(id)];
    racks[d.Dc(id)].push_back(d.Rack(id));
  }
  for (uint32_t z = 0; z < d.count; ++z) {
    std::sort(racks[z].begin(), racks[z].end());
    d.racks[z] =
        static_cast<uint32_t>(std::unique(racks[z].begin(), racks[z].end()) - racks[z].begin());
  }
  return d;
}

class Nts final : public ReplicaSelector {
 public:
  Nts(const ReplicaInput& in, RingView view, bool after_racks)
      : ReplicaSelector(in.k), view_(view), dcs_(Layout(in)), after_racks_(after_racks) {}

  uint32_t Select(uint64_t key_hash, std::span<uint32_t> out) const noexcept override {
    Walk w{dcs_, out.data()};
    for (uint32_t z = 0; z < dcs_.count; ++z) {
      w.left[z] = std::min(dcs_.rf[z], dcs_.nodes[z]);
      w.repeats[z] = static_cast<int64_t>(dcs_.rf[z]) - dcs_.racks[z];
      w.to_fill += w.left[z] > 0;
    }
    const size_t n = view_.ring->size();
    size_t i = view_.Start(key_hash);
    for (size_t steps = 0; steps < n && w.to_fill > 0; ++steps) {
      const uint32_t id = view_.IdAt(i);
      if (++i == n) i = 0;
      if (w.left[dcs_.Dc(id)] == 0 || Holds(out.data(), w.placed, id)) continue;
      after_racks_ ? w.AfterRacks(id) : w.InWalk(id);
    }
    return w.placed;
  }

 private:
  // One key's walk: per-datacenter copies left, rack repeats left, racks
  // seen, and (after_racks) the skipped endpoints in walk order.
  struct Walk {
    const Datacenters& dcs;
    uint32_t* out;
    uint32_t placed = 0, to_fill = 0, skipped_count = 0;
    std::array<uint32_t, kMaxReplicas> left{}, seen{}, skipped{};
    std::array<int64_t, kMaxReplicas> repeats{};

    bool RackHeld(uint32_t id) const noexcept {
      for (uint32_t j = 0; j < placed; ++j) {
        if (dcs.Rack(out[j]) == dcs.Rack(id) && dcs.Dc(out[j]) == dcs.Dc(id)) return true;
      }
      return false;
    }
    void Take(uint32_t id) noexcept {
      out[placed++] = id;
      if (--left[dcs.Dc(id)] == 0) --to_fill;
    }
    void InWalk(uint32_t id) noexcept {
      const uint32_t z = dcs.Dc(id);
      if (!RackHeld(id)) return Take(id);
      if (repeats[z] <= 0) return;
      --repeats[z];
      Take(id);
    }
    void AfterRacks(uint32_t id) noexcept {
      const uint32_t z = dcs.Dc(id);
      if (seen[z] == dcs.racks[z]) return Take(id);
      if (RackHeld(id)) {
        // Only the first left[z] skipped endpoints can ever be appended.
        uint32_t mine = 0;
        for (uint32_t j = 0; j < skipped_count; ++j) mine += dcs.Dc(skipped[j]) == z;
        if (mine < left[z] && !Holds(skipped.data(), skipped_count, id)) {
          skipped[skipped_count++] = id;
        }
        return;
      }
      Take(id);
      if (++seen[z] < dcs.racks[z]) return;
      for (uint32_t j = 0; j < skipped_count && left[z] > 0; ++j) {
        if (dcs.Dc(skipped[j]) == z && !Holds(out, placed, skipped[j])) Take(skipped[j]);
      }
    }
  };

  RingView view_;
  Datacenters dcs_;
  bool after_racks_;
};

std::vector<std::string_view> RackRules() { return {"in_walk", "after_racks"}; }

constexpr ParamSpec kParams[] = {
    {.name = "rack_rule",
     .type = ParamType::kString,
     .doc = "copies beyond the racks: in_walk (Cassandra 3.0+: the first repeats met) or "
            "after_racks (Cassandra 2.x: the skipped endpoints once every rack holds a copy)",
     .default_text = "in_walk",
     .choices = RackRules},
};

void Admit(const Params&, const ReplicaInput& in) {
  if (in.topology == nullptr || !in.topology->Has(DomainLevel::kZone)) return;
  const uint32_t zones = in.topology->Count(DomainLevel::kZone);
  if (in.k < zones) {
    throw std::invalid_argument("strategy nts: " + std::to_string(in.k) + " copies over " +
                                std::to_string(zones) +
                                " zones (datacenters); accepted: at least one copy per zone (K "
                                ">= " +
                                std::to_string(zones) + ")");
  }
}

std::unique_ptr<ReplicaSelector> Make(const ReplicaInput& in, const Params& p) {
  RingView view;
  in.algorithm->ViewRing(&view);
  return std::make_unique<Nts>(in, view, p.Text("rack_rule") == "after_racks");
}

}  // namespace

constinit const ReplicaStrategy kNtsStrategy{
    .name = "nts",
    .summary =
        "Cassandra NetworkTopologyStrategy: one ring walk; zones are datacenters, K split over "
        "them; copies spread over racks",
    .paper =
        "Apache Cassandra, NetworkTopologyStrategy.calculateNaturalReplicas (3.0+; 2.x with "
        "rack_rule after_racks); Lakshman & Malik, \"Cassandra: A Decentralized Structured "
        "Storage System\", LADIS 2009, section 5.2",
    .year = 2009,
    .applies_doc = "ring-like algorithms: those that expose their points in order",
    .applies = [](const AlgorithmSpec& a) noexcept { return a.views.ring; },
    .domain_rule =
        "zones are datacenters (K split evenly, K >= zones); inside one, a rack holding a copy "
        "is passed until every rack holds one (after_racks) or while RF - racks repeats remain "
        "(in_walk); racks: the level asked, else rack",
    .minimal = true,
    .short_results = true,
    .first_is_locate = true,
    .params = kParams,
    .admit = Admit,
    .make = Make,
};

}  // namespace chsim::replicas_internal
