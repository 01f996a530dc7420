// SPDX-License-Identifier: Apache-2.0
// Ring tests in the style of Envoy's ring-hash tests: a tiny golden ring whose
// points are chosen by a transparent test hasher, probed at 0, at an exact
// point, at point+1, past the last point (wrap) and at the maximum; then the
// bucket index checked against std::lower_bound on many rings, and the
// structural shares against a brute-force count.
#include "chsim/ring.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <string>
#include <vector>

#include "sim/base/rng.h"

namespace chsim {
namespace {

// Test hasher: the leading decimal number of the key ("300-0" -> 300).
uint64_t LeadingNumber(const void* data, size_t len) noexcept {
  const char* p = static_cast<const char*>(data);
  uint64_t v = 0;
  std::from_chars(p, p + len, v);
  return v;
}
const Hasher kNumber{"number", "leading decimal number", LeadingNumber, 32};

Node N(std::string label) {
  Node n;
  n.label = n.host = label;
  return n;
}

Profile Tiny(TieRule tie, DuplicatePoints dup, LookupEdge edge) {
  Profile p = ResearchProfile(kNumber, 1);
  p.key_format = PointKeyFormat::kLabel;
  p.tie = tie;
  p.duplicates = dup;
  p.edge = edge;
  return p;
}

// Golden ring (one point per node):
//   point 100 -> node 0 ("100")
//   point 200 -> node 1 ("200")
//   point 300 -> node 2 ("300")
TEST(Ring, TinyGoldenRingGreaterEqual) {
  std::vector<Node> nodes = {N("200"), N("100"), N("300")};
  Ring r = Ring::Build(Tiny(TieRule::kLaterWins, DuplicatePoints::kDrop, LookupEdge::kGreaterEqual),
                       nodes);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(std::vector<uint32_t>(r.points().begin(), r.points().end()),
            (std::vector<uint32_t>{100, 200, 300}));
  EXPECT_EQ(r.LocateHash(0), 1u);    // before the first point
  EXPECT_EQ(r.LocateHash(100), 1u);  // exactly a point
  EXPECT_EQ(r.LocateHash(101), 0u);  // point + 1
  EXPECT_EQ(r.LocateHash(200), 0u);
  EXPECT_EQ(r.LocateHash(300), 2u);
  EXPECT_EQ(r.LocateHash(301), 1u);         // past the last point: wrap
  EXPECT_EQ(r.LocateHash(UINT32_MAX), 1u);  // maximum
  EXPECT_EQ(r.Locate("150"), 0u);
}

TEST(Ring, TinyGoldenRingGreater) {
  std::vector<Node> nodes = {N("100"), N("200"), N("300")};
  Ring r = Ring::Build(
      Tiny(TieRule::kLaterWins, DuplicatePoints::kKeepAsWinner, LookupEdge::kGreater), nodes);
  EXPECT_EQ(r.LocateHash(0), 0u);
  EXPECT_EQ(r.LocateHash(99), 0u);
  EXPECT_EQ(r.LocateHash(100), 1u);  // equal goes to the next point
  EXPECT_EQ(r.LocateHash(299), 2u);
  EXPECT_EQ(r.LocateHash(300), 0u);  // wrap
  EXPECT_EQ(r.LocateHash(UINT32_MAX), 0u);
}

// Nodes "100a" and "100b" both produce point 100.
TEST(Ring, TieRules) {
  std::vector<Node> nodes = {N("100a"), N("200"), N("100b")};
  {
    Ring r = Ring::Build(
        Tiny(TieRule::kLaterWins, DuplicatePoints::kDrop, LookupEdge::kGreaterEqual), nodes);
    EXPECT_EQ(r.size(), 2u);  // spymemcached: loser's point gone
    EXPECT_EQ(r.LocateHash(100), 2u);
  }
  {
    Ring r = Ring::Build(
        Tiny(TieRule::kEarlierWins, DuplicatePoints::kKeep, LookupEdge::kGreaterEqual), nodes);
    ASSERT_EQ(r.size(), 3u);  // libmemcached: both kept, earlier first
    EXPECT_EQ(r.owners()[0], 0u);
    EXPECT_EQ(r.owners()[1], 2u);
    EXPECT_EQ(r.LocateHash(50), 0u);
    EXPECT_EQ(r.LocateHash(100), 0u);
  }
  {
    Ring r = Ring::Build(
        Tiny(TieRule::kLaterWins, DuplicatePoints::kKeepAsWinner, LookupEdge::kGreater), nodes);
    ASSERT_EQ(r.size(), 3u);  // uhashring: both kept, both owned by the winner
    EXPECT_EQ(r.owners()[0], 2u);
    EXPECT_EQ(r.owners()[1], 2u);
    EXPECT_EQ(r.LocateHash(99), 2u);
    EXPECT_EQ(r.LocateHash(100), 1u);
  }
}

TEST(Ring, StructuralSharesOfTinyRing) {
  std::vector<Node> nodes = {N("100"), N("200"), N("300")};
  Ring r = Ring::Build(Tiny(TieRule::kLaterWins, DuplicatePoints::kDrop, LookupEdge::kGreaterEqual),
                       nodes);
  std::vector<uint64_t> arcs = r.ArcLengths();
  EXPECT_EQ(arcs[0], (uint64_t{1} << 32) - 300 + 100);
  EXPECT_EQ(arcs[1], 100u);
  EXPECT_EQ(arcs[2], 100u);
}

// Reference: std::lower_bound on the point array, with wrap: the entry a
// clockwise walk starts at (ReferenceIndex, LocateIndex's answer) and its
// owner (Reference, LocateHash's answer).
size_t ReferenceIndex(const Ring& r, uint32_t h, bool greater) {
  auto pts = r.points();
  auto it = greater ? std::upper_bound(pts.begin(), pts.end(), h)
                    : std::lower_bound(pts.begin(), pts.end(), h);
  return it == pts.end() ? 0 : static_cast<size_t>(it - pts.begin());
}
uint32_t Reference(const Ring& r, uint32_t h, bool greater) {
  return r.owners()[ReferenceIndex(r, h, greater)];
}

TEST(Ring, BucketIndexEqualsLowerBound) {
  struct Case {
    const char* profile;
    const char* alg;
    uint32_t nodes;
  };
  for (Case c :
       {Case{"spymemcached", "", 1}, Case{"spymemcached", "", 7}, Case{"spymemcached", "", 300},
        Case{"spymemcached", "CRC_HASH", 50}, Case{"uhashring", "", 40},
        Case{"libmemcached-ketama", "", 33}, Case{"twemproxy", "", 100}}) {
    Profile p = MakeProfile(c.profile, ProfileOptions{c.alg, ""});
    Ring r = Ring::Build(p, MakeNumberedNodes(c.nodes));
    bool greater = p.edge == LookupEdge::kGreater;
    sim::SplitMix64 rng(c.nodes);
    std::vector<uint32_t> probes = {0, 1, UINT32_MAX, UINT32_MAX - 1};
    for (uint32_t pt : r.points()) {
      probes.push_back(pt);
      probes.push_back(pt + 1);
      probes.push_back(pt - 1);
    }
    for (int i = 0; i < 20000; ++i) probes.push_back(static_cast<uint32_t>(rng.Next() >> 32));
    for (int i = 0; i < 2000; ++i)
      probes.push_back(static_cast<uint32_t>(rng.Next() >> 32) & 0x7fff);  // CRC's 15-bit range
    for (uint32_t h : probes) {
      ASSERT_EQ(r.LocateHash(h), Reference(r, h, greater))
          << c.profile << " " << c.alg << " h=" << h;
    }
  }
}

TEST(Ring, SharesSumToOneAndMatchSampling) {
  Ring r = Ring::Build(MakeProfile("spymemcached"), MakeNumberedNodes(10));
  std::vector<double> shares = r.StructuralShares();
  double sum = 0;
  for (double s : shares) sum += s;
  EXPECT_NEAR(sum, 1.0, 1e-12);
  // A strided sweep over the whole hash space estimates each share.
  std::vector<uint64_t> count(10);
  const uint32_t step = 4099;
  uint64_t total = 0;
  for (uint64_t h = 0; h <= UINT32_MAX; h += step, ++total) ++count[r.LocateHash(uint32_t(h))];
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_NEAR(double(count[i]) / double(total), shares[i], 2e-4) << i;
  }
}

TEST(Ring, SpymemcachedThreeServerPointCount) {
  Ring r = Ring::Build(MakeProfile("spymemcached"), MakeNumberedNodes(3));
  EXPECT_EQ(r.size(), 480u);
  EXPECT_TRUE(std::is_sorted(r.points().begin(), r.points().end()));
}

TEST(Ring, RejectsEmpty) {
  EXPECT_THROW(Ring::Build(MakeProfile("spymemcached"), {}), std::invalid_argument);
}

// libmemcached-ketama: weights of 1 (even spelled out) keep the 100-point
// one-per-hash ring; a weight above 1 switches to the weighted MD5 ring.
TEST(Ring, LibmemcachedKetamaWeightSwitch) {
  std::vector<Node> nodes = MakeNumberedNodes(3);
  Profile p = MakeProfile("libmemcached-ketama");
  EXPECT_EQ(Ring::Build(p, nodes, /*weighted=*/true).size(), 300u);
  nodes[1].weight = 2;
  // 160-base float formula: floor(w/W * 40 * 3) * 4 -> 120, 240, 120.
  EXPECT_EQ(Ring::Build(p, nodes).size(), 480u);
}

TEST(Ring, LargeListsDoNotAbort) {
  // libmemcached asserts above 100 servers; chsim serves them.
  Ring r = Ring::Build(MakeProfile("libmemcached"), MakeNumberedNodes(2000));
  EXPECT_GT(r.size(), 2000u * 150);
  EXPECT_LT(r.Locate("any key"), 2000u);
}

// Test hasher for crowded buckets: 12-bit values, so a ring of thousands of
// points sits in the first bucket (and its first few in long runs of equal
// points), and every lookup below 4096 takes the crowded path.
uint64_t Narrow(const void* data, size_t len) noexcept { return HashFnv1a_32(data, len) & 0xFFF; }
const Hasher kNarrow{"narrow", "12-bit fnv1a", Narrow, 32};

void ExpectEqualsReference(const Ring& r, bool greater, uint64_t seed, const std::string& what) {
  sim::SplitMix64 rng(seed);
  std::vector<uint32_t> probes = {0, 1, 2, 4095, 4096, UINT32_MAX, UINT32_MAX - 1};
  for (uint32_t pt : r.points()) {
    probes.push_back(pt);
    probes.push_back(pt + 1);
    probes.push_back(pt - 1);
  }
  for (int i = 0; i < 5000; ++i) probes.push_back(static_cast<uint32_t>(rng.Next() >> 32));
  for (int i = 0; i < 5000; ++i) probes.push_back(static_cast<uint32_t>(rng.Next() >> 32) & 0x1FFF);
  std::vector<uint32_t> batch(probes.size());
  r.LocateHashBatch(probes, batch);
  for (size_t i = 0; i < probes.size(); ++i) {
    const uint32_t want = Reference(r, probes[i], greater);
    ASSERT_EQ(r.LocateHash(probes[i]), want) << what << " h=" << probes[i];
    ASSERT_EQ(batch[i], want) << what << " batch h=" << probes[i];
    ASSERT_EQ(r.LocateIndex(probes[i]), ReferenceIndex(r, probes[i], greater))
        << what << " index h=" << probes[i];
  }
}

TEST(Ring, CrowdedBucketsEqualLowerBound) {
  for (TieRule tie : {TieRule::kLaterWins, TieRule::kEarlierWins}) {
    for (DuplicatePoints dup :
         {DuplicatePoints::kDrop, DuplicatePoints::kKeep, DuplicatePoints::kKeepAsWinner}) {
      for (LookupEdge edge : {LookupEdge::kGreaterEqual, LookupEdge::kGreater}) {
        for (uint32_t nodes : {1u, 3u, 40u}) {
          Profile p = ResearchProfile(kNarrow, 100);
          p.tie = tie;
          p.duplicates = dup;
          p.edge = edge;
          Ring r = Ring::Build(p, MakeNumberedNodes(nodes));
          // 4,000 points in 4,096 values: runs of equal points whatever the rule.
          if (dup != DuplicatePoints::kDrop) {
            ASSERT_EQ(r.size(), nodes * 100u);
          }
          ExpectEqualsReference(
              r, edge == LookupEdge::kGreater, nodes,
              "narrow/" + std::to_string(nodes) + "/" + std::to_string(static_cast<int>(dup)));
        }
      }
    }
  }
}

// Every ring size from 1 to 80 points (bucket counts 2..64, sizes on both
// sides of each power of two), and a few large ones, both edges.
TEST(Ring, EveryRingSizeEqualsLowerBound) {
  std::vector<uint32_t> sizes;
  for (uint32_t n = 1; n <= 80; ++n) sizes.push_back(n);
  for (uint32_t n : {255u, 256u, 257u, 4095u, 4096u, 4097u, 65536u}) sizes.push_back(n);
  for (uint32_t n : sizes) {
    for (LookupEdge edge : {LookupEdge::kGreaterEqual, LookupEdge::kGreater}) {
      Profile p = ResearchProfile(GetHasher("xxh3"), n);
      p.edge = edge;
      p.duplicates = DuplicatePoints::kKeep;  // exactly n points
      Ring r = Ring::Build(p, MakeNumberedNodes(1));
      ASSERT_EQ(r.size(), n);
      ExpectEqualsReference(r, edge == LookupEdge::kGreater, n, "size " + std::to_string(n));
    }
  }
}

// Ring's XXH3 is xxHash's header code inlined; it must equal the registry's
// HashXxh3 (libxxhash) on every length path of XXH3 (0-16, 17-128, 129-240, 241+).
TEST(Ring, InlinedXxh3EqualsLibrary) {
  Ring r = Ring::Build(ResearchProfile(GetHasher("xxh3"), 160), MakeNumberedNodes(50));
  sim::SplitMix64 rng(7);
  std::string key;
  for (size_t len = 0; len <= 1100; ++len) {
    for (int rep = 0; rep < 4; ++rep) {
      key.resize(len);
      for (char& c : key) c = static_cast<char>(rng.Next() >> 56);
      const uint32_t want = static_cast<uint32_t>(HashXxh3(key.data(), key.size()));
      ASSERT_EQ(r.HashKey(key), want) << "len " << len;
      ASSERT_EQ(r.Locate(key), r.LocateHash(want)) << "len " << len;
    }
  }
}

// LocateBatch = Locate for every key, under an md5, an xxh3 and an fnv key
// hasher, across chunk boundaries and for keys of 0 to 300 bytes.
TEST(Ring, LocateBatchEqualsLocate) {
  std::vector<std::string> keys;
  sim::SplitMix64 rng(11);
  for (int i = 0; i < 1000; ++i) {
    std::string k(rng.Next() % 301, 'x');
    for (char& c : k) c = static_cast<char>('a' + rng.Next() % 26);
    keys.push_back(k);
  }
  std::vector<std::string_view> views(keys.begin(), keys.end());
  for (const char* profile : {"spymemcached", "research-xxh3", "research-fnv1a_32"}) {
    const std::string name = profile;
    Profile p = name.rfind("research-", 0) == 0 ? ResearchProfile(GetHasher(name.substr(9)), 160)
                                                : MakeProfile(name);
    Ring r = Ring::Build(p, MakeNumberedNodes(100));
    for (size_t n : {size_t{0}, size_t{1}, size_t{255}, size_t{256}, size_t{257}, size_t{1000}}) {
      std::vector<uint32_t> out(n + 1, 12345);
      r.LocateBatch(std::span(views).first(n), out);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], r.Locate(views[i])) << profile << " " << i;
      EXPECT_EQ(out[n], 12345u) << "wrote past the keys";
    }
  }
}

