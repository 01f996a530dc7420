// SPDX-License-Identifier: Apache-2.0
// Scenario parsing: sweep expansion order and stable ids/seeds, defaults,
// and bad input as one-line errors naming the file, the JSON pointer, what
// was found and what is accepted. Also: every scenario of the default suite
// loads.
#include "sim/scenario/scenario.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "chsim_source_dir.h"
#include "sim/base/errors.h"
#include "sim/base/json_reader.h"
#include "sim/run/plan.h"

namespace chsim::sim {
namespace {

constexpr char kBase[] = R"({
  "schema_version": 1, "name": "t", "seed": 9, "trials": 2,
  "nodes": {"count": [10, 20]},
  "algorithms": [{"algorithm": "ring", "hasher": ["md5", "xxh3"], "points_per_node": [40, 160]},
                 {"algorithm": "jump"}],
  "workload": {"type": "zipf", "keys": 100, "requests": 1000, "exponent": [0.9, 1.1]}
})";

TEST(ScenarioTest, ExpandsInDocumentedOrder) {
  Scenario s = ParseScenario(kBase, "t.json");
  // ring: 2 counts x 2 hashers x 2 points x 2 exponents; jump: 2 x 2.
  ASSERT_EQ(s.cases.size(), 20u);
  EXPECT_EQ(s.cases[0].id, "ring(hasher=md5,points_per_node=40)/n=10/workload.exponent=0.9");
  EXPECT_EQ(s.cases[1].id, "ring(hasher=md5,points_per_node=40)/n=10/workload.exponent=1.1");
  EXPECT_EQ(s.cases[2].id, "ring(hasher=md5,points_per_node=160)/n=10/workload.exponent=0.9");
  EXPECT_EQ(s.cases[4].id, "ring(hasher=xxh3,points_per_node=40)/n=10/workload.exponent=0.9");
  EXPECT_EQ(s.cases[8].id, "ring(hasher=md5,points_per_node=40)/n=20/workload.exponent=0.9");
  EXPECT_EQ(s.cases[16].id, "jump/n=10/workload.exponent=0.9");
  for (size_t i = 0; i < s.cases.size(); ++i) EXPECT_EQ(s.cases[i].index, i);
  EXPECT_EQ(s.cases[0].algorithm.key_hasher->name, "md5");  // ring: keys hashed like points
  EXPECT_EQ(s.cases[16].algorithm.key_hasher->name, "xxh3");
  EXPECT_EQ(s.cases[3].axes["workload.exponent"], 1.1);
  EXPECT_EQ(s.cases[3].algorithm.params.Integer("points_per_node"), 160u);
  EXPECT_EQ(s.cases[3].algorithm.shown,
            Json({{"hasher", "md5"}, {"points_per_node", 160}, {"key_hasher", "md5"}}));
}

TEST(ScenarioTest, CaseSeedsDependOnIdNotPosition) {
  Scenario a = ParseScenario(kBase, "t.json");
  std::string more = kBase;
  const std::string jump = R"({"algorithm": "jump"})";
  more.replace(more.find(jump), jump.size(), R"({"algorithm": "modulo"}, {"algorithm": "jump"})");
  Scenario b = ParseScenario(more, "t.json");
  EXPECT_EQ(a.cases[16].id, b.cases[20].id);
  EXPECT_EQ(a.cases[16].seed, b.cases[20].seed);
  Scenario c = ParseScenario(kBase, "t.json", 10);
  EXPECT_NE(a.cases[0].seed, c.cases[0].seed);
  EXPECT_EQ(c.resolved["seed"], "10");
}

// A reader of an absent member or element views null (Has() false, reads
// fail naming the pointer) rather than reading past the container.
TEST(ScenarioTest, AbsentMembersReadAsNull) {
  const Json doc = Json::parse(R"({"a": [1], "b": 2})");
  const std::string file = "f.json";  // the reader keeps a pointer to it
  const JsonReader root(file, &doc, "");
  for (const JsonReader& r : {root.At("missing"), root.At("a").At(1), root.At("b").At("c"),
                              root.At("missing").At("deeper")}) {
    EXPECT_TRUE(r.value().is_null()) << r.where();
    EXPECT_FALSE(r.Has("x")) << r.where();
  }
  EXPECT_EQ(root.At("a").At(0).value(), 1);
  try {
    root.At("missing").Uint(0, 9);
    FAIL() << "a null read as an integer";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("f.json: /missing: found null"), std::string::npos)
        << e.what();
  }
}

TEST(ScenarioTest, ResolvedScenarioHasDefaults) {
  Scenario s = ParseScenario(R"({"schema_version": 1, "name": "d", "nodes": {"count": 5},
                                 "algorithms": [{"algorithm": "maglev", "table_size": "auto"}]})",
                             "d.json");
  EXPECT_EQ(s.resolved["seed"], "1");
  EXPECT_EQ(s.resolved["workload"]["type"], "uniform");
  EXPECT_EQ(s.resolved["on_unsupported"], "error");
  EXPECT_EQ(s.resolved["metrics"], Json({"balance", "remap"}));
  EXPECT_EQ(s.cases[0].algorithm.params.Integer("table_size"), 65537u);
  EXPECT_EQ(GetAlgorithm("maglev").FindParam("table_size")->auto_value(1000), 100003u);
}

