// SPDX-License-Identifier: Apache-2.0
#include "sim/tune/tune_command.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "sim/base/errors.h"
#include "sim/scenario/server_list.h"

namespace chsim::sim {
namespace {

// The option checks that come before any name is looked up.
void CheckOptionMix(const TuneOptions& o, const std::string& algorithm) {
  if ((o.nodes == 0) == o.servers.empty()) {
    throw UsageError("give exactly one of --nodes N (N >= 2) or --servers FILE");
  }
  try {
    // The algorithm and its hasher as the specs accept them.
    const AlgorithmSpec& spec = GetAlgorithm(algorithm);
    if (!o.hasher.empty() && spec.FindParam("hasher")) {
      spec.FindParam("hasher")->Check(spec.name, o.hasher);
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--algorithm/--hasher: ") + e.what());
  }
  if (algorithm != "ring" && algorithm != "maglev" && algorithm != "multi_probe") {
    throw UsageError("--algorithm '" + o.algorithm +
                     "': tune searches ring (points_per_node), maglev (table_size) and "
                     "multi_probe (probes)");
  }
  if (!o.profile.empty() && !o.algorithm.empty()) {
    throw UsageError("give --profile NAME or --algorithm NAME --hasher NAME, not both");
  }
  if ((o.max_over_mean != 0) == (o.max_excess_churn != 0)) {
    throw UsageError("give exactly one target: --max-over-mean X (> 1) or --max-excess-churn X");
  }
  if (o.metric != "structural" && o.metric != "sampled") {
    throw UsageError("--metric '" + o.metric + "': expected structural or sampled");
  }
  if (o.keys < 1 || o.keys > kTuneMaxKeys) {
    throw UsageError("--keys: found " + std::to_string(o.keys) + "; accepted: an integer 1.." +
                     std::to_string(kTuneMaxKeys));
  }
}

nlohmann::json EstimateJson(const TuneEstimate& e) {
  return {{"points_per_node", e.points},
          {"method", e.method},
          {"draws", e.draws},
          {"successes", e.successes},
          {"probability", e.probability},
          {"ci_low", e.ci_low},
          {"ci_high", e.ci_high},
          {"median_max_over_mean", e.median_max_over_mean},
          {"p95_max_over_mean", e.p95_max_over_mean}};
}

nlohmann::json CostJson(const TuneCost& c) {
  return {{"points_per_node", c.points},
          {"ring_points", c.ring_points},
          {"memory_bytes", c.memory_bytes},
          {"build_ms", c.build_ms},
          {"lookup_ns", c.lookup_ns}};
}

}  // namespace

TuneRequest MakeTuneRequest(const TuneOptions& o) {
  const std::string algorithm = o.algorithm.empty() ? "ring" : o.algorithm;
  CheckOptionMix(o, algorithm);
  TuneRequest r;
  r.algorithm = algorithm;
  r.hasher = o.hasher.empty() ? "xxh3" : o.hasher;
  try {
    GetHasher(r.hasher);
    r.profile = o.profile.empty()
                    ? ResearchProfile(GetHasher(o.hasher.empty() ? "md5" : o.hasher), 160)
                    : MakeProfile(o.profile, ProfileOptions{o.hash_algorithm, ""});
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (!o.servers.empty()) {
    ServerList list = o.server_list ? *o.server_list : LoadServerList(o.servers);
    r.nodes = std::move(list.nodes);
    r.weighted = list.weighted;
  }
  r.n = o.nodes;
  r.target = o.max_excess_churn != 0 ? o.max_excess_churn : o.max_over_mean;
  r.objective = o.max_excess_churn != 0 ? TuneObjective::kExcessChurn : TuneObjective::kMaxOverMean;
  r.confidence = o.confidence;
  r.metric = o.metric == "sampled" ? TuneMetric::kSampled : TuneMetric::kStructural;
  r.keys = o.keys;
  r.model_draws = o.draws;
  r.max_exact_draws = o.draws;
  if (algorithm != "ring") {  // exact draws only: fewer by default
    r.max_exact_draws = std::min<uint32_t>(o.draws, algorithm == "maglev" ? 200 : 50);
    if (algorithm == "multi_probe" && o.keys == 1'000'000) r.keys = 100'000;
  }
  r.time_budget_seconds = o.time_budget;
  r.seed = o.seed;
  r.threads = o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  return r;
}

nlohmann::json TuneDocument(const TuneOptions& o, const TuneRequest& r, const TuneResult& res) {
  using Json = nlohmann::json;  // keys sorted, as the file has always had them
  Json doc;
  doc["schema_version"] = 1;
  doc["kind"] = "tune";
  doc["request"] = {
      {"algorithm", r.algorithm},
      {"objective", o.max_excess_churn != 0 ? "excess_churn" : "max_over_mean"},
      {"nodes", o.nodes},
      {"servers", o.servers},
      {"profile", r.profile.name},
      {"hasher", r.algorithm == "ring" ? std::string(r.profile.key_hasher->name) : r.hasher},
      {"max_over_mean", r.target},
      {"confidence", r.confidence},
      {"metric", o.metric},
      {"keys", r.keys},
      {"draws", r.model_draws},
      {"seed", std::to_string(r.seed)},
      {"threads", r.threads}};
  Json answer = {
      {"value", res.answer},
      {"parameter", r.algorithm == "ring"     ? "points_per_node"
                    : r.algorithm == "maglev" ? "table_size"
                                              : "probes"},
      {"met", res.met},
      {"settled", res.settled},
      {"doubt_low", res.settled ? Json(nullptr) : Json(res.doubt_low)},
      {"doubt_high", res.settled || res.doubt_high == 0 ? Json(nullptr) : Json(res.doubt_high)},
      {"rule", "observed share >= confidence"},
      {"analytic_points", std::isfinite(res.analytic) ? Json(res.analytic) : Json(nullptr)},
      {"summary", res.summary},
      {"current", EstimateJson(res.current)},
      {"cost_current", CostJson(res.cost_current)}};
  if (res.met && r.algorithm == "ring") answer["cost_answer"] = CostJson(res.cost_answer);
  if (r.algorithm == "ring" && r.nodes.empty()) {
    answer["model_answer"] = res.model_answer;
    answer["exact_draws"] = res.exact_draws;
  }
  if (r.algorithm != "ring") answer.erase("cost_current");
  if (!r.nodes.empty()) {
    answer["list_max_over_mean"] = res.list_max_over_mean;
    answer["hottest"] = res.hottest_label;
  }
  doc["answer"] = answer;
  Json est = Json::array();
  for (const auto& e : res.estimates) est.push_back(EstimateJson(e));
  doc["estimates"] = est;
  return doc;
}

}  // namespace chsim::sim
