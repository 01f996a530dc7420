// SPDX-License-Identifier: Apache-2.0
// The cache replay end to end through RunScenario: no events cost nothing,
// a cache larger than the working set only misses cold, the rows and tables
// do not depend on threads or shards, the plan refuses what the run would
// (one line, UsageError or RuntimeError), and results/README.md documents the
// cache tables.
#include "sim/run/replay.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "chsim_source_dir.h"
#include "sim/base/errors.h"
#include "sim/base/text_file.h"
#include "sim/results/results.h"
#include "sim/run/deployment.h"
#include "sim/run/plan.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {
namespace {

namespace fs = std::filesystem;

// A scenario: `cache` and `events` spliced in, Zipf requests with sizes.
std::string Text(const std::string& cache, const std::string& events = "[]",
                 const std::string& workload = "") {
  const std::string w = workload.empty()
                            ? R"({"type": "zipf", "keys": 3000, "requests": 40000, "exponent": 0.9,
                             "size": {"distribution": "uniform", "min": 10, "max": 500}})"
                            : workload;
  return R"({"schema_version": 1, "name": "replay", "seed": 9, "nodes": {"count": 12},
  "algorithms": [{"algorithm": "ring", "points_per_node": 40}, {"algorithm": "maglev"},
                 {"algorithm": "jump"}, {"algorithm": "bounded_load"}],
  "on_unsupported": "rebuild", "metrics": ["cache"], "output": {"per_node": "all"},
  "workload": )" +
         w + R"(, "events": )" + events + R"(, "cache": )" + cache + "}";
}

const char kEvents[] = R"([{"op": "remove", "random": 1, "at": {"request": 10000}},
  {"op": "fail", "fraction": 0.25, "at": {"fraction": 0.5}}, {"op": "restore", "at": {"request": 30000}},
  {"op": "add", "count": 1, "at": {"fraction": 0.9}}])";

// metric -> value of each (case, step).
std::map<std::tuple<size_t, uint32_t, std::string>, double> Rows(const RunOutput& out) {
  std::map<std::tuple<size_t, uint32_t, std::string>, double> m;
  for (size_t k = 0; k < out.results.size(); ++k) {
    EXPECT_EQ(out.results[k].status, "ok") << out.results[k].message;
    for (const MetricRow& r : out.results[k].rows) {
      m[{k, r.step, std::string(r.metric.name())}] = r.value;
    }
  }
  return m;
}

TEST(ReplayTest, NoEventsCostNothing) {
  Scenario s = ParseScenario(Text(R"({"policy": ["lru", "s3fifo"], "capacity": {"objects": 40}})"),
                             "r.json");
  RunOutput out = RunScenario(s, RunOptions{2, Shard{}}, nullptr);
  auto rows = Rows(out);
  for (size_t k = 0; k < out.results.size(); ++k) {
    EXPECT_EQ((rows[{k, 0, "cache.extra_misses"}]), 0);
    EXPECT_EQ((rows[{k, 0, "cache.extra_miss_bytes"}]), 0);
    EXPECT_EQ((rows[{k, 0, "cache.recovery_requests"}]), 0);
    EXPECT_EQ((rows[{k, 0, "cache.recovered"}]), 1);
    EXPECT_GT((rows[{k, 0, "cache.misses"}]), 0);
    EXPECT_EQ((rows[{k, 0, "cache.requests"}]), 40000);
  }
  EXPECT_EQ(out.cases.size(), 8u);  // 4 algorithms x 2 policies
  EXPECT_EQ(out.cases[1]->id, "ring(points_per_node=40)/n=12/cache.policy=s3fifo");
}

// Every object fits: each distinct object misses once, on its first read
// (bounded loads may send a key to another node as loads change: it is the
// one algorithm whose keys have no fixed node).
TEST(ReplayTest, LargeCacheOnlyMissesCold) {
  Scenario s = ParseScenario(Text(R"({"capacity": {"objects_fraction": 20}})"), "r.json");
  RunOutput out = RunScenario(s, RunOptions{1, Shard{}}, nullptr);
  const StreamStats st = s.cases[0].workload->Stats(SeedsForTrial(s.seed, 0).keys, true);
  ASSERT_TRUE(st.exact);
  auto rows = Rows(out);
  for (size_t k = 0; k < out.results.size(); ++k) {
    if (out.cases[k]->algorithm.name() == "bounded_load") {
      EXPECT_GT((rows[{k, 0, "cache.misses"}]), static_cast<double>(st.unique_objects));
    } else {
      EXPECT_EQ((rows[{k, 0, "cache.misses"}]), static_cast<double>(st.unique_objects))
          << out.cases[k]->id;
    }
  }
}

