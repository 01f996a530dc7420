// SPDX-License-Identifier: Apache-2.0
// The load-balancer profiles beyond nginx and Varnish, on tiny rings checked
// against a reading of each program's lookup written out here (the programs
// themselves: tests/compat/golden-proxies, check_golden.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "chsim/ring.h"
#include "test_nodes.h"

namespace chsim {
namespace {

// HAProxy's chash_get_server_hash, read as written: next = the first point
// >= h (else the first), prev = the one before it (else the last); the
// unsigned distances dp = h - prev and dn = next - h; dp <= dn takes prev.
uint32_t HaproxyNearest(const std::map<uint32_t, uint32_t>& points, uint32_t h) {
  auto next = points.lower_bound(h);
  if (next == points.end()) next = points.begin();
  auto prev = next == points.begin() ? std::prev(points.end()) : std::prev(next);
  const uint32_t dp = h - prev->first, dn = next->first - h;
  return dp <= dn ? prev->second : next->second;
}

TEST(HaproxyProfile, ServerIdsAsHaproxyNumbersThem) {
  // The counter passes every server: after `id 1` on the second server the
  // third takes 4, not the unused 3 (cfgparse.c check_config_validity).
  std::vector<Node> nodes = {TestNode("a"), TestNode("b", 1, "1"), TestNode("c"),
                             TestNode("d", 1, "3"), TestNode("e")};
  EXPECT_EQ(HaproxyServerIds(nodes), (std::vector<uint32_t>{2, 1, 4, 3, 6}));
  nodes = {TestNode("a", 1, "7"), TestNode("b", 1, "3"), TestNode("c"), TestNode("d"),
           TestNode("e")};
  EXPECT_EQ(HaproxyServerIds(nodes), (std::vector<uint32_t>{7, 3, 4, 5, 6}));
  nodes = {TestNode("a"), TestNode("b"), TestNode("c")};
  EXPECT_EQ(HaproxyServerIds(nodes), (std::vector<uint32_t>{1, 2, 3}));
}

// Two servers (ids 1 and 9, weights 1 and 2: 16 and 32 points): every point
// -1, +0, +1, every boundary of the nearest rule (floor((a + b) / 2) and one
// past it, where a tie dp == dn goes to the lower point), 0 and 2^32-1.
TEST(HaproxyProfile, TinyRingIsTheNearestPoint) {
  const std::vector<Node> nodes = {TestNode("s1"), TestNode("s2", 2, "9")};
  std::map<uint32_t, uint32_t> want;
  for (uint32_t j = 0; j < 16; ++j) want.emplace(HaproxyFullHash(1 * 4096 + j), 0);
  for (uint32_t j = 0; j < 32; ++j) want.emplace(HaproxyFullHash(9 * 4096 + j), 1);
  ASSERT_EQ(want.size(), 48u);
  const Ring r = Ring::Build(MakeProfile("haproxy"), nodes);
  std::vector<uint32_t> probes = {0, UINT32_MAX};
  for (auto it = want.begin(); it != want.end(); ++it) {
    const uint32_t p = it->first;
    probes.insert(probes.end(), {p - 1, p, p + 1});
    const uint64_t next = std::next(it) == want.end() ? (uint64_t{1} << 32) + want.begin()->first
                                                      : uint64_t{std::next(it)->first};
    const uint64_t mid = (p + next) / 2;
    probes.insert(probes.end(), {static_cast<uint32_t>(mid), static_cast<uint32_t>(mid + 1)});
  }
  for (const uint32_t h : probes) EXPECT_EQ(r.LocateHash(h), HaproxyNearest(want, h)) << h;
  // Exact shares: each hash owned as the rule says, counted by arcs between
  // the boundaries; they add up to 2^32.
  const std::vector<uint64_t> arcs = r.ArcLengths();
  EXPECT_EQ(arcs[0] + arcs[1], uint64_t{1} << 32);
  uint64_t sampled[2] = {0, 0};
  for (uint64_t h = 0; h < (uint64_t{1} << 32); h += 65537) ++sampled[HaproxyNearest(want, h)];
  const double n = static_cast<double>(sampled[0] + sampled[1]);
  EXPECT_NEAR(static_cast<double>(sampled[0]) / n, static_cast<double>(arcs[0]) / 4294967296.0,
              0.002);
}

// A tie: points a and b with a + b even put h = (a + b) / 2 at equal
// distances, and HAProxy takes the lower point (dp <= dn).
TEST(HaproxyProfile, EquidistantHashGoesToTheLowerPoint) {
  const std::vector<Node> nodes = {TestNode("s1"), TestNode("s2"), TestNode("s3")};
  const Ring r = Ring::Build(MakeProfile("haproxy"), nodes);
  std::map<uint32_t, uint32_t> want;
  for (uint32_t s = 0; s < 3; ++s) {
    for (uint32_t j = 0; j < 16; ++j) want.emplace(HaproxyFullHash((s + 1) * 4096 + j), s);
  }
  int ties = 0;
  for (auto it = want.begin(); std::next(it) != want.end(); ++it) {
    const auto next = std::next(it);
    if ((it->first + uint64_t{next->first}) % 2 != 0 || it->second == next->second) continue;
    const uint32_t h = static_cast<uint32_t>((it->first + uint64_t{next->first}) / 2);
    EXPECT_EQ(r.LocateHash(h), it->second);
    EXPECT_EQ(r.LocateHash(h + 1), next->second);
    ++ties;
  }
  EXPECT_GT(ties, 0);
}

TEST(HaproxyProfile, KeyHashersAndRefusals) {
  EXPECT_EQ(MakeProfile("haproxy").key_hasher->name, "sdbm_avalanche");
  for (const char* h :
       {"sdbm", "djb2", "djb2_avalanche", "wt6", "wt6_avalanche", "crc32", "crc32_avalanche"}) {
    EXPECT_EQ(MakeProfile("haproxy", ProfileOptions{"", h}).key_hasher->name, h);
  }
  try {
    MakeProfile("haproxy", ProfileOptions{"", "md5"});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("valid: sdbm_avalanche, sdbm, djb2"), std::string::npos)
        << e.what();
  }
  const Profile p = MakeProfile("haproxy");
  auto refused = [&](std::vector<Node> nodes, const std::string& part) {
    try {
      Ring::Build(p, nodes);
      ADD_FAILURE() << "accepted; wanted: " << part;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  refused({TestNode("a", 1, "5"), TestNode("b", 1, "5")}, "have the same id 5");
  refused({TestNode("a", 1, "0")}, "accepted: an integer 1..2147483647");
  refused({TestNode("a", 1, "x7")}, "is not an HAProxy server id");
  refused({TestNode("a", 257)}, "weight 257 is above what haproxy accepts (1..256)");
  // id x 4096 wraps at 2^32: ids 1 and 1 + 2^20 give the same points.
  refused({TestNode("a", 1, "1"), TestNode("b", 1, "1048577")}, "whose points coincide");
  const std::vector<Node> one = {TestNode("a", 256)};
  EXPECT_EQ(Ring::Build(p, one).size(), 2u * 256 * 16);
}

// The hash functions, against values worked by hand from HAProxy's
// definitions (src/hash.c): sdbm h = c + (h << 6) + (h << 16) - h, djb2
// h = 33 h + c from 5381.
TEST(HaproxyProfile, HashFunctions) {
  const Hasher& sdbm = GetHasher("sdbm");
  const Hasher& djb2 = GetHasher("djb2");
  EXPECT_EQ(sdbm(""), 0u);
  EXPECT_EQ(sdbm("a"), 97u);
  EXPECT_EQ(sdbm("ab"), 97u * 65599u + 98u);
  EXPECT_EQ(sdbm("\xff"), 255u);  // bytes unsigned
  EXPECT_EQ(djb2(""), 5381u);
  EXPECT_EQ(djb2("a"), 5381u * 33u + 97u);
  EXPECT_EQ(GetHasher("sdbm_avalanche")("ab"), HaproxyFullHash(97u * 65599u + 98u));
  EXPECT_EQ(GetHasher("crc32_avalanche")("abc"), HaproxyFullHash(0x352441c2u));
  // full_hash is a bijection (the profile relies on distinct ids giving
  // distinct points): no collision among 2^20 consecutive inputs.
  std::vector<uint32_t> v(1u << 20);
  for (uint32_t i = 0; i < v.size(); ++i) v[i] = HaproxyFullHash(i * 4096u + 7);
  std::sort(v.begin(), v.end());
  EXPECT_EQ(std::adjacent_find(v.begin(), v.end()), v.end());
}

// groupcache's Map: point i of a peer is crc32(decimal i + peer); Get takes the
// first point >= crc32(key), else point 0; hashMap[point] is the peer added
// last among those that made it. "peer" i = 10 and "0peer" i = 1 both hash
// "10peer".
TEST(GroupcacheProfile, TinyRingLaterPeerOwnsEqualPoints) {
  const Hasher& crc = GetHasher("crc32");
  for (const bool peer_first : {true, false}) {
    std::vector<Node> nodes = {TestNode("peer"), TestNode("0peer"),
                               TestNode("h:1", 1, "http://h:1")};
    if (!peer_first) std::swap(nodes[0], nodes[1]);
    std::map<uint32_t, uint32_t> want;  // point -> owner, later Add overwrites
    for (uint32_t owner = 0; owner < nodes.size(); ++owner) {
      const std::string peer = nodes[owner].name.empty() ? nodes[owner].label : nodes[owner].name;
      for (uint32_t i = 0; i < 50; ++i) {
        want[static_cast<uint32_t>(crc(std::to_string(i) + peer))] = owner;
      }
    }
    const Ring r = Ring::Build(MakeProfile("groupcache"), nodes);
    EXPECT_EQ(r.size(), 150u);  // equal points stay in Go's sorted keys
    const uint32_t shared = static_cast<uint32_t>(crc("10peer"));
    ASSERT_EQ(want[shared], 1u);  // whichever of "peer" and "0peer" was added second
    std::vector<uint32_t> probes = {0, UINT32_MAX};
    for (const auto& [p, owner] : want) probes.insert(probes.end(), {p - 1, p, p + 1});
    for (const uint32_t h : probes) {
      auto it = want.lower_bound(h);
      EXPECT_EQ(r.LocateHash(h), it == want.end() ? want.begin()->second : it->second) << h;
    }
  }
}

TEST(GroupcacheProfile, ReplicasHashersAndRefusals) {
  const std::vector<Node> one = {TestNode("a")};
  EXPECT_EQ(Ring::Build(MakeProfile("groupcache"), one).size(), 50u);
  ProfileOptions opt;
  opt.replicas = 3;
  EXPECT_EQ(Ring::Build(MakeProfile("groupcache", opt), one).size(), 3u);
  EXPECT_EQ(MakeProfile("groupcache", ProfileOptions{"", "fnv1a_32"}).key_hasher->name, "fnv1a_32");
  EXPECT_THROW(MakeProfile("groupcache", ProfileOptions{"", "xxh64"}), std::invalid_argument);
  EXPECT_THROW(MakeProfile("haproxy", opt), std::invalid_argument);  // no --points-per-weight
  try {
    const std::vector<Node> weighted = {TestNode("a", 2)};
    Ring::Build(MakeProfile("groupcache"), weighted);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("groupcache takes no weights"), std::string::npos)
        << e.what();
  }
}

// PHP memcache: points crc32("host:port-i"), 160 per weight; bucket i = the
// first point >= i x floor((2^32 - 1) / 1024), else the first point; a key
// goes to bucket crc32(key as sent) % 1024, the key sent with bytes <= ' ' as
// '_' and cut at 250 bytes (mmc_prepare_key_ex).
TEST(PeclMemcacheProfile, BucketsOfTheRing) {
  std::vector<Node> nodes = {TestNode("127.0.0.1:11211"), TestNode("localhost:11212", 3)};
  nodes[0].host = "127.0.0.1";
  nodes[0].port = 11211;
  nodes[1].host = "localhost";
  nodes[1].port = 11212;
  const Hasher& crc = GetHasher("crc32");
  std::map<uint32_t, uint32_t> points;
  for (uint32_t s = 0; s < 2; ++s) {
    const std::string prefix = nodes[s].host + ":" + std::to_string(nodes[s].port) + "-";
    for (uint32_t i = 0; i < 160 * nodes[s].weight; ++i) {
      points.emplace(static_cast<uint32_t>(crc(prefix + std::to_string(i))), s);
    }
  }
  const Ring r = Ring::Build(MakeProfile("pecl-memcache"), nodes);
  EXPECT_EQ(r.space_mask(), 1023u);
  std::vector<uint64_t> per_server(2, 0);
  for (uint32_t b = 0; b < 1024; ++b) {
    auto it = points.lower_bound(b * (UINT32_MAX / 1024));
    const uint32_t want = it == points.end() ? points.begin()->second : it->second;
    EXPECT_EQ(r.LocateHash(b), want) << b;
    ++per_server[want];
  }
  const std::vector<uint64_t> arcs = r.ArcLengths();  // buckets of 2^22 each
  EXPECT_EQ(arcs[0], per_server[0] << 22);
  EXPECT_EQ(arcs[1], per_server[1] << 22);
  for (const std::string& key :
       std::vector<std::string>{"a", "user:1", "x y", std::string(300, 'k')}) {
    std::string sent = key.substr(0, 250);
    for (char& c : sent) c = static_cast<unsigned char>(c) > ' ' ? c : '_';
    EXPECT_EQ(r.Locate(key), r.LocateHash(static_cast<uint32_t>(crc(sent) % 1024))) << key;
  }
  EXPECT_EQ(GetHasher("memcache_crc32")("x y"), GetHasher("memcache_crc32")("x_y"));
  // memcache.hash_function=fnv: FNV-1a over signed chars (0xe9 enters as
  // 0xffffffe9).
  const uint32_t fnv_e9 = (2166136261u ^ 0xffffffe9u) * 16777619u;
  EXPECT_EQ(GetHasher("memcache_fnv")("\xe9"), fnv_e9 % 1024);
}

}  // namespace
}  // namespace chsim
