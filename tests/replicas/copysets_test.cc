// SPDX-License-Identifier: Apache-2.0
// The durability figures of sim/run/copysets.h against independent truths
// written here: the Copysets paper's three headline numbers, Lynch and
// Snyder's published neighbour counts, and small clusters where every
// failure set is enumerated by brute force in this file (bit masks, no
// copyset table) and compared with the exact figures and with the Monte Carlo
// within a stated binomial tolerance.
#include "sim/run/copysets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "chsim/splitmix.h"

namespace chsim::sim {
namespace {

// The Copysets paper (Cidon et al., USENIX ATC 2013), abstract and section 1:
// 5000 nodes, 1% (50) fail after a power outage, R = 3. Facebook's HDFS
// random placement (scatter width 10: each node's copysets are C(11, 2) = 55
// per node, M = N x 55 = 275,000, section 3.2) loses data with probability
// 22.8%; Copyset Replication with S = 10 (M = S/(R-1) x N/R) 0.78%; RAMCloud
// with minimum copysets (M = N/R) "0.15%" (0.1568%: the paper truncates).
TEST(CopysetsFormula, PaperHeadlineNumbers) {
  const double n = 5000, f = 50, r = 3;
  EXPECT_NEAR(CopysetsLossProbability(n, f, r, n * 55), 0.228, 0.0005);
  EXPECT_NEAR(CopysetsLossProbability(n, f, r, 10.0 / (r - 1) * (n / r)), 0.0078, 0.00005);
  const double min_copysets = CopysetsLossProbability(n, f, r, n / r);
  EXPECT_GE(min_copysets, 0.0015);
  EXPECT_LT(min_copysets, 0.0016);
  // Fewer failed nodes than copies: nothing can be lost; every copyset: certain.
  EXPECT_EQ(CopysetsLossProbability(n, 2, r, 1000), 0.0);
  EXPECT_EQ(CopysetsLossProbability(10, 5, 3, 120), 1.0);
}

// Lynch & Snyder, "Cassandra Availability with Virtual Nodes" (Netflix,
// 2018): RF 3, three racks (2n/3 eligible peers), v tokens per node.
TEST(ReplicaNeighbours, NetflixFigures) {
  struct Case {
    double nodes, tokens, expected;
  };
  for (const Case& c : {Case{60, 256, 39.9999999998}, Case{60, 16, 32.0867407145},
                        Case{60, 4, 13.323193263}, Case{300, 256, 198.8200470802},
                        Case{300, 16, 54.8867183963}, Case{300, 4, 15.4137752052}}) {
    EXPECT_NEAR(ExpectedReplicaNeighbours(2 * c.nodes / 3, c.tokens, 3), c.expected, 1e-8)
        << c.nodes << " nodes, " << c.tokens << " tokens";
  }
}

// A small cluster: each key's copies as a bit mask over N <= 32 nodes.
struct Cluster {
  uint32_t nodes = 0, copies = 0;
  std::vector<uint32_t> keys;  // masks, one per key (repeats allowed)
  CopysetTable Table() const {
    CopysetTable t;
    for (uint32_t m : keys) {
      std::vector<uint32_t> ids;
      for (uint32_t i = 0; i < nodes; ++i) {
        if (m >> i & 1) ids.push_back(i);
      }
      t.Add(ids, 1);
    }
    return t;
  }
  std::vector<uint32_t> Live() const {
    std::vector<uint32_t> v(nodes);
    for (uint32_t i = 0; i < nodes; ++i) v[i] = i;
    return v;
  }
};

// `count` keys, each on `size` distinct nodes drawn from `pool` (masks).
void AddKeys(Cluster& c, uint64_t seed, size_t count, uint32_t size,
             const std::vector<uint32_t>& pool) {
  SplitMix64 g(seed);
  for (size_t k = 0; k < count; ++k) {
    uint32_t mask = 0;
    while (static_cast<uint32_t>(std::popcount(mask)) < size) {
      mask |= 1u << pool[g.Below(pool.size())];
    }
    c.keys.push_back(mask);
  }
}

// Brute force over every failure set of f nodes: how many sets lose some
// key, and the keys lost (every copy; quorum: fewer than R/2 + 1 copies live).
struct Brute {
  uint64_t sets = 0, sets_with_loss = 0, sets_with_quorum = 0, lost = 0, quorum = 0;
};

Brute BruteForce(const Cluster& c, uint32_t f) {
  Brute b;
  const uint32_t need = c.copies / 2 + 1;
  for (uint64_t failed = 0; failed < (uint64_t{1} << c.nodes); ++failed) {
    if (static_cast<uint32_t>(std::popcount(failed)) != f) continue;
    uint64_t lost = 0, quorum = 0;
    for (uint32_t m : c.keys) {
      const auto live = static_cast<uint32_t>(std::popcount(m & ~failed));
      lost += live == 0;
      quorum += live < need;
    }
    ++b.sets;
    b.sets_with_loss += lost > 0;
    b.sets_with_quorum += quorum > 0;
    b.lost += lost;
    b.quorum += quorum;
  }
  return b;
}

LossFigures Evaluate(const Cluster& c, uint32_t f, uint64_t sets, unsigned threads = 2,
                     LossRequest::Method method = LossRequest::Method::kAuto) {
  const CopysetTable t = c.Table();
  const std::vector<uint32_t> live = c.Live();
  LossRequest r;
  r.live = live;
  r.copies = c.copies;
  r.failed = f;
  r.sets = sets;
  r.seed = 42;
  r.threads = threads;
  r.method = method;
  return EvaluateLoss(t, r);
}

// Each counting method, and the one the cost estimate picks, equal the brute
// force.
void ExpectExact(const Cluster& c, uint32_t f) {
  const Brute b = BruteForce(c, f);
  using M = LossRequest::Method;
  for (const M method : {M::kAuto, M::kScan, M::kSubsets, M::kNodes}) {
    SCOPED_TRACE("method " + std::to_string(static_cast<int>(method)));
    const LossFigures l = Evaluate(c, f, b.sets, 2, method);
    ASSERT_TRUE(l.exhaustive);
    EXPECT_EQ(l.sets, b.sets);
    EXPECT_EQ(l.sets_with_loss, b.sets_with_loss);
    EXPECT_EQ(l.sets_with_quorum_loss, b.sets_with_quorum);
    EXPECT_EQ(l.keys_lost, b.lost);
    EXPECT_EQ(l.keys_quorum_lost, b.quorum);
    // The exact expectation is the brute-force mean.
    EXPECT_NEAR(l.keys_expected, static_cast<double>(b.lost) / b.sets / c.keys.size(), 1e-12);
  }
}

std::vector<uint32_t> AllNodes(uint32_t n) {
  std::vector<uint32_t> v(n);
  for (uint32_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

// Few copysets, many failed nodes: the scan is the cheapest.
TEST(CopysetsLoss, ExactFewCopysetsManyFailed) {
  Cluster c{16, 3, {}};
  AddKeys(c, 1, 200, 3, {0, 1, 2, 3, 4, 5});  // 20 possible copysets, 200 keys
  ExpectExact(c, 8);
}

// Many copysets, few failed nodes: subset lookups or the node walk.
TEST(CopysetsLoss, ExactManyCopysetsFewFailed) {
  Cluster c{16, 3, {}};
  AddKeys(c, 2, 3000, 3, AllNodes(16));
  ExpectExact(c, 4);
}

// Quorum by inclusion-exclusion over several subset sizes (R = 4: t = 2;
// R = 5: t = 3), with short copysets (fewer copies than asked) beside them.
TEST(CopysetsLoss, ExactQuorumAndShortSets) {
  for (uint32_t r : {2u, 4u, 5u}) {
    Cluster c{14, r, {}};
    AddKeys(c, 10 + r, 2000, r, AllNodes(14));
    AddKeys(c, 20 + r, 50, r - 1, AllNodes(14));
    AddKeys(c, 30 + r, 5, 1, {3});
    for (uint32_t f : {1u, 3u, 6u}) {
      SCOPED_TRACE("R = " + std::to_string(r) + ", F = " + std::to_string(f));
      ExpectExact(c, f);
    }
  }
}

// Drawn failure sets: within 4.5 binomial standard deviations of the exact
// probability (a false alarm about 1 in 150,000), the same on 1 and 3
// threads, and independent of the table's insertion order.
TEST(CopysetsLoss, MonteCarloWithinBinomialTolerance) {
  Cluster c{20, 3, {}};
  AddKeys(c, 3, 60, 3, AllNodes(20));
  const uint32_t f = 5;
  const Brute b = BruteForce(c, f);  // C(20, 5) = 15504 sets
  const double p = static_cast<double>(b.sets_with_loss) / b.sets;
  ASSERT_GT(p, 0.05);
  ASSERT_LT(p, 0.95);
  const uint64_t sets = 4000;
  const LossFigures l = Evaluate(c, f, sets, 3);
  ASSERT_FALSE(l.exhaustive);
  ASSERT_EQ(l.sets, sets);
  const double phat = static_cast<double>(l.sets_with_loss) / sets;
  EXPECT_NEAR(phat, p, 4.5 * std::sqrt(p * (1 - p) / sets));
  const double q = static_cast<double>(b.sets_with_quorum) / b.sets;
  EXPECT_NEAR(static_cast<double>(l.sets_with_quorum_loss) / sets, q,
              4.5 * std::sqrt(q * (1 - q) / sets) + 1e-9);
  const LossFigures one = Evaluate(c, f, sets, 1);
  EXPECT_EQ(one.sets_with_loss, l.sets_with_loss);
  EXPECT_EQ(one.keys_lost, l.keys_lost);
  EXPECT_EQ(one.keys_quorum_lost, l.keys_quorum_lost);
  Cluster reversed = c;
  std::reverse(reversed.keys.begin(), reversed.keys.end());
  EXPECT_EQ(Evaluate(reversed, f, sets, 2).keys_lost, l.keys_lost);
}

TEST(CopysetsTable, CountsKeysPerDistinctCopyset) {
  CopysetTable t;
  for (int i = 0; i < 1000; ++i) {
    const uint32_t a = i % 7, b = 7 + i % 5;
    const uint32_t ids[] = {a, b};
    t.Add(ids, 2);
  }
  EXPECT_EQ(t.size(), 35u);  // 7 x 5 pairs: i mod 35 runs over every (i mod 7, i mod 5)
  EXPECT_EQ(t.keys(), 2000u);
  const uint32_t probe[] = {3, 10};  // i = 3 mod 7, 3 mod 5: 1000/35 rounds, 28 or 29 keys
  EXPECT_TRUE(t.Find(probe) == 2 * 28 || t.Find(probe) == 2 * 29);
  const uint32_t absent[] = {3, 4};
  EXPECT_EQ(t.Find(absent), 0u);
  CopysetTable u;
  u.Merge(t);
  u.Merge(t);
  EXPECT_EQ(u.size(), 35u);
  EXPECT_EQ(u.Find(probe), 2 * t.Find(probe));
}

// One domain failing, and scatter widths, against a plain reading of the masks.
TEST(CopysetsDomains, DomainLossAndScatterWidth) {
  Cluster c{12, 3, {}};
  AddKeys(c, 4, 400, 3, AllNodes(12));
  AddKeys(c, 5, 40, 3, {0, 1, 2, 3});  // keys inside domain 0
  const std::vector<uint32_t> domain = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2};
  const CopysetTable t = c.Table();
  const std::vector<uint32_t> live = c.Live();
  const DomainLossFigures d = EvaluateDomainLoss(t, live, domain, 3);
  uint64_t max_lost = 0, sum_lost = 0, with_loss = 0, max_q = 0;
  for (uint32_t x = 0; x < 3; ++x) {
    uint32_t failed = 0;
    for (uint32_t i = 0; i < 12; ++i) failed |= (domain[i] == x) << i;
    uint64_t lost = 0, q = 0;
    for (uint32_t m : c.keys) {
      const int alive = std::popcount(m & ~failed);
      lost += alive == 0;
      q += alive < 2;
    }
    max_lost = std::max(max_lost, lost);
    sum_lost += lost;
    with_loss += lost > 0;
    max_q = std::max(max_q, q);
  }
  EXPECT_EQ(d.domains, 3u);
  EXPECT_EQ(d.max_keys_lost, max_lost);
  EXPECT_EQ(d.sum_keys_lost, sum_lost);
  EXPECT_EQ(d.domains_with_loss, with_loss);
  EXPECT_EQ(d.max_quorum_lost, max_q);
  EXPECT_GE(max_lost, 40u);

  std::vector<std::set<uint32_t>> peers(12);
  for (uint32_t m : c.keys) {
    for (uint32_t a = 0; a < 12; ++a) {
      for (uint32_t b = 0; b < 12; ++b) {
        if (a != b && (m >> a & 1) && (m >> b & 1)) peers[a].insert(b);
      }
    }
  }
  const ScatterWidthFigures w = ScatterWidths(t, live);
  size_t sum = 0, lo = 99, hi = 0;
  for (const auto& p : peers) {
    sum += p.size();
    lo = std::min(lo, p.size());
    hi = std::max(hi, p.size());
  }
  EXPECT_DOUBLE_EQ(w.mean, static_cast<double>(sum) / 12);
  EXPECT_EQ(w.min, lo);
  EXPECT_EQ(w.max, hi);
}

}  // namespace
}  // namespace chsim::sim
