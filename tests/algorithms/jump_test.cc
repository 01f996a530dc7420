// SPDX-License-Identifier: Apache-2.0
// Jump: equal to Guava's Hashing.consistentHash(long, int) on the golden file
// generated from Debian's libguava-java (tests/compat owns it), plus the
// paper's properties and the LIFO-only removal contract.
#include "chsim/algorithms/jump.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "chsim/algorithm.h"
#include "chsim/node.h"
#include "chsim_source_dir.h"
#include "test_util.h"

namespace chsim {
namespace {

TEST(Jump, EqualsGuavaOnTheGoldenFile) {
  const std::string path = CHSIM_SOURCE_DIR "/tests/compat/golden/jump.tsv";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << " missing: tests/compat/generate writes it from Guava";
  std::string line;
  size_t rows = 0, line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    unsigned long long input;
    long long buckets, expected;
    char tab1, tab2;
    fields >> input >> std::noskipws >> tab1 >> std::skipws >> buckets >> std::noskipws >> tab2 >>
        std::skipws >> expected;
    ASSERT_TRUE(fields && tab1 == '\t' && tab2 == '\t') << path << ":" << line_no << ": " << line;
    ASSERT_EQ(JumpConsistentHash(input, static_cast<int32_t>(buckets)), expected)
        << path << ":" << line_no << ": input " << input << ", " << buckets << " buckets";
    ++rows;
  }
  EXPECT_GE(rows, 1000u) << "golden file too small to prove anything";
}

// The paper's C++ (double ratio computed separately, no int overflow): equal
// to Guava except for rare floating-point edge cases.
int32_t PaperJump(uint64_t key, int32_t num_buckets) {
  int64_t b = -1, j = 0;
  while (j < num_buckets) {
    b = j;
    key = key * 2862933555777941757ULL + 1;
    j = static_cast<int64_t>(
        (b + 1) * (static_cast<double>(1LL << 31) / static_cast<double>((key >> 33) + 1)));
  }
  return static_cast<int32_t>(b);
}

TEST(Jump, AgreesWithThePaperAlmostEverywhereAndIsMonotone) {
  testing::SplitMix64 rng(7);
  size_t differ = 0;
  for (int i = 0; i < 100000; ++i) {
    const uint64_t k = rng.Next();
    const int32_t n = 1 + static_cast<int32_t>(rng.Below(5000));
    const int32_t b = JumpConsistentHash(k, n);
    ASSERT_GE(b, 0);
    ASSERT_LT(b, n);
    differ += b != PaperJump(k, n);
    // Growing n to n + 1 moves a key only to the new bucket n.
    const int32_t b1 = JumpConsistentHash(k, n + 1);
    ASSERT_TRUE(b1 == b || b1 == n) << k << " " << n;
  }
  EXPECT_LT(differ, 10u);
  EXPECT_EQ(JumpConsistentHash(12345, 1), 0);
}

TEST(Jump, RemovesOnlyTheLastNode) {
  auto a = MakeAlgorithm("jump", MakeNumberedNodes(5));
  EXPECT_FALSE(a->capabilities().arbitrary_removal);
  EXPECT_THROW(a->Remove(2), Unsupported);
  EXPECT_EQ(a->num_nodes(), 5u) << "a refused removal changes nothing";
  a->Remove(4);
  EXPECT_THROW(a->Remove(4), std::invalid_argument);
  EXPECT_EQ(a->Add(MakeNumberedNodes(1, 9)[0]), 5u);
  EXPECT_THROW(a->Remove(3), Unsupported);
  a->Remove(5);
  a->Remove(3);
  EXPECT_EQ(a->live_ids(), (std::vector<uint32_t>{0, 1, 2}));
  // Buckets are live ids in order: jump(k, 3) -> ids 0, 1, 2.
  for (uint64_t k = 0; k < 1000; ++k) {
    ASSERT_EQ(a->Locate(k), static_cast<uint32_t>(JumpConsistentHash(k, 3)));
  }
}

}  // namespace
}  // namespace chsim
