// SPDX-License-Identifier: Apache-2.0
// Documents made from the specs and rows are committed equal to what they
// make: scenarios/schema.json (chsim list --schema) and README.md's algorithm
// table, workload list and limits table (chsim list --markdown TABLE). When a
// spec or row changes, these fail with one line naming scripts/regenerate,
// which rewrites them all; the documents are not dumped.
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
      << "scenarios/schema.json differs from the specs; run scripts/regenerate";
  EXPECT_TRUE(Json::parse(committed) == ScenarioSchema())
      << "scenarios/schema.json parses to another schema than the specs make; run "
         "scripts/regenerate";
}

// README.md's copy between `begin` and `end` equals `made`.
void ExpectReadmeSection(const std::string& begin, const std::string& end,
                         const std::string& made) {
  const std::string readme = ReadFileOrStdin(CHSIM_SOURCE_DIR "/README.md");
  const size_t a = readme.find(begin), b = readme.find(end);
  ASSERT_NE(a, std::string::npos) << "README.md lacks " << begin;
  ASSERT_NE(b, std::string::npos) << "README.md lacks " << end;
  EXPECT_TRUE(readme.substr(a + begin.size(), b - a - begin.size()) == made)
      << "README.md's section after " << begin.substr(0, begin.size() - 1)
      << " differs from the specs; run scripts/regenerate";
}

TEST(SpecDocs, ReadmeAlgorithmTableIsMadeFromTheSpecs) {
  ExpectReadmeSection("<!-- algorithm table: chsim list --markdown -->\n",
                      "<!-- end of algorithm table -->", AlgorithmTableMarkdown());
}

TEST(SpecDocs, ReadmeWorkloadListIsMadeFromTheRows) {
  ExpectReadmeSection("<!-- workload list: chsim list --markdown workloads -->\n",
                      "<!-- end of workload list -->", WorkloadListMarkdown());
}

TEST(SpecDocs, ReadmeLimitsTableIsMadeFromTheRows) {
  ExpectReadmeSection("<!-- limits table: chsim list --markdown limits -->\n",
                      "<!-- end of limits table -->", LimitsTableMarkdown());
}

}  // namespace
}  // namespace chsim::sim
