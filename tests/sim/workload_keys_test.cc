// Workload::KeysAt (the runner's block of keys) packs exactly the keys KeyAt
// makes, for every generated workload type.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "chsim/sim/workload.h"

namespace chsim::sim {
namespace {

TEST(WorkloadKeysTest, KeysAtEqualsKeyAt) {
  for (auto type : {WorkloadConfig::Type::kUniform, WorkloadConfig::Type::kSequential,
                    WorkloadConfig::Type::kZipf}) {
    WorkloadConfig c;
    c.type = type;
    c.keys = 5000;
    c.requests = 5000;
    c.exponent = 1.1;
    c.start = 17;
    c.step = 3;
    c.shape = "obj:{i}:{alnum:4-40}";
    Workload w(c, 99);
    KeyBlock block;
    std::string key;
    for (uint64_t begin : {uint64_t{0}, uint64_t{1000}, uint64_t{4093}}) {
      w.KeysAt(begin, 907, &block);
      ASSERT_EQ(block.keys.size(), 907u);
      for (size_t j = 0; j < block.keys.size(); ++j) {
        w.KeyAt(begin + j, &key);
        ASSERT_EQ(block.keys[j], key) << static_cast<int>(type) << " unit " << begin + j;
      }
    }
  }
}

}  // namespace
}  // namespace chsim::sim
