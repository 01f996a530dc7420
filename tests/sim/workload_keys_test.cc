// Workload::KeysAt (the runner's block of keys) packs exactly the keys KeyAt
// makes, for every indexed workload type of the registry.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/workload/workload.h"

namespace chsim::sim {
namespace {

TEST(WorkloadKeysTest, KeysAtEqualsKeyAt) {
  for (const WorkloadSpec* spec : AllWorkloads()) {
    if (spec->name == "file") continue;  // not indexed
    Json fields = {{"keys", 5000}, {"requests", 5000}, {"exponent", 1.1},
                   {"start", 17},  {"step", 3},        {"shape", "obj:{i}:{alnum:4-40}"}};
    auto w = spec->make(fields);
    ASSERT_TRUE(w->indexed()) << spec->name;
    KeyBlock block;
    std::string key;
    for (uint64_t begin : {uint64_t{0}, uint64_t{1000}, uint64_t{4093}}) {
      w->KeysAt(99, begin, 907, &block);
      ASSERT_EQ(block.keys.size(), 907u);
      for (size_t j = 0; j < block.keys.size(); ++j) {
        w->KeyAt(99, begin + j, &key);
        ASSERT_EQ(block.keys[j], key) << spec->name << " unit " << begin + j;
      }
    }
  }
}

}  // namespace
}  // namespace chsim::sim
