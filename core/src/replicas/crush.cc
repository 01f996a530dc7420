// SPDX-License-Identifier: Apache-2.0
// `crush`: the copies Ceph's CRUSH places (Weil, Brandt, Miller & Maltzahn,
// "CRUSH: Controlled, Scalable, Decentralized Placement of Replicated Data",
// SC 2006, section 3.2, Algorithm 1), computed as Ceph 16.2 does
// (chsim/crush.h: byte for byte with crushtool over Ceph's ln tables), over
// an algorithm whose Locate is a straw2 choice over its live nodes (its
// ViewCrush: each live node's CRUSH device id, node i being device i unless
// it was restored under an earlier device id, and its 16.16 weight).
//
// The map:
//  - given (ReplicaInput::map, crushtool's text form): its rule `rule` runs
//    over it; a live node's device is "in" (reweight 1), every other device
//    is out (reweight 0), as Ceph marks a failed OSD out: its copies go
//    where CRUSH's retries send them, and come back when it is restored;
//  - else built (crush::BuildMap) from the topology (chsim/topology.h): with
//    a level asked, a straw2 bucket per host, rack and zone it gives, nested
//    under one root, and `chooseleaf <mode> 0 type LEVEL`, one copy per
//    domain of that level (Ceph's default rule is by host); without one, a
//    flat straw2 root over the live nodes and `choose <mode> 0 type osd`.
// The input: the key hash's low 32 bits are CRUSH's x (crushtool --test's
// input); with pg_num > 0 they are first put through Ceph's object -> PG
// step: PG = stable_mod(hash, pg_num), x = hash32_2(PG, pool), so keys are
// placed as Ceph places objects (the key hasher ceph_rjenkins is Ceph's
// object-name hash).
//
// Results: firstn copies come in rule order and may be short (fewer hosts
// than copies, or 51 failed tries); indep keeps positions, and its holes
// are dropped from the copies written, so a result with holes is short too.
// Not minimal: removing a node lowers its host's weight, which moves some
// copies off that host's other nodes (section 3.3 of the paper).
#include "chsim/crush.h"

#include <algorithm>

#include "chsim/crush_text.h"
#include "internal.h"

namespace chsim::replicas_internal {

extern const ReplicaStrategy kCrushStrategy;

namespace {

struct Plan {
  crush::Map map;
  int32_t rule = 0;
  std::vector<uint32_t> reweights;       // by device
  std::vector<uint32_t> node_of_device;  // live devices' node ids
};

// The map, its rule, the reweights and the device -> node id table for this
// input; throws std::invalid_argument for a map that cannot serve it.
Plan MakePlan(const ReplicaInput& in, const Params& p) {
  CrushView v;
  in.algorithm->ViewCrush(&v);
  Plan plan;
  int32_t max_device = 0;
  for (int32_t d : v.devices) max_device = std::max(max_device, d);
  plan.node_of_device.assign(static_cast<size_t>(max_device) + 1, 0);
  for (size_t i = 0; i < v.ids.size(); ++i) {
    plan.node_of_device[static_cast<size_t>(v.devices[i])] = v.ids[i];
  }
  if (in.map.text.empty()) {
    // Each level the topology gives, by device; the rule spreads over the
    // level asked.
    std::vector<std::vector<uint32_t>> by_device;
    std::vector<crush::Level> levels;
    size_t failure = 0;
    for (DomainLevel level : kAllDomainLevels) {
      if (in.topology == nullptr || !in.topology->Has(level)) continue;
      const std::span<const uint32_t> of = in.topology->Of(level);
      std::vector<uint32_t>& d = by_device.emplace_back(plan.node_of_device.size(), 0);
      for (size_t i = 0; i < v.ids.size(); ++i) {
        if (v.ids[i] >= of.size() || of[v.ids[i]] == kNoDomain) {
          throw std::invalid_argument("replicas: no " + std::string(DomainLevelName(level)) +
                                      " for node id " + std::to_string(v.ids[i]));
        }
        d[static_cast<size_t>(v.devices[i])] = of[v.ids[i]];
      }
      if (in.domain == level) failure = levels.size();
      levels.push_back({DomainLevelName(level), {}});
    }
    for (size_t l = 0; l < levels.size(); ++l) levels[l].domain_of = by_device[l];
    if (!in.domain) levels.clear();
    plan.map = crush::BuildMap(v.devices, v.weights, levels, failure, p.Text("mode") == "indep");
    plan.reweights = plan.map.DefaultReweights();
    return plan;
  }
  plan.map = crush::ParseMap(in.map.text, in.map.name);
  plan.rule = static_cast<int32_t>(p.Integer("rule"));
  if (plan.map.FindRule(plan.rule) == nullptr) {
    throw std::invalid_argument(std::string(in.map.name) + ": no rule " +
                                std::to_string(plan.rule) + " (the strategy's rule parameter)");
  }
  const std::vector<bool> placed = plan.map.DevicesInBuckets();
  plan.reweights.assign(placed.size(), 0);
  for (size_t i = 0; i < v.ids.size(); ++i) {
    const auto d = static_cast<size_t>(v.devices[i]);
    if (d >= placed.size() || !placed[d]) {
      throw std::invalid_argument(std::string(in.map.name) + ": node id " +
                                  std::to_string(v.ids[i]) + " (device " + std::to_string(d) +
                                  ") is no device in a bucket of the map (node i is device i)");
    }
    plan.reweights[d] = crush::kWeightOne;
  }
  return plan;
}

class Crush final : public ReplicaSelector {
 public:
  Crush(const ReplicaInput& in, Plan plan, const Params& p)
      : ReplicaSelector(in.k),
        plan_(std::move(plan)),
        rule_(plan_.map.FindRule(plan_.rule)),
        pg_num_(static_cast<uint32_t>(p.Integer("pg_num"))),
        pg_mask_(pg_num_ ? crush::StableModMask(pg_num_) : 0),
        pool_(static_cast<uint32_t>(p.Integer("pool"))) {}

