#include "sim/results/catalog.h"

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "sim/run/metrics.h"
#include "sim/results/results.h"
#include "sim/workload/workload.h"

namespace chsim::sim {
namespace {

Json ProfileJson(const ProfileInfo& info) {
  const Profile p = MakeProfile(info.name);
  return {{"name", info.name},
          {"description", info.description},
          {"key_hasher", p.key_hasher->name},
          {"point_hasher", p.points_per_hash == 4 ? std::string_view("md5") : p.point_hasher->name},
          {"points_per_node", p.points_per_node},
          {"points_per_hash", p.points_per_hash},
          {"lookup", p.edge == LookupEdge::kGreater ? "first point > hash" : "first point >= hash"},
          {"ties", p.tie == TieRule::kLaterWins ? "later server wins" : "earlier server wins"},
          {"duplicates", p.duplicates == DuplicatePoints::kDrop ? "dropped" : "kept"}};
}

}  // namespace

Json Catalog() {
  Json doc = Json::object();
  Json& profiles = doc["profiles"] = Json::array();
  for (const ProfileInfo& p : AllProfiles()) profiles.push_back(ProfileJson(p));
  Json& hashers = doc["hashers"] = Json::array();
  for (const Hasher& h : AllHashers()) {
    hashers.push_back({{"name", h.name}, {"description", h.description}, {"bits", h.bits}});
  }
  std::span<const AlgorithmSpec* const> all = AllAlgorithms();
  doc["algorithms"] = AlgorithmCatalog({all.begin(), all.end()});
  Json& workloads = doc["workloads"] = Json::array();
  for (const WorkloadSpec* w : AllWorkloads()) {
    workloads.push_back({{"name", w->name}, {"doc", w->doc}, {"schema", Json::parse(w->schema)}});
  }
  Json& metrics = doc["metrics"] = Json::array();
  for (const MetricSpec& m : AllMetrics()) {
    metrics.push_back({{"name", m.name},
                       {"unit", m.unit},
                       {"group", m.group},
                       {"deterministic", m.deterministic},
                       {"meaning", m.meaning}});
  }
  return doc;
}

}  // namespace chsim::sim
