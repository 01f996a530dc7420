// SPDX-License-Identifier: Apache-2.0
// Known answers against independent references: ring equals a brute force
// written from the ring's definition (no chsim::Ring), weighted, at the edge
// and on ties; multi_probe equals a brute force over all nodes; rendezvous
// equals a direct argmax of the documented score; modulo and shares.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/md5.h"
#include "chsim/node.h"
#include "test_util.h"

namespace chsim {
namespace {

// The research ring from its definition (profile.h, ResearchProfile), with no
// Ring, no sort and no search: node j contributes the points
// hasher(label + "-" + i), i < P, as 32-bit values (md5 with P % 4 == 0: the
// four little-endian words of MD5(label + "-" + i), i < P / 4, as libketama);
// a weighted list gives node j floor(float32(w_j / W * P / 4 * n)) * 4 points
// (the peers' float formula, evaluated here in float32 step by step). A key
// hash h goes to the point at the least clockwise distance (p - h) mod 2^32
// from its low 32 bits (edge >=: distance 0 is the point itself); a point
// held by several nodes belongs to the last of them in list order.
class BruteForceRing {
 public:
  BruteForceRing(const Hasher& hasher, uint32_t points, std::span<const Node> nodes) {
    bool weighted = false;
    uint64_t total = 0;
    for (const Node& n : nodes) weighted = weighted || n.weight != 1, total += n.weight;
    for (uint32_t j = 0; j < nodes.size(); ++j) {
      uint32_t count = points;
      if (weighted) {
        float v = static_cast<float>(nodes[j].weight) / static_cast<float>(total);
        v = v * static_cast<float>(points);
        v = v / 4.0f;
        v = v * static_cast<float>(nodes.size());
        count = static_cast<uint32_t>(std::floor(v)) * 4;
      }
      const bool md5x4 = hasher.name == "md5" && count % 4 == 0;
      for (uint32_t i = 0; i < (md5x4 ? count / 4 : count); ++i) {
        std::string key = nodes[j].label;
        key += '-';
        key += std::to_string(i);
        if (md5x4) {
          uint8_t d[16];
          Md5(key.data(), key.size(), d);
          for (int w = 0; w < 4; ++w) {
            points_.push_back(
                {static_cast<uint32_t>(d[4 * w] | d[4 * w + 1] << 8 | d[4 * w + 2] << 16 |
                                       uint32_t{d[4 * w + 3]} << 24),
                 j});
          }
        } else {
          points_.push_back({static_cast<uint32_t>(hasher(key)), j});
        }
      }
    }
  }
  uint32_t Locate(uint64_t key_hash) const {
    const uint32_t h = static_cast<uint32_t>(key_hash);
    uint32_t best_distance = UINT32_MAX, owner = 0;
    bool found = false;
    for (const auto& [point, node] : points_) {
      const uint32_t d = point - h;
      if (!found || d < best_distance || (d == best_distance && node > owner)) {
        best_distance = d, owner = node, found = true;
      }
    }
    return owner;
  }
  size_t size() const { return points_.size(); }

