// SPDX-License-Identifier: Apache-2.0
// The scenario's "replication" request and the replicas metric group: the
// sweep over strategies and factors (ids and seeds from their values, pairs
// that do not apply left out), every refusal in one line by the plan exactly
// as by the run, rows identical on any thread count and shard, and the churn
// rows against exact invariants: a minimal strategy changes exactly the keys
// that had a copy on the node that left; a node's removal changes K/n of the
// keys in expectation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "chsim/replica.h"
#include "sim/base/errors.h"
#include "sim/run/plan.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {
namespace {

constexpr char kBase[] = R"({
  "schema_version": 1, "name": "r", "seed": 5,
  "nodes": {"count": 12},
  "algorithms": [{"algorithm": "ring", "points_per_node": 40}, {"algorithm": "rendezvous"}],
  "workload": {"type": "uniform", "keys": 20000},
  "events": [{"op": "remove", "nodes": ["10.0.0.3:11211"]}, {"op": "add", "count": 1}],
  "metrics": ["replicas"],
  "replication": {"factor": [2, 3], "strategy": ["walk", "topk", "salted"]}
})";

// `base` (kBase unless given) with `from` replaced by `to`.
std::string With(const std::string& from, const std::string& to, std::string base = kBase) {
  const size_t at = base.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return base.replace(at, from.size(), to);
}

std::string ErrorOf(const std::string& text) {
  try {
    PlanScenario(ParseScenario(text, "bad.json"));
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.rfind("bad.json: ", 0), 0u) << m;
    return m;
  }
  ADD_FAILURE() << "accepted: " << text;
  return "";
}

TEST(Replication, SweepsStrategiesThatApplyAndFactors) {
  const Scenario s = ParseScenario(kBase, "r.json");
  std::vector<std::string> ids;
  for (const CaseSpec& c : s.cases) ids.push_back(c.id);
  const std::vector<std::string> want = {
      "ring(points_per_node=40)/n=12/replication.strategy=walk/replication.factor=2",
      "ring(points_per_node=40)/n=12/replication.strategy=walk/replication.factor=3",
      "ring(points_per_node=40)/n=12/replication.strategy=salted/replication.factor=2",
      "ring(points_per_node=40)/n=12/replication.strategy=salted/replication.factor=3",
      "rendezvous/n=12/replication.strategy=topk/replication.factor=2",
      "rendezvous/n=12/replication.strategy=topk/replication.factor=3",
      "rendezvous/n=12/replication.strategy=salted/replication.factor=2",
      "rendezvous/n=12/replication.strategy=salted/replication.factor=3"};
  EXPECT_EQ(ids, want);
  for (const CaseSpec& c : s.cases) {
    EXPECT_NE(c.id.find("strategy=" + std::string(c.replica_strategy->name)), std::string::npos);
    EXPECT_NE(c.id.find("factor=" + std::to_string(c.replicas)), std::string::npos);
  }
  EXPECT_NE(s.cases[0].seed, s.cases[2].seed);  // seeds from the ids
  // "all": every registered strategy that applies, in registry order.
  const Scenario all = ParseScenario(With("[\"walk\", \"topk\", \"salted\"]", "\"all\""), "r.json");
  size_t expected = 0;
  for (const AlgorithmSpec* a : all.algorithms()) expected += 2 * ReplicaStrategiesFor(*a).size();
  EXPECT_EQ(all.cases.size(), expected);
  // No strategy: the first that applies to each algorithm.
  const Scenario first =
      ParseScenario(With(", \"strategy\": [\"walk\", \"topk\", \"salted\"]", ""), "r.json");
  ASSERT_EQ(first.cases.size(), 4u);
  EXPECT_EQ(first.cases[0].replica_strategy,
            ReplicaStrategiesFor(*first.cases[0].algorithm.spec).front());
  EXPECT_EQ(first.cases[3].replica_strategy,
            ReplicaStrategiesFor(*first.cases[3].algorithm.spec).front());
}

