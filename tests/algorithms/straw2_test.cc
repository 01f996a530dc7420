// SPDX-License-Identifier: Apache-2.0
// `straw2` (core/src/algorithms/straw2.cc) against crushtool itself: node i
// of weight w is device i of weight w, and Locate(x) is the first copy
// crushtool placed for input x under `choose firstn 0 type osd` over a flat
// straw2 bucket (tests/compat/golden-crush/mappings/multipick.tsv: weights
// 10, 10, 10, 10, 1; the first copy is the bucket's straw2 choice at rank 0,
// no device being out). And what Ceph documents for straw2: changing one
// node's weight moves keys only to or from that node.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "chsim/algorithm.h"
#include "chsim_source_dir.h"
#include "test_util.h"

namespace chsim {
namespace {

std::vector<Node> Weighted(const std::vector<uint32_t>& weights) {
  std::vector<Node> nodes = MakeNumberedNodes(static_cast<uint32_t>(weights.size()));
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i].weight = weights[i];
  return nodes;
}

TEST(Straw2, FirstCopyOfCrushtoolOverAFlatBucket) {
  const auto a = MakeAlgorithm("straw2", Weighted({10, 10, 10, 10, 1}));
  std::ifstream in(CHSIM_SOURCE_DIR "/tests/compat/golden-crush/mappings/multipick.tsv");
  ASSERT_TRUE(in) << "missing tests/compat/golden-crush/mappings/multipick.tsv";
  std::string line;
  size_t rows = 0;
  while (std::getline(in, line)) {
    const size_t tab = line.find('\t');
    const uint64_t x = std::stoull(line.substr(0, tab));
    const uint32_t first = static_cast<uint32_t>(std::stoul(line.substr(tab + 1)));
    ASSERT_EQ(a->Locate(x), first) << "x " << x;
    ++rows;
  }
  EXPECT_EQ(rows, 10000u);
}

TEST(Straw2, WeightChangeMovesKeysOnlyToOrFromThatNode) {
  std::vector<uint32_t> w = {3, 1, 4, 1, 5, 9, 2, 6};
  const auto before = MakeAlgorithm("straw2", Weighted(w));
  for (uint32_t changed : {2u, 5u}) {
    for (uint32_t nw : {1u, 7u, 20u}) {
      std::vector<uint32_t> w2 = w;
      w2[changed] = nw;
      const auto after = MakeAlgorithm("straw2", Weighted(w2));
      size_t moved = 0;
      for (uint64_t h : testing::RandomHashes(50000, 15 + nw)) {
        const uint32_t a = before->Locate(h), b = after->Locate(h);
        if (a == b) continue;
        ++moved;
        ASSERT_TRUE(a == changed || b == changed) << a << " -> " << b;
        ASSERT_EQ(b == changed, nw > w[changed]);  // growing only gains, shrinking only loses
      }
      EXPECT_GT(moved, 0u);
    }
  }
}

}  // namespace
}  // namespace chsim