// The strided views behave as random-access ranges over the ring.
TEST(Ring, PointAndOwnerViews) {
  Ring r = Ring::Build(MakeProfile("libmemcached"), MakeNumberedNodes(20));
  auto pts = r.points();
  auto owners = r.owners();
  ASSERT_EQ(pts.size(), r.size());
  ASSERT_EQ(owners.size(), r.size());
  EXPECT_FALSE(pts.empty());
  EXPECT_EQ(pts.end() - pts.begin(), static_cast<std::ptrdiff_t>(r.size()));
  EXPECT_EQ(std::distance(owners.begin(), owners.end()), static_cast<std::ptrdiff_t>(r.size()));
  for (size_t i = 0; i < pts.size(); ++i) {
    EXPECT_EQ(pts[i], *(pts.begin() + static_cast<std::ptrdiff_t>(i)));
    EXPECT_EQ(pts.begin()[static_cast<std::ptrdiff_t>(i)], pts[i]);
    EXPECT_LT(owners[i], 20u);
    // The first entry of each run owns its point under >=.
    if (i == 0 || pts[i - 1] != pts[i]) {
      EXPECT_EQ(r.LocateHash(pts[i]), owners[i]);
    }
  }
  EXPECT_TRUE(std::is_sorted(pts.begin(), pts.end()));
  auto mid = std::lower_bound(pts.begin(), pts.end(), pts[pts.size() / 2]);
  EXPECT_LE(static_cast<size_t>(mid - pts.begin()), pts.size() / 2);
  EXPECT_EQ(*mid, pts[pts.size() / 2]);
  EXPECT_TRUE(Ring().points().empty());
}

