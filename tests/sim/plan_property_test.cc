// SPDX-License-Identifier: Apache-2.0
// The plan never says ok to a scenario `run` refuses: over seeded random
// scenarios drawn from the algorithm specs (every registered algorithm, its
// parameters at their boundaries and just past them) and the scenario schema
// (node patterns that collide, weights, every event with selections that are
// impossible at their step, each on_unsupported, file workloads with bad
// lines, throughput), plus hand-written impossible timelines,
// `chsim validate` (load + PlanScenario) accepts exactly when an unplanned
// run (RunScenario with plan = false, one thread: cases in index order)
// finishes, and when both refuse they give the same one-line message. Cases
// the plan marks skipped are the ones the run skips, with the same reason.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "chsim/algorithm.h"
#include "sim/base/errors.h"
#include "sim/base/rng.h"
#include "sim/run/plan.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {
namespace {

constexpr int kScenarios = 600;

// What validate or run did: "ok" or the UsageError's message; and each case's
// plan ("ok" / "skipped: why"). `loaded`: the scenario loaded (a refusal
// came from the plan, not the reader).
struct Verdict {
  std::string outcome;
  std::vector<std::string> cases;
  bool loaded = false;
};

Verdict Validate(const std::string& text, const std::string& path) {
  Verdict v{"ok", {}};
  try {
    const Scenario s = ParseScenario(text, path);
    v.loaded = true;
    for (const CasePlan& p : PlanScenario(s, {1, {}, false})) {
      v.cases.push_back(p.skipped ? "skipped: " + p.message : "ok");
    }
  } catch (const UsageError& e) {
    v.outcome = e.what();
  }
  return v;
}

Verdict RunUnplanned(const std::string& text, const std::string& path) {
  Verdict v{"ok", {}};
  try {
    const Scenario s = ParseScenario(text, path);
    RunOptions options;
    options.plan = false;
    for (const CaseResult& r : RunScenario(s, options, nullptr).results) {
      v.cases.push_back(r.status == "skipped" ? "skipped: " + r.message : "ok");
    }
  } catch (const UsageError& e) {
    v.outcome = e.what();
  }
  return v;
}

// --- Random scenarios ------------------------------------------------------

class Generator {
 public:
  Generator(uint64_t seed, std::string dir) : rng_(seed), dir_(std::move(dir)) {}

  Json Scenario() {
    Json doc = {{"schema_version", 1}, {"name", "p"}, {"seed", rng_.Below(1000)}};
    doc["trials"] = 1 + rng_.Below(3);
    doc["nodes"] = Nodes();
    doc["algorithms"] = Json::array();
    for (uint64_t i = 0, n = 1 + rng_.Below(2); i < n; ++i) doc["algorithms"].push_back(Entry());
    doc["workload"] = Workload();
    doc["events"] = Json::array();
    for (uint64_t i = 0, n = rng_.Below(6); i < n; ++i) doc["events"].push_back(Event());
    const char* policies[] = {"error", "skip", "rebuild"};
    doc["on_unsupported"] = policies[rng_.Below(3)];
    doc["metrics"] = Metrics();
    doc["throughput"] = {{"keys", 16}, {"min_time_ms", 1}, {"repetitions", 1}};
    return doc;
  }

 private:
  bool Chance(uint64_t one_in) { return rng_.Below(one_in) == 0; }
  template <typename T>
  T Pick(std::initializer_list<T> values) {
    return values.begin()[rng_.Below(values.size())];
  }

  Json Nodes() {
    Json nodes = {{"count", Pick<uint64_t>({1, 2, 3, 5, 8, 13, 20})}};
    if (Chance(4)) nodes["pattern"] = Pick<const char*>({"dup:11211", "n{hex:1}:1", "h{i%3}:1"});
    if (Chance(3)) {
      nodes["weights"] = Pick<Json>({Json{{"choice", {1, 2, 4}}}, Json{{"min", 1}, {"max", 3}},
                                     Json{{"choice", {1}}}, Json("uniform")});
    }
    labels_ = {"10.0.0.1:11211", "10.0.0.2:11211", "10.0.0.3:11211",
               "10.0.9.9:11211", "dup:11211",      "h0:1"};
    return nodes;
  }

