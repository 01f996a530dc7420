// SPDX-License-Identifier: Apache-2.0
#include "sim/results/catalog.h"

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "chsim/replica.h"
#include "chsim/topology.h"
#include "sim/base/fields.h"
#include "sim/cache/policy.h"
#include "sim/results/provenance.h"
#include "sim/run/metrics.h"
#include "sim/scenario/scenario.h"
#include "sim/workload/workload.h"

namespace chsim::sim {
namespace {

// How the profile's structure answers a key hash, in words.
std::string_view LookupText(const Profile& p) {
  if (p.engine == Engine::kRendezvous) return "highest score";
  if (p.engine == Engine::kEnvoyMaglev) return "table[hash % table size]";
  if (p.engine == Engine::kJedis) return "first point >= hash, signed 64-bit order";
  if (p.engine == Engine::kEnvoyRing) return "first point >= hash, 64-bit";
  if (p.buckets != 0) return "bucket hash % buckets: the first point >= its start";
  if (p.edge == LookupEdge::kNearest) return "nearest point, a tie to the lower";
  if (p.past_last == PastLastPoint::kLastPoint) return "first point >= hash, no wrap";
  return p.edge == LookupEdge::kGreater ? "first point > hash" : "first point >= hash";
}

std::string_view EngineText(Engine e) {
  switch (e) {
    case Engine::kRing:
      return "points";
    case Engine::kRendezvous:
      return "scores";
    case Engine::kEnvoyMaglev:
      return "table";
    default:
      return "points64";
  }
}

Json ProfileJson(const ProfileInfo& info) {
  const Profile p = MakeProfile(info.name);
  return {{"name", info.name},
          {"description", info.description},
          {"key_hasher", p.key_hasher->name},
          {"point_hasher", p.points_per_hash == 4 ? std::string_view("md5") : p.point_hasher->name},
          {"points_per_node", p.points_per_node},
          {"points_per_hash", p.points_per_hash},
          {"lookup", LookupText(p)},
          {"engine", EngineText(p.engine)},
          {"ties", p.tie == TieRule::kLaterWins ? "later server wins" : "earlier server wins"},
          {"duplicates", p.duplicates == DuplicatePoints::kDrop ? "dropped" : "kept"}};
}

Json ParamValueJson(const ParamValue& v) {
  if (const uint64_t* u = std::get_if<uint64_t>(&v)) return *u;
  if (const double* d = std::get_if<double>(&v)) return *d;
  const std::string& s = std::get<std::string>(v);
  return s.empty() ? Json(nullptr) : Json(s);
}

Json ParamJson(const ParamSpec& p) {
  static constexpr const char* kTypes[] = {"integer", "number", "string"};
  Json out = {{"name", p.name}, {"type", kTypes[static_cast<int>(p.type)]}, {"doc", p.doc}};
  out["default"] = ParamValueJson(p.Default());  // null: the algorithm's own choice
  auto bound = [&p](double v) {
    return p.type == ParamType::kInteger ? Json(static_cast<uint64_t>(v)) : Json(v);
  };
  if (p.type != ParamType::kString) {
    out[p.min_exclusive ? "exclusive_minimum" : "minimum"] = bound(p.min);
    out["maximum"] = bound(p.max);
  }
  if (p.rule) out["rule"] = p.rule_doc;
  if (p.auto_value) out["auto"] = p.auto_doc;
  if (p.choices) {
    out["choices"] = Json::array();
    for (std::string_view c : p.choices()) out["choices"].push_back(c);
  }
  out["sweepable"] = p.sweepable;
  out["accepted"] = p.Accepted();
  // How a case label writes it (case_id.h's CaseLabel): "v=160", or the value alone.
  if (!p.symbol.empty()) out["symbol"] = p.symbol;
  if (p.bare) out["bare"] = true;
  return out;
}

Json CatalogCapabilities(const Capabilities& c) {
  return {{"weights", c.weights},           {"arbitrary_removal", c.arbitrary_removal},
          {"incremental", c.incremental},   {"exact_shares", c.exact_shares},
          {"stateful", c.stateful},         {"minimal_disruption", c.minimal_disruption},
          {"history_free", c.history_free}, {"range_hash", c.range_hash}};
}

template <class Specs>
Json Names(const Specs& specs) {
  Json names = Json::array();
  for (const auto* s : specs) names.push_back(s->name);
  return names;
}

Json AlgorithmJson(const AlgorithmSpec& a) {
  Json params = Json::array();
  for (const ParamSpec& p : a.params) params.push_back(ParamJson(p));
  return {{"name", a.name},
          {"summary", a.summary},
          {"paper", a.paper},
          {"year", a.year},
          {"capabilities", CatalogCapabilities(a.capabilities)},
          {"memory", a.memory_doc},
          {"balance_bound", a.balance_bound},
          {"default_key_hasher", a.KeyHasher(a.Resolve({}))},
          {"replica_strategies", Names(ReplicaStrategiesFor(a))},
          {"parameters", params}};
}

Json StrategyJson(const ReplicaStrategy& s) {
  Json params = Json::array();
  for (const ParamSpec& p : s.params) params.push_back(ParamJson(p));
  return {{"name", s.name},
          {"summary", s.summary},
          {"paper", s.paper},
          {"year", s.year},
          {"applies_to", s.applies_doc},
          {"algorithms", Names(AlgorithmsFor(s))},
          {"domain_rule", s.UsesDomains() ? Json(s.domain_rule) : Json(nullptr)},
          {"minimal", s.minimal},
          {"short_results", s.short_results},
          {"reads_map", s.reads_map},
          {"parameters", params}};
}

// The topology model (chsim/topology.h): the levels, innermost first, each
// with the level it nests in, and where a scenario gives them.
Json TopologyJson() {
  Json levels = Json::array();
  for (size_t l = 0; l < kDomainLevels; ++l) {
    const DomainLevel level = kAllDomainLevels[l];
    levels.push_back(
        {{"name", DomainLevelName(level)},
         {"scenario_field", DomainLevelPlural(level)},
         {"server_list_column", std::string(DomainLevelName(level)) + "=NAME"},
         {"within",
          l + 1 < kDomainLevels ? Json(DomainLevelName(kAllDomainLevels[l + 1])) : Json(nullptr)}});
  }
  return {{"levels", levels},
          {"rules",
           "any subset of the levels, the same for every node, nested: a host lies in one rack "
           "and one zone, a rack in one zone"},
          {"server_list", "HOST[:PORT] [WEIGHT [NAME]] [host=H] [rack=R] [zone=Z]"},
          {"generated",
           "\"nodes\": {\"hosts\"|\"racks\"|\"zones\": a count or a list of sizes, "
           "\"assign\": \"round_robin\" or \"blocks\"}; names host1, rack1, zone1, ..."},
          {"domain_failure", "{\"op\": \"fail\", \"domain\": LEVEL, \"count\": N}"}};
}

Json WorkloadJson(const WorkloadSpec& w) {
  Json fields = Json::array();
  for (const FieldSpec& f : w.fields) fields.push_back(FieldCatalog(f));
  return {{"name", w.name}, {"doc", w.doc}, {"unit", w.unit}, {"fields", fields}};
}

}  // namespace

Json Catalog() {
  Json algorithms = Json::array(), workloads = Json::array(), metrics = Json::array(),
       groups = Json::array(), profiles = Json::array(), hashers = Json::array();
  for (const AlgorithmSpec* a : AllAlgorithms()) algorithms.push_back(AlgorithmJson(*a));
  Json strategies = Json::array();
  for (const ReplicaStrategy* s : AllReplicaStrategies()) strategies.push_back(StrategyJson(*s));
  for (const WorkloadSpec* w : AllWorkloads()) workloads.push_back(WorkloadJson(*w));
  for (const MetricSpec& m : AllMetrics()) {
    metrics.push_back({{"name", m.name},
                       {"group", m.group},
                       {"unit", m.unit},
                       {"deterministic", m.deterministic},
                       {"meaning", m.meaning}});
    if (!m.group.empty() &&
        std::find(groups.begin(), groups.end(), Json(m.group)) == groups.end()) {
      groups.push_back(m.group);
    }
  }
  for (const ProfileInfo& p : AllProfiles()) profiles.push_back(ProfileJson(p));
  for (const Hasher& h : AllHashers()) {
    hashers.push_back({{"name", h.name}, {"description", h.description}, {"bits", h.bits}});
  }
  Json policies = Json::array();
  for (std::string_view name : CachePolicyNames()) {
    policies.push_back({{"name", name}, {"doc", CachePolicyDoc(*FindCachePolicy(name))}});
  }
  return {{"catalog_version", kCatalogVersion},
          {"chsim", ToolVersion()},
          {"algorithms", algorithms},
          {"replica_strategies", strategies},
          {"topology", TopologyJson()},
          {"workloads", workloads},
          {"metrics", metrics},
          {"metric_groups", groups},
          {"profiles", profiles},
          {"hashers", hashers},
          {"cache_policies", policies},
          {"scenario", ObjectCatalog(ScenarioFields())}};
}

}  // namespace chsim::sim