// Memory: 8 bytes per entry plus an index of fewer buckets than points (so
// under 12 bytes per point), every byte counted.
TEST(Ring, MemoryBytesPerPoint) {
  for (uint32_t n : {10u, 100u, 1000u}) {
    Ring r = Ring::Build(MakeProfile("spymemcached"), MakeNumberedNodes(n));
    const double per_point = static_cast<double>(r.MemoryBytes()) / static_cast<double>(r.size());
    EXPECT_GE(r.MemoryBytes(), sizeof(Ring) + (r.size() + 4) * sizeof(Ring::Entry));
    EXPECT_GE(per_point, 8.0) << n;
    EXPECT_LE(per_point, 12.5) << n;
  }
}

// nginx's split of the server text (ngx_http_upstream_init_chash).
TEST(NginxProfile, HostPortSplit) {
  auto split = [](std::string_view s) {
    const HostPort hp = NginxHostPort(s);
    return std::string(hp.host) + "|" + std::string(hp.port);
  };
  EXPECT_EQ(split("127.0.0.1:8080"), "127.0.0.1|8080");
  EXPECT_EQ(split("localhost"), "localhost|");
  EXPECT_EQ(split("[::1]:80"), "[::1]|80");
  EXPECT_EQ(split("UNIX:/tmp/s:1"), "/tmp/s:1|");
  EXPECT_EQ(split("a:b1"), "a:b1|");
  EXPECT_EQ(split("host:"), "host|");
}