  // A value of `p`: a boundary, just past it, the default, or something in between.
  Json Value(const ParamSpec& p) {
    switch (p.type) {
      case ParamType::kInteger: {
        if (p.auto_value && Chance(5)) return "auto";
        const uint64_t lo = static_cast<uint64_t>(p.min);
        // Large accepted values are real work for the run: stay small unless past the end.
        const uint64_t hi = static_cast<uint64_t>(std::min(p.max, 2000.0));
        const uint64_t past = static_cast<uint64_t>(p.max) + 1;
        const uint64_t pick = Pick<uint64_t>({lo, lo + 1, lo + 2, 3, 5, 7, 11, 13, 19, 20, 24, hi,
                                              static_cast<uint64_t>(p.default_number)});
        if (Chance(8)) return past;
        if (Chance(10) && lo > 0) return lo - 1;
        return std::min(pick, hi);
      }
      case ParamType::kNumber:
        return Pick<double>({p.min, p.min + 0.01, 1.1, 1.25, 2.0, p.max, p.max + 1});
      case ParamType::kString:
        if (!p.choices || Chance(12)) return "bogus";
        const auto choices = p.choices();
        return std::string(choices[rng_.Below(choices.size())]);
    }
    return nullptr;
  }

  Json Entry() {
    const auto all = AllAlgorithms();
    const AlgorithmSpec& spec = *all[rng_.Below(all.size())];
    Json e = {{"algorithm", spec.name}};
    for (const ParamSpec& p : spec.params) {
      if (!Chance(3)) continue;
      e[std::string(p.name)] = Chance(6) ? Json::array({Value(p), Value(p)}) : Value(p);
    }
    return e;
  }

  Json Workload() {
    if (Chance(6)) {
      const bool weighted = Chance(2);
      const std::string path = dir_ + "/keys" + std::to_string(files_++) + ".txt";
      std::ofstream f(path);
      f << "a 3\nb 1\n" << (Chance(3) ? "broken\n" : "c 2\n");
      return {{"type", "file"}, {"path", path}, {"weighted", weighted}};
    }
    if (Chance(5)) return {{"type", "zipf"}, {"keys", 50}, {"requests", 200}, {"exponent", 1.0}};
    return {{"type", "uniform"}, {"keys", Pick<uint64_t>({0, 1, 100, 300})}};
  }

  Json Labels() {
    Json out = Json::array();
    for (uint64_t i = 0, n = 1 + rng_.Below(2); i < n; ++i) {
      out.push_back(labels_[rng_.Below(labels_.size())]);
    }
    return out;
  }

  Json Event() {
    switch (rng_.Below(6)) {
      case 0:
        if (Chance(2))
          return {{"op", "add"}, {"nodes", Labels()}, {"weight", Pick<uint64_t>({1, 3})}};
        return {{"op", "add"}, {"count", Pick<uint64_t>({1, 2, 7})}};
      case 1:
        if (Chance(3)) return {{"op", "remove"}, {"nodes", Labels()}};
        return {{"op", "remove"},
                {Pick<const char*>({"random", "last"}), Pick<uint64_t>({1, 2, 4, 20})}};
      case 2:
        return {{"op", "fail"}, {"fraction", Pick<double>({0.1, 0.5, 0.9})}};
      case 3:
        if (Chance(2))
          return {{"op", "reweight"}, {"nodes", Labels()}, {"weight", Pick<uint64_t>({1, 5})}};
        return {{"op", "reweight"},
                {"random", Pick<uint64_t>({1, 3})},
                {"weight", Pick<uint64_t>({1, 5})}};
      default:
        return {{"op", "restore"}};
    }
  }

  Json Metrics() {
    Json m = Json::array();
    for (const char* g : {"balance", "remap", "throughput"}) {
      if (Chance(2)) m.push_back(g);
    }
    if (m.empty()) m.push_back("balance");
    return m;
  }

  SplitMix64 rng_;
  std::string dir_;
  std::vector<std::string> labels_;
  int files_ = 0;
};

class PlanProperty : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("chsim_plan_property_" + std::to_string(::getpid())))
               .string();
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Validate and run agree on `doc`; returns validate's verdict.
  Verdict Agree(const Json& doc, const std::string& name) {
    const std::string text = doc.dump();
    const std::string path = dir_ + "/" + name + ".json";
    const Verdict planned = Validate(text, path);
    const Verdict ran = RunUnplanned(text, path);
    EXPECT_EQ(planned.outcome, ran.outcome) << text;
    if (planned.outcome == "ok" && ran.outcome == "ok") {
      EXPECT_EQ(planned.cases, ran.cases) << text;
    }
    EXPECT_EQ(planned.outcome.find('\n'), std::string::npos);
    return planned;
  }

  std::string dir_;
};

