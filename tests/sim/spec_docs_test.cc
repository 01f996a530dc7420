// SPDX-License-Identifier: Apache-2.0
// Documents made from the specs and rows are committed equal to what they
// make: scenarios/schema.json (chsim list --schema), README.md's algorithm
// table and limits table and docs/workloads.md's workload list (chsim list
// --markdown TABLE). When a
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

// The copy in `file` (from the checkout's root) between `begin` and `end`
// equals `made`.
void ExpectSection(const std::string& file, const std::string& begin, const std::string& end,
                   const std::string& made) {
  const std::string text = ReadFileOrStdin(CHSIM_SOURCE_DIR "/" + file);
  const size_t a = text.find(begin), b = text.find(end);
  ASSERT_NE(a, std::string::npos) << file << " lacks " << begin;
  ASSERT_NE(b, std::string::npos) << file << " lacks " << end;
  EXPECT_TRUE(text.substr(a + begin.size(), b - a - begin.size()) == made)
      << file << "'s section after " << begin.substr(0, begin.size() - 1)
      << " differs from the specs; run scripts/regenerate";
}

void ExpectReadmeSection(const std::string& begin, const std::string& end,
                         const std::string& made) {
  ExpectSection("README.md", begin, end, made);
}

TEST(SpecDocs, ReadmeAlgorithmTableIsMadeFromTheSpecs) {
  ExpectReadmeSection("<!-- algorithm table: chsim list --markdown -->\n",
                      "<!-- end of algorithm table -->", AlgorithmTableMarkdown());
}

TEST(SpecDocs, WorkloadListIsMadeFromTheRows) {
  ExpectSection("docs/workloads.md", "<!-- workload list: chsim list --markdown workloads -->\n",
                "<!-- end of workload list -->", WorkloadListMarkdown());
}

TEST(SpecDocs, ReadmeLimitsTableIsMadeFromTheRows) {
  ExpectReadmeSection("<!-- limits table: chsim list --markdown limits -->\n",
                      "<!-- end of limits table -->", LimitsTableMarkdown());
}

}  // namespace
}  // namespace chsim::sim