// A tiny nginx ring, its points recomputed here with zlib (the CRC chain of
// ngx_http_upstream_init_chash; nginx itself: tests/compat/golden-proxies),
// probed at 0, the maximum, the lowest and highest points and a middle one,
// each +- 1: the first point >= h, wrapping to the lowest.
TEST(NginxProfile, TinyRingProbes) {
  std::vector<Node> nodes(2);
  nodes[0].label = "127.0.0.1:18001";
  nodes[1].label = "localhost:18002";
  nodes[1].weight = 2;
  std::map<uint32_t, uint32_t> want;  // point -> owner, the first made kept
  for (uint32_t owner = 0; owner < 2; ++owner) {
    const std::string text = owner == 0 ? std::string(
                                              "127.0.0.1\0"
                                              "18001",
                                              15)
                                        : std::string(
                                              "localhost\0"
                                              "18002",
                                              15);
    const uLong base = crc32(0L, reinterpret_cast<const Bytef*>(text.data()), 15);
    uint32_t prev = 0;
    for (uint32_t j = 0; j < 160 * nodes[owner].weight; ++j) {
      const unsigned char le[4] = {
          static_cast<unsigned char>(prev), static_cast<unsigned char>(prev >> 8),
          static_cast<unsigned char>(prev >> 16), static_cast<unsigned char>(prev >> 24)};
      prev = static_cast<uint32_t>(crc32(base, le, 4));
      want.emplace(prev, owner);
    }
  }
  const Ring r = Ring::Build(MakeProfile("nginx"), nodes);
  ASSERT_EQ(r.size(), want.size());
  const uint32_t lo = want.begin()->first, hi = want.rbegin()->first;
  const uint32_t mid = std::next(want.begin(), static_cast<long>(want.size() / 2))->first;
  for (const uint32_t h :
       {0u, UINT32_MAX, lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, mid - 1, mid, mid + 1}) {
    auto it = want.lower_bound(h);
    const uint32_t expect = it == want.end() ? want.begin()->second : it->second;
    EXPECT_EQ(r.LocateHash(h), expect) << "h=" << h;
  }
  EXPECT_EQ(
      r.Locate("hello"),
      r.LocateHash(static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>("hello"), 5))));
}

