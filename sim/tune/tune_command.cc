// SPDX-License-Identifier: Apache-2.0
#include "sim/tune/tune_command.h"

#include <algorithm>
#include <cmath>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "chsim/replica.h"
#include "sim/base/errors.h"
#include "sim/base/thread_pool.h"
#include "sim/scenario/server_config.h"
#include "sim/scenario/server_list.h"

namespace chsim::sim {
namespace {

// The option checks that come before any name is looked up.
void CheckOptionMix(const TuneOptions& o) {
  if ((o.nodes == 0) == o.servers.empty()) {
    throw UsageError("give exactly one of --nodes N (N >= 2) or --servers FILE");
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

// The node hasher and the ring's rules: the algorithm's hasher as its spec
// accepts it; a client's profile, or a research ring (MD5, as Ketama) with the
// spec's default points.
void SetHashers(const TuneOptions& o, const AlgorithmSpec& spec, TuneRequest* r) {
  try {
    if (const ParamSpec* hasher = spec.FindParam("hasher")) {
      r->hasher = o.hasher.empty() ? std::string(hasher->default_text) : o.hasher;
      hasher->Check(spec.name, r->hasher);
    }
    ProfileOptions options = o.profile_options.value_or(ProfileOptions{o.hash_algorithm, ""});
    if (o.min_ring_size != 0) options.min_ring_size = o.min_ring_size;
    if (o.max_ring_size != 0) options.max_ring_size = o.max_ring_size;
    if (o.maglev_table_size != 0) options.table_size = o.maglev_table_size;
    const bool sizes = o.min_ring_size != 0 || o.max_ring_size != 0 || o.maglev_table_size != 0;
    if (o.profile.empty() && sizes) {
      throw std::invalid_argument(
          "--min-ring-size, --max-ring-size and --maglev-table-size go with --profile "
          "envoy-ring or envoy-maglev");
    }
    r->profile = o.profile.empty()
                     ? ResearchProfile(GetHasher(o.hasher.empty() ? "md5" : o.hasher),
                                       static_cast<uint32_t>(TunedParam(spec).default_number))
                     : MakeProfile(o.profile, options);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--algorithm/--hasher/--profile: ") + e.what());
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

// --replicas, --strategy and --racks: the copies' request, checked as
// chsim run checks a scenario's replication.
void SetCopies(const TuneOptions& o, const AlgorithmSpec& spec, uint32_t n, TuneRequest* r) {
  if (o.replicas == 0) {
    if (!o.strategy.empty() || o.racks != 0) {
      throw UsageError("--strategy and --racks go with --replicas K (copies per key)");
    }
    return;
  }
  if (o.max_excess_churn != 0) {
    throw UsageError(
        "--replicas tunes the hottest node's share of all copies: give "
        "--max-over-mean, not --max-excess-churn");
  }
  if (!o.profile.empty()) {
    throw UsageError(
        "--replicas tunes an algorithm's points (--algorithm NAME --hasher NAME), "
        "not a client profile");
  }
  if (o.replicas > n || o.replicas > kMaxReplicas) {
    throw UsageError("--replicas: found " + std::to_string(o.replicas) + "; accepted: 1.." +
                     std::to_string(std::min<uint32_t>(n, kMaxReplicas)) + " (distinct nodes)");
  }
  std::string fit;
  for (const ReplicaStrategy* st : ReplicaStrategiesFor(spec))
    fit += (fit.empty() ? "" : ", ") + std::string(st->name);
  if (o.strategy.empty()) {
    if (fit.empty())
      throw UsageError("--replicas: no replica strategy applies to " + std::string(spec.name));
    r->strategy = ReplicaStrategiesFor(spec).front();
  } else {
    r->strategy = FindReplicaStrategy(o.strategy);
    if (!r->strategy || !r->strategy->AppliesTo(spec)) {
      throw UsageError("--strategy '" + o.strategy + "': " +
                       (r->strategy ? "does not apply to " : "no such replica strategy; for ") +
                       std::string(spec.name) + " accepted: " + (fit.empty() ? "none" : fit));
    }
  }
  if (o.racks > 0 && !r->strategy->UsesDomains()) {
    throw UsageError("--racks: strategy " + std::string(r->strategy->name) +
                     " does not place copies by failure domain");
  }
  if (o.racks > n) {
    throw UsageError("--racks: found " + std::to_string(o.racks) + "; accepted: 1.." +
                     std::to_string(n) + " (the nodes)");
  }
  if (o.racks > 0 && o.racks < o.replicas && !r->strategy->short_results) {
    throw UsageError("--racks: found " + std::to_string(o.racks) + " racks for " +
                     std::to_string(o.replicas) + " copies per key; accepted: at least " +
                     std::to_string(o.replicas) + " (strategy " + std::string(r->strategy->name) +
                     " cannot answer short)");
  }
  r->replicas = o.replicas;
  r->racks = o.racks;
}

}  // namespace

TuneRequest MakeTuneRequest(const TuneOptions& o) {
  CheckOptionMix(o);
  const AlgorithmSpec& spec = TunedAlgorithm(o.algorithm);
  TuneRequest r;
  r.algorithm = o.algorithm;
  SetHashers(o, spec, &r);
  if (!o.servers.empty()) {
    ServerList list = o.server_list ? *o.server_list : LoadServers(o.servers).list;
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
  if (!TunesRings(spec) || r.profile.knob == PointsKnob::kTableSize) {
    // Exact draws only (no model): fewer by default; exact shares are dear
    // per build, sampled keys per draw.
    const bool exact = spec.capabilities.exact_shares || !o.profile.empty();
    r.max_exact_draws = std::min<uint32_t>(o.draws, exact ? 200 : 50);
    if (!exact && o.keys == 1'000'000) r.keys = 100'000;
  }
  SetCopies(o, spec, r.nodes.empty() ? r.n : static_cast<uint32_t>(r.nodes.size()), &r);
  if (r.replicas > 0) {
    // Exact draws only, each building the instance and walking every arc.
    r.max_exact_draws = std::min<uint32_t>(o.draws, 500);
    if (o.keys == 1'000'000) r.keys = 200'000;
  }
  r.time_budget_seconds = o.time_budget;
  r.seed = o.seed;
  r.threads = o.threads > 0 ? o.threads : DefaultThreads();
  return r;
}

std::string TunableAlgorithmsText() {
  std::string text;
  const AlgorithmSpec& first = TunedAlgorithm("");
  for (const AlgorithmSpec* spec : AllAlgorithms()) {
    if (spec->tuned_param.empty()) continue;
    text += (text.empty() ? "" : ", ") + std::string(spec->name) + " (" +
            std::string(spec->tuned_param) + (spec == &first ? "; the default)" : ")");
  }
  return text;
}

nlohmann::json TuneDocument(const TuneOptions& o, const TuneRequest& r, const TuneResult& res) {
  using Json = nlohmann::json;  // keys sorted, as the file has always had them
  auto or_null = [](bool some, auto v) { return some ? Json(v) : Json(); };
  Json doc;
  doc["schema_version"] = 1;
  doc["kind"] = "tune";
  doc["request"] = {
      {"algorithm", res.algorithm},
      {"objective", o.max_excess_churn != 0 ? "excess_churn" : "max_over_mean"},
      {"nodes", o.nodes},
      {"servers", o.servers},
      {"profile", r.profile.name},
      {"hasher",
       res.ring_model || o.algorithm.empty() ? std::string(r.profile.key_hasher->name) : r.hasher},
      {"max_over_mean", r.target},
      {"confidence", r.confidence},
      {"metric", o.metric},
      {"keys", r.keys},
      {"draws", r.model_draws},
      {"seed", std::to_string(r.seed)},
      {"threads", r.threads}};
  Json answer = {{"value", res.answer},
                 {"parameter", res.parameter},
                 {"met", res.met},
                 {"settled", res.settled},
                 {"doubt_low", or_null(!res.settled, res.doubt_low)},
                 {"doubt_high", or_null(!res.settled && res.doubt_high != 0, res.doubt_high)},
                 {"rule", "observed share >= confidence"},
                 {"analytic_points", or_null(std::isfinite(res.analytic), res.analytic)},
                 {"summary", res.summary},
                 {"current", EstimateJson(res.current)}};
  if (res.ring_model) {
    answer["cost_current"] = CostJson(res.cost_current);
    if (res.met) answer["cost_answer"] = CostJson(res.cost_answer);
    if (r.nodes.empty()) {
      answer["model_answer"] = res.model_answer;
      answer["exact_draws"] = res.exact_draws;
    }
  }
  if (!res.setting.empty()) answer["setting"] = res.setting;
  if (!r.nodes.empty() && r.replicas == 0) {
    answer["list_max_over_mean"] = res.list_max_over_mean;
    answer["hottest"] = res.hottest_label;
  }
  if (r.replicas > 0) {
    doc["request"]["replicas"] = r.replicas;
    doc["request"]["strategy"] = std::string(r.strategy->name);
    doc["request"]["racks"] = r.racks;
    const TuneAvailability& a = res.availability;
    answer["availability"] = {
        {"exact", a.exact},
        {"peers", a.peers},
        {"expected_neighbours", or_null(a.expected_neighbours > 0, a.expected_neighbours)},
        {"scatter_width", a.scatter_width},
        {"failed_nodes", a.failed_nodes},
        {"copysets", a.copysets},
        {"loss_formula", a.loss_formula},
        {"loss_p", a.loss_p},
        {"loss_ci_low", a.loss_low},
        {"loss_ci_high", a.loss_high},
        {"failure_sets", a.failure_sets}};
  }
  doc["answer"] = answer;
  Json est = Json::array();
  for (const auto& e : res.estimates) est.push_back(EstimateJson(e));
  doc["estimates"] = est;
  return doc;
}

}  // namespace chsim::sim
