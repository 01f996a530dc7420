// SPDX-License-Identifier: Apache-2.0
// Documents made from the specs and rows are committed equal to what they
// make: scenarios/schema.json (chsim list --schema) and README.md's algorithm
// table, workload list and limits table (chsim list --markdown TABLE). When a
// spec or row changes, these fail until the files are regenerated with those
// commands.
#include "sim/cli/spec_docs.h"

#include <gtest/gtest.h>

#include <string>

#include "chsim_source_dir.h"
#include "sim/base/text_file.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {
namespace {

TEST(SpecDocs, ScenarioSchemaIsMadeFromTheSpecs) {
  const std::string committed = ReadFileOrStdin(CHSIM_SOURCE_DIR "/scenarios/schema.json");
  EXPECT_TRUE(committed == FormatScenarioSchema())
      << "scenarios/schema.json differs from the specs; regenerate it with\n"
         "  chsim list --schema > scenarios/schema.json";
  EXPECT_EQ(Json::parse(committed), ScenarioSchema());
}

// README.md's copy between `begin` and `end` equals `made`.
void ExpectReadmeSection(const std::string& begin, const std::string& end, const std::string& made,
                         const std::string& command) {
  const std::string readme = ReadFileOrStdin(CHSIM_SOURCE_DIR "/README.md");
  const size_t a = readme.find(begin), b = readme.find(end);
  ASSERT_NE(a, std::string::npos) << "README.md lacks " << begin;
  ASSERT_NE(b, std::string::npos) << "README.md lacks " << end;
  EXPECT_EQ(readme.substr(a + begin.size(), b - a - begin.size()), made)
      << "README.md differs from the specs after " << begin << "paste " << command;
}

TEST(SpecDocs, ReadmeAlgorithmTableIsMadeFromTheSpecs) {
  ExpectReadmeSection("<!-- algorithm table: chsim list --markdown -->\n",
                      "<!-- end of algorithm table -->", AlgorithmTableMarkdown(),
                      "chsim list --markdown");
}

TEST(SpecDocs, ReadmeWorkloadListIsMadeFromTheRows) {
  ExpectReadmeSection("<!-- workload list: chsim list --markdown workloads -->\n",
                      "<!-- end of workload list -->", WorkloadListMarkdown(),
                      "chsim list --markdown workloads");
}

TEST(SpecDocs, ReadmeLimitsTableIsMadeFromTheRows) {
  ExpectReadmeSection("<!-- limits table: chsim list --markdown limits -->\n",
                      "<!-- end of limits table -->", LimitsTableMarkdown(),
                      "chsim list --markdown limits");
}

}  // namespace
}  // namespace chsim::sim