// nginx `hash KEY`: v = (crc32 >> 16) & 0x7fff, v % total weight walked down
// the weights in list order; probed at 0, 1, 2, 3 and the last value, and its
// exact shares (32768 values: 10923 with v % 3 == 0).
TEST(NginxProfile, ModuloProbesAndShares) {
  std::vector<Node> nodes = MakeNumberedNodes(2);
  nodes[1].weight = 2;
  const Ring r = Ring::Build(MakeProfile("nginx-hash"), nodes);
  EXPECT_EQ(r.LocateHash(0), 0u);
  EXPECT_EQ(r.LocateHash(1), 1u);
  EXPECT_EQ(r.LocateHash(2), 1u);
  EXPECT_EQ(r.LocateHash(3), 0u);
  EXPECT_EQ(r.LocateHash(32767), 1u);  // 32767 % 3 == 1
  const std::vector<uint64_t> arcs = r.ArcLengths();
  ASSERT_EQ(arcs.size(), 2u);
  EXPECT_EQ(arcs[0], uint64_t{10923} << 17);
  EXPECT_EQ(arcs[1], uint64_t{21845} << 17);
}

// Varnish's VRT_HashStrands32, recomputed here with OpenSSL's EVP SHA-256:
// the last 4 digest bytes, little-endian.
uint32_t VarnishHash(const std::string& s) {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EXPECT_EQ(EVP_Digest(s.data(), s.size(), d, &len, EVP_sha256(), nullptr), 1);
  EXPECT_EQ(len, 32u);
  return uint32_t{d[28]} | uint32_t{d[29]} << 8 | uint32_t{d[30]} << 16 | uint32_t{d[31]} << 24;
}

