// SPDX-License-Identifier: Apache-2.0
// Maglev: the paper's worked example (Eisenbud et al. NSDI 2016, section 3.4,
// Table 1) and the measured remapping on removing one node.
#include "chsim/algorithms/maglev.h"

#include <gtest/gtest.h>

#include "chsim/algorithm.h"
#include "chsim/node.h"
#include "test_util.h"

namespace chsim {
namespace {

// Table 1: M = 7, permutations B0: 3 0 4 1 5 2 6 (offset 3, skip 4),
// B1: 0 2 4 6 1 3 5 (offset 0, skip 2), B2: 3 4 5 6 0 1 2 (offset 3, skip 1).
// Pseudocode 1 fills the lookup table as B1 B0 B1 B0 B2 B2 B0. With B1
// removed, the same procedure over B0, B2 gives B0 B0 B0 B0 B2 B2 B2: entry 6
// moves from B0 to B2 although B0 survives, the paper's point that Maglev
// trades a little disruption for balance.
TEST(Maglev, PaperWorkedExample) {
  const MaglevBackend b0{3, 4, 1}, b1{0, 2, 1}, b2{3, 1, 1};
  const std::vector<MaglevBackend> all{b0, b1, b2};
  EXPECT_EQ(MaglevPopulate(all, 7), (std::vector<uint32_t>{1, 0, 1, 0, 2, 2, 0}));
  const std::vector<MaglevBackend> without_b1{b0, b2};
  // Indexes into {B0, B2}: 0 = B0, 1 = B2.
  EXPECT_EQ(MaglevPopulate(without_b1, 7), (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 1}));
}

TEST(Maglev, PermutationsAreValidAndTablesFull) {
  for (uint64_t m : {7ULL, 65537ULL}) {
    for (uint64_t seed = 0; seed < 50; ++seed) {
      MaglevBackend b = MaglevBackendForSeed(seed * 0x1234567ULL, m);
      EXPECT_LT(b.offset, m);
      EXPECT_GE(b.skip, 1u);
      EXPECT_LT(b.skip, m);
    }
  }
  EXPECT_THROW(MaglevPopulate(std::vector<MaglevBackend>{{0, 1, 1}}, 8), std::invalid_argument);
  EXPECT_THROW(MaglevPopulate(std::vector<MaglevBackend>{{0, 7, 1}}, 7), std::invalid_argument);
  EXPECT_THROW(MaglevPopulate(std::vector<MaglevBackend>{{7, 1, 1}}, 7), std::invalid_argument);
  EXPECT_THROW(MaglevPopulate(std::vector<MaglevBackend>{{0, 1, 0}}, 7), std::invalid_argument);
  EXPECT_THROW(MaglevPopulate({}, 7), std::invalid_argument);
  EXPECT_TRUE(IsPrime(65537));
  EXPECT_FALSE(IsPrime(65535));
  EXPECT_FALSE(IsPrime(1));
}

// Removing one of n nodes must move at least that node's entries (1/n of the
// table); Maglev's rebuild also reshuffles some entries between survivors.
// Measured exactly over the table (every entry, no sampling):
//   n = 100,  M = 65537:  moved 1.585% against a minimum of 0.999% (1.59x),
//   n = 1000, M = 655373: moved 0.428% against a minimum of 0.100% (4.29x).
// The excess grows with n: fewer rounds per backend, so one backend's
// departure shifts more of the later claims. The test asserts the total is
// clearly above the minimum (> 1.2x) and below 6x, and prints the figures.
double MovedFraction(uint32_t n, uint64_t m, uint32_t victim, double* minimum) {
  Params p{{"table_size", uint64_t{m}}};
  auto a = MakeAlgorithm("maglev", MakeNumberedNodes(n), p);
  // Entry s receives the hash values congruent to s mod M: probing h = s
  // visits each entry once.
  std::vector<uint32_t> before(m), after(m);
  for (uint64_t s = 0; s < m; ++s) before[s] = a->Locate(s);
  a->Remove(victim);
  for (uint64_t s = 0; s < m; ++s) after[s] = a->Locate(s);
  uint64_t moved = 0, owned = 0;
  for (uint64_t s = 0; s < m; ++s) {
    if (before[s] == victim) ++owned;
    if (before[s] != after[s]) ++moved;
  }
  *minimum = static_cast<double>(owned) / static_cast<double>(m);
  return static_cast<double>(moved) / static_cast<double>(m);
}

TEST(Maglev, RemovalRemapExceedsTheMinimum) {
  for (auto [n, m] : {std::pair<uint32_t, uint64_t>{100, 65537}, {1000, 655373}}) {
    double minimum = 0;
    const double moved = MovedFraction(n, m, n / 2, &minimum);
    std::printf(
        "maglev remove 1 of %u (M=%llu): moved %.4f%% of keys, minimum %.4f%%, ratio %.2f\n", n,
        static_cast<unsigned long long>(m), 100 * moved, 100 * minimum, moved / minimum);
    ::testing::Test::RecordProperty("moved_" + std::to_string(n), std::to_string(moved));
    EXPECT_NEAR(minimum, 1.0 / n, 0.01 / n);  // the victim held 1/n of the table
    EXPECT_GT(moved, 1.2 * minimum) << "maglev is not minimal: survivors' entries move too";
    EXPECT_LT(moved, 6 * minimum) << "but it stays within a small factor";
  }
}

TEST(Maglev, RebuildEqualsAFreshBuildOverTheLiveNodes) {
  auto nodes = MakeNumberedNodes(20);
  Params p{{"table_size", uint64_t{1009}}};
  auto a = MakeAlgorithm("maglev", nodes, p);
  a->Remove(5);
  std::vector<Node> live = nodes;
  live.erase(live.begin() + 5);
  auto fresh = MakeAlgorithm("maglev", live, p);
  for (uint64_t s = 0; s < 1009; ++s) {
    const uint32_t f = fresh->Locate(s);
    ASSERT_EQ(a->Locate(s), f < 5 ? f : f + 1) << "entry " << s;
  }
}

}  // namespace
}  // namespace chsim
