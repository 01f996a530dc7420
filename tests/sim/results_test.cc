// SPDX-License-Identifier: Apache-2.0
// Result documents: merging shard files gives the rows of a single run,
// merge refuses mismatched or incomplete shard sets, files are written
// atomically, and results/README.md documents every metric and field.
#include "sim/results/results.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "chsim_source_dir.h"
#include "sim/base/errors.h"
#include "sim/base/text_file.h"
#include "sim/cli/spec_docs.h"
#include "sim/results/provenance.h"
#include "sim/run/metrics.h"
#include "sim/run/runner.h"

namespace chsim::sim {
namespace {

namespace fs = std::filesystem;

constexpr char kScenario[] = R"({
  "schema_version": 1, "name": "merge", "seed": 77, "trials": 2, "nodes": {"count": [5, 9]},
  "algorithms": [{"algorithm": "ring", "points_per_node": [20, 80]}, {"algorithm": "rendezvous"}],
  "workload": {"type": "uniform", "keys": 3000}, "events": [{"op": "add", "count": 1}]
})";

std::string WriteRun(const Scenario& s, const Shard& shard, const fs::path& dir) {
  RunOutput out = RunScenario(s, RunOptions{2, shard}, nullptr);
  std::vector<const CaseResult*> results;
  for (const CaseResult& r : out.results) results.push_back(&r);
  RunInfo info;  // a real provenance block: merge checks inputs against results/schema.json
  info.command = {"chsim", "run", "merge.json"};
  info.threads = 2;
  info.seed = 77;
  info.started_utc = info.finished_utc = "2026-01-01T00:00:00Z";
  Json doc = BuildResults(s, out.cases, results, shard, MakeProvenance(info));
  std::string path =
      (dir / ("shard" + std::to_string(shard.index) + "of" + std::to_string(shard.count) + ".json"))
          .string();
  WriteFileAtomically(path, SerializeResults(doc));
  return path;
}

class ResultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("chsim_results_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ResultsTest, MergedShardsEqualOneRun) {
  Scenario s = ParseScenario(kScenario, "merge.json");
  std::string whole = WriteRun(s, Shard{0, 1}, dir_);
  std::vector<std::string> parts;
  for (uint32_t i = 0; i < 3; ++i) parts.push_back(WriteRun(s, Shard{i, 3}, dir_));
  std::swap(parts[0], parts[2]);  // order of the inputs does not matter
  Json merged = MergeResults(parts);
  Json one = Json::parse(ReadFileOrStdin(whole));
  for (const char* table : {"cases", "rows", "summary", "nodes", "transitions"}) {
    EXPECT_EQ(merged[table], one[table]) << table;
  }
  EXPECT_EQ(merged["shard"], one["shard"]);
  EXPECT_EQ(merged["provenance"]["merged_from"].size(), 3u);
}

TEST_F(ResultsTest, MergeRefusesIncompleteOrForeignShards) {
  Scenario s = ParseScenario(kScenario, "merge.json");
  std::string a = WriteRun(s, Shard{0, 2}, dir_);
  EXPECT_THROW(MergeResults({a}), UsageError);     // shard 1 missing
  EXPECT_THROW(MergeResults({a, a}), UsageError);  // shard 0 twice
  Scenario other = ParseScenario(kScenario, "merge.json", 78);
  fs::create_directories(dir_ / "other");
  std::string b = WriteRun(other, Shard{1, 2}, dir_ / "other");
  try {
    MergeResults({a, b});
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("/scenario: differs"), std::string::npos) << e.what();
  }
}