 private:
  std::vector<std::pair<uint32_t, uint32_t>> points_;  // (point, node index)
};

TEST(Reference, RingEqualsABruteForceFromTheDefinition) {
  for (std::string_view hasher : {"xxh3", "md5", "fnv1a_32"}) {
    SCOPED_TRACE(std::string(hasher));
    auto nodes = MakeNumberedNodes(12);
    Params p{{"hasher", std::string(hasher)}, {"points_per_node", uint64_t{100}}};
    auto a = MakeAlgorithm("ring", nodes, p);
    const Hasher& h = GetHasher(hasher);
    const BruteForceRing brute(h, 100, nodes);
    ASSERT_EQ(brute.size(), 1200u);
    std::vector<uint32_t> owned(nodes.size(), 0);
    for (int i = 0; i < 20000; ++i) {
      std::string key = "k";
      key += std::to_string(i);
      const uint32_t want = brute.Locate(h(key));
      ASSERT_EQ(a->Locate(h(key)), want) << key;
      ++owned[want];
    }
    for (uint32_t n : owned) EXPECT_GT(n, 0u) << "the reference left a node without keys";
    // Keys hashed exactly onto a point (edge >=: the point's node), and one past
    // it (the next point's). md5 points are digest words, not the hasher's value.
    for (uint32_t j = 0; hasher != "md5" && j < nodes.size(); ++j) {
      std::string point_key = nodes[j].label;
      point_key += "-7";
      const uint32_t on = static_cast<uint32_t>(h(point_key));
      ASSERT_EQ(a->Locate(on), brute.Locate(on));
      ASSERT_EQ(a->Locate(on), j) << "a key on node " << j << "'s point";
      ASSERT_EQ(a->Locate(on + 1u), brute.Locate(on + 1u));
    }
    // After removing id 4 and adding a node, ids map back to the live list.
    a->Remove(4);
    Node extra = MakeNumberedNodes(1, 40)[0];
    EXPECT_EQ(a->Add(extra), 12u);
    std::vector<Node> live = nodes;
    live.erase(live.begin() + 4);
    live.push_back(extra);
    const std::vector<uint32_t> ids{0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12};
    const BruteForceRing brute2(h, 100, live);
    for (int i = 0; i < 20000; ++i) {
      std::string key = "k";
      key += std::to_string(i);
      ASSERT_EQ(a->Locate(h(key)), ids[brute2.Locate(h(key))]) << key;
    }
    auto shares = *a->StructuralShares();
    ASSERT_EQ(shares.size(), 13u);
    EXPECT_EQ(shares[4], 0.0);
    double sum = 0;
    for (double x : shares) sum += x;
    EXPECT_NEAR(sum, 1.0, 1e-12);
  }
}

TEST(Reference, WeightedRingEqualsABruteForceFromTheDefinition) {
  auto nodes = MakeNumberedNodes(10);
  const uint32_t weights[] = {1, 2, 3, 1, 5, 1, 2, 8, 1, 3};
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i].weight = weights[i];
  for (std::string_view hasher : {"xxh3", "md5"}) {
    SCOPED_TRACE(std::string(hasher));
    Params p{{"hasher", std::string(hasher)}, {"points_per_node", uint64_t{160}}};
    auto a = MakeAlgorithm("ring", nodes, p);
    const Hasher& h = GetHasher(hasher);
    const BruteForceRing brute(h, 160, nodes);
    for (int i = 0; i < 20000; ++i) {
      std::string key = "w";
      key += std::to_string(i);
      ASSERT_EQ(a->Locate(h(key)), brute.Locate(h(key))) << key;
    }
  }
}

// Ties: two nodes holding the same point. Node labels are searched for a shared
// xxh3 low-32 point (birthday search over 2^17 labels x 8 points: expected
// ~64 collisions); the later node in the list must own the point, either order.
TEST(Reference, RingTieGoesToTheLaterNode) {
  const Hasher& h = GetHasher("xxh3");
  std::unordered_map<uint32_t, std::string> seen;
  std::string a_label, b_label;
  uint32_t shared = 0;
  for (uint32_t i = 0; a_label.empty() && i < (1u << 17); ++i) {
    std::string label = "t";
    label += std::to_string(i);
    for (uint32_t k = 0; k < 8; ++k) {
      std::string point_key = label;
      point_key += '-';
      point_key += std::to_string(k);
      const uint32_t point = static_cast<uint32_t>(h(point_key));
      auto [it, fresh] = seen.emplace(point, label);
      if (!fresh && it->second != label) {
        a_label = it->second, b_label = label, shared = point;
        break;
      }
    }
  }
  ASSERT_FALSE(a_label.empty()) << "no shared point found";
  for (bool swap : {false, true}) {
    std::vector<Node> nodes(2);
    nodes[0].label = swap ? b_label : a_label;
    nodes[1].label = swap ? a_label : b_label;
    Params p{{"points_per_node", uint64_t{8}}};
    auto ring = MakeAlgorithm("ring", nodes, p);
    EXPECT_EQ(ring->Locate(shared), 1u) << "the later node wins the shared point";
    EXPECT_EQ(BruteForceRing(h, 8, nodes).Locate(shared), 1u);
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
  for (const AlgorithmSpec* info : AllAlgorithms()) {
    auto a = MakeAlgorithm(info->name, MakeNumberedNodes(25));
    a->LocateBatch(keys, out);
    for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(out[i], a->Locate(keys[i])) << info->name;
    EXPECT_GT(a->MemoryBytes(), 0u) << info->name;
    EXPECT_EQ(a->StructuralShares().has_value(), info->capabilities.exact_shares) << info->name;
  }
}

// The ketama profiles whose map is not a 32-bit ring: Envoy's ring and Jedis
// (64-bit arcs) and Envoy's maglev table (entries) give exact shares that sum
// to 1, equal what sampling finds within 5 standard errors, and follow a
// removal; pymemcache's rendezvous gives none. The rings' points per node
// feed the ring theory at equal weights; the table and rendezvous have none.
TEST(Reference, ProfileMapSharesAreExactWhereTheMapHasThem) {
  const auto keys = testing::KeyHashes(200000);
  for (const char* profile : {"envoy-ring", "envoy-maglev", "jedis", "pymemcache"}) {
    auto a = MakeAlgorithm("ketama", MakeNumberedNodes(12), {{"profile", std::string(profile)}});
    const bool ring = std::string(profile) == "envoy-ring" || std::string(profile) == "jedis";
    EXPECT_EQ(a->RingPointsPerNode() > 0, ring) << profile;
    if (std::string(profile) == "pymemcache") {
      EXPECT_FALSE(a->StructuralShares().has_value());
      EXPECT_FALSE(a->capabilities().exact_shares);
      continue;
    }
    EXPECT_TRUE(a->capabilities().exact_shares) << profile;
    a->Remove(5);
    const std::optional<std::vector<double>> shares = a->StructuralShares();
    ASSERT_TRUE(shares.has_value()) << profile;
    std::vector<double> load(shares->size(), 0);
    for (uint64_t h : keys) load[a->Locate(h)] += 1.0 / static_cast<double>(keys.size());
    double sum = 0;
    for (size_t i = 0; i < shares->size(); ++i) {
      const double s = (*shares)[i];
      sum += s;
      EXPECT_NEAR(load[i], s, 5 * std::sqrt(s * (1 - s) / keys.size()) + 1e-12)
          << profile << " node " << i;
    }
    EXPECT_EQ((*shares)[5], 0.0) << profile;
    EXPECT_NEAR(sum, 1.0, 1e-12) << profile;
  }
}

TEST(Reference, NodeSeedsFollowTheHasher) {
  // A different hasher gives different node seeds, hence a different map.
  const auto keys = testing::KeyHashes(2000);
  for (std::string_view name : {"rendezvous", "maglev", "multi_probe"}) {
    Params md5{{"hasher", std::string("md5")}};
    auto a = MakeAlgorithm(name, MakeNumberedNodes(20));
    auto b = MakeAlgorithm(name, MakeNumberedNodes(20), md5);
    size_t differ = 0;
    for (uint64_t k : keys) differ += a->Locate(k) != b->Locate(k);
    EXPECT_GT(differ, 1000u) << name;
  }
}

}  // namespace
}  // namespace chsim
