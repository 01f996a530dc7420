// SPDX-License-Identifier: Apache-2.0
// Generated failure domains (sim/scenario/domains.h): round-robin, blocks and
// sizes, nested levels, and what CheckDomains refuses, each assignment
// written out by hand.
#include "sim/scenario/domains.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace chsim::sim {
namespace {

using Ids = std::vector<uint32_t>;

DomainSpec Spec(std::vector<DomainCount> levels, bool blocks = false) {
  DomainSpec s;
  for (size_t l = 0; l < levels.size(); ++l) s.levels[l] = levels[l];
  s.blocks = blocks;
  return s;
}
DomainCount Count(uint32_t c) { return {.given = true, .count = c, .sizes = {}}; }
DomainCount Sizes(Ids sizes) {
  return {.given = true, .count = static_cast<uint32_t>(sizes.size()), .sizes = sizes};
}

Ids Of(const Topology& t, DomainLevel l) { return Ids(t.Of(l).begin(), t.Of(l).end()); }

TEST(Domains, RoundRobinBlocksAndSizes) {
  const Topology rr = MakeDomains(Spec({{}, Count(3)}), 7);
  EXPECT_EQ(Of(rr, DomainLevel::kRack), (Ids{0, 1, 2, 0, 1, 2, 0}));
  EXPECT_EQ(rr.Name(DomainLevel::kRack, 2), "rack3");
  EXPECT_FALSE(rr.Has(DomainLevel::kHost));
  const Topology blocks = MakeDomains(Spec({{}, Count(3)}, true), 7);
  EXPECT_EQ(Of(blocks, DomainLevel::kRack), (Ids{0, 0, 0, 1, 1, 2, 2}));  // 3, 2, 2
  const Topology sizes = MakeDomains(Spec({{}, Sizes({4, 4, 1})}), 9);
  EXPECT_EQ(Of(sizes, DomainLevel::kRack), (Ids{0, 0, 0, 0, 1, 1, 1, 1, 2}));
}

// Hosts group nodes, racks group hosts, zones group racks.
TEST(Domains, LevelsNest) {
  const Topology t = MakeDomains(Spec({Count(6), Count(3), Count(2)}, true), 12);
  EXPECT_EQ(Of(t, DomainLevel::kHost), (Ids{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}));
  EXPECT_EQ(Of(t, DomainLevel::kRack), (Ids{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}));
  EXPECT_EQ(Of(t, DomainLevel::kZone), (Ids{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(t.Parent(DomainLevel::kHost, 5, DomainLevel::kZone), 1u);
  // Round-robin: host h in rack h % 3, rack r in zone r % 2.
  const Topology r = MakeDomains(Spec({Count(6), Count(3), Count(2)}), 12);
  EXPECT_EQ(Of(r, DomainLevel::kHost), (Ids{0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(Of(r, DomainLevel::kRack), (Ids{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(Of(r, DomainLevel::kZone), (Ids{0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0}));
  EXPECT_EQ(r.Name(DomainLevel::kZone, 1), "zone2");
}

TEST(Domains, RefusesWhatDoesNotCover) {
  DomainLevel at = DomainLevel::kHost;
  EXPECT_EQ(CheckDomains(Spec({{}, Count(3)}), 7, &at), "");
  EXPECT_EQ(CheckDomains(Spec({{}, Sizes({4, 4, 1})}), 10, &at),
            "racks: found sizes summing to 9 for 10 nodes; accepted: sizes that sum to the nodes "
            "(each in one rack)");
  EXPECT_EQ(at, DomainLevel::kRack);
  EXPECT_EQ(CheckDomains(Spec({{}, Count(5)}), 4, &at),
            "racks: found 5 racks for 4 nodes; accepted: at most 4 (no empty rack)");
  EXPECT_EQ(CheckDomains(Spec({{}, Count(2), Sizes({1, 2})}), 8, &at),
            "zones: found sizes summing to 3 for 2 racks; accepted: sizes that sum to the racks "
            "(each in one zone)");
  EXPECT_EQ(at, DomainLevel::kZone);
  EXPECT_EQ(CheckDomains(Spec({Count(4), {}, Count(5)}), 8, &at),
            "zones: found 5 zones for 4 hosts; accepted: at most 4 (no empty zone)");
}

}  // namespace
}  // namespace chsim::sim