TEST_F(ResultsTest, ListShardsNamesTheHolesAMergeWouldRefuse) {
  Scenario s = ParseScenario(kScenario, "merge.json");
  std::vector<std::string> parts;
  for (uint32_t i = 0; i < 4; ++i) parts.push_back(WriteRun(s, Shard{i, 4}, dir_));
  ShardListing all = ListShards(parts, {});
  EXPECT_TRUE(all.Complete());
  EXPECT_EQ(all.count, 4u);
  EXPECT_TRUE(all.missing.empty());
  EXPECT_EQ(ShardListingJson(all)["rerun"], "");

  // Shard 2 lost: named, and a merge of the same files refuses.
  std::vector<std::string> three = {parts[3], parts[0], parts[1]};
  ShardListing holes = ListShards(three, {});
  EXPECT_FALSE(holes.Complete());
  EXPECT_EQ(holes.missing, std::vector<uint32_t>({2}));
  EXPECT_THROW(MergeResults(three), UsageError);
  Json j = ShardListingJson(holes);
  EXPECT_EQ(j["count"], 4);
  EXPECT_EQ(j["missing"], Json::array({2}));
  EXPECT_EQ(j["rerun"], "2");
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["files"][0]["index"], 3);

  // A given count larger than the files': all higher indices are missing,
  // and the files (of 4 shards) are foreign to a run of 6.
  ShardReference six;
  six.count = 6;
  ShardListing of6 = ListShards(three, six);
  EXPECT_EQ(of6.missing, std::vector<uint32_t>({0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(of6.files[0].status, "foreign");
  EXPECT_NE(of6.files[0].reason.find("/shard/count: found 4; expected 6"), std::string::npos);
  EXPECT_EQ(IndexRanges(of6.missing), "0-5");
  EXPECT_EQ(ListShards({}, six).missing.size(), 6u);

  // A duplicate, a file of another seed, and a truncated file.
  Scenario other = ParseScenario(kScenario, "merge.json", 78);
  fs::create_directories(dir_ / "other");
  std::string foreign = WriteRun(other, Shard{2, 4}, dir_ / "other");
  std::string copy = (dir_ / "copy.json").string();
  fs::copy_file(parts[1], copy);
  std::string cut = (dir_ / "cut.json").string();
  std::string text = ReadFileOrStdin(parts[2]);
  WriteFileAtomically(cut, text.substr(0, text.size() / 2));
  ShardListing mixed = ListShards({parts[0], parts[1], copy, foreign, cut, parts[3]}, {});
  EXPECT_FALSE(mixed.Complete());
  EXPECT_EQ(mixed.missing, std::vector<uint32_t>({2}));
  EXPECT_EQ(mixed.duplicate, std::vector<uint32_t>({1}));
  EXPECT_EQ(mixed.files[2].status, "duplicate");
  EXPECT_EQ(mixed.files[3].status, "foreign");
  EXPECT_EQ(mixed.files[3].index, 2u);
  EXPECT_NE(mixed.files[3].reason.find("/scenario: differs"), std::string::npos);
  EXPECT_EQ(mixed.files[4].status, "invalid");
  EXPECT_FALSE(mixed.files[4].index.has_value());
  Json mj = ShardListingJson(mixed);
  EXPECT_EQ(mj["foreign"], Json::array({foreign}));
  EXPECT_EQ(mj["invalid"], Json::array({cut}));

  // The reference is what most files agree on, not the first file; a given
  // scenario overrides the vote.
  ShardListing majority = ListShards({foreign, parts[0], parts[1], parts[3]}, {});
  EXPECT_EQ(majority.files[0].status, "foreign");
  EXPECT_EQ(majority.missing, std::vector<uint32_t>({2}));
  ShardReference given;
  given.scenario = &other.resolved;
  given.scenario_source = "--scenario merge.json --seed 78";
  ShardListing theirs = ListShards({foreign, parts[0], parts[1], parts[3]}, given);
  EXPECT_EQ(theirs.files[0].status, "ok");
  EXPECT_EQ(theirs.files[1].status, "foreign");
  EXPECT_NE(theirs.files[1].reason.find("--scenario merge.json --seed 78"), std::string::npos);
  EXPECT_EQ(theirs.missing, std::vector<uint32_t>({0, 1, 3}));
  // The resolved scenario read back from a file equals the one in memory.
  given.scenario = &s.resolved;
  EXPECT_TRUE(ListShards(parts, given).Complete());
}

// A metric of a group no catalog of this build has (a newer chsim's, or one
// just added) validates and merges: results/schema.json gives the syntax of a
// metric name, not a list.
TEST_F(ResultsTest, MetricsOfANewGroupValidateAndMerge) {
  Scenario s = ParseScenario(kScenario, "merge.json");
  std::vector<std::string> parts;
  for (uint32_t i = 0; i < 2; ++i) {
    parts.push_back(WriteRun(s, Shard{i, 2}, dir_));
    Json doc = Json::parse(ReadFileOrStdin(parts.back()));
    for (Json& row : doc["rows"]) {
      if (row["metric"] == "sampled.max_over_mean") row["metric"] = "balance.p99_over_mean";
    }
    WriteFileAtomically(parts.back(), SerializeResults(doc));
    EXPECT_NO_THROW(ValidateResultsFile(parts.back()));
  }
  const Json merged = MergeResults(parts);
  size_t renamed = 0;
  for (const Json& row : merged["rows"]) renamed += row["metric"] == "balance.p99_over_mean";
  EXPECT_GT(renamed, 0u);
}

TEST(IndexRangesTest, CollapsesRuns) {
  EXPECT_EQ(IndexRanges({}), "");
  EXPECT_EQ(IndexRanges({7}), "7");
  EXPECT_EQ(IndexRanges({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
}

TEST_F(ResultsTest, AtomicWriteLeavesNoTemporary) {
  std::string path = (dir_ / "out.json").string();
  WriteFileAtomically(path, "{}\n");
  EXPECT_EQ(ReadFileOrStdin(path), "{}\n");
  EXPECT_FALSE(fs::exists(TemporaryPathFor(path)));
}

TEST_F(ResultsTest, AtomicWriteMakesMissingFoldersAndRefusesAFileAsOne) {
  const fs::path nested = dir_ / "no/such/dir/x.json";
  WriteFileAtomically(nested.string(), "{}\n");
  EXPECT_EQ(ReadFileOrStdin(nested.string()), "{}\n");
  WriteFileAtomically((dir_ / "plain").string(), "x");
  try {
    WriteFileAtomically((dir_ / "plain/x.json").string(), "{}");
    ADD_FAILURE() << "wrote under a regular file";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("plain/x.json: cannot make its folder: "),
              std::string::npos)
        << e.what();
  }
}

TEST(ResultsDocsTest, ReadmeDocumentsEveryMetricAndField) {
  std::string readme = ReadFileOrStdin(CHSIM_SOURCE_DIR "/results/README.md");
  auto quoted = [](std::string_view name) {
    std::string q(1, '`');
    q.append(name);
    q.push_back('`');
    return q;
  };
  const std::string begin = "<!-- metric table: chsim list --markdown metrics -->\n";
  const size_t a = readme.find(begin), b = readme.find("<!-- end of metric table -->");
  ASSERT_TRUE(a != std::string::npos && b != std::string::npos) << "markers missing";
  EXPECT_TRUE(readme.substr(a + begin.size(), b - a - begin.size()) == MetricTableMarkdown())
      << "results/README.md's metric table differs from the catalog; run scripts/regenerate";
  Scenario s = ParseScenario(kScenario, "merge.json");
  RunOutput out = RunScenario(s, RunOptions{1, Shard{0, 4}}, nullptr);
  std::vector<const CaseResult*> results;
  for (const CaseResult& r : out.results) results.push_back(&r);
  Json doc = BuildResults(s, out.cases, results, Shard{0, 4}, Json::object());
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    EXPECT_NE(readme.find(quoted(it.key())), std::string::npos) << it.key();
    if (it.value().is_array() && !it.value().empty() && it.value()[0].is_object()) {
      for (auto f = it.value()[0].begin(); f != it.value()[0].end(); ++f) {
        EXPECT_NE(readme.find(quoted(f.key())), std::string::npos) << it.key() << "." << f.key();
      }
    }
  }
}

}  // namespace
}  // namespace chsim::sim
