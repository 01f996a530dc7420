// SPDX-License-Identifier: Apache-2.0
// `straw2` (core/src/algorithms/straw2.cc) against crushtool itself: node i
// of weight w is device i of weight w, and Locate(x) is the first copy
// crushtool placed for input x under `choose firstn 0 type osd` over a flat
// straw2 bucket (tests/compat/golden-crush/mappings/multipick.tsv: weights
// 10, 10, 10, 10, 1; the first copy is the bucket's straw2 choice at rank 0,
// no device being out). And what Ceph documents for straw2: changing one
// node's weight moves keys only to or from that node. And Locate against the
// draws made one by one with the public crush::Hash32_3 and crush::Ln and a
// plain division, at node counts around its hashing block and vector widths,
// with equal and mixed weights and after a remove and re-add (CTest runs it
// again with CHSIM_SIMD=avx2 and =portable, tests.cmake).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "chsim/algorithm.h"
#include "chsim/crush.h"
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

// A live node as straw2 sees it: its CRUSH device, 16.16 weight and id.
struct Device {
  int32_t device;
  uint32_t weight;
  uint32_t id;
};

// The id of the highest draw, the lowest device on a tie, computed draw by
// draw as bucket_straw2_choose states it.
uint32_t HighestDraw(const std::vector<Device>& devices, uint32_t x) {
  const crush::LnTables& tables = crush::GeneratedLnTables();
  const Device* best = nullptr;
  int64_t best_draw = 0;
  for (const Device& d : devices) {
    const uint32_t u = crush::Hash32_3(x, static_cast<uint32_t>(d.device), 0) & 0xffff;
    const int64_t draw = (static_cast<int64_t>(crush::Ln(u, tables)) - (int64_t{1} << 48)) /
                         static_cast<int64_t>(d.weight);
    if (best == nullptr || draw > best_draw || (draw == best_draw && d.device < best->device)) {
      best = &d, best_draw = draw;
    }
  }
  return best->id;
}

TEST(Straw2, LocateIsTheHighestDrawAtEverySize) {
  // Weights: all 1, all 3 (equal: blocks are skipped), 1..5 (mixed: none is).
  for (const uint32_t kind : {1u, 3u, 0u}) {
    for (const uint32_t n : {1u, 2u, 7u, 8u, 9u, 16u, 17u, 63u, 64u, 65u, 129u, 300u, 3000u}) {
      std::vector<uint32_t> w(n, kind);
      if (kind == 0) {
        for (uint32_t i = 0; i < n; ++i) w[i] = 1 + i % 5;
      }
      const std::vector<Node> nodes = Weighted(w);
      const auto a = MakeAlgorithm("straw2", nodes);
      std::vector<Device> devices;
      for (uint32_t i = 0; i < n; ++i) {
        devices.push_back({static_cast<int32_t>(i), w[i] * crush::kWeightOne, i});
      }
      if (n > 2) {  // the first node leaves and comes back: its device is last now
        a->Remove(0);
        devices.erase(devices.begin());
        const uint32_t id = a->Add(nodes[0]);
        devices.push_back({0, w[0] * crush::kWeightOne, id});
      }
      for (uint64_t h : testing::RandomHashes(1000, 7 + n)) {
        ASSERT_EQ(a->Locate(h), HighestDraw(devices, static_cast<uint32_t>(h)))
            << "n " << n << ", weights " << (kind == 0 ? "1..5" : std::to_string(kind)) << ", hash "
            << h;
      }
    }
  }
}

}  // namespace
}  // namespace chsim