std::string Tables(const RunOutput& out, const Scenario& s) {
  std::vector<const CaseResult*> results;
  for (const CaseResult& r : out.results) results.push_back(&r);
  Json doc = BuildResults(s, out.cases, results, Shard{}, Json::object());
  return doc["rows"].dump() + doc["cache_nodes"].dump() + doc["cache_windows"].dump();
}

TEST(ReplayTest, SameOnAnyThreadsAndShards) {
  Scenario s =
      ParseScenario(Text(R"({"capacity": {"bytes": 6000}, "window": 700})", kEvents), "r.json");
  const std::string one = Tables(RunScenario(s, RunOptions{1, Shard{}}, nullptr), s);
  EXPECT_EQ(Tables(RunScenario(s, RunOptions{2, Shard{}}, nullptr), s), one);
  // Shards: each case's rows equal the whole run's.
  std::string joined;
  std::map<size_t, std::string> by_case;
  for (uint32_t i = 0; i < 3; ++i) {
    RunOutput part = RunScenario(s, RunOptions{2, Shard{i, 3}}, nullptr);
    for (size_t k = 0; k < part.cases.size(); ++k) {
      RunOutput single;
      single.cases = {part.cases[k]};
      single.results = {part.results[k]};
      by_case[part.cases[k]->index] = Tables(single, s);
    }
  }
  RunOutput whole = RunScenario(s, RunOptions{1, Shard{}}, nullptr);
  for (size_t k = 0; k < whole.cases.size(); ++k) {
    RunOutput single;
    single.cases = {whole.cases[k]};
    single.results = {whole.results[k]};
    EXPECT_EQ(by_case[k], Tables(single, s)) << whole.cases[k]->id;
  }
}

TEST(ReplayTest, EventsCostMissesAndTablesAddUp) {
  Scenario s =
      ParseScenario(Text(R"({"capacity": {"objects": 60}, "window": 500})", kEvents), "r.json");
  RunOutput out = RunScenario(s, RunOptions{2, Shard{}}, nullptr);
  auto rows = Rows(out);
  for (size_t k = 0; k < out.results.size(); ++k) {
    double extra = 0;
    for (uint32_t step = 1; step <= 4; ++step) extra += rows[{k, step, "cache.extra_misses"}];
    EXPECT_GT(extra, 0) << out.cases[k]->id;
    // Per-node rows add up to the step's rows; windows cover the step.
    const CaseResult& r = out.results[k];
    for (uint32_t step = 0; step <= 4; ++step) {
      double misses = 0, requests = 0, window_requests = 0, window_misses = 0;
      for (const CacheNodeRow& n : r.cache_nodes) {
        if (n.step == step) misses += n.misses, requests += n.requests;
      }
      for (const CacheWindowRow& w : r.cache_windows) {
        if (w.step == step) window_requests += w.requests, window_misses += w.misses;
      }
      EXPECT_EQ(misses, (rows[{k, step, "cache.misses"}]));
      EXPECT_EQ(requests, (rows[{k, step, "cache.requests"}]));
      EXPECT_EQ(window_requests, requests);
      EXPECT_EQ(window_misses, misses);
    }
    EXPECT_EQ((rows[{k, 1, "cache.requests"}]), 10000);  // from request 10000 to 20000
    EXPECT_EQ((rows[{k, 3, "cache.requests"}]), 6000);   // from 30000 to 36000
  }
}

// The plan and the run refuse the same scenario with the same line.
std::string Refusal(const std::string& text) {
  try {
    Scenario s = ParseScenario(text, "bad.json");
    PlanScenario(s);
  } catch (const UsageError& e) {
    return std::string("usage: ") + e.what();
  } catch (const RuntimeError& e) {
    return std::string("runtime: ") + e.what();
  }
  return "";
}