// A tiny Varnish shard ring (points: ident + decimal j, 67 per weight, ident
// = NAME else the label; varnishd itself: tests/compat/golden-proxies),
// probed at 0, the maximum, the lowest, highest and a middle point, each
// +- 1: the first point >= h, and past the highest point that point's owner,
// not the lowest's (no wrap).
TEST(VarnishProfile, TinyRingProbesDoNotWrap) {
  std::vector<Node> nodes(2);
  nodes[0].label = "b1";
  nodes[1].label = "web-01";
  nodes[1].name = "cache.example.com:8080";
  nodes[1].weight = 2;
  std::map<uint32_t, uint32_t> want;  // point -> owner
  for (uint32_t owner = 0; owner < 2; ++owner) {
    const std::string ident = owner == 0 ? "b1" : "cache.example.com:8080";
    for (uint32_t j = 0; j < 67 * nodes[owner].weight; ++j) {
      ASSERT_TRUE(want.emplace(VarnishHash(ident + std::to_string(j)), owner).second);
    }
  }
  const Ring r = Ring::Build(MakeProfile("varnish"), nodes);
  ASSERT_EQ(r.size(), want.size());
  EXPECT_TRUE(std::equal(r.points().begin(), r.points().end(), want.begin(), want.end(),
                         [](uint32_t p, const auto& w) { return p == w.first; }));
  const uint32_t lo = want.begin()->first, hi = want.rbegin()->first;
  ASSERT_NE(want.begin()->second, want.rbegin()->second) << "the probe past hi tells nothing";
  ASSERT_LT(hi, UINT32_MAX);
  const uint32_t mid = std::next(want.begin(), static_cast<long>(want.size() / 2))->first;
  for (const uint32_t h :
       {0u, UINT32_MAX, lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, mid - 1, mid, mid + 1}) {
    auto it = want.lower_bound(h);
    const uint32_t expect = it == want.end() ? want.rbegin()->second : it->second;
    EXPECT_EQ(r.LocateHash(h), expect) << "h=" << h;
  }
  EXPECT_EQ(r.Locate("hello"), r.LocateHash(VarnishHash("hello")));
  // Exact shares without the wrap: [0, lo] to lo's owner, (hi, 2^32) to hi's.
  std::vector<uint64_t> arcs(2, 0);
  bool first = true;
  uint32_t prev = 0;
  for (const auto& [point, owner] : want) {
    arcs[owner] += first ? uint64_t{point} + 1 : point - prev;
    first = false;
    prev = point;
  }
  arcs[want.rbegin()->second] += (uint64_t{1} << 32) - 1 - hi;
  EXPECT_EQ(r.ArcLengths(), arcs);
}

