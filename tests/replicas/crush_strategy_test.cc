// SPDX-License-Identifier: Apache-2.0
// The `crush` replica strategy (core/src/replicas/crush.cc) against Ceph's
// own tools, through the strategy's interface:
//  - a map given in crushtool's text form, over a straw2 instance whose node
//    ids are the map's devices: every copy crushtool placed for 10,000
//    inputs (tests/compat/golden-crush/mappings/racks.tsv);
//  - with a node removed, the device is out (reweight 0) as Ceph marks a
//    failed OSD: the erasure-coded case crushtool ran with `--weight 9 0`,
//    its holes dropped;
//  - with pg_num and pool, object names hashed by ceph_rjenkins place their
//    copies on the OSDs osdmaptool printed for them;
//  - built from a topology (host= and rack= columns): crushtool's copies over
//    the map generate-crush wrote for it by the documented build rule;
//    distinct domains of the level asked, short
//    exactly when they run out; equal to its own text form read back; built
//    without a level: the first copy is straw2's Locate.
#include <gtest/gtest.h>

#include <set>

#include "../core/crush_golden.h"
#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/replica.h"
#include "chsim/topology.h"

namespace chsim {
namespace {

using testing::kCrushGolden;
using testing::ParseItems;
using testing::ReadText;

std::unique_ptr<Algorithm> Straw2(uint32_t n) {
  return MakeAlgorithm("straw2", MakeNumberedNodes(n));
}

std::vector<int32_t> Copies(const ReplicaSelector& s, uint64_t h) {
  std::vector<uint32_t> out(s.k());
  out.resize(s.Select(h, out));
  return {out.begin(), out.end()};
}

// (x, items) of a mappings file.
std::vector<std::pair<uint32_t, std::vector<int32_t>>> Mappings(const std::string& name) {
  std::vector<std::pair<uint32_t, std::vector<int32_t>>> rows;
  std::stringstream lines(ReadText(kCrushGolden + "/mappings/" + name + ".tsv"));
  std::string line;
  while (std::getline(lines, line)) {
    const size_t tab = line.find('\t');
    rows.emplace_back(std::stoul(line.substr(0, tab)), ParseItems(line.substr(tab + 1)));
  }
  return rows;
}

TEST(CrushStrategy, GivenMapPlacesAsCrushtool) {
  const std::string text = ReadText(kCrushGolden + "/maps/racks.txt");
  auto algo = Straw2(23);
  const ReplicaInput in{.algorithm = algo.get(), .k = 3, .map = {"racks.txt", text}};
  const auto sel = GetReplicaStrategy("crush").Make(in);
  size_t differ = 0;
  for (const auto& [x, items] : Mappings("racks")) differ += Copies(*sel, x) != items;
  EXPECT_LE(differ, 5u);  // chsim's ln tables (tests/core/crush_golden_test.cc)
}

TEST(CrushStrategy, RemovedNodeIsAnOutDevice) {
  const std::string text = ReadText(kCrushGolden + "/maps/racks.txt");
  auto algo = Straw2(23);
  algo->Remove(9);
  const ReplicaInput in{.algorithm = algo.get(), .k = 6, .map = {"racks.txt", text}};
  const auto sel = GetReplicaStrategy("crush").Make(in, Params{{"rule", uint64_t{1}}});
  size_t differ = 0, holes = 0;
  for (auto [x, items] : Mappings("racks-indep")) {
    const size_t before = items.size();
    std::erase(items, 0x7fffffff);
    holes += before - items.size();
    differ += Copies(*sel, x) != items;
  }
  EXPECT_LE(differ, 5u);
  RecordProperty("holes", static_cast<int>(holes));
}

TEST(CrushStrategy, ObjectNamesAsOsdmaptool) {
  const std::string text = ReadText(kCrushGolden + "/maps/racks.txt");
  auto algo = Straw2(23);
  const ReplicaInput in{.algorithm = algo.get(), .k = 3, .map = {"racks.txt", text}};
  size_t n = 0;
  for (const testing::GoldenObject& o : testing::GoldenObjects()) {
    const auto sel = GetReplicaStrategy("crush").Make(
        in, Params{{"pg_num", uint64_t{o.pg_num}}, {"pool", uint64_t{1}}});
    EXPECT_EQ(Copies(*sel, HashCephRjenkins(o.name.data(), o.name.size())), o.osds) << o.name;
    ++n;
  }
  EXPECT_GE(n, 100u);
}

// 12 nodes, 3 per host, 2 hosts per rack: hosts h0..h3, racks r0, r1.
Topology TwoRacksFourHosts() {
  Topology t;
  for (uint32_t i = 0; i < 12; ++i) {
    Topology::Path path;
    path[0] = std::to_string(i / 3);  // host
    path[1] = std::to_string(i / 6);  // rack
    t.Append(path);
  }
  return t;
}

TEST(CrushStrategy, BuiltFromTopologyOneCopyPerDomainShortWhenTheyRunOut) {
  auto algo = Straw2(12);
  const Topology t = TwoRacksFourHosts();
  for (const DomainLevel level : {DomainLevel::kHost, DomainLevel::kRack}) {
    const std::span<const uint32_t> of = t.Of(level);
    const uint32_t domains = t.Count(level);
    for (uint32_t k : {2u, 3u, 5u}) {
      const auto sel = GetReplicaStrategy("crush").Make({algo.get(), k, &t, level});
      size_t short_sets = 0;
      for (uint64_t h = 0; h < 3000; ++h) {
        const auto got = Copies(*sel, h * 0x9e3779b97f4a7c15u);
        std::set<uint32_t> seen;
        for (int32_t id : got) seen.insert(of[static_cast<size_t>(id)]);
        ASSERT_EQ(seen.size(), got.size()) << "two copies in one domain";
        ASSERT_EQ(got.size(), std::min(k, domains));
        short_sets += got.size() < k;
      }
      EXPECT_EQ(short_sets, k > domains ? 3000u : 0u);
    }
  }
}

// The same rule over the map BuildMap made and over that map written by
// FormatMap and read back: equal copies (the text crushtool would compile).
TEST(CrushStrategy, BuiltMapEqualsItsTextForm) {
  auto algo = Straw2(12);
  const Topology t = TwoRacksFourHosts();
  const auto built = GetReplicaStrategy("crush").Make({algo.get(), 3, &t, DomainLevel::kHost});
  CrushView v;
  algo->ViewCrush(&v);
  std::vector<uint32_t> host(12), rack(12);
  for (uint32_t i = 0; i < 12; ++i) host[i] = i / 3, rack[i] = i / 6;
  const crush::Level levels[] = {{"host", host}, {"rack", rack}};
  const std::string text =
      crush::FormatMap(crush::BuildMap(v.devices, v.weights, levels, 0, false));
  const auto given = GetReplicaStrategy("crush").Make(
      {.algorithm = algo.get(), .k = 3, .map = {"built.txt", text}});
  for (uint64_t h = 0; h < 3000; ++h) {
    ASSERT_EQ(Copies(*built, h * 0x9e3779b97f4a7c15u), Copies(*given, h * 0x9e3779b97f4a7c15u));
  }
}

// topology.txt (LABEL WEIGHT host=H rack=R) and crushtool's mappings over
// the map generate-crush wrote for it by the documented build rule.
TEST(CrushStrategy, BuiltFromTopologyAsCrushtool) {
  std::vector<Node> nodes;
  Topology t;
  std::stringstream lines(ReadText(kCrushGolden + "/topology.txt"));
  std::string label, weight, host, rack;
  while (lines >> label >> weight >> host >> rack) {
    Node n;
    n.label = n.host = label;
    n.weight = static_cast<uint32_t>(std::stoul(weight));
    nodes.push_back(n);
    t.Append({host.substr(5), rack.substr(5), ""});  // after "host=", "rack="
  }
  ASSERT_EQ(nodes.size(), 18u);
  auto algo = MakeAlgorithm("straw2", nodes);
  for (const auto& [level, name] :
       {std::pair{DomainLevel::kHost, "host"}, std::pair{DomainLevel::kRack, "rack"}}) {
    const std::string map = std::string("topology-") + name;
    const std::string text = ReadText(kCrushGolden + "/maps/" + map + ".txt");
    const auto sel = GetReplicaStrategy("crush").Make({algo.get(), 3, &t, level});
    const auto given =
        GetReplicaStrategy("crush").Make({.algorithm = algo.get(), .k = 3, .map = {map, text}});
    size_t differ = 0;
    for (const auto& [x, items] : Mappings(map)) {
      const auto got = Copies(*sel, x);
      ASSERT_EQ(got, Copies(*given, x)) << "the built map is not the generator's, x " << x;
      differ += got != items;
    }
    EXPECT_LE(differ, 5u) << name;  // chsim's ln tables (tests/core/crush_golden_test.cc)
  }
}

TEST(CrushStrategy, BuiltFlatFirstCopyIsStraw2Locate) {
  auto algo = Straw2(10);
  const auto sel = GetReplicaStrategy("crush").Make({algo.get(), 3});
  for (uint64_t h = 0; h < 5000; ++h) {
    const uint64_t key = h * 0x9e3779b97f4a7c15u;
    ASSERT_EQ(static_cast<uint32_t>(Copies(*sel, key).at(0)), algo->Locate(key));
  }
}

TEST(CrushStrategy, RefusesAMapThatDoesNotFitTheNodes) {
  const std::string text = ReadText(kCrushGolden + "/maps/short.txt");  // devices 0..5
  auto algo = Straw2(8);
  try {
    GetReplicaStrategy("crush").Make({.algorithm = algo.get(), .k = 3, .map = {"short.txt", text}});
    FAIL() << "no refusal";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "short.txt: node id 6 (device 6) is no device in a bucket of the map (node i is "
                 "device i)");
  }
  try {
    GetReplicaStrategy("topk").Make(
        {.algorithm = MakeAlgorithm("rendezvous", MakeNumberedNodes(4)).get(),
         .k = 2,
         .map = {"short.txt", text}});
    FAIL() << "no refusal";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "strategy topk reads no CRUSH map; strategies that do: crush");
  }
}

}  // namespace
}  // namespace chsim