TEST(Replication, RefusedInOneLineByThePlan) {
  std::string m = ErrorOf(With("[2, 3]", "0"));
  EXPECT_NE(m.find("/replication/factor: found 0; accepted: an integer 1..256"), std::string::npos)
      << m;
  m = ErrorOf(With("[2, 3]", "13"));
  EXPECT_NE(m.find("/replication/factor: found 13 copies per key"), std::string::npos) << m;
  EXPECT_NE(m.find("the initial nodes has 12 live nodes"), std::string::npos) << m;
  // 12 nodes fit 12 copies, but not after a removal: the step is named.
  m = ErrorOf(With("[2, 3]", "12"));
  EXPECT_NE(m.find("step 1 (remove 10.0.0.3:11211) has 11 live nodes"), std::string::npos) << m;
  m = ErrorOf(With("[\"walk\", \"topk\", \"salted\"]", "\"nope\""));
  EXPECT_NE(m.find("/replication/strategy: found \"nope\"; accepted: one of walk"),
            std::string::npos)
      << m;
  m = ErrorOf(With("[\"walk\", \"topk\", \"salted\"]", "\"walk\""));
  EXPECT_NE(m.find("/algorithms/1: strategy walk (/replication/strategy) does not apply to "
                   "algorithm rendezvous (it needs"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("strategies for rendezvous: topk, salted"), std::string::npos) << m;
  m = ErrorOf(With("\"strategy\": [", "\"domain\": \"shelf\", \"strategy\": ["));
  EXPECT_NE(m.find("/replication/domain: found \"shelf\"; accepted: one of none, host, rack, zone"),
            std::string::npos)
      << m;
  m = ErrorOf(With("\"strategy\": [", "\"domain\": \"rack\", \"strategy\": ["));
  EXPECT_NE(m.find("/replication/domain: found \"rack\", but the nodes carry no racks"),
            std::string::npos)
      << m;
  m = ErrorOf(With("\"replicas\"]", "\"balance\"]"));
  EXPECT_NE(m.find("/replication: a replication request without a metric that reads it"),
            std::string::npos)
      << m;
  m =
      ErrorOf(With(",\n  \"replication\": {\"factor\": [2, 3], \"strategy\": [\"walk\", "
                   "\"topk\", \"salted\"]}",
                   ""));
  EXPECT_NE(m.find("missing required key 'replication'"), std::string::npos) << m;
}

constexpr char kRacks[] = R"({
  "schema_version": 1, "name": "racks", "seed": 5,
  "nodes": {"count": 12, "racks": 3},
  "algorithms": [{"algorithm": "ring", "points_per_node": 40}, {"algorithm": "rendezvous"}],
  "workload": {"type": "uniform", "keys": 5000},
  "events": [{"op": "add", "count": 1}],
  "metrics": ["replicas"],
  "replication": {"factor": 3, "strategy": "all", "domain": ["none", "rack"]}
})";

std::string WithRacks(const std::string& from, const std::string& to) {
  return With(from, to, kRacks);
}

// A domain sweep keeps the pairs that can spread over racks; one strategy
// asked alone over racks, or more copies than live racks for a strategy that
// cannot answer short, is refused.
TEST(Replication, DomainsSweepAndRefusals) {
  const Scenario s = ParseScenario(kRacks, "racks.json");
  std::vector<std::string> ids;
  for (const CaseSpec& c : s.cases) {
    EXPECT_TRUE(!c.replica_domain || c.replica_strategy->UsesDomains()) << c.id;
    ids.push_back(c.id);
  }
  EXPECT_NE(std::find(ids.begin(), ids.end(),
                      "ring(points_per_node=40)/n=12/replication.strategy=walk/"
                      "replication.factor=3/replication.domain=rack"),
            ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(),
                      "rendezvous/n=12/replication.strategy=random/replication.factor=3/"
                      "replication.domain=none"),
            ids.end());
  EXPECT_EQ(std::find(ids.begin(), ids.end(),
                      "rendezvous/n=12/replication.strategy=random/replication.factor=3/"
                      "replication.domain=rack"),
            ids.end());
  std::string text = WithRacks("\"strategy\": \"all\", \"domain\": [\"none\", \"rack\"]",
                               "\"strategy\": \"random\", \"domain\": \"rack\"");
  const std::string ring = "{\"algorithm\": \"ring\", \"points_per_node\": 40}, ";
  text.erase(text.find(ring), ring.size());
  std::string m = ErrorOf(text);
  EXPECT_NE(m.find("strategy random does not place copies by failure domain; strategies that do: "),
            std::string::npos)
      << m;
  m = ErrorOf(WithRacks("{\"op\": \"add\", \"count\": 1}",
                        "{\"op\": \"fail\", \"domain\": \"rack\", \"count\": 1}"));
  EXPECT_NE(m.find("/replication/factor: found 3 copies per key"), std::string::npos) << m;
  EXPECT_NE(m.find("has 2 live racks and strategy walk cannot answer short"), std::string::npos)
      << m;
}

// The rows of every case, by (case, trial, step, metric).
using Rows = std::map<std::string, double>;
Rows RowsOf(const Scenario& s, unsigned threads, Shard shard = {}) {
  Rows rows;
  const RunOutput out = RunScenario(s, RunOptions{threads, shard}, nullptr);
  for (size_t i = 0; i < out.cases.size(); ++i) {
    for (const MetricRow& r : out.results[i].rows) {
      rows[out.cases[i]->id + "|" + std::to_string(r.trial) + "|" + std::to_string(r.step) + "|" +
           std::string(r.metric.name())] = r.value;
    }
  }
  return rows;
}