// ident + decimal j has no separator: "b1" + "10" is "b11" + "0", so b1's
// points j = 10..19 are b11's first ten. Both are kept; below the shared
// point the first in list order answers (glibc's qsort keeps list order), and
// a hash above the largest point goes to the last entry.
TEST(VarnishProfile, IdentPrefixesShareEqualPoints) {
  for (const bool b1_first : {true, false}) {
    std::vector<Node> nodes(2);
    nodes[0].label = b1_first ? "b1" : "b11";
    nodes[1].label = b1_first ? "b11" : "b1";
    const Ring r = Ring::Build(MakeProfile("varnish"), nodes);
    ASSERT_EQ(r.size(), 134u);
    const uint32_t shared = VarnishHash("b110");
    auto points = r.points();
    const auto at = std::lower_bound(points.begin(), points.end(), shared);
    ASSERT_TRUE(at != points.end() && *at == shared && at[1] == shared);
    EXPECT_EQ(r.LocateHash(shared - 1), 0u) << b1_first;
    EXPECT_EQ(r.LocateHash(shared), 0u) << b1_first;
    size_t equal = 0;
    for (size_t i = 1; i < points.size(); ++i) equal += points[i] == points[i - 1];
    EXPECT_EQ(equal, 10u);
  }
}

TEST(VarnishProfile, ReplicasAndRefusals) {
  std::vector<Node> nodes = MakeNumberedNodes(3);
  nodes[2].weight = 3;
  EXPECT_EQ(Ring::Build(MakeProfile("varnish"), nodes).size(), 67u * 5);
  ProfileOptions r100;
  r100.replicas = 100;
  EXPECT_EQ(Ring::Build(MakeProfile("varnish", r100), nodes).size(), 500u);
  EXPECT_THROW(MakeProfile("spymemcached", r100), std::invalid_argument);
  nodes[1].name = nodes[0].label;  // the same ident twice: Varnish skips the second
  EXPECT_THROW(Ring::Build(MakeProfile("varnish"), nodes), std::invalid_argument);
}

}  // namespace
}  // namespace chsim
