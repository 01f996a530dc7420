// SPDX-License-Identifier: Apache-2.0
// Balance and remapping figures on hand-computed inputs, and the metric
// catalog's invariants.
#include "sim/run/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "chsim_source_dir.h"
#include "sim/base/json_reader.h"
#include "sim/base/text_file.h"
#include "sim/run/metric_group.h"

namespace chsim::sim {
namespace {

TEST(MetricsTest, BalanceFromRatios) {
  std::vector<double> r = {0.5, 1.0, 1.5, 1.0};
  BalanceFigures b = BalanceFromRatios(r, 0.1);
  EXPECT_DOUBLE_EQ(b.max_over_mean, 1.5);
  EXPECT_DOUBLE_EQ(b.min_over_mean, 0.5);
  EXPECT_NEAR(b.cv, std::sqrt(0.125), 1e-15);
  EXPECT_DOUBLE_EQ(b.over_eps_share, 0.25);
}

TEST(MetricsTest, ChiSquareOfPerfectAndSkewedLoads) {
  std::vector<double> p = {0.25, 0.25, 0.5};
  ChiSquareFigures perfect = ChiSquareTest(std::vector<double>{25, 25, 50}, p);
  EXPECT_DOUBLE_EQ(perfect.statistic, 0);
  EXPECT_DOUBLE_EQ(perfect.p_value, 1);
  EXPECT_EQ(perfect.df, 2);
  ChiSquareFigures skew = ChiSquareTest(std::vector<double>{50, 25, 25}, p);
  EXPECT_DOUBLE_EQ(skew.statistic, 25.0 + 0 + 12.5);
  EXPECT_LT(skew.p_value, 1e-8);
}

TEST(MetricsTest, SamplingFloorIsAboutSqrtNOverK) {
  std::vector<double> p(100, 0.01);
  EXPECT_NEAR(SamplingFloorCv(p, 1e6), std::sqrt(0.99 / (1e6 * 0.01)), 1e-15);
}

TEST(MetricsTest, MinimalMovesIsTotalVariation) {
  // Removal: node 2's 30 keys must move.
  EXPECT_DOUBLE_EQ(MinimalMoves(std::vector<double>{40, 30, 30}, std::vector<double>{55, 45, 0}),
                   30);
  // Add: the new node's 25 keys must move (before is shorter: a new node).
  EXPECT_DOUBLE_EQ(MinimalMoves(std::vector<double>{50, 50}, std::vector<double>{40, 35, 25}), 25);
}

TEST(MetricsTest, CatalogNamesAreUniqueAndFindable) {
  std::set<std::string> names;
  for (const MetricSpec& m : AllMetrics()) {
    const bool first = names.insert(std::string(m.name)).second;
    EXPECT_TRUE(first) << "metric " << m.name << " has two catalog rows; give each its own name";
    if (first) {
      EXPECT_EQ(FindMetric(m.name), &m) << m.name;
    }
    EXPECT_FALSE(m.unit.empty()) << "metric " << m.name << ": its row needs a unit";
    EXPECT_FALSE(m.meaning.empty()) << "metric " << m.name << ": its row needs a meaning";
    EXPECT_TRUE(m.name == "nodes" ? m.group.empty() : FindMetricGroup(m.group) != nullptr)
        << m.name << " names group '" << m.group << "'";
  }
  EXPECT_EQ(MetricIn(kStepRows, "nodes").name(), "nodes");
  EXPECT_EQ(FindMetric("no.such"), nullptr);
}

// Each group's rows carry its name, the catalog holds them in registry order
// after "nodes", and the "metrics" choices are the groups' names.
// A result's rows are validated against results/schema.json (chsim merge,
// make-report), which lists the units it accepts: a row with another unit
// would be written by chsim run and refused by every reader of the file.
TEST(MetricsTest, UnitsAreOnesTheResultsSchemaAccepts) {
  const Json schema = Json::parse(ReadFileOrStdin(CHSIM_SOURCE_DIR "/results/schema.json"));
  const char* pointer = "/properties/rows/items/properties/unit/enum";
  const Json& units = schema.at(Json::json_pointer(pointer));
  std::set<std::string, std::less<>> accepted;
  for (const Json& u : units) accepted.insert(u.get<std::string>());
  ASSERT_FALSE(accepted.empty()) << "results/schema.json lists no unit at " << pointer;
  for (const MetricSpec& m : AllMetrics()) {
    EXPECT_TRUE(accepted.contains(m.unit))
        << "metric " << m.name << ": unit \"" << m.unit << "\" is not one results/schema.json "
        << "accepts (" << units.dump() << " at " << pointer
        << "); use one of those, or add it there";
  }
}

TEST(MetricsTest, GroupsOwnTheirRowsInRegistryOrder) {
  std::vector<std::string_view> expected = {"nodes"};
  std::vector<std::string_view> names;
  for (const MetricGroup* g : AllMetricGroups()) {
    EXPECT_FALSE(g->rows.empty()) << "group " << g->name << " has no catalog rows";
    EXPECT_FALSE(g->doc.empty()) << "group " << g->name << " needs a doc line";
    EXPECT_EQ(FindMetricGroup(g->name), g) << "two groups are named " << g->name;
    names.push_back(g->name);
    // Only timing varies from run to run: a group that times nothing writes
    // deterministic rows (which merges and thread counts must reproduce).
    const bool times = g->needs.timing || g->needs.event_timing;
    for (const MetricSpec& m : g->rows) {
      EXPECT_EQ(m.group, g->name) << "metric " << m.name << " is a row of group " << g->name
                                  << ": its row's group must say \"" << g->name << "\"";
      EXPECT_TRUE(m.deterministic || times)
          << "metric " << m.name << " is not deterministic, but group " << g->name
          << " times nothing (needs.timing, needs.event_timing): mark its row deterministic";
      expected.push_back(m.name);
    }
  }
  std::vector<std::string_view> all;
  for (const MetricSpec& m : AllMetrics()) all.push_back(m.name);
  EXPECT_EQ(all, expected);
  const std::span<const std::string_view> choices = MetricGroupNames();
  EXPECT_EQ(std::vector<std::string_view>(choices.begin(), choices.end()), names);
  EXPECT_EQ(FindMetricGroup("hotspot"), nullptr);
}

}  // namespace
}  // namespace chsim::sim
