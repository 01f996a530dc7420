// SPDX-License-Identifier: Apache-2.0
// Every workload type of the registry, made from its rows' examples (or
// defaults) as a scenario would give them: an indexed workload's
// Workload::KeysAt (the runner's block of keys) packs exactly the keys KeyAt
// makes; a streamed one reads its units. Example file names resolve in
// tests/algorithms/data (keys.txt, servers.txt), so a new workload needs no
// edit here.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "chsim_source_dir.h"
#include "sim/workload/workload.h"

namespace chsim::sim {
namespace {

const std::string kAnchor = CHSIM_SOURCE_DIR "/tests/algorithms/data/scenario.json";

std::shared_ptr<const Workload> FromExamples(const WorkloadSpec& spec, const std::string& shape) {
  Json given = {{"type", spec.name}};
  for (const FieldSpec& f : spec.fields) {
    if (!f.example_json.empty()) given[std::string(f.name)] = Json::parse(f.example_json);
    if (f.name == "shape") given["shape"] = shape;  // one that takes every rendering path
  }
  WorkloadFields fields = ReadWorkloadAs(spec, JsonReader(kAnchor, &given, "/workload"));
  for (const SweepAxis& axis : fields.axes) fields.fixed[axis.key] = axis.values.front();
  return spec.make(fields.fixed);
}

TEST(WorkloadKeysTest, KeysAtEqualsKeyAt) {
  for (const WorkloadSpec* spec : AllWorkloads()) {
    SCOPED_TRACE(std::string(spec->name));
    auto w = FromExamples(*spec, "obj:{i}:{alnum:4-40}");
    if (!w->indexed()) {
      uint64_t units = 0;
      w->ForEachLine([&units](std::string_view, uint64_t weight) { return (units += weight) > 0; });
      EXPECT_GT(units, 0u);
      continue;
    }
    KeyBlock block;
    std::string key;
    for (uint64_t begin : {uint64_t{0}, uint64_t{1000}, uint64_t{4093}}) {
      w->KeysAt(99, begin, 907, &block);
      ASSERT_EQ(block.keys.size(), 907u);
      for (size_t j = 0; j < block.keys.size(); ++j) {
        w->KeyAt(99, begin + j, &key);
        ASSERT_EQ(block.keys[j], key) << "unit " << begin + j;
      }
    }
  }
}

// Every row a scenario must give has an example, and every example is
// accepted by its own row.
TEST(WorkloadKeysTest, RequiredRowsHaveExamples) {
  for (const WorkloadSpec* spec : AllWorkloads()) {
    for (const FieldSpec& f : spec->fields) {
      EXPECT_TRUE(!f.required || !f.example_json.empty()) << spec->name << "." << f.name;
    }
    EXPECT_NO_THROW(FromExamples(*spec, "k{i}")) << spec->name;
  }
}

}  // namespace
}  // namespace chsim::sim
