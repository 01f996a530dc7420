// SPDX-License-Identifier: Apache-2.0
// Ring::Build against a reference build written from the profile's rules in
// the plainest way (node keys hashed one at a time with OpenSSL's MD5 or the
// point hasher, std::stable_sort, then runs of equal points resolved per
// rule): the same points and owners in the same order, under every MD5
// kernel the CPU runs, for every profile, ring sizes on both sides of the
// one-level / two-level sort boundary (2^18 points), weighted lists, long node names (the
// one-block limit) and rings full of equal points.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "chsim/md5.h"
#include "chsim/md5_batch.h"
#include "chsim/profile.h"
#include "chsim/ring.h"
#include "md5_isa_fixture.h"

namespace chsim {
namespace {

struct RefEntry {
  uint32_t point, owner;
};

std::vector<RefEntry> ReferenceBuild(const Profile& p, const std::vector<Node>& nodes,
                                     bool weighted) {
  if (p.weighted_only_above_one) weighted = false;
  for (const Node& n : nodes) weighted = weighted || n.weight != 1;
  const uint64_t total_weight = TotalWeight(nodes);
  const bool md5x4 = p.points_per_hash == 4 || (weighted && p.weighted_uses_md5);
  std::vector<uint32_t> order(nodes.size());
  std::iota(order.begin(), order.end(), 0u);
  if (p.order == NodeOrder::kByNameLengthThenBytes) {
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const std::string x = PointKeyPrefix(p, nodes[a]), y = PointKeyPrefix(p, nodes[b]);
      return x.size() != y.size() ? x.size() < y.size() : x < y;
    });
  }
  std::vector<RefEntry> points;  // rank order: rank 0 wins a tie
  for (size_t rank = 0; rank < nodes.size(); ++rank) {
    const size_t r = p.tie == TieRule::kLaterWins ? nodes.size() - 1 - rank : rank;
    const Node& node = nodes[order[r]];
    const uint32_t want = PointsForNode(p, weighted, node.weight, total_weight, nodes.size());
    const std::string prefix = PointKeyPrefix(p, node) + "-";
    for (uint32_t i = 0, made = 0; made < want; ++i) {
      const std::string key = prefix + std::to_string(i);
      if (md5x4) {
        uint8_t d[16];
        Md5(key.data(), key.size(), d);
        for (int j = 0; j < 4 && made < want; ++j, ++made) {
          points.push_back({Md5Slice(d, j), order[r]});
        }
      } else {
        points.push_back({static_cast<uint32_t>((*p.point_hasher)(key)), order[r]});
        ++made;
      }
    }
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const RefEntry& a, const RefEntry& b) { return a.point < b.point; });
  std::vector<RefEntry> ring;
  uint32_t winner = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const bool first = i == 0 || points[i - 1].point != points[i].point;
    if (first) winner = points[i].owner;
    if (!first && p.duplicates == DuplicatePoints::kDrop) continue;
    ring.push_back({points[i].point,
                    p.duplicates == DuplicatePoints::kKeepAsWinner ? winner : points[i].owner});
  }
  return ring;
}

void ExpectSameRing(const Profile& p, const std::vector<Node>& nodes, const std::string& what,
                    bool weighted = false) {
  const Ring r = Ring::Build(p, nodes, weighted);
  const std::vector<RefEntry> want = ReferenceBuild(p, nodes, weighted);
  ASSERT_EQ(r.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(r.points()[i], want[i].point) << what << " entry " << i;
    ASSERT_EQ(r.owners()[i], want[i].owner) << what << " entry " << i;
  }
}

// The reference is the point-key build; profiles whose points follow another
// rule (nginx's CRC chain), whose ring is read at buckets (PHP memcache) or
// that build no 32-bit ring (ProfileMap) are checked against their program's
// goldens (tests/compat/golden-proxies) and in ring_test.cc,
// proxy_profiles_test.cc and profile_map_test.cc.
bool IsPointKeyProfile(std::string_view name) {
  const Profile p = MakeProfile(name);
  return p.engine == Engine::kRing && p.point_rule == PointRule::kPointKeyHash && p.buckets == 0;
}

using RingBuildTest = Md5IsaTest;  // once per MD5 kernel

TEST_P(RingBuildTest, EveryProfileEqualsTheReference) {
  for (const ProfileInfo& info : AllProfiles()) {
    if (!IsPointKeyProfile(info.name)) continue;
    for (uint32_t n : {1u, 3u, 25u, 100u, 1000u}) {
      ExpectSameRing(MakeProfile(info.name), MakeNumberedNodes(n),
                     std::string(info.name) + " n=" + std::to_string(n));
    }
  }
  // 1,700 nodes: 272,000 points, past the one-level sort (2^18 points).
  ExpectSameRing(MakeProfile("spymemcached"), MakeNumberedNodes(1700), "spymemcached n=1700");
  ExpectSameRing(MakeProfile("uhashring"), MakeNumberedNodes(1700), "uhashring n=1700");
}

TEST_P(RingBuildTest, WeightedListsAndLongNames) {
  std::vector<Node> nodes = MakeNumberedNodes(60);
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i].weight = 1 + static_cast<uint32_t>(i % 5);
  // Point keys of 53..58 bytes: one MD5 block up to 55, two beyond (OpenSSL).
  for (size_t i = 0; i < 8; ++i) {
    nodes[i].host = nodes[i].label = std::string(44 + i, 'h') + std::to_string(i);
  }
  for (const ProfileInfo& info : AllProfiles()) {
    if (!IsPointKeyProfile(info.name)) continue;
    ExpectSameRing(MakeProfile(info.name), nodes, std::string(info.name) + " weighted");
  }
  std::vector<Node> even = MakeNumberedNodes(30);
  ExpectSameRing(MakeProfile("spymemcached"), even, "spymemcached weights spelled out", true);
}

TEST_P(RingBuildTest, RingsFullOfEqualPoints) {
  // spymemcached's CRC_HASH keeps 15 bits: 64,000 points in 32,768 values.
  for (const char* alg : {"CRC_HASH", "NATIVE_HASH"}) {
    ExpectSameRing(MakeProfile("spymemcached", {alg, ""}), MakeNumberedNodes(400),
                   std::string("spymemcached ") + alg);
  }
  Profile research = ResearchProfile(GetHasher("crc_spy"), 100);
  for (DuplicatePoints dup :
       {DuplicatePoints::kDrop, DuplicatePoints::kKeep, DuplicatePoints::kKeepAsWinner}) {
    research.duplicates = dup;
    for (uint32_t n : {7u, 3000u}) {  // 3,000 x 100: the two-level sort, crowded buckets
      ExpectSameRing(
          research, MakeNumberedNodes(n),
          "crc_spy dup " + std::to_string(static_cast<int>(dup)) + " n=" + std::to_string(n));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, RingBuildTest, testing::Values("portable", "avx2", "avx512"));

}  // namespace
}  // namespace chsim