  uint32_t Select(uint64_t key_hash, std::span<uint32_t> out) const noexcept override {
    uint32_t x = static_cast<uint32_t>(key_hash);
    if (pg_num_ != 0) x = crush::Hash32_2(crush::StableMod(x, pg_num_, pg_mask_), pool_);
    int32_t result[kMaxReplicas];
    const uint32_t n = crush::DoRule(plan_.map, *rule_, x, {result, k()}, plan_.reweights);
    uint32_t placed = 0;
    for (uint32_t i = 0; i < n; ++i) {
      if (result[i] == crush::kItemNone) continue;
      out[placed++] = plan_.node_of_device[static_cast<size_t>(result[i])];
    }
    return placed;
  }

 private:
  Plan plan_;
  const crush::Rule* rule_;
  uint32_t pg_num_, pg_mask_, pool_;
};

std::vector<std::string_view> Modes() { return {"firstn", "indep"}; }

constexpr ParamSpec kParams[] = {
    {.name = "mode",
     .type = ParamType::kString,
     .doc = "the built map's rule: firstn (replicated pools) or indep (erasure-coded pools)",
     .default_text = "firstn",
     .choices = Modes},
    {.name = "rule",
     .type = ParamType::kInteger,
     .doc = "the id of the rule to run, of a map given in crushtool's text form",
     .default_number = 0,
     .min = 0,
     .max = 2147483647.0,
     .sweepable = false},
    {.name = "pg_num",
     .type = ParamType::kInteger,
     .doc = "placement groups of Ceph's object -> PG step (0: the key hash is CRUSH's input)",
     .default_number = 0,
     .min = 0,
     .max = 2147483648.0},
    {.name = "pool",
     .type = ParamType::kInteger,
     .doc = "the pool id hashed with the PG into CRUSH's input (with pg_num > 0)",
     .default_number = 1,
     .min = 0,
     .max = 4294967295.0},
};

}  // namespace

constinit const ReplicaStrategy kCrushStrategy{
    .name = "crush",
    .summary =
        "Ceph's CRUSH rule (straw2, modern tunables) over a map given or built from the "
        "domains",
    .paper =
        "Weil, Brandt, Miller & Maltzahn, \"CRUSH: Controlled, Scalable, Decentralized "
        "Placement of Replicated Data\", SC 2006, section 3.2 (Algorithm 1)",
    .year = 2006,
    .applies_doc = "an algorithm whose Locate is a CRUSH straw2 choice over its nodes (straw2)",
    .applies = [](const AlgorithmSpec& a) noexcept { return a.views.crush; },
    .domain_rule =
        "the built map nests a straw2 bucket per host, rack and zone the nodes give under one "
        "root, and its rule places one copy per domain of the level asked (chooseleaf); with "
        "fewer domains than copies the result is short, as Ceph's",
    .minimal = false,
    .short_results = true,
    .first_is_locate = false,
    .reads_map = true,
    .params = kParams,
    .admit = [](const Params& p, const ReplicaInput& in) { MakePlan(in, p); },
    .make = [](const ReplicaInput& in, const Params& p) -> std::unique_ptr<ReplicaSelector> {
      return std::make_unique<Crush>(in, MakePlan(in, p), p);
    },
};

}  // namespace chsim::replicas_internal