// Parses and plans `text` and returns the error message (fails the test if none).
std::string ErrorOf(const std::string& text) {
  try {
    PlanScenario(ParseScenario(text, "bad.json"));
  } catch (const UsageError& e) {
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.rfind("bad.json: ", 0), 0u) << m;
    return m;
  }
  ADD_FAILURE() << "no error for " << text;
  return "";
}

std::string With(const std::string& from, const std::string& to) {
  std::string s = kBase;
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(ScenarioTest, BadInputsNamePointerFoundAndAccepted) {
  std::string m = ErrorOf(With("\"trials\": 2", "\"trails\": 2"));
  EXPECT_NE(m.find("/trails"), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean 'trials'"), std::string::npos) << m;

  m = ErrorOf(With("\"count\": [10, 20]", "\"count\": [10, -20]"));
  EXPECT_NE(m.find("/nodes/count/1: found -20; accepted: an integer 1..1000000"), std::string::npos)
      << m;

  m = ErrorOf(With("\"hasher\": [\"md5\", \"xxh3\"]", "\"hasher\": [\"md5\", \"xxh4\"]"));
  EXPECT_NE(m.find("/algorithms/0/hasher/1: found \"xxh4\"; accepted: one of md5"),
            std::string::npos)
      << m;

  m = ErrorOf(With("\"algorithm\": \"jump\"", "\"algorithm\": \"jumpy\""));
  EXPECT_NE(m.find("/algorithms/1/algorithm: found \"jumpy\""), std::string::npos) << m;

  m = ErrorOf(With("\"algorithm\": \"jump\"", "\"algorithm\": \"jump\", \"probes\": 3"));
  EXPECT_NE(m.find("/algorithms/1/probes: unknown key"), std::string::npos) << m;

  m = ErrorOf(With("\"seed\": 9", "\"seed\": \"nine\""));
  EXPECT_NE(m.find("/seed: found \"nine\""), std::string::npos) << m;

  m = ErrorOf(With("\"exponent\": [0.9, 1.1]", "\"exponent\": 0"));
  EXPECT_NE(m.find("/workload/exponent: found 0; accepted: a number > 0"), std::string::npos) << m;

  m = ErrorOf(With("\"schema_version\": 1", "\"schema_version\": 2"));
  EXPECT_NE(m.find("/schema_version: found 2"), std::string::npos) << m;

  m = ErrorOf("{\"schema_version\": 1,");
  EXPECT_NE(m.find("not valid JSON"), std::string::npos) << m;

  m = ErrorOf(R"({"schema_version": 1, "name": "x", "nodes": {"file": "no/such/servers.txt"},
                  "algorithms": [{"algorithm": "jump"}]})");
  EXPECT_NE(m.find("/nodes/file"), std::string::npos) << m;

  m = ErrorOf(R"({"schema_version": 1, "name": "x", "nodes": {"count": 3},
                  "algorithms": [{"algorithm": "ring"}],
                  "workload": {"type": "file", "path": "missing-keys.txt"}})");
  EXPECT_NE(m.find("/workload/path"), std::string::npos) << m;

  m = ErrorOf(R"({"schema_version": 1, "name": "x", "nodes": {"count": 3},
                  "algorithms": [{"algorithm": "maglev", "table_size": 65536}]})");
  EXPECT_NE(m.find("/algorithms/0/table_size: found 65536; accepted: a prime"), std::string::npos)
      << m;
}

TEST(ScenarioTest, CapabilitiesAreAskedBeforeRunning) {
  // jump cannot drop a middle node: refused by the plan unless a fallback is chosen.
  std::string text = R"({"schema_version": 1, "name": "x", "nodes": {"count": 5},
                         "algorithms": [{"algorithm": "jump"}],
                         "events": [{"op": "remove", "nodes": ["10.0.0.2:11211"]}]})";
  std::string m = ErrorOf(text);
  EXPECT_NE(m.find("/events/0: jump cannot remove 10.0.0.2:11211 (jump: can only remove the most "
                   "recently added live node"),
            std::string::npos)
      << m;
  std::string rebuild = text;
  rebuild.insert(rebuild.size() - 1, ", \"on_unsupported\": \"rebuild\"");
  EXPECT_NO_THROW(PlanScenario(ParseScenario(rebuild, "x.json")));
  // LIFO removal is fine.
  std::string lifo = text;
  lifo.replace(lifo.find("\"nodes\": [\"10.0.0.2:11211\"]"), 27, "\"last\": 1");
  EXPECT_NO_THROW(PlanScenario(ParseScenario(lifo, "x.json")));
  // Weights on an unweighted algorithm.
  m = ErrorOf(R"({"schema_version": 1, "name": "x", "nodes": {"count": 2, "weights": [1, 2]},
                  "algorithms": [{"algorithm": "jump"}]})");
  EXPECT_NE(m.find("jump does not support weights"), std::string::npos) << m;
}

TEST(ScenarioTest, DefaultSuiteLoads) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(CHSIM_SOURCE_DIR "/scenarios")) {
    if (entry.path().extension() != ".json" || entry.path().filename() == "schema.json") continue;
    Scenario s = LoadScenario(entry.path().string());
    EXPECT_FALSE(s.cases.empty()) << entry.path();
    EXPECT_FALSE(s.description.empty()) << entry.path();
    ++files;
  }
  EXPECT_GE(files, 6u);
}

}  // namespace
}  // namespace chsim::sim
