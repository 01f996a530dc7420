// HashKeys (the runner's block hashing, SIMD MD5 for md5/md5_64) gives what
// each hasher gives key by key, for every registered hasher and every key
// length across the one-block MD5 limit; and Workload::KeysAt packs exactly
// the keys KeyAt makes, for every generated workload type.
#include "chsim/sim/key_hashing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "chsim/hasher.h"
#include "chsim/sim/rng.h"
#include "chsim/sim/workload.h"

namespace chsim::sim {
namespace {

TEST(KeyHashingTest, EqualsTheHasherKeyByKey) {
  std::vector<std::string> storage;
  SplitMix64 rng(7);
  for (size_t len = 0; len <= 130; ++len) {  // 0..130: one, two and three MD5 blocks
    for (int copy = 0; copy < 3; ++copy) {
      std::string k(len, '\0');
      for (char& c : k) c = static_cast<char>(rng.Next());
      storage.push_back(k);
    }
  }
  for (int i = 0; i < 700; ++i) storage.push_back("user:" + std::to_string(rng.Next() >> 1));
  std::vector<std::string_view> keys(storage.begin(), storage.end());  // > 256: several steps
  for (const Hasher& h : AllHashers()) {
    std::vector<uint64_t> got(keys.size(), 0xdeadbeef);
    HashKeys(h, keys, got);
    const HashFn scalar = FastestScalar(h);  // the throughput timing's latency path
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(got[i], h(keys[i])) << h.name << " key #" << i << " length " << keys[i].size();
      ASSERT_EQ(scalar(keys[i].data(), keys[i].size()), h(keys[i])) << h.name << " #" << i;
    }
  }
}

TEST(KeyHashingTest, KeysAtEqualsKeyAt) {
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
