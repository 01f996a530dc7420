// Known answers against independent references: ring equals chsim::Ring under
// ResearchProfile (the foundation's tested ring); multi_probe equals a brute
// force over all nodes; rendezvous equals a direct argmax of the documented
// score; modulo and shares.
#include <gtest/gtest.h>

#include <cmath>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/node.h"
#include "chsim/profile.h"
#include "chsim/ring.h"
#include "test_util.h"

namespace chsim {
namespace {

TEST(Reference, RingEqualsChsimRingWithResearchProfile) {
  for (std::string_view hasher : {"xxh3", "md5", "fnv1a_32"}) {
    SCOPED_TRACE(std::string(hasher));
    auto nodes = MakeNumberedNodes(12);
    AlgorithmParams p;
    p.hasher = std::string(hasher);
    p.points_per_node = 100;
    auto a = MakeAlgorithm("ring", nodes, p);
    const Hasher& h = GetHasher(hasher);
    Ring ring = Ring::Build(ResearchProfile(h, 100), nodes);
    for (int i = 0; i < 20000; ++i) {
      std::string key = "k";
      key += std::to_string(i);
      ASSERT_EQ(a->Locate(h(key)), ring.Locate(key)) << key;
    }
    // After removing id 4 and adding a node, ids map back to the live list.
    a->Remove(4);
    Node extra = MakeNumberedNodes(1, 40)[0];
    EXPECT_EQ(a->Add(extra), 12u);
    std::vector<Node> live = nodes;
    live.erase(live.begin() + 4);
    live.push_back(extra);
    const std::vector<uint32_t> ids{0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12};
    Ring ring2 = Ring::Build(ResearchProfile(h, 100), live);
    for (int i = 0; i < 20000; ++i) {
      std::string key = "k";
      key += std::to_string(i);
      ASSERT_EQ(a->Locate(h(key)), ids[ring2.Locate(key)]) << key;
    }
    auto shares = *a->StructuralShares();
    ASSERT_EQ(shares.size(), 13u);
    EXPECT_EQ(shares[4], 0.0);
    auto ring_shares = ring2.StructuralShares();
    for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(shares[ids[i]], ring_shares[i]);
  }
}

// Brute force: every node's clockwise distance from every probe.
TEST(Reference, MultiProbeEqualsBruteForce) {
  auto nodes = MakeNumberedNodes(37);
  auto a = MakeAlgorithm("multi_probe", nodes);
  std::vector<uint64_t> points;
  for (const Node& n : nodes) points.push_back(Mix64(HashXxh3(n.label.data(), n.label.size())));
  testing::SplitMix64 rng(3);
  for (int t = 0; t < 20000; ++t) {
    const uint64_t k = rng.Next();
    const uint64_t h1 = Mix64(k), h2 = Mix64(h1 ^ 0x70726f6265ULL) | 1;
    uint64_t best = UINT64_MAX;
    uint32_t owner = 0;
    for (uint32_t i = 0; i < 21; ++i) {
      const uint64_t probe = h1 + i * h2;
      for (uint32_t j = 0; j < points.size(); ++j) {
        const uint64_t d = points[j] - probe;
        if (d < best) best = d, owner = j;
      }
    }
    ASSERT_EQ(a->Locate(k), owner) << k;
  }
}

TEST(Reference, WeightedRendezvousIsTheArgmaxOfTheScore) {
  auto nodes = MakeNumberedNodes(9);
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i].weight = 1 + static_cast<uint32_t>(i);
  auto a = MakeAlgorithm("rendezvous", nodes);
  testing::SplitMix64 rng(4);
  for (int t = 0; t < 20000; ++t) {
    const uint64_t k = rng.Next();
    double best = -1;
    uint32_t owner = 0;
    for (uint32_t j = 0; j < nodes.size(); ++j) {
      const uint64_t seed = Mix64(HashXxh3(nodes[j].label.data(), nodes[j].label.size()));
      const double u = (static_cast<double>(Mix64(Mix64(k) ^ seed) >> 11) + 0.5) * 0x1.0p-53;
      const double score = -static_cast<double>(nodes[j].weight) / std::log(u);
      if (score > best) best = score, owner = j;
    }
    ASSERT_EQ(a->Locate(k), owner);
  }
}

TEST(Reference, ModuloAndItsExactShares) {
  auto a = MakeAlgorithm("modulo", MakeNumberedNodes(7));
  for (uint64_t k = 0; k < 1000; ++k) ASSERT_EQ(a->Locate(k), k % 7);
  a->Remove(2);
  const std::vector<uint32_t> ids{0, 1, 3, 4, 5, 6};
  for (uint64_t k = 0; k < 1000; ++k) ASSERT_EQ(a->Locate(k), ids[k % 6]);
  auto shares = *a->StructuralShares();
  double sum = 0;
  for (double s : shares) sum += s;
  EXPECT_NEAR(sum, 1.0, 1e-15);
  EXPECT_EQ(shares[2], 0.0);
  EXPECT_NEAR(shares[0], 1.0 / 6, 1e-15);
}

TEST(Reference, LocateBatchEqualsLocate) {
  const auto keys = testing::KeyHashes(5000);
  std::vector<uint32_t> out(keys.size());
  for (const AlgorithmInfo& info : AllAlgorithms()) {
    auto a = MakeAlgorithm(info.name, MakeNumberedNodes(25));
    a->LocateBatch(keys, out);
    for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(out[i], a->Locate(keys[i])) << info.name;
    EXPECT_GT(a->MemoryBytes(), 0u) << info.name;
    EXPECT_EQ(a->StructuralShares().has_value(), info.capabilities.exact_shares) << info.name;
  }
}

TEST(Reference, NodeSeedsFollowTheHasher) {
  // A different hasher gives different node seeds, hence a different map.
  const auto keys = testing::KeyHashes(2000);
  for (std::string_view name : {"rendezvous", "maglev", "multi_probe"}) {
    AlgorithmParams md5;
    md5.hasher = "md5";
    auto a = MakeAlgorithm(name, MakeNumberedNodes(20));
    auto b = MakeAlgorithm(name, MakeNumberedNodes(20), md5);
    size_t differ = 0;
    for (uint64_t k : keys) differ += a->Locate(k) != b->Locate(k);
    EXPECT_GT(differ, 1000u) << name;
  }
}

}  // namespace
}  // namespace chsim
