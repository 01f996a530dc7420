// Documents made from the specs are committed equal to what the specs make:
// scenarios/schema.json (chsim list --schema) and README.md's algorithm table
// (chsim list --markdown). When a spec changes, these fail until the files
// are regenerated with those commands.
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
  // And the committed file is what chsim checks scenarios against.
  EXPECT_EQ(Json::parse(committed), ScenarioSchema());
}

TEST(SpecDocs, ReadmeAlgorithmTableIsMadeFromTheSpecs) {
  const std::string readme = ReadFileOrStdin(CHSIM_SOURCE_DIR "/README.md");
  const std::string begin = "<!-- algorithm table: chsim list --markdown -->\n";
  const std::string end = "<!-- end of algorithm table -->";
  const size_t a = readme.find(begin), b = readme.find(end);
  ASSERT_NE(a, std::string::npos) << "README.md lacks " << begin;
  ASSERT_NE(b, std::string::npos) << "README.md lacks " << end;
  EXPECT_EQ(readme.substr(a + begin.size(), b - a - begin.size()), AlgorithmTableMarkdown())
      << "README.md's algorithm table differs from the specs; paste chsim list --markdown";
}

}  // namespace
}  // namespace chsim::sim
