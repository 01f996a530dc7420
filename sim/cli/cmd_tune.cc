// `chsim tune`: the least points per node a deployment needs for a target
// max/mean at a confidence (see sim/tune/tune.h for the method).
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <thread>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "sim/base/errors.h"
#include "sim/cli/commands.h"
#include "sim/results/results.h"
#include "sim/scenario/server_list.h"
#include "sim/tune/tune.h"

namespace chsim::cli {
namespace {

struct TuneOptions {
  uint32_t nodes = 0;
  std::string servers;
  std::string profile;
  std::string algorithm;
  std::string hasher;
  double max_excess_churn = 0;
  std::string hash_algorithm;
  double max_over_mean = 0;
  double confidence = 0.95;
  std::string metric = "structural";
  uint64_t keys = 1'000'000;
  std::string json;
  uint32_t draws = 2000;
  double budget = 20;
  uint64_t seed = 1;
  int threads = 0;
  bool quiet = false;
};

nlohmann::json EstimateJson(const sim::TuneEstimate& e) {
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

nlohmann::json CostJson(const sim::TuneCost& c) {
  return {{"points_per_node", c.points},
          {"ring_points", c.ring_points},
          {"memory_bytes", c.memory_bytes},
          {"build_ms", c.build_ms},
          {"lookup_ns", c.lookup_ns}};
}

void RunTune(const TuneOptions& o) {
  if ((o.nodes == 0) == o.servers.empty()) {
    throw sim::UsageError("give exactly one of --nodes N (N >= 2) or --servers FILE");
  }
  const std::string algorithm = o.algorithm.empty() ? "ring" : o.algorithm;
  try {
    // The algorithm and its hasher as the specs accept them.
    const AlgorithmSpec& spec = GetAlgorithm(algorithm);
    if (!o.hasher.empty() && spec.FindParam("hasher")) {
      spec.FindParam("hasher")->Check(spec.name, o.hasher);
    }
  } catch (const std::invalid_argument& e) {
    throw sim::UsageError(std::string("--algorithm/--hasher: ") + e.what());
  }
  if (algorithm != "ring" && algorithm != "maglev" && algorithm != "multi_probe") {
    throw sim::UsageError("--algorithm '" + o.algorithm +
                          "': tune searches ring (points_per_node), maglev (table_size) and "
                          "multi_probe (probes)");
  }
  if (!o.profile.empty() && !o.algorithm.empty()) {
    throw sim::UsageError("give --profile NAME or --algorithm NAME --hasher NAME, not both");
  }
  if ((o.max_over_mean != 0) == (o.max_excess_churn != 0)) {
    throw sim::UsageError(
        "give exactly one target: --max-over-mean X (> 1) or --max-excess-churn X");
  }
  if (o.metric != "structural" && o.metric != "sampled") {
    throw sim::UsageError("--metric '" + o.metric + "': expected structural or sampled");
  }
  sim::TuneRequest r;
  r.algorithm = algorithm;
  r.hasher = o.hasher.empty() ? "xxh3" : o.hasher;
  try {
    GetHasher(r.hasher);
    r.profile = o.profile.empty()
                    ? ResearchProfile(GetHasher(o.hasher.empty() ? "md5" : o.hasher), 160)
                    : MakeProfile(o.profile, ProfileOptions{o.hash_algorithm, ""});
  } catch (const std::invalid_argument& e) {
    throw sim::UsageError(e.what());
  }
  if (!o.servers.empty()) {
    sim::ServerList list = sim::LoadServerList(o.servers);
    r.nodes = list.nodes;
    r.weighted = list.weighted;
  }
  r.n = o.nodes;
  r.target = o.max_excess_churn != 0 ? o.max_excess_churn : o.max_over_mean;
  r.objective =
      o.max_excess_churn != 0 ? sim::TuneObjective::kExcessChurn : sim::TuneObjective::kMaxOverMean;
  r.confidence = o.confidence;
  r.metric = o.metric == "sampled" ? sim::TuneMetric::kSampled : sim::TuneMetric::kStructural;
  r.keys = o.keys;
  r.model_draws = o.draws;
  r.max_exact_draws = o.draws;
  if (algorithm != "ring") {  // exact draws only: fewer by default
    r.max_exact_draws = std::min<uint32_t>(o.draws, algorithm == "maglev" ? 200 : 50);
    if (algorithm == "multi_probe" && o.keys == 1'000'000) r.keys = 100'000;
  }
  r.time_budget_seconds = o.budget;
  r.seed = o.seed;
  r.threads = o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  sim::TuneProgress progress;
  if (!o.quiet)
    progress = [](const std::string& s) { std::fprintf(stderr, "tune: %s\n", s.c_str()); };
  sim::TuneResult res = sim::Tune(r, progress);
  std::printf("%s\n", res.summary.c_str());
  if (o.json.empty()) return;
  nlohmann::json doc;
  doc["schema_version"] = 1;
  doc["kind"] = "tune";
  doc["request"] = {{"algorithm", r.algorithm},
                    {"objective", o.max_excess_churn != 0 ? "excess_churn" : "max_over_mean"},
                    {"nodes", o.nodes},
                    {"servers", o.servers},
                    {"profile", r.profile.name},
                    {"hasher", r.algorithm == "ring" ? std::string(r.profile.key_hasher->name)
                                                     : r.hasher},
                    {"max_over_mean", r.target},
                    {"confidence", r.confidence},
                    {"metric", o.metric},
                    {"keys", r.keys},
                    {"draws", r.model_draws},
                    {"seed", std::to_string(r.seed)},
                    {"threads", r.threads}};
  nlohmann::json answer = {
      {"value", res.answer},
      {"parameter", r.algorithm == "ring"     ? "points_per_node"
                    : r.algorithm == "maglev" ? "table_size"
                                              : "probes"},
      {"met", res.met},
      {"settled", res.settled},
      {"doubt_low", res.settled ? nlohmann::json(nullptr) : nlohmann::json(res.doubt_low)},
      {"doubt_high", res.settled || res.doubt_high == 0 ? nlohmann::json(nullptr)
                                                        : nlohmann::json(res.doubt_high)},
      {"rule", "observed share >= confidence"},
      {"analytic_points",
       std::isfinite(res.analytic) ? nlohmann::json(res.analytic) : nlohmann::json(nullptr)},
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
  nlohmann::json est = nlohmann::json::array();
  for (const auto& e : res.estimates) est.push_back(EstimateJson(e));
  doc["estimates"] = est;
  sim::WriteFileAtomically(o.json, doc.dump(1) + "\n");
}

}  // namespace

void AddTuneCommand(CLI::App& app) {
  static TuneOptions options;  // the callback runs after this function returns
  auto* o = &options;
  CLI::App* cmd = app.add_subcommand(
      "tune",
      "Find the least points per node that keep max/mean <= target with a confidence.\n"
      "The answer is the least candidate whose exact check (real rings over drawn names)\n"
      "shows max/mean <= target in at least a share `confidence` of the draws, its lower\n"
      "neighbour checked and short of it; if --time-budget runs out first, the line says\n"
      "'not settled' and gives the range of points still in doubt.\n"
      "Examples:\n"
      "  chsim tune --nodes 200 --max-over-mean 1.10\n"
      "  chsim tune --nodes 100 --algorithm ring --hasher xxh3 --max-over-mean 1.05 --json t.json\n"
      "  chsim tune --servers servers.txt --profile spymemcached --max-over-mean 1.10\n"
      "  chsim tune --nodes 1000 --algorithm maglev --max-over-mean 1.01\n"
      "  chsim tune --nodes 100 --algorithm maglev --max-excess-churn 0.005");
  auto* nodes = cmd->add_option("--nodes", o->nodes, "node count (names are drawn)");
  cmd->add_option("--servers", o->servers, "server list (tuned exactly, with its real names)")
      ->excludes(nodes);
  cmd->add_option("--profile", o->profile, "compatibility profile (default: research ring)");
  cmd->add_option("--hash-algorithm", o->hash_algorithm, "spymemcached hash algorithm");
  cmd->add_option("--algorithm", o->algorithm,
                  "ring (points per node, default), maglev (table size), multi_probe (probes)");
  cmd->add_option("--hasher", o->hasher, "hasher (ring: md5; maglev, multi_probe: xxh3)");
  cmd->add_option("--max-over-mean", o->max_over_mean, "target max/mean, > 1 (e.g. 1.10)");
  cmd->add_option("--max-excess-churn", o->max_excess_churn,
                  "maglev: target keys moved beyond the removed node's share (e.g. 0.01)");
  cmd->add_option("--confidence", o->confidence, "probability over name draws, in (0,1)")
      ->capture_default_str();
  cmd->add_option("--metric", o->metric, "structural (exact shares) or sampled (--keys)")
      ->capture_default_str();
  cmd->add_option("--keys", o->keys, "keys for --metric sampled (at most 10^9)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1'000'000'000}));
  cmd->add_option("--draws", o->draws, "draws per candidate: model, and at most this many exact")
      ->capture_default_str();
  cmd->add_option("--time-budget", o->budget,
                  "seconds for the exact check (sizes its draws); inf: --draws alone bounds "
                  "the work, so the answer depends on the request only")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed")->capture_default_str();
  cmd->add_option("--threads", o->threads, "threads (default: all cores)");
  cmd->add_option("--json", o->json, "write the result as JSON to this file");
  cmd->add_flag("--quiet", o->quiet, "no progress on stderr");
  cmd->callback([o] { RunTune(*o); });
}

}  // namespace chsim::cli
