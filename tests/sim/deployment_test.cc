// SPDX-License-Identifier: Apache-2.0
// Deployment's node bookkeeping: which nodes are live after a timeline, and
// which ones "last" names (the most recently added live nodes), including
// nodes removed and added back and after many removals.
#include "sim/run/deployment.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/base/errors.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {
namespace {

Scenario Make(int nodes, const std::string& events) {
  return ParseScenario(R"({"schema_version": 1, "name": "d", "seed": 5,
    "nodes": {"count": )" + std::to_string(nodes) +
                           R"(, "pattern": "n{i}"},
    "algorithms": [{"algorithm": "rendezvous"}],
    "workload": {"type": "uniform", "keys": 10},
    "events": [)" + events +
                           R"(], "metrics": ["balance"]})",
                       "d.json");
}

std::vector<std::string> Live(const Deployment& d) {
  std::vector<std::string> out;
  for (size_t g = 0; g < d.nodes().size(); ++g) {
    if (d.live()[g]) out.push_back(d.nodes()[g].label);
  }
  return out;
}

void ApplyAll(const Scenario& s, Deployment& d) {
  for (size_t i = 0; i < s.events.size(); ++i) d.Apply(s.events[i], static_cast<uint32_t>(i + 1));
}

TEST(DeploymentTest, LastNamesTheMostRecentlyAddedLiveNodes) {
  // n2 leaves and comes back, so it is now more recent than n5; then a new
  // node n6 is added. The last two are n6 and n2.
  Scenario s = Make(5, R"({"op": "remove", "nodes": ["n2"]}, {"op": "add", "nodes": ["n2"]},
                         {"op": "add", "count": 1}, {"op": "remove", "last": 2})");
  Deployment d(s, s.cases[0], 0);
  ApplyAll(s, d);
  EXPECT_EQ(Live(d), (std::vector<std::string>{"n1", "n3", "n4", "n5"}));
  EXPECT_EQ(d.num_live(), 4u);
}

TEST(DeploymentTest, LastAfterManyRemovals) {
  // The last 90 of 100 leave (the add order drops its stale entries along the
  // way), n50 comes back, then the last 3 leave: n50, n10 and n9.
  Scenario s = Make(100, R"({"op": "remove", "last": 90}, {"op": "add", "nodes": ["n50"]},
                           {"op": "remove", "last": 3})");
  Deployment d(s, s.cases[0], 0);
  ApplyAll(s, d);
  EXPECT_EQ(Live(d), (std::vector<std::string>{"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"}));
  EXPECT_EQ(d.num_live(), 8u);
}

TEST(DeploymentTest, LastCountsOnlyLiveNodes) {
  Scenario s = Make(5, R"({"op": "remove", "nodes": ["n1", "n2"]}, {"op": "remove", "last": 3})");
  Deployment d(s, s.cases[0], 0);
  d.Apply(s.events[0], 1);
  try {
    d.Apply(s.events[1], 2);
    FAIL() << "removing the last 3 of 3 live nodes was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("with 3 live nodes"), std::string::npos) << e.what();
  }
}

TEST(DeploymentTest, AddedLabelsSkipEveryLabelInUse) {
  // The pattern's next names are n4.. ; n4 and n5 were added by name first,
  // so the counted add takes n6 and n7.
  Scenario s = Make(3, R"({"op": "add", "nodes": ["n4", "n5"]}, {"op": "add", "count": 2})");
  Deployment d(s, s.cases[0], 0);
  ApplyAll(s, d);
  EXPECT_EQ(Live(d), (std::vector<std::string>{"n1", "n2", "n3", "n4", "n5", "n6", "n7"}));
}

}  // namespace
}  // namespace chsim::sim
