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
//  - built from domains: distinct hosts, short exactly when the hosts run
//    out; built without domains: the first copy is straw2's Locate.
#include <gtest/gtest.h>

#include <set>

#include "../core/crush_golden.h"
#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/replica.h"

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
  std::stringstream lines(ReadText(kCrushGolden + "/objects.tsv"));
  std::string line;
  size_t n = 0;
  while (std::getline(lines, line)) {
    std::stringstream f(line);
    std::string name, pg_num, ps, osds;
    std::getline(f, name, '\t'), std::getline(f, pg_num, '\t'), std::getline(f, ps, '\t');
    std::getline(f, osds, '\t');
    const auto sel = GetReplicaStrategy("crush").Make(
        in, Params{{"pg_num", uint64_t{std::stoul(pg_num)}}, {"pool", uint64_t{1}}});
    EXPECT_EQ(Copies(*sel, HashCephRjenkins(name.data(), name.size())), ParseItems(osds)) << name;
    ++n;
  }
  EXPECT_GE(n, 100u);
}

TEST(CrushStrategy, BuiltFromDomainsOneCopyPerHostShortWhenHostsRunOut) {
  auto algo = Straw2(12);
  const std::vector<uint32_t> host = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
  for (uint32_t k : {3u, 4u, 5u}) {
    const auto sel = GetReplicaStrategy("crush").Make({algo.get(), k, host});
    size_t short_sets = 0;
    for (uint64_t h = 0; h < 5000; ++h) {
      const auto got = Copies(*sel, h * 0x9e3779b97f4a7c15u);
      std::set<uint32_t> hosts;
      for (int32_t id : got) hosts.insert(host.at(static_cast<size_t>(id)));
      ASSERT_EQ(hosts.size(), got.size());
      short_sets += got.size() < k;
      ASSERT_EQ(got.size(), std::min(k, 4u));
    }
    EXPECT_EQ(short_sets, k > 4 ? 5000u : 0u);
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