TEST(ReplayTest, RefusesBadInputWithOneLine) {
  EXPECT_EQ(Refusal(Text(R"({"capacity": {"objects": 0}})")),
            "usage: bad.json: /cache/capacity/objects: found 0; accepted: an integer "
            "1..1125899906842624");
  EXPECT_EQ(Refusal(Text(R"({"policy": "arc", "capacity": {"objects": 5}})")),
            "usage: bad.json: /cache/policy: found \"arc\"; accepted: one of lru, fifo, clock, "
            "s3fifo");
  EXPECT_EQ(Refusal(Text(R"({"capacity": {"objects": 5}})",
                         R"([{"op": "remove", "random": 1, "at": {"request": 40000}}])")),
            "usage: bad.json: /events/0/at: found request 40000; accepted: 0..39999 (case "
            "ring(points_per_node=40)/n=12 has a stream of 40000 requests)");
  EXPECT_NE(Refusal(Text(R"({"capacity": {"objects": 5}})", R"([{"op": "remove", "random": 1}])"))
                .find("/events/0: the cache metric replays one request stream"),
            std::string::npos);
  EXPECT_NE(Refusal(Text(R"({"capacity": {"bytes": 5}})", "[]",
                         R"({"type": "zipf", "keys": 9, "requests": 9, "exponent": 1})"))
                .find("/cache/capacity: a capacity in bytes, but the workload's requests have no "
                      "sizes"),
            std::string::npos);
  EXPECT_NE(Refusal(Text(R"({"capacity": {"objects": 5}})", "[]",
                         R"({"type": "trace", "path": "no-such.csv", "format": "twitter"})"))
                .find("usage: bad.json: /workload/path: found 'no-such.csv', which is not a "
                      "readable file"),
            std::string::npos);
}

TEST(ReplayTest, BadTraceIsRuntimeErrorInPlanAndRun) {
  const fs::path dir = fs::path(testing::TempDir()) / ("replay" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "t.csv") << "0,a,1,10,1,get,0\n1,b,1,ten,1,get,0\n";
  const std::string text = Text(R"({"capacity": {"objects": 5}})", "[]",
                                R"({"type": "trace", "path": "t.csv", "format": "twitter"})");
  const std::string path = (dir / "s.json").string();
  const std::string want = "runtime: " + (dir / "t.csv").string() +
                           ":2: found key_size '1', value_size 'ten'; accepted: sizes in bytes "
                           "whose sum is below 2^32";
  try {
    PlanScenario(ParseScenario(text, path));
    FAIL() << "the plan accepted a bad trace";
  } catch (const RuntimeError& e) {
    EXPECT_EQ(std::string("runtime: ") + e.what(), want);
  }
  try {
    Scenario s = ParseScenario(text, path);
    RunScenario(s, RunOptions{1, Shard{}, false, false}, nullptr);
    FAIL() << "the run accepted a bad trace";
  } catch (const RuntimeError& e) {
    EXPECT_EQ(std::string("runtime: ") + e.what(), want);
  }
}

TEST(ReplayTest, ReadmeDocumentsCacheTables) {
  Scenario s = ParseScenario(Text(R"({"capacity": {"objects": 30}})", kEvents), "r.json");
  RunOutput out = RunScenario(s, RunOptions{2, Shard{}}, nullptr);
  std::vector<const CaseResult*> results;
  for (const CaseResult& r : out.results) results.push_back(&r);
  Json doc = BuildResults(s, out.cases, results, Shard{}, Json::object());
  const std::string readme = ReadFileOrStdin(CHSIM_SOURCE_DIR "/results/README.md");
  for (const char* table : {"cache_nodes", "cache_windows"}) {
    ASSERT_FALSE(doc[table].empty()) << table;
    EXPECT_NE(readme.find(std::string("`") + table + "`"), std::string::npos) << table;
    for (auto f = doc[table][0].begin(); f != doc[table][0].end(); ++f) {
      EXPECT_NE(readme.find("`" + f.key() + "`"), std::string::npos) << table << "." << f.key();
    }
  }
}

}  // namespace
}  // namespace chsim::sim
