// SPDX-License-Identifier: Apache-2.0
// A deployment's topology (sim/run/deployment.h) as the replica strategies
// read it: by global id, the nodes added later in the emptiest rack, and
// AlgorithmTopology by the algorithm's own ids, which differ from the global
// ones once jump is rebuilt without a middle node: every key's domain is the
// same read either way.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "chsim/splitmix.h"
#include "sim/run/deployment.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {
namespace {

Scenario Make(const std::string& algorithm, const std::string& nodes, const std::string& events) {
  return ParseScenario(R"({"schema_version": 1, "name": "d", "seed": 5, "nodes": )" + nodes +
                           R"(, "algorithms": [{"algorithm": ")" + algorithm +
                           R"("}], "workload": {"type": "uniform", "keys": 10}, "events": [)" +
                           events + R"(], "on_unsupported": "rebuild", "metrics": ["balance"]})",
                       "d.json");
}

TEST(DeploymentTopology, AddsFillTheEmptiestRack) {
  // Racks of 4, 4, 2 nodes; three adds go to rack 3, rack 3, then rack 1.
  Scenario s = Make("rendezvous", R"({"count": 10, "racks": [4, 4, 2], "zones": 2})",
                    R"({"op": "add", "count": 3})");
  Deployment d(s, s.cases[0], 0);
  d.Apply(s.events[0], 1);
  const Topology& t = d.topology();
  ASSERT_EQ(t.size(), 13u);
  const auto racks = t.Of(DomainLevel::kRack);
  EXPECT_EQ(std::vector<uint32_t>(racks.begin() + 10, racks.end()),
            (std::vector<uint32_t>{2, 2, 0}));
  EXPECT_EQ(t.Of(DomainLevel::kZone)[10], t.Parent(DomainLevel::kRack, 2, DomainLevel::kZone));
}

TEST(DeploymentTopology, AlgorithmIdsReadTheSameDomains) {
  // jump cannot drop a middle node: the rebuild renumbers the survivors.
  Scenario s = Make("jump", R"({"count": 12, "racks": 3})",
                    R"({"op": "remove", "random": 2}, {"op": "fail", "domain": "rack"})");
  Deployment d(s, s.cases[0], 0);
  for (uint32_t step = 1; step <= s.events.size(); ++step) {
    d.Apply(s.events[step - 1], step);
    const Topology by_alg = d.AlgorithmTopology();
    const auto global = d.topology().Of(DomainLevel::kRack);
    const auto mine = by_alg.Of(DomainLevel::kRack);
    SplitMix64 rng(step);
    for (int i = 0; i < 2000; ++i) {
      const uint64_t h = rng.Next();
      ASSERT_EQ(mine[d.algorithm().Locate(h)], global[d.Locate(h)]) << "step " << step;
    }
  }
  EXPECT_TRUE(d.rebuilt());
}

}  // namespace
}  // namespace chsim::sim
