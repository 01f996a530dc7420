// SPDX-License-Identifier: Apache-2.0
// Workloads: keys are a pure function of (seed, index) for every generated
// type; files stream line by line with weights and report bad lines by
// file:line.
#include "sim/workload/workload.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "sim/base/errors.h"

namespace chsim::sim {
namespace {

// A generated workload of `type` with 1000 keys, 5000 requests (zipf): the
// fields its rows take.
std::shared_ptr<const Workload> Make(std::string_view type, const std::string& shape,
                                     Json extra = Json::object()) {
  Json f = {{"keys", 1000}, {"requests", 5000}, {"exponent", 1.0}, {"shape", shape}};
  for (auto it = extra.begin(); it != extra.end(); ++it) f[it.key()] = it.value();
  Json given = Json::object();
  for (const FieldSpec& row : FindWorkload(type)->fields) {
    if (f.contains(row.name)) given[std::string(row.name)] = f[std::string(row.name)];
  }
  return MakeWorkload(type, given);
}

TEST(WorkloadTest, SequentialKeysAreNumbered) {
  auto w = Make("sequential", "user:{i}", {{"start", 100}, {"step", 3}});
  std::string key;
  w->KeyAt(1, 0, &key);
  EXPECT_EQ(key, "user:100");
  w->KeyAt(1, 2, &key);
  EXPECT_EQ(key, "user:106");
  EXPECT_EQ(w->units(), 1000u);
}

TEST(WorkloadTest, UniformKeysAreStatelessAndSeeded) {
  auto a = Make("uniform", "user:{n}");
  auto b = Make("uniform", "user:{n}");
  std::string x, y, z;
  for (uint64_t i : {999u, 0u, 500u}) {  // any order: no hidden state
    a->KeyAt(5, i, &x);
    b->KeyAt(5, i, &y);
    a->KeyAt(6, i, &z);
    EXPECT_EQ(x, y);
    EXPECT_NE(x, z);
    EXPECT_EQ(x.rfind("user:", 0), 0u);
  }
}

TEST(WorkloadTest, ZipfRequestsRepeatHotKeys) {
  auto w = Make("zipf", "item-{i}");
  std::map<std::string, int> counts;
  std::string key;
  for (uint64_t u = 0; u < w->units(); ++u) {
    w->KeyAt(9, u, &key);
    ++counts[key];
  }
  EXPECT_EQ(w->units(), 5000u);
  // Rank 1 ("item-0") has probability 1/H(1000) = 0.1336.
  EXPECT_NEAR(counts["item-0"] / 5000.0, 0.1336, 0.02);
  EXPECT_LE(counts.size(), 1000u);
}

// A shape that renders fewer distinct keys than "keys" would repeat keys
// (and read as bad balance): refused at read, naming the shape's pointer.
TEST(WorkloadTest, ShapeWithFewerKeysThanAskedIsRefused) {
  for (std::string_view type : {"uniform", "sequential", "zipf"}) {
    SCOPED_TRACE(type);
    try {
      Make(type, "k{hex:1}");  // 16 keys for 1000
      ADD_FAILURE() << "accepted";
    } catch (const UsageError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("workload: /shape: found 'k{hex:1}', which renders at most 16 distinct "
                       "keys, for 1000 keys"),
                std::string::npos)
          << m;
    }
    EXPECT_NO_THROW(Make(type, "k{hex:3}"));  // 4096 >= 1000
    EXPECT_NO_THROW(Make(type, "k{i}"));
    EXPECT_NO_THROW(Make(type, "k{hex:1}", {{"keys", 16}}));
  }
  // Swept: every shape against every key count.
  const Json swept = {{"keys", Json::array({10, 1000})},
                      {"shape", Json::array({"k{i}", "{hex:2}"})}};
  EXPECT_THROW(MakeWorkload("sequential", swept), UsageError);
}

TEST(WorkloadTest, FileStreamsKeysAndWeights) {
  std::string path = (std::filesystem::temp_directory_path() / "chsim_workload_test.txt").string();
  {
    std::ofstream f(path);
    f << "alpha 3\nbeta with spaces\t10\ngamma 0\n";
  }
  Json c = {{"path", path}, {"weighted", true}};
  std::vector<std::pair<std::string, uint64_t>> seen;
  MakeWorkload("file", c)->ForEachLine([&](std::string_view k, uint64_t w) {
    seen.emplace_back(std::string(k), w);
    return true;
  });
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[1].first, "beta with spaces");
  EXPECT_EQ(seen[1].second, 10u);
  EXPECT_EQ(seen[2].second, 0u);
  {
    std::ofstream f(path);
    f << "ok 1\nbroken\n";
  }
  for (bool plan : {false, true}) {  // Check (the plan) refuses what reading does
    try {
      if (plan) {
        MakeWorkload("file", c)->Check();
      } else {
        MakeWorkload("file", c)->ForEachLine([](std::string_view, uint64_t) { return true; });
      }
      ADD_FAILURE();
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(path + ":2:"), std::string::npos) << e.what();
    }
  }
  c["weighted"] = false;  // unweighted: the whole line is the key
  seen.clear();
  MakeWorkload("file", c)->ForEachLine([&](std::string_view k, uint64_t w) {
    seen.emplace_back(std::string(k), w);
    return true;
  });
  EXPECT_EQ(seen[0].first, "ok 1");
  EXPECT_EQ(seen[0].second, 1u);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace chsim::sim
