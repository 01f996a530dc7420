// SPDX-License-Identifier: Apache-2.0
// Balance over 10^6 keys ("key:i" hashed with xxh3) on n = 100 nodes, each
// algorithm against its own expected band, and weighted shares.
//
// Sampling floor: with m keys on n equal nodes a node's count is binomial,
// relative std sqrt((n - 1) / m) = 0.995% here. The std of 100 counts is
// itself estimated to about 7%, so "at the floor" means within [0.75, 1.25]
// of it (3.5 sigma); the inputs are fixed, so the results are deterministic.
#include <gtest/gtest.h>

#include <cmath>

#include "chsim/algorithm.h"
#include "chsim/node.h"
#include "test_util.h"

namespace chsim {
namespace {

using testing::KeyHashes;
using testing::LoadStats;
using testing::Stats;

constexpr size_t kKeys = 1000000;
constexpr uint32_t kNodes = 100;

const std::vector<uint64_t>& Keys() {
  static const std::vector<uint64_t> keys = KeyHashes(kKeys);
  return keys;
}

std::vector<double> Counts(const Algorithm& a) {
  std::vector<uint32_t> out(Keys().size());
  a.LocateBatch(Keys(), out);
  std::vector<double> c(a.live_ids().back() + 1, 0.0);
  for (uint32_t id : out) c[id] += 1;
  return c;
}

double Floor(size_t n, size_t m) { return std::sqrt(static_cast<double>(n - 1) / m); }

void ExpectAtSamplingFloor(const Algorithm& a) {
  const LoadStats s = Stats(Counts(a), a.live_ids());
  const double floor = Floor(a.num_nodes(), kKeys);
  EXPECT_GT(s.rel_std, 0.75 * floor) << a.name();
  EXPECT_LT(s.rel_std, 1.25 * floor) << a.name();
  EXPECT_LT(s.max / s.mean, 1 + 4.5 * floor) << a.name();
  EXPECT_GT(s.min / s.mean, 1 - 4.5 * floor) << a.name();
}

TEST(Balance, JumpRendezvousAnchorMementoModuloAreAtTheSamplingFloor) {
  for (std::string_view name : {"jump", "rendezvous", "anchor", "memento", "modulo"}) {
    ExpectAtSamplingFloor(*MakeAlgorithm(name, MakeNumberedNodes(kNodes)));
  }
}

TEST(Balance, AnchorAndMementoStayAtTheFloorAfterArbitraryRemovals) {
  for (std::string_view name : {"anchor", "memento"}) {
    auto a = MakeAlgorithm(name, MakeNumberedNodes(kNodes + 20));
    for (uint32_t id = 3; id < 120; id += 6) a->Remove(id);  // 20 scattered removals
    ASSERT_EQ(a->num_nodes(), kNodes);
    ExpectAtSamplingFloor(*a);
  }
}

// A ring node's share is the sum of v arcs, about Gamma(v): relative std
// 1/sqrt(v). Checked on the exact structural shares (no sampling noise), and
// on sampled counts against 1/sqrt(v) plus the sampling floor.
TEST(Balance, RingRelativeStdIsAboutOneOverSqrtPoints) {
  for (uint32_t v : {40u, 160u, 640u}) {
    SCOPED_TRACE(v);
    Params p{{"points_per_node", uint64_t{v}}};
    auto a = MakeAlgorithm("ring", MakeNumberedNodes(kNodes), p);
    const double expected = 1 / std::sqrt(static_cast<double>(v));
    auto shares = a->StructuralShares();
    ASSERT_TRUE(shares.has_value());
    double sum = 0;
    for (double x : *shares) sum += x;
    EXPECT_NEAR(sum, 1.0, 1e-12);
    const LoadStats exact = Stats(*shares, a->live_ids());
    EXPECT_GT(exact.rel_std, 0.75 * expected);
    EXPECT_LT(exact.rel_std, 1.25 * expected);
    const LoadStats sampled = Stats(Counts(*a), a->live_ids());
    const double both = std::hypot(expected, Floor(kNodes, kKeys));
    EXPECT_GT(sampled.rel_std, 0.75 * both);
    EXPECT_LT(sampled.rel_std, 1.25 * both);
  }
}

// Unweighted Maglev gives every backend floor(M/n) or ceil(M/n) entries (one
// per round); the paper's claim is "within 1%" for M > 100 n.
TEST(Balance, MaglevEntriesPerNodeWithinOnePercent) {
  for (auto [n, m] : {std::pair<uint32_t, uint64_t>{100, 65537}, {1000, 100003}}) {
    SCOPED_TRACE(n);
    Params p{{"table_size", uint64_t{m}}};
    auto a = MakeAlgorithm("maglev", MakeNumberedNodes(n), p);
    const LoadStats s = Stats(*a->StructuralShares(), a->live_ids());
    EXPECT_LT(s.max / s.mean, 1.01);
    EXPECT_GT(s.min / s.mean, 0.99);
    EXPECT_LE((s.max - s.min) * static_cast<double>(m), 1.0 + 1e-6) << "entries differ by <= 1";
  }
  ExpectAtSamplingFloor(*MakeAlgorithm("maglev", MakeNumberedNodes(kNodes)));
}

// Multi-probe with one point per node and 21 probes: the paper reports a
// peak-to-mean of about 1.05. A node whose predecessor gap is shorter than
// the typical winning distance (~1/(21 n) of the ring) gets less, so the
// minimum is not bounded; the peak is. Measured here: 1.117 (independent
// probes on random rings give 1.07-1.09 at n = 100; the rest is sampling).
// One probe would give a one-point ring: peak-to-mean around 4-5.
TEST(Balance, MultiProbePeakToMean) {
  auto a = MakeAlgorithm("multi_probe", MakeNumberedNodes(kNodes));
  const LoadStats s = Stats(Counts(*a), a->live_ids());
  EXPECT_LT(s.max / s.mean, 1.2);
  Params one{{"probes", uint64_t{1}}};
  auto b = MakeAlgorithm("multi_probe", MakeNumberedNodes(kNodes), one);
  EXPECT_GT(Stats(Counts(*b), b->live_ids()).max / s.mean, 2.5) << "probes must matter";
}

std::vector<Node> WeightedNodes() {
  auto nodes = MakeNumberedNodes(40);
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i].weight = 1 + i % 4;  // total 100
  return nodes;
}

// Each count within 5 binomial sigmas of m * w / W.
TEST(Balance, WeightedRendezvousGivesEachNodeItsWeightShare) {
  auto nodes = WeightedNodes();
  auto a = MakeAlgorithm("rendezvous", nodes);
  const auto c = Counts(*a);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const double p = nodes[i].weight / 100.0;
    const double sigma = std::sqrt(kKeys * p * (1 - p));
    EXPECT_NEAR(c[i], kKeys * p, 5 * sigma) << "node " << i << " weight " << nodes[i].weight;
  }
}

