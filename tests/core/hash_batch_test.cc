// SPDX-License-Identifier: Apache-2.0
// HashBatch (the simulator's and Ring::LocateBatch's block hashing: SIMD MD5
// for md5/md5_64, inline XXH3, slicing-by-8 CRC-32 for the crc32 family,
// sdbm and djb2 8 bytes a step, branch-free xxHash64 and MurmurHash64A of
// 8-31-byte keys) gives what each hasher gives key by key, for
// every registered hasher and every key length 0..300 (across the one-block
// MD5 limit, PHP memcache's 250-byte cut and every 8-byte tail).
// (The hashers themselves are pinned to their reference libraries in
// hasher_test.cc and hasher_golden_test.cc.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "chsim/hasher.h"
#include "chsim/splitmix.h"

namespace chsim {
namespace {

TEST(HashBatchTest, EqualsTheHasherKeyByKey) {
  std::vector<std::string> storage;
  SplitMix64 rng(7);
  for (size_t len = 0; len <= 300; ++len) {  // one to five MD5 blocks
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
    HashBatch(h, keys, got);
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(got[i], h(keys[i])) << h.name << " key #" << i << " length " << keys[i].size();
    }
  }
}

}  // namespace
}  // namespace chsim
