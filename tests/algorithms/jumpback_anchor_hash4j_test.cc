// SPDX-License-Identifier: Apache-2.0
// jumpback_anchor bucket for bucket with hash4j's
// ConsistentHashing.jumpBackAnchorHash(splitMix64_V1()): the golden file
// tests/compat/golden-hash4j/jumpback_anchor.txt, written by hash4j itself
// (tests/compat/generate-hash4j drives it through peers/Hash4jDriver.java;
// the format is the driver's comment), replayed through the Algorithm
// interface. hash4j's bucket ids are chsim's buckets: the replay maps each
// bucket hash4j returns on an add to the node id chsim's Add returns, so an
// add that put the node on another bucket than hash4j's shows as lookups on
// the wrong node. After the build and after every step, the 1000 keys'
// buckets (Locate and LocateBatch) must give the golden digest and first
// three buckets. CHSIM_HASH4J_GOLDEN names another file of the same format
// (the live check, tests/compat/tests.cmake). About a second.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/node.h"
#include "chsim/splitmix.h"
#include "chsim_source_dir.h"

namespace chsim {
namespace {

constexpr size_t kKeys = 1000;

std::string GoldenPath() {
  const char* env = std::getenv("CHSIM_HASH4J_GOLDEN");
  return env != nullptr && *env != '\0'
             ? std::string(env)
             : std::string(CHSIM_SOURCE_DIR "/tests/compat/golden-hash4j/jumpback_anchor.txt");
}

TEST(Hash4jGolden, JumpBackAnchorEqualsHash4jAfterEveryStep) {
  const std::string path = GoldenPath();
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << ": cannot open";
  std::unique_ptr<Algorithm> a;
  std::vector<uint64_t> keys(kKeys);
  std::vector<uint32_t> id_of_bucket, bucket_of_id, ids(kKeys);
  uint32_t next_label = 0;
  size_t histories = 0, checks = 0, adds = 0, removes = 0, max_buckets = 0;
  double deepest = 0;  // largest removed fraction of the buckets ever held
  uint64_t seed = 0;
  std::string line;
  for (size_t lineno = 1; std::getline(in, line); ++lineno) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    std::string op;
    f >> op;
    const std::string where =
        path + ":" + std::to_string(lineno) + " (seed " + std::to_string(seed) + "): " + line;
    if (op == "H") {
      uint32_t n0 = 0;
      ASSERT_TRUE(f >> seed >> n0) << where;
      a = MakeAlgorithm("jumpback_anchor", MakeNumberedNodes(n0));
      next_label = n0;
      id_of_bucket.assign(n0, 0);
      bucket_of_id.assign(n0, 0);
      for (uint32_t b = 0; b < n0; ++b) id_of_bucket[b] = bucket_of_id[b] = b;
      SplitMix64 key_stream(seed);  // hash4j's splitMix64_V1 seeded alike
      for (uint64_t& k : keys) k = key_stream.Next();
      ++histories;
      continue;
    }
    ASSERT_NE(a, nullptr) << where << ": a step before any history";
    uint32_t arg = 0, first[3];
    std::string digest_hex;
    ASSERT_TRUE(f >> arg >> digest_hex >> first[0] >> first[1] >> first[2]) << where;
    if (op == "A") {
      const uint32_t id = a->Add(MakeNumberedNodes(1, next_label++)[0]);
      if (arg >= id_of_bucket.size()) id_of_bucket.resize(size_t{arg} + 1);
      id_of_bucket[arg] = id;
      if (id >= bucket_of_id.size()) bucket_of_id.resize(size_t{id} + 1);
      bucket_of_id[id] = arg;
      ++adds;
    } else if (op == "R") {
      ASSERT_LT(arg, id_of_bucket.size()) << where;
      a->Remove(id_of_bucket[arg]);
      ++removes;
    } else {
      ASSERT_EQ(op, "B") << where;
      ASSERT_EQ(arg, a->num_nodes()) << where;
    }
    max_buckets = std::max(max_buckets, id_of_bucket.size());
    deepest = std::max(deepest, 1.0 - static_cast<double>(a->num_nodes()) /
                                          static_cast<double>(id_of_bucket.size()));
    a->LocateBatch(keys, ids);
    uint64_t digest = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < kKeys; ++i) {
      ASSERT_EQ(a->Locate(keys[i]), ids[i]) << where << ": key " << i;
      const uint32_t bucket = bucket_of_id[ids[i]];
      if (i < 3) {
        ASSERT_EQ(bucket, first[i]) << where << ": key " << i << "'s bucket";
      }
      digest = (digest ^ bucket) * 0x100000001b3ULL;
    }
    ASSERT_EQ(digest, std::stoull(digest_hex, nullptr, 16))
        << where << ": the 1000 keys' buckets differ from hash4j's";
    ++checks;
  }
  std::printf(
      "%s: %zu histories, %zu adds, %zu removes, %zu checks of %zu keys; up to %zu buckets, up "
      "to %.0f%% of them removed\n",
      path.c_str(), histories, adds, removes, checks, kKeys, max_buckets, 100 * deepest);
  EXPECT_GE(histories, 200u);
  EXPECT_GT(removes, 1000u);
  EXPECT_GT(adds, 1000u);
  EXPECT_GE(checks, histories * 101);
}

}  // namespace
}  // namespace chsim