TEST_F(PlanProperty, ValidateAcceptsExactlyWhatRunFinishes) {
  int refused = 0, planned = 0, skipped = 0, ok = 0;
  for (int i = 0; i < kScenarios; ++i) {
    Generator g(static_cast<uint64_t>(i), dir_);
    const Verdict v = Agree(g.Scenario(), std::to_string(i));
    if (v.outcome != "ok") {
      ++refused;
      planned += v.loaded;
    } else if (std::count_if(v.cases.begin(), v.cases.end(),
                             [](const std::string& c) { return c != "ok"; })) {
      ++skipped;
    } else {
      ++ok;
    }
  }
  std::printf(
      "%d scenarios: %d refused (%d by the plan, after loading), %d ran with skipped cases, %d ran "
      "whole\n",
      kScenarios, refused, planned, skipped, ok);
  // The draw must exercise every outcome, not only one.
  EXPECT_GT(planned, kScenarios / 10);
  EXPECT_GT(refused - planned, kScenarios / 10);
  EXPECT_GT(skipped, kScenarios / 20);
  EXPECT_GT(ok, kScenarios / 10);
}

// The impossible timelines that validate used to accept, each refused by both
// with the same message.
TEST_F(PlanProperty, HandWrittenImpossibleCasesAreRefusedByBoth) {
  const Json base = {{"schema_version", 1},
                     {"name", "x"},
                     {"nodes", {{"count", 10}}},
                     {"workload", {{"type", "uniform"}, {"keys", 100}}}};
  auto with = [&](Json algorithm, Json events = Json::array()) {
    Json doc = base;
    doc["algorithms"] = Json::array({std::move(algorithm)});
    doc["events"] = std::move(events);
    return doc;
  };
  const std::pair<const char*, Json> examples[] = {
      {"/algorithms/0/probes", with({{"algorithm", "multi_probe"}, {"probes", 2000}})},
      {"maglev: table_size 7 is smaller than the 10 nodes",
       with({{"algorithm", "maglev"}, {"table_size", 7}})},
      {"anchor: capacity 9 must be at least the 10 initial nodes",
       with({{"algorithm", "anchor"}, {"capacity", 9}})},
      {"anchor: capacity 11 reached",
       with({{"algorithm", "anchor"}, {"capacity", 11}}, {{{"op", "add"}, {"count", 2}}})},
      {"found remove random 10 with 10 live nodes",
       with({{"algorithm", "ring"}}, {{{"op", "remove"}, {"random", 10}}})},
      {"node '10.0.0.3:11211' is already live",
       with({{"algorithm", "ring"}}, {{{"op", "add"}, {"nodes", {"10.0.0.3:11211"}}}})},
      {"node '10.0.0.3:11211' is not live at this step",
       with({{"algorithm", "ring"}}, {{{"op", "remove"}, {"nodes", {"10.0.0.3:11211"}}},
                                      {{"op", "remove"}, {"nodes", {"10.0.0.3:11211"}}}})},
      {"node '10.0.0.3:11211' is named twice",
       with({{"algorithm", "ring"}},
            {{{"op", "remove"}, {"nodes", {"10.0.0.3:11211", "10.0.0.3:11211"}}}})},
      {"dx: capacity 11 reached",
       with({{"algorithm", "dx"}, {"capacity", 11}}, {{{"op", "add"}, {"count", 2}}})},
      {"the node pattern gives no unused label",
       [&] {
         Json doc = with({{"algorithm", "ring"}}, {{{"op", "add"}, {"count", 1}}});
         doc["nodes"] = {{"count", 3}, {"pattern", "h{i%3}:1"}};  // three labels, then repeats
         return doc;
       }()},
      {"modulo does not support weights",
       with({{"algorithm", "modulo"}}, {{{"op", "reweight"}, {"random", 1}, {"weight", 3}}})},
      {"ring would have 268500000 points",
       [&] {
         Json doc = with({{"algorithm", "ring"}, {"points_per_node", 100000}});
         doc["nodes"]["count"] = 2685;  // x 100,000 points > 2^28
         return doc;
       }()},
  };
  for (const auto& [message, doc] : examples) {
    const Verdict v = Agree(doc, "example");
    EXPECT_NE(v.outcome.find(message), std::string::npos) << v.outcome;
  }
}

}  // namespace
}  // namespace chsim::sim
