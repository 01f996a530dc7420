// SPDX-License-Identifier: Apache-2.0
// The metric group kit: every group of the registry (AllMetricGroups; no
// list to edit: a new group is checked on the next build) writes at least
// one row of its own for a small case that selects it, its rows carry its
// name, and proof that the check catches a group whose hooks write nothing.
// Built with CHSIM_GROUP_KIT_EXAMPLE=SYMBOL (tests/docs), it holds
// docs/extending.md's example group alone, which is not registered: its case
// is read as selecting the first registered group, then runs it alone.
//
// The case: 6 nodes, one added (halfway through the request stream when the
// group replays it), one trial of jump over a zipf request stream (so every
// pass, the replay included, has something to do), "metrics" the group alone. A settings object the
// group requires (the reader says which: "missing required key 'X'") is given from its rows'
// examples, as a new user would give it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/base/errors.h"
#include "sim/results/results.h"
#include "sim/run/metric_group.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {
namespace {

using Violations = std::vector<std::string>;

std::string Name(const MetricGroup& g) { return "group \"" + std::string(g.name) + "\""; }

// The object of the examples of top-level object row `key`'s rows.
Json ExampleObject(std::string_view key) {
  const FieldSpec* row = ScenarioFields().Find(key);
  Json out = Json::object();
  if (row == nullptr || row->type != FieldType::kObject) return out;
  for (const FieldSpec& f : row->object->fields) {
    if (!f.example_json.empty()) out[std::string(f.name)] = Json::parse(f.example_json);
  }
  return out;
}

// A small scenario selecting `g`, with the settings the reader asks for; a
// group that replays the request stream has the event placed on it.
Scenario SelectingScenario(const MetricGroup& g) {
  Json add = {{"op", "add"}, {"count", 1}};
  if (g.needs.replay) add["at"] = {{"fraction", 0.5}};
  const bool registered = FindMetricGroup(g.name) != nullptr;  // or a copy of one
  Json doc = {
      {"schema_version", 1},
      {"name", "group-kit"},
      {"seed", 5},
      {"trials", 1},
      {"nodes", {{"count", 6}}},
      {"algorithms", Json::array({{{"algorithm", "jump"}}})},
      {"workload", {{"type", "zipf"}, {"keys", 300}, {"requests", 3000}, {"exponent", 1.0}}},
      {"events", Json::array({add})},
      {"metrics", Json::array({registered ? g.name : AllMetricGroups()[0]->name})}};
  const std::string missing = "missing required key '";
  for (int tries = 0;; ++tries) {
    try {
      return ParseScenario(doc.dump(), "group-kit.json");
    } catch (const UsageError& e) {
      const std::string m = e.what();
      const size_t at = m.find(missing);
      if (tries > 4 || at == std::string::npos) throw;
      const size_t begin = at + missing.size();
      const std::string key = m.substr(begin, m.find('\'', begin) - begin);
      if (doc.contains(key)) throw;
      doc[key] = ExampleObject(key);
    }
  }
}

// Rows of `g`'s own metrics that a case selecting it writes, run with `g`
// as the selected group (a registered one, or a test's copy).
Violations CheckWritesRows(const MetricGroup& g) {
  Violations v;
  for (const MetricSpec& m : g.rows) {
    if (m.group != g.name) {
      v.push_back(Name(g) + ": its row " + std::string(m.name) + " says group \"" +
                  std::string(m.group) + "\"; a row's group is the group that holds it");
    }
  }
  Scenario s = SelectingScenario(g);
  s.groups = {&g};
  const RunOutput out = RunScenario(s, RunOptions{}, nullptr);
  size_t rows = 0;
  for (const CaseResult& r : out.results) {
    for (const MetricRow& row : r.rows) {
      rows += std::any_of(g.rows.begin(), g.rows.end(),
                          [&](const MetricSpec& m) { return row.metric.name() == m.name; });
    }
  }
  if (rows == 0) {
    v.push_back(Name(g) + ": a case that selects it (" + std::to_string(out.results.size()) +
                " cases) wrote no row of its metrics");
  }
  return v;
}

Violations RunCheck(const MetricGroup& g) {
  try {
    return CheckWritesRows(g);
  } catch (const std::exception& e) {
    return {Name(g) + ": threw " + e.what()};
  }
}

#ifdef CHSIM_GROUP_KIT_EXAMPLE
}  // namespace
extern const MetricGroup CHSIM_GROUP_KIT_EXAMPLE;
namespace {
std::vector<const MetricGroup*> KitGroups() { return {&CHSIM_GROUP_KIT_EXAMPLE}; }
#define KIT_SUITE Example
#else
std::span<const MetricGroup* const> KitGroups() { return AllMetricGroups(); }
#define KIT_SUITE Registry
#endif

class GroupKit : public ::testing::TestWithParam<const MetricGroup*> {};

TEST_P(GroupKit, WritesRowsForACaseThatSelectsIt) {
  const Violations v = RunCheck(*GetParam());
  EXPECT_TRUE(v.empty()) << ::testing::PrintToString(v);
}

INSTANTIATE_TEST_SUITE_P(KIT_SUITE, GroupKit, ::testing::ValuesIn(KitGroups()),
                         [](const auto& info) { return std::string(info.param->name); });

#ifndef CHSIM_GROUP_KIT_EXAMPLE

// A copy of each group with its hooks removed is caught, by name.
TEST(GroupKitCatches, AGroupWhoseHooksWriteNothing) {
  for (const MetricGroup* g : AllMetricGroups()) {
    MetricGroup silent = *g;
    silent.trial = nullptr;
    silent.step = nullptr;
    silent.event = nullptr;
    silent.timed = nullptr;
    const Violations v = RunCheck(silent);
    ASSERT_EQ(v.size(), 1u) << g->name;
    EXPECT_NE(v[0].find(Name(*g) + ": a case that selects it"), std::string::npos) << v[0];
  }
}

// A row that names another group than the one holding it is caught, by name.
TEST(GroupKitCatches, ARowNamingAnotherGroup) {
  static constexpr MetricSpec kRow[] = {
      {"sampled.copied", "ratio", "remap", true, "a row copied from another group's file"}};
  MetricGroup g = *FindMetricGroup("balance");
  g.rows = kRow;
  const Violations v = RunCheck(g);
  ASSERT_FALSE(v.empty());
  EXPECT_NE(v[0].find(Name(g) + ": its row sampled.copied says group \"remap\""), std::string::npos)
      << v[0];
}

#endif  // CHSIM_GROUP_KIT_EXAMPLE

}  // namespace
}  // namespace chsim::sim