// Maglev's weighted turns give entry counts proportional to weight to within
// one round's rounding: relative error < 1% at M = 65537, and the sampled
// counts within 5 sigmas.
TEST(Balance, WeightedMaglevGivesEachNodeItsWeightShare) {
  auto nodes = WeightedNodes();
  auto a = MakeAlgorithm("maglev", nodes);
  const auto shares = *a->StructuralShares();
  const auto c = Counts(*a);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const double p = nodes[i].weight / 100.0;
    EXPECT_NEAR(shares[i] / p, 1.0, 0.01) << "node " << i;
    EXPECT_NEAR(c[i], kKeys * shares[i], 5 * std::sqrt(kKeys * p * (1 - p))) << "node " << i;
  }
}

// The weighted ring gives node i about 160 * 40 * w_i / W points (the peers'
// float formula); its share then deviates by about 1/sqrt(points): within 4 of
// those for every node, and the deviations' RMS within [0.5, 1.5] of it.
TEST(Balance, WeightedRingGivesEachNodeItsWeightShare) {
  auto nodes = WeightedNodes();
  auto a = MakeAlgorithm("ring", nodes);
  const auto shares = *a->StructuralShares();
  double sum_sq = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const double p = nodes[i].weight / 100.0;
    const double points = 160.0 * 40 * p;
    const double z = (shares[i] / p - 1) * std::sqrt(points);
    EXPECT_LT(std::abs(z), 4.0) << "node " << i;
    sum_sq += z * z;
  }
  const double rms = std::sqrt(sum_sq / nodes.size());
  EXPECT_GT(rms, 0.5);
  EXPECT_LT(rms, 1.5);
}

}  // namespace
}  // namespace chsim
