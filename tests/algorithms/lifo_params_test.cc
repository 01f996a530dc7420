// SPDX-License-Identifier: Apache-2.0
// LifoBuckets with a parameterized range hash (core/src/algorithms/
// lifo_buckets.h): a test-only Fn taking the algorithm's Params keeps the
// spec's declared parameters, honours their values at build and after every
// Add and Remove, and keeps the batched path (its Batch answers LocateBatch).
// The registered range hashes' outputs are held by the reference and golden
// tests (reference_test.cc, range_hash_test.cc).
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <string>
#include <vector>

#include "chsim/algorithms/jump.h"
#include "core/src/algorithms/lifo_buckets.h"
#include "test_util.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kRotatedJumpSpec;

namespace {

// Batch calls of every RotatedJumpFn: proof that LocateBatch took Fn::Batch.
std::atomic<uint64_t> batch_calls{0};

// Jump consistent hash of the key rotated left by the "rotate" parameter.
struct RotatedJumpFn {
  RotatedJumpFn(uint32_t n, const Params& p)
      : n(static_cast<int32_t>(n)), rotate(static_cast<int>(p.Integer("rotate"))) {}
  uint32_t operator()(uint64_t key) const noexcept {
    return static_cast<uint32_t>(JumpConsistentHash(std::rotl(key, rotate), n));
  }
  void Batch(std::span<const uint64_t> keys, std::span<uint32_t> buckets) const noexcept {
    batch_calls.fetch_add(1, std::memory_order_relaxed);
    for (size_t i = 0; i < keys.size(); ++i) buckets[i] = (*this)(keys[i]);
  }
  int32_t n;
  int rotate;
};

constexpr ParamSpec kRotatedParams[] = {
    kKeyHasherParam,
    {.name = "rotate",
     .type = ParamType::kInteger,
     .doc = "bits the key is rotated left by",
     .default_number = 0,
     .min = 0,
     .max = 63},
};

}  // namespace

constinit const AlgorithmSpec kRotatedJumpSpec = LifoSpec({
    .name = "rotated_jump",
    .summary = "jump over the key rotated by a parameter (a test's range hash)",
    .params = kRotatedParams,
    .make = MakeLifo<RotatedJumpFn, kRotatedJumpSpec>,
});

namespace {

// The expected bucket of each key at n buckets, rotated by `rotate`.
std::vector<uint32_t> Expected(const std::vector<uint64_t>& keys, uint32_t n, int rotate) {
  std::vector<uint32_t> out;
  for (uint64_t k : keys) {
    out.push_back(static_cast<uint32_t>(JumpConsistentHash(std::rotl(k, rotate), n)));
  }
  return out;
}

std::vector<uint32_t> Batch(const Algorithm& a, const std::vector<uint64_t>& keys) {
  std::vector<uint32_t> out(keys.size());
  a.LocateBatch(keys, out);
  return out;
}

TEST(LifoParams, SpecKeepsItsDeclaredParameters) {
  ASSERT_EQ(kRotatedJumpSpec.params.size(), 2u);
  EXPECT_NE(kRotatedJumpSpec.FindParam("rotate"), nullptr);
  EXPECT_NE(kRotatedJumpSpec.FindParam("key_hasher"), nullptr);
  // A range hash that declares none gets the key_hasher parameter alone.
  const AlgorithmSpec& jump = GetAlgorithm("jump");
  ASSERT_EQ(jump.params.size(), 1u);
  EXPECT_EQ(jump.params[0].name, "key_hasher");
}

TEST(LifoParams, ParameterIsHonouredAtBuildAndAfterAddAndRemove) {
  const auto keys = testing::RandomHashes(20000, 5);
  for (uint64_t rotate : {0u, 17u}) {
    SCOPED_TRACE(rotate);
    auto a = kRotatedJumpSpec.Make(MakeNumberedNodes(10), Params{{"rotate", rotate}});
    const int r = static_cast<int>(rotate);
    EXPECT_EQ(Batch(*a, keys), Expected(keys, 10, r));
    a->Add(MakeNumberedNodes(1, 10)[0]);  // ids 0..10 are buckets 0..10
    EXPECT_EQ(Batch(*a, keys), Expected(keys, 11, r));
    a->Remove(10);
    EXPECT_EQ(Batch(*a, keys), Expected(keys, 10, r));
    for (size_t i = 0; i < 1000; ++i) EXPECT_EQ(a->Locate(keys[i]), Expected(keys, 10, r)[i]);
  }
  auto plain = kRotatedJumpSpec.Make(MakeNumberedNodes(10), Params{{"rotate", uint64_t{0}}});
  auto rotated = kRotatedJumpSpec.Make(MakeNumberedNodes(10), Params{{"rotate", uint64_t{17}}});
  EXPECT_NE(Batch(*plain, keys), Batch(*rotated, keys)) << "the parameter changes the mapping";
}

TEST(LifoParams, BatchedPathIsKept) {
  auto a = kRotatedJumpSpec.Make(MakeNumberedNodes(10), Params{{"rotate", uint64_t{9}}});
  const auto keys = testing::RandomHashes(4096, 6);
  const uint64_t before = batch_calls.load();
  Batch(*a, keys);
  EXPECT_GT(batch_calls.load(), before) << "LocateBatch did not call RotatedJumpFn::Batch";
}

}  // namespace
}  // namespace chsim::algorithms_internal