TEST(Replication, RowsIdenticalOnAnyThreadCountAndShard) {
  std::string text =
      With("\"metrics\": [\"replicas\"]", "\"metrics\": [\"replicas\"], \"trials\": 2");
  const std::string named = "\"nodes\": [\"10.0.0.3:11211\"]";
  text.replace(text.find(named), named.size(), "\"random\": 1");
  const Scenario s = ParseScenario(text, "r.json");
  const Rows one = RowsOf(s, 1);
  EXPECT_EQ(RowsOf(s, 3), one);
  Rows merged = RowsOf(s, 2, Shard{0, 2});
  for (const auto& [k, v] : RowsOf(s, 1, Shard{1, 2})) merged[k] = v;
  EXPECT_EQ(merged.size(), one.size());
  for (const auto& [k, v] : one) {
    ASSERT_TRUE(merged.count(k)) << k;
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(merged[k])) << k;
    } else {
      EXPECT_EQ(merged[k], v) << k;
    }
  }
}

double Row(const Rows& rows, const std::string& id, uint32_t step, const std::string& metric) {
  const auto it = rows.find(id + "|0|" + std::to_string(step) + "|" + metric);
  EXPECT_NE(it, rows.end()) << id << " step " << step << " " << metric;
  return it == rows.end() ? std::nan("") : it->second;
}

// Minimal strategies change exactly the keys with a copy on the node that
// left (step 1) or that joined (step 2); the node leaving held about K/n of
// the keys; ideal figures are exact.
TEST(Replication, ChurnOfMinimalStrategiesIsTheForcedChurn) {
  const Scenario s = ParseScenario(kBase, "r.json");
  const Rows rows = RowsOf(s, 2);
  for (const CaseSpec& c : s.cases) {
    SCOPED_TRACE(c.id);
    const double k = c.replicas;
    EXPECT_EQ(Row(rows, c.id, 0, "replicas.copies"), k);
    EXPECT_EQ(Row(rows, c.id, 0, "replicas.units"), 20000);
    EXPECT_NEAR(Row(rows, c.id, 1, "replicas.churn.sets_ideal"), k / 12, 1e-12);
    EXPECT_NEAR(Row(rows, c.id, 1, "replicas.churn.copies_ideal"), 1.0 / 12, 1e-12);
    EXPECT_NEAR(Row(rows, c.id, 2, "replicas.churn.sets_ideal"), k / 12, 1e-12);
    for (uint32_t step : {1u, 2u}) {
      const double changed = Row(rows, c.id, step, "replicas.churn.sets_changed");
      EXPECT_DOUBLE_EQ(changed, Row(rows, c.id, step, "replicas.churn.sets_minimal"));
      EXPECT_DOUBLE_EQ(Row(rows, c.id, step, "replicas.churn.sets_excess"), 0);
      // A walk and a ranking change exactly one copy of each changed key (the
      // salted draws that follow a redrawn one may move too).
      if (c.replica_strategy->name != "salted") {
        EXPECT_NEAR(Row(rows, c.id, step, "replicas.churn.copies_moved") * k, changed, 1e-12);
      }
    }
    EXPECT_EQ(Row(rows, c.id, 0, "replicas.placement.short"), 0);
  }
  // A node's copies are ~K/n of the keys: topk's copies are uniform K-subsets,
  // so its removal changes Binomial(20000, K/12) keys: within 5 sigma.
  for (const CaseSpec& c : s.cases) {
    if (c.replica_strategy->name != "topk") continue;
    const double p = c.replicas / 12.0, sigma = std::sqrt(p * (1 - p) / 20000);
    EXPECT_NEAR(Row(rows, c.id, 1, "replicas.churn.sets_changed"), p, 5 * sigma) << c.id;
  }
}

// Copies spread over racks never share one, and no rack's failure loses a
// key; a strategy spreading over nodes only is measured against the same
// racks, and does share them.
TEST(Replication, RackRowsOfSpreadAndUnspreadCopies) {
  const Scenario s = ParseScenario(kRacks, "racks.json");
  const Rows rows = RowsOf(s, 2);
  bool unspread = false;
  for (const CaseSpec& c : s.cases) {
    SCOPED_TRACE(c.id);
    for (uint32_t step : {0u, 1u}) {
      const double same = Row(rows, c.id, step, "replicas.placement.same_domain");
      const double lost = Row(rows, c.id, step, "replicas.domain_loss.keys_lost_max");
      if (c.replica_domain) {
        EXPECT_EQ(same, 0);
        EXPECT_EQ(lost, 0);
        EXPECT_EQ(Row(rows, c.id, step, "replicas.domain_loss.p"), 0);
      } else {
        EXPECT_GT(same, 0.3);  // 1 - (8 x 4 / 11 / 10): about 71% share a rack at random
        unspread = unspread || lost > 0;
      }
    }
  }
  EXPECT_TRUE(unspread);
}

}  // namespace
}  // namespace chsim::sim
