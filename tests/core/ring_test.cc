// Ring tests in the style of Envoy's ring-hash tests: a tiny golden ring whose
// points are chosen by a transparent test hasher, probed at 0, at an exact
// point, at point+1, past the last point (wrap) and at the maximum; then the
// bucket index checked against std::lower_bound on many rings, and the
// structural shares against a brute-force count.
#include "chsim/ring.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>

#include "chsim/sim/rng.h"

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
  EXPECT_EQ(r.LocateHash(0), 1u);           // before the first point
  EXPECT_EQ(r.LocateHash(100), 1u);         // exactly a point
  EXPECT_EQ(r.LocateHash(101), 0u);         // point + 1
  EXPECT_EQ(r.LocateHash(200), 0u);
  EXPECT_EQ(r.LocateHash(300), 2u);
  EXPECT_EQ(r.LocateHash(301), 1u);         // past the last point: wrap
  EXPECT_EQ(r.LocateHash(UINT32_MAX), 1u);  // maximum
  EXPECT_EQ(r.Locate("150"), 0u);
}

TEST(Ring, TinyGoldenRingGreater) {
  std::vector<Node> nodes = {N("100"), N("200"), N("300")};
  Ring r = Ring::Build(Tiny(TieRule::kLaterWins, DuplicatePoints::kKeepAsWinner,
                            LookupEdge::kGreater),
                       nodes);
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

// Reference: std::lower_bound on the point array, with wrap.
uint32_t Reference(const Ring& r, uint32_t h, bool greater) {
  auto pts = r.points();
  auto it = greater ? std::upper_bound(pts.begin(), pts.end(), h)
                    : std::lower_bound(pts.begin(), pts.end(), h);
  size_t i = it == pts.end() ? 0 : static_cast<size_t>(it - pts.begin());
  return r.owners()[i];
}


TEST(Ring, BucketIndexEqualsLowerBound) {
  struct Case {
    const char* profile;
    const char* alg;
    uint32_t nodes;
  };
  for (Case c : {Case{"spymemcached", "", 1}, Case{"spymemcached", "", 7},
                 Case{"spymemcached", "", 300}, Case{"spymemcached", "CRC_HASH", 50},
                 Case{"uhashring", "", 40}, Case{"libmemcached-ketama", "", 33},
                 Case{"twemproxy", "", 100}}) {
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
    for (int i = 0; i < 2000; ++i) probes.push_back(static_cast<uint32_t>(rng.Next() >> 32) & 0x7fff);  // CRC's 15-bit range
    for (uint32_t h : probes) {
      ASSERT_EQ(r.LocateHash(h), Reference(r, h, greater)) << c.profile << " " << c.alg << " h=" << h;
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

}  // namespace
}  // namespace chsim
