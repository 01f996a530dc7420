// SPDX-License-Identifier: Apache-2.0
// CRUSH against Ceph's own tools, input for input: the goldens
// tests/compat/generate-crush wrote with crushtool and osdmaptool (Ceph
// 16.2.15), replayed through chsim's reader (the maps are crushtool -d's own
// text) and rule engine.
//  - With Ceph's ln tables (read from the installed libceph-common as an
//    oracle; skipped without it) every mapping must be equal: the engine is
//    exact.
//  - With chsim's generated tables (what chsim ships) a mapping can differ only
//    where a draw reads one of the 42 entries its tables do not share with
//    Ceph's and the two highest draws are that close: at most kTableSlack of
//    each case's 10,000 inputs (measured: see docs/design.md, "CRUSH").
//  - The object -> PG -> OSD step against osdmaptool: 30 bits of every object
//    name's hash (a pool of 2^30 PGs), the PG of every object
//    name (ceph_str_hash_rjenkins, stable_mod over a pg_num that is not a
//    power of two) and the OSDs of every PG (the placement seed hashed with
//    the pool, then the rule).
#include "crush_golden.h"

#include <gtest/gtest.h>

#include "chsim/crush.h"
#include "chsim/hasher.h"

namespace chsim {
namespace {

using testing::CephLnTables;
using testing::GoldenCases;
using testing::GoldenMap;
using testing::kCrushGolden;
using testing::ParseItems;
using testing::ReadText;

constexpr size_t kTableSlack = 5;  // per 10,000 inputs, generated tables

struct Row {
  uint32_t x;
  std::vector<int32_t> items;
};

std::vector<Row> GoldenRows(const std::string& file) {
  std::vector<Row> rows;
  std::stringstream lines(ReadText(file));
  std::string line;
  while (std::getline(lines, line)) {
    const size_t tab = line.find('\t');
    rows.push_back(
        {static_cast<uint32_t>(std::stoul(line.substr(0, tab))), ParseItems(line.substr(tab + 1))});
  }
  return rows;
}

std::vector<int32_t> Place(const crush::Map& map, const crush::Rule& rule, uint32_t x, uint32_t k,
                           const std::vector<uint32_t>& reweights) {
  std::vector<int32_t> out(k);
  out.resize(crush::DoRule(map, rule, x, out, reweights));
  return out;
}

// Mismatching rows of every case with `tables`; the first few described.
size_t ReplayCases(const crush::LnTables& tables, size_t slack, std::string* where) {
  size_t worst = 0;
  const auto cases = GoldenCases();
  EXPECT_GE(cases.size(), 9u);
  for (const testing::CrushCase& c : cases) {
    crush::Map map = GoldenMap(c.map);
    map.ln = &tables;
    const crush::Rule* rule = map.FindRule(c.rule);
    EXPECT_NE(rule, nullptr) << c.name;
    if (rule == nullptr) continue;
    std::vector<uint32_t> reweights = map.DefaultReweights();
    for (const auto& [dev, w] : c.reweights) reweights.at(dev) = testing::CrushtoolReweight(w);
    const auto rows = GoldenRows(kCrushGolden + "/mappings/" + c.name + ".tsv");
    EXPECT_EQ(rows.size(), 10000u) << c.name;
    size_t bad = 0;
    for (const Row& r : rows) {
      if (Place(map, *rule, r.x, c.num_rep, reweights) == r.items) continue;
      if (++bad <= 3) *where += " " + c.name + " x " + std::to_string(r.x) + ";";
    }
    EXPECT_LE(bad, slack) << c.name << ":" << *where;
    worst = std::max(worst, bad);
  }
  return worst;
}

TEST(CrushGolden, EveryCaseExactWithCephsTables) {
  const auto ceph = CephLnTables();
  if (!ceph) GTEST_SKIP() << "libceph-common not installed (scripts/install-deps --test)";
  std::string where;
  EXPECT_EQ(ReplayCases(*ceph, 0, &where), 0u) << where;
}

TEST(CrushGolden, GeneratedTablesDifferOnlyOnNearTies) {
  std::string where;
  const size_t worst = ReplayCases(crush::GeneratedLnTables(), kTableSlack, &where);
  RecordProperty("worst_case_mismatches", static_cast<int>(worst));
}

// objects.tsv: NAME, PG_NUM, PS, OSDS; pgs.tsv: PS, OSDS (pool 1, racks map,
// pool size 3).
TEST(CrushGolden, ObjectToPgToOsdsAsOsdmaptool) {
  const crush::Map map = GoldenMap("racks");
  const crush::Rule& rule = *map.FindRule(0);
  const std::vector<uint32_t> reweights = map.DefaultReweights();
  size_t n = 0, osds_differ = 0;
  uint32_t pg_num = 0;
  for (const testing::GoldenObject& o : testing::GoldenObjects()) {
    pg_num = o.pg_num;
    const uint32_t mine =
        crush::StableMod(crush::StrHashRjenkins(o.name), pg_num, crush::StableModMask(pg_num));
    EXPECT_EQ(mine, o.ps) << "object " << o.name;
    const uint32_t x = crush::PlacementSeed(mine, pg_num, 1);
    osds_differ += Place(map, rule, x, 3, reweights) != o.osds;
    ++n;
  }
  EXPECT_GE(n, 100u);
  EXPECT_NE(pg_num & (pg_num - 1), 0u) << "pg_num should not be a power of two";
  EXPECT_EQ(osds_differ, 0u);
  std::stringstream pgs(ReadText(kCrushGolden + "/pgs.tsv"));
  std::string line;
  size_t rows = 0, differ = 0;
  while (std::getline(pgs, line)) {
    const size_t tab = line.find('\t');
    const uint32_t ps = static_cast<uint32_t>(std::stoul(line.substr(0, tab)));
    const uint32_t x = crush::PlacementSeed(ps, pg_num, 1);
    differ += Place(map, rule, x, 3, reweights) != ParseItems(line.substr(tab + 1));
    ++rows;
  }
  EXPECT_EQ(rows, pg_num);
  EXPECT_EQ(differ, 0u);
}

// objects-hash30.tsv: NAME, the PG osdmaptool gave it in a pool of pg_num
// 2^30, i.e. the low 30 bits of ceph_str_hash_rjenkins (the hasher
// ceph_rjenkins). (A pool of 2^31 would not give 31: Ceph's stable_mod
// takes pg_num as an int, which 2^31 overflows.)
TEST(CrushGolden, ObjectNameHashAsOsdmaptool) {
  std::stringstream lines(ReadText(kCrushGolden + "/objects-hash30.tsv"));
  std::string line;
  size_t n = 0;
  while (std::getline(lines, line)) {
    const size_t tab = line.find('\t');
    const std::string name = line.substr(0, tab);
    EXPECT_EQ(HashCephRjenkins(name.data(), name.size()) & 0x3fffffff,
              std::stoull(line.substr(tab + 1)))
        << name;
    ++n;
  }
  EXPECT_GE(n, 100u);
}

}  // namespace
}  // namespace chsim
