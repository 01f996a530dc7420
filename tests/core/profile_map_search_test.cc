// SPDX-License-Identifier: Apache-2.0
// ProfileMap's fast paths against plain references: the 64-bit rings'
// bucket search (envoy-ring, jedis) against std::lower_bound over points(),
// on rings of 1 to 2,000 nodes, weighted or not, at 0, the largest hash,
// every point p, p - 1 and p + 1, every bucket start and random hashes
// (enough of them to land in crowded buckets); and LocateBatch (block
// hashing with the branch-free short-key xxHash64 and MurmurHash64A) against
// Locate key by key, on keys of 0..300 bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "chsim/hasher.h"
#include "chsim/node.h"
#include "chsim/profile.h"
#include "chsim/profile_map.h"
#include "chsim/splitmix.h"

namespace chsim {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// The owner of the first point >= h in the map's search order, else of the
// first point: what Envoy's Ring::chooseHost and Jedis' tailMap answer.
uint32_t Reference(const ProfileMap& m, uint64_t h) {
  if (m.engine() == Engine::kJedis) h ^= uint64_t{1} << 63;
  const auto pts = m.points();
  const size_t i = static_cast<size_t>(std::lower_bound(pts.begin(), pts.end(), h) - pts.begin());
  return m.point_owners()[i == pts.size() ? 0 : i];
}

std::vector<Node> Nodes(uint32_t n, bool weighted) {
  std::vector<Node> nodes = MakeNumberedNodes(n);
  for (uint32_t i = 0; weighted && i < n; ++i) nodes[i].weight = 1 + i % 5;
  return nodes;
}

// The hashes to probe: the edges, each point and its neighbours, each
// bucket's possible start (top bits, every width), and random ones.
std::vector<uint64_t> Probes(const ProfileMap& m, uint64_t seed) {
  const uint64_t flip = m.engine() == Engine::kJedis ? uint64_t{1} << 63 : 0;
  std::vector<uint64_t> h = {0, 1, kMax, kMax - 1, flip, flip - 1};
  for (const uint64_t p : m.points()) {
    for (const uint64_t q : {p - 1, p, p + 1}) h.push_back(q ^ flip);
  }
  for (int bits = 1; bits <= 24; ++bits) {
    for (uint64_t b = 0; b < 64; ++b) h.push_back((b << (64 - bits)) ^ flip);
  }
  SplitMix64 rng(seed);
  for (int i = 0; i < 50000; ++i) h.push_back(rng.Next());
  return h;
}

TEST(ProfileMapSearch, EqualsLowerBoundOverThePoints) {
  for (const std::string name : {"envoy-ring", "jedis"}) {
    for (const uint32_t n : {1u, 2u, 3u, 10u, 100u, 1000u}) {
      for (const bool weighted : {false, true}) {
        const ProfileMap m = ProfileMap::Build(MakeProfile(name), Nodes(n, weighted));
        for (const uint64_t h : Probes(m, n)) {
          ASSERT_EQ(m.LocateHash(h), Reference(m, h))
              << name << " n=" << n << " weighted=" << weighted << " hash " << h;
        }
      }
    }
  }
}

// Every key in its own heap block of exactly its length, so that a sanitizer
// build catches a read past a key's end.
struct Keys {
  std::vector<std::unique_ptr<char[]>> blocks;
  std::vector<std::string_view> views;
  void Add(const std::string& k) {
    blocks.push_back(std::make_unique<char[]>(k.size()));
    std::copy(k.begin(), k.end(), blocks.back().get());
    views.emplace_back(blocks.back().get(), k.size());
  }
};

Keys KeysOfEveryLength() {
  Keys keys;
  SplitMix64 rng(11);
  for (size_t len = 0; len <= 300; ++len) {
    keys.Add(std::string(len, '\0'));
    keys.Add(std::string(len, '\xff'));
    for (int copy = 0; copy < 4; ++copy) {
      std::string k(len, '\0');
      for (char& c : k) c = static_cast<char>(rng.Next());
      keys.Add(k);
    }
  }
  return keys;
}

TEST(ProfileMapSearch, LocateBatchEqualsLocateOnKeysOf0To300Bytes) {
  const Keys keys = KeysOfEveryLength();
  for (const std::string name : {"envoy-ring", "envoy-maglev", "jedis"}) {
    const ProfileMap m = ProfileMap::Build(MakeProfile(name), Nodes(100, true));
    std::vector<uint32_t> got(keys.views.size(), 0xdeadbeef);
    m.LocateBatch(keys.views, got);
    for (size_t i = 0; i < keys.views.size(); ++i) {
      ASSERT_EQ(got[i], m.Locate(keys.views[i]))
          << name << " key #" << i << " length " << keys.views[i].size();
    }
  }
}

// The 64-bit key hashes the profiles use, batched (the branch-free path for
// 8..31 bytes) against the hasher key by key, on keys of all zeros, all
// 0xff and random bytes.
TEST(ProfileMapSearch, BatchedKeyHashesEqualTheReference) {
  const Keys keys = KeysOfEveryLength();
  for (const std::string name : {"xxh64", "jedis_murmur", "envoy_murmur2"}) {
    const Hasher& h = GetHasher(name);
    std::vector<uint64_t> got(keys.views.size(), 0);
    HashBatch(h, keys.views, got);
    for (size_t i = 0; i < keys.views.size(); ++i) {
      ASSERT_EQ(got[i], h(keys.views[i]))
          << name << " key #" << i << " length " << keys.views[i].size();
    }
  }
}

}  // namespace
}  // namespace chsim
