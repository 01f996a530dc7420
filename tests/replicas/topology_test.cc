// SPDX-License-Identifier: Apache-2.0
// Topology (chsim/topology.h): domain ids in order of first appearance, the
// nesting invariants refused in one line without a change, parents and
// members, and Select over another id space; each expectation written out by
// hand for a small cluster.
#include "chsim/topology.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace chsim {
namespace {

using Ids = std::vector<uint32_t>;

Ids ToIds(std::span<const uint32_t> s) { return Ids(s.begin(), s.end()); }

std::string Refusal(Topology& t, const Topology::Path& p) {
  const size_t before = t.size();
  try {
    t.Append(p);
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(t.size(), before) << "a refused node changed the topology";
    return e.what();
  }
  return "no refusal";
}

TEST(Topology, LevelNames) {
  EXPECT_EQ(DomainLevelNames(), "host, rack, zone");
  for (DomainLevel l : kAllDomainLevels) EXPECT_EQ(FindDomainLevel(DomainLevelName(l)), l);
  EXPECT_EQ(FindDomainLevel("dc"), std::nullopt);
  EXPECT_EQ(DomainLevelPlural(DomainLevel::kRack), "racks");
}

// Six nodes: hosts h1..h4, racks a, b, c, zones z1 (a, b), z2 (c).
TEST(Topology, IdsParentsAndMembers) {
  Topology t;
  EXPECT_TRUE(t.empty());
  const std::vector<Topology::Path> paths = {{"h1", "a", "z1"}, {"h1", "a", "z1"},
                                             {"h2", "b", "z1"}, {"h3", "c", "z2"},
                                             {"h4", "a", "z1"}, {"h3", "c", "z2"}};
  for (const auto& p : paths) t.Append(p);
  EXPECT_EQ(t.size(), 6u);
  EXPECT_EQ(t.LevelNames(), "host, rack, zone");
  EXPECT_EQ(ToIds(t.Of(DomainLevel::kHost)), (Ids{0, 0, 1, 2, 3, 2}));
  EXPECT_EQ(ToIds(t.Of(DomainLevel::kRack)), (Ids{0, 0, 1, 2, 0, 2}));
  EXPECT_EQ(ToIds(t.Of(DomainLevel::kZone)), (Ids{0, 0, 0, 1, 0, 1}));
  EXPECT_EQ(t.Count(DomainLevel::kHost), 4u);
  EXPECT_EQ(t.Count(DomainLevel::kRack), 3u);
  EXPECT_EQ(t.Name(DomainLevel::kRack, 2), "c");
  EXPECT_EQ(t.Find(DomainLevel::kZone, "z2"), 1u);
  EXPECT_EQ(t.Find(DomainLevel::kZone, "z3"), kNoDomain);
  EXPECT_EQ(t.Parent(DomainLevel::kHost, 3, DomainLevel::kRack), 0u);  // h4 in a
  EXPECT_EQ(t.Parent(DomainLevel::kHost, 2, DomainLevel::kZone), 1u);  // h3 in z2
  EXPECT_EQ(t.Parent(DomainLevel::kRack, 1, DomainLevel::kZone), 0u);  // b in z1
  EXPECT_EQ(t.Members(DomainLevel::kRack, 0), (Ids{0, 1, 4}));
  EXPECT_EQ(t.Members(DomainLevel::kZone, 1), (Ids{3, 5}));
  // Over ids {5, 0, dead}: node 0 is old 5, node 1 old 0, node 2 none.
  const Topology s = t.Select(Ids{5, 0, kNoDomain});
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(ToIds(s.Of(DomainLevel::kRack)), (Ids{2, 0, kNoDomain}));
  EXPECT_EQ(s.Count(DomainLevel::kRack), 3u);
  EXPECT_EQ(s.Parent(DomainLevel::kRack, 2, DomainLevel::kZone), 1u);
}

TEST(Topology, RefusesBrokenNestingAndMixedLevels) {
  Topology t;
  t.Append({"", "r1", "z1"});
  t.Append({"", "r2", "z1"});
  EXPECT_EQ(Refusal(t, {"", "r1", "z2"}),
            "rack 'r1' lies in zone 'z1' and in zone 'z2' (node 2); accepted: each rack in one "
            "zone");
  EXPECT_EQ(Refusal(t, {"", "r3", ""}),
            "node 2 has no zone but the nodes before do; accepted: the same levels (rack, zone) "
            "for every node");
  EXPECT_EQ(Refusal(t, {"h1", "r3", "z1"}),
            "node 2 gives a host but the nodes before do not; accepted: the same levels (rack, "
            "zone) for every node");
  t.Append({"", "r3", "z2"});  // a new rack in a new zone is fine
  EXPECT_EQ(t.Count(DomainLevel::kZone), 2u);
  Topology h;
  h.Append({"m1", "r1", ""});
  EXPECT_EQ(Refusal(h, {"m1", "r2", ""}),
            "host 'm1' lies in rack 'r1' and in rack 'r2' (node 1); accepted: each host in one "
            "rack");
  Topology none;
  none.Append({"", "", ""});
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.LevelNames(), "none");
  EXPECT_NE(Refusal(none, {"", "r1", ""}).find("gives a rack"), std::string::npos);
}

}  // namespace
}  // namespace chsim
