// SPDX-License-Identifier: Apache-2.0
// `rendezvous` (core/src/algorithms/rendezvous.cc): Locate against the
// highest draw found one node at a time with the public RendezvousMixKey and
// RendezvousDraw (chsim/rendezvous.h), at node counts around the vector
// widths (4 and 8 lanes) and their tails, after a removal in the middle and
// a re-add (the node moves to the end of the scan), weighted too (scored,
// not drawn). CTest runs it again with CHSIM_SIMD=avx2 and =portable
// (tests.cmake). Equal draws need equal seeds, which distinct labels do not
// give, so the lowest-index rule for ties is kept by construction, not here.
#include <gtest/gtest.h>

#include "chsim/algorithm.h"
#include "chsim/rendezvous.h"
#include "test_util.h"

namespace chsim {
namespace {

// The id of the node with the highest score, the first listed among equals.
uint32_t HighestScore(const RendezvousView& view, uint64_t hash) {
  const uint64_t k = RendezvousMixKey(hash);
  size_t best = 0;
  double best_score = -1;
  uint64_t best_draw = 0;
  for (size_t i = 0; i < view.seeds.size(); ++i) {
    const uint64_t x = RendezvousDraw(k, view.seeds[i]);
    const double s = RendezvousScore(x, view.weights[i]);
    const bool higher = view.uniform ? (i == 0 || x > best_draw) : (i == 0 || s > best_score);
    if (higher) best = i, best_draw = x, best_score = s;
  }
  return view.ids[best];
}

TEST(Rendezvous, LocateIsTheHighestDrawAtEverySize) {
  for (const bool weighted : {false, true}) {
    for (const uint32_t n : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 15u, 16u, 17u, 31u, 100u, 1003u}) {
      std::vector<Node> nodes = MakeNumberedNodes(n);
      if (weighted) {
        for (uint32_t i = 0; i < n; ++i) nodes[i].weight = 1 + i % 3;
      }
      const auto a = MakeAlgorithm("rendezvous", nodes);
      if (n > 3) {  // a middle node leaves and comes back: it is scanned last now
        a->Remove(n / 2);
        a->Add(nodes[n / 2]);
      }
      RendezvousView view;
      ASSERT_TRUE(a->ViewRendezvous(&view));
      ASSERT_EQ(view.uniform, !weighted || n == 1);
      for (uint64_t h : testing::RandomHashes(2000, 11 + n)) {
        ASSERT_EQ(a->Locate(h), HighestScore(view, h))
            << "n " << n << (weighted ? ", weighted" : "") << ", hash " << h;
      }
    }
  }
}

}  // namespace
}  // namespace chsim
