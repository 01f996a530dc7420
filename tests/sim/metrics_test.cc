// SPDX-License-Identifier: Apache-2.0
// Balance and remapping figures on hand-computed inputs, and the metric
// catalog's invariants.
#include "sim/run/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

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
    EXPECT_TRUE(names.insert(std::string(m.name)).second) << m.name;
    EXPECT_EQ(FindMetric(m.name), &m);
    EXPECT_FALSE(m.unit.empty());
    EXPECT_FALSE(m.meaning.empty());
    EXPECT_TRUE(m.name == "nodes" ? m.group.empty() : FindMetricGroup(m.group) != nullptr)
        << m.name << " names group '" << m.group << "'";
    bool timing = std::string(m.name).rfind("throughput.", 0) == 0 &&
                  m.name != "throughput.memory_bytes_per_node";
    EXPECT_EQ(m.deterministic, !timing) << m.name;
  }
  EXPECT_EQ(MetricIn(kStepRows, "nodes").name(), "nodes");
  EXPECT_EQ(FindMetric("no.such"), nullptr);
}

// Each group's rows carry its name, the catalog holds them in registry order
// after "nodes", and the "metrics" choices are the groups' names.
TEST(MetricsTest, GroupsOwnTheirRowsInRegistryOrder) {
  std::vector<std::string_view> expected = {"nodes"};
  std::vector<std::string_view> names;
  for (const MetricGroup* g : AllMetricGroups()) {
    EXPECT_FALSE(g->rows.empty()) << g->name;
    EXPECT_FALSE(g->doc.empty()) << g->name;
    EXPECT_EQ(FindMetricGroup(g->name), g);
    names.push_back(g->name);
    for (const MetricSpec& m : g->rows) {
      EXPECT_EQ(m.group, g->name) << m.name;
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
