// SPDX-License-Identifier: Apache-2.0
// Replica strategies (chsim/replica.h), each claim against a truth written
// here rather than chsim's own output:
//  - walk on tiny golden rings probed at 0, at a point p, at p + 1, past the
//    last point and at the maximum, the answers written by hand;
//  - walk with failure domains against a port of Cassandra's
//    NetworkTopologyStrategy rack rule for one datacenter (seen racks, the
//    skipped endpoints appended in walk order);
//  - topk against a full sort of every node's weighted score;
//  - over the whole registry (no list of names here): every strategy over
//    every algorithm it applies to places distinct live nodes, K of them
//    unless it may answer short, the first being Locate's answer where the
//    spec says so; and every minimal strategy, when node X leaves, changes
//    the replica set of exactly the keys that had a copy on X;
//  - choosek against the recurrence of ConsistentChooseK written here
//    (S(k, n) = {M(k, n)} u S(k-1, M(k, n)), M(k, n) = max_{i<k} jump_i(key,
//    n-i) + i), its copies in the order S(j) adds them, over removed buckets
//    the ranking's first working ones; and on an add, exactly one member
//    changes, for k/(n+1) of the keys within a binomial bound;
//  - nts with one zone and rack_rule after_racks against the walk with
//    domains (both are that port's order); the copyset baselines' counts of
//    copysets and scatter widths;
//  - the refusals: K of 0, above the nodes and above kMaxReplicas, domains
//    where the strategy has no domain rule or do not cover the nodes, a
//    strategy for an algorithm it does not apply to.
#include "chsim/replica.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "chsim/algorithms/jump.h"
#include "chsim/rendezvous.h"
#include "chsim/ring.h"
#include "chsim/splitmix.h"

namespace chsim {
namespace {

std::vector<uint64_t> Hashes(size_t count, uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<uint64_t> h(count);
  for (uint64_t& x : h) x = rng.Next();
  return h;
}

std::vector<uint32_t> SelectAll(const ReplicaSelector& s, uint64_t h) {
  std::vector<uint32_t> out(s.k());
  out.resize(s.Select(h, out));
  return out;
}

// Test hasher for point keys "N-i": N + 10 i, so node "100" has points 100
// and 110: each node's points sit next to each other.
uint64_t NumberPlusTenI(const void* data, size_t len) noexcept {
  const char* p = static_cast<const char*>(data);
  uint64_t n = 0, i = 0;
  const char* dash = std::from_chars(p, p + len, n).ptr;
  if (dash < p + len && *dash == '-') std::from_chars(dash + 1, p + len, i);
  return n + 10 * i;
}
const Hasher kTenHasher{"number_plus_ten_i", "N + 10 i of \"N-i\"", NumberPlusTenI, 32};

// A ring-like Algorithm over a Ring built by the test, ids = list positions.
class FixedRing final : public Algorithm {
 public:
  explicit FixedRing(std::vector<std::string> labels, uint32_t points) {
    Profile p = ResearchProfile(kTenHasher, points);
    p.key_format = PointKeyFormat::kLabel;
    for (const std::string& l : labels) {
      Node n;
      n.label = n.host = l;
      nodes_.push_back(n);
      ids_.push_back(static_cast<uint32_t>(ids_.size()));
    }
    ring_ = Ring::Build(p, nodes_);
  }
  std::string_view name() const noexcept override { return "fixed_ring"; }
  Capabilities capabilities() const noexcept override { return {}; }
  uint32_t Locate(uint64_t h) const noexcept override {
    return ring_.LocateHash(static_cast<uint32_t>(h));
  }
  size_t num_nodes() const noexcept override { return ids_.size(); }
  std::vector<uint32_t> live_ids() const override { return ids_; }
  uint32_t Add(const Node&) override { throw Unsupported("fixed"); }
  void Remove(uint32_t) override { throw Unsupported("fixed"); }
  size_t MemoryBytes() const noexcept override { return 0; }
  bool ViewRing(RingView* v) const noexcept override {
    *v = RingView{&ring_, ids_};
    return true;
  }
  const Ring& ring() const { return ring_; }

 private:
  std::vector<Node> nodes_;
  std::vector<uint32_t> ids_;
  Ring ring_;
};

using Ids = std::vector<uint32_t>;

// A topology of racks only: node i in rack "r<racks[i]>".
Topology Racks(const Ids& racks) {
  Topology t;
  for (uint32_t r : racks) {
    std::string name(1, 'r');  // not "r" + ...: GCC 12's -Wrestrict false positive
    name += std::to_string(r);
    t.Append({"", name, ""});
  }
  return t;
}

// The walk, its copies spread over `racks` when given.
class Walk {
 public:
  Walk(const Algorithm& a, uint32_t k, const Ids& racks = {}) : topology_(Racks(racks)) {
    ReplicaInput in{&a, k};
    if (!racks.empty()) in = {&a, k, &topology_, DomainLevel::kRack};
    selector_ = GetReplicaStrategy("walk").make(in, {});
  }
  const ReplicaSelector& operator*() const { return *selector_; }

 private:
  Topology topology_;
  std::unique_ptr<ReplicaSelector> selector_;
};

// Ring 100 A, 110 A, 200 B, 210 B, 300 C, 310 C (A, B, C = ids 0, 1, 2).
TEST(ReplicaWalk, TinyGoldenRing) {
  FixedRing r({"100", "200", "300"}, 2);
  ASSERT_EQ(Ids(r.ring().points().begin(), r.ring().points().end()),
            (Ids{100, 110, 200, 210, 300, 310}));
  Walk w3(r, 3), w2(r, 2), w1(r, 1);
  EXPECT_EQ(SelectAll(*w3, 0), (Ids{0, 1, 2}));           // before the first point
  EXPECT_EQ(SelectAll(*w3, 100), (Ids{0, 1, 2}));         // exactly a point
  EXPECT_EQ(SelectAll(*w3, 101), (Ids{0, 1, 2}));         // A's second point
  EXPECT_EQ(SelectAll(*w3, 111), (Ids{1, 2, 0}));         // past A: B, C, wrap to A
  EXPECT_EQ(SelectAll(*w2, 200), (Ids{1, 2}));            // B's points skipped once held
  EXPECT_EQ(SelectAll(*w3, 301), (Ids{2, 0, 1}));         // C's second point, then wrap
  EXPECT_EQ(SelectAll(*w3, 311), (Ids{0, 1, 2}));         // past the last point: wrap
  EXPECT_EQ(SelectAll(*w3, UINT32_MAX), (Ids{0, 1, 2}));  // the maximum
  EXPECT_EQ(SelectAll(*w1, 205), (Ids{1}));
  // The high 32 bits of a 64-bit hash are not the ring's.
  EXPECT_EQ(SelectAll(*w3, (uint64_t{7} << 32) | 111), (Ids{1, 2, 0}));
}

// Ring 100 A, 110 A, 200 B, 210 B, 300 C, 310 C, 400 D, 410 D with racks
// A, B in 0 and C, D in 1.
TEST(ReplicaWalk, TinyGoldenRingWithDomains) {
  FixedRing r({"100", "200", "300", "400"}, 2);
  const Ids racks = {0, 0, 1, 1};
  Walk w2(r, 2, racks), w3(r, 3, racks), w4(r, 4, racks);
  EXPECT_EQ(SelectAll(*w2, 0), (Ids{0, 2}));    // A, B skipped (rack 0), C
  EXPECT_EQ(SelectAll(*w2, 205), (Ids{1, 2}));  // B, C
  EXPECT_EQ(SelectAll(*w2, 305), (Ids{2, 0}));  // C, D skipped (rack 1), wrap to A
  // Racks run out at the third copy: the node the first pass skipped first.
  EXPECT_EQ(SelectAll(*w3, 0), (Ids{0, 2, 1}));
  EXPECT_EQ(SelectAll(*w4, 305), (Ids{2, 0, 3, 1}));  // C, A; then D (skipped), B
  EXPECT_EQ(SelectAll(*w3, UINT32_MAX), (Ids{0, 2, 1}));
}

// Cassandra NetworkTopologyStrategy.calculateNaturalReplicas for one
// datacenter of `racks` racks, read from its source: walk the ring; an
// endpoint held already is passed; once every rack has been seen, take it;
// else take it if its rack is unseen (and, if that completes the racks,
// append the skipped endpoints in order); else add it to the skipped list.
Ids NtsOneDatacenter(const RingView& v, uint64_t h, uint32_t k, const Ids& rack, size_t racks) {
  Ids out, skipped;
  std::set<uint32_t> seen;
  const size_t n = v.ring->size();
  const size_t start = [&] {
    const auto pts = v.ring->points();
    const size_t i =
        std::lower_bound(pts.begin(), pts.end(), static_cast<uint32_t>(h)) - pts.begin();
    return i == n ? 0 : i;
  }();
  auto holds = [&](uint32_t id) { return std::find(out.begin(), out.end(), id) != out.end(); };
  for (size_t s = 0; s < n && out.size() < k; ++s) {
    const uint32_t id = v.IdAt((start + s) % n);
    if (holds(id)) continue;
    if (seen.size() == racks) {
      out.push_back(id);
    } else if (!seen.contains(rack[id])) {
      out.push_back(id);
      seen.insert(rack[id]);
      if (seen.size() == racks) {
        for (uint32_t sk : skipped) {
          if (out.size() < k && !holds(sk)) out.push_back(sk);
        }
      }
    } else if (std::find(skipped.begin(), skipped.end(), id) == skipped.end()) {
      skipped.push_back(id);
    }
  }
  return out;
}

TEST(ReplicaWalk, DomainsFollowNetworkTopologyStrategyOrder) {
  std::vector<Node> nodes = MakeNumberedNodes(12);
  auto ring = MakeAlgorithm("ring", nodes, Params{{"points_per_node", uint64_t{8}}});
  RingView view;
  ASSERT_TRUE(ring->ViewRing(&view));
  for (const Ids& rack : {Ids{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2},  // 3 racks round-robin
                          Ids{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},  // one rack of one node
                          Ids{5, 5, 5, 5, 9, 9, 9, 9, 9, 9, 9, 9}}) {
    const size_t racks = std::set<uint32_t>(rack.begin(), rack.end()).size();
    for (uint32_t k : {1u, 2u, 3u, 4u, 6u, 12u}) {
      Walk w(*ring, k, rack);
      size_t differ = 0;
      for (uint64_t h : Hashes(3000, k)) {
        const Ids got = SelectAll(*w, h);
        differ += got != NtsOneDatacenter(view, h, k, rack, racks);
        ASSERT_EQ(std::set<uint32_t>(got.begin(), got.end()).size(), k);
        std::set<uint32_t> domains;
        for (size_t j = 0; j < std::min<size_t>(k, racks); ++j) domains.insert(rack[got[j]]);
        ASSERT_EQ(domains.size(), std::min<size_t>(k, racks)) << "the first copies share a rack";
      }
      EXPECT_EQ(differ, 0u) << "k " << k << ", " << racks << " racks";
    }
  }
}

// topk against every node's score sorted, highest first, ties to the lower id;
// the weighted score -w / ln(u), u = ((x >> 11) + 0.5) / 2^53, written out.
TEST(ReplicaTopK, EqualsTheSortedScores) {
  std::vector<Node> nodes = MakeNumberedNodes(9);
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i].weight = static_cast<uint32_t>(1 + i % 4);
  for (bool weighted : {false, true}) {
    std::vector<Node> list = nodes;
    if (!weighted) {
      for (Node& n : list) n.weight = 1;
    }
    auto hrw = MakeAlgorithm("rendezvous", list);
    RendezvousView v;
    ASSERT_TRUE(hrw->ViewRendezvous(&v));
    ASSERT_EQ(v.uniform, !weighted);
    for (uint32_t k : {1u, 3u, 9u}) {
      auto sel = GetReplicaStrategy("topk").Make(ReplicaInput{hrw.get(), k});
      for (uint64_t h : Hashes(2000, 7 + k)) {
        // (-score, ~x, id): unweighted, the draw x itself ranks (highest first).
        std::vector<std::tuple<double, uint64_t, uint32_t>> ranked;
        for (uint32_t i = 0; i < list.size(); ++i) {
          const uint64_t x = Mix64(Mix64(h) ^ v.seeds[i]);
          const double u = (static_cast<double>(x >> 11) + 0.5) * 0x1p-53;
          const double score = weighted ? -static_cast<double>(list[i].weight) / std::log(u) : 0;
          ranked.push_back({-score, weighted ? 0 : ~x, i});
        }
        std::sort(ranked.begin(), ranked.end());
        Ids want;
        for (uint32_t j = 0; j < k; ++j) want.push_back(std::get<2>(ranked[j]));
        ASSERT_EQ(SelectAll(*sel, h), want) << "k " << k << (weighted ? " weighted" : "");
      }
    }
  }
}

TEST(ReplicaRegistry, SpecsAreCompleteAndFound) {
  std::set<std::string_view> names;
  for (const ReplicaStrategy* s : AllReplicaStrategies()) {
    SCOPED_TRACE(std::string(s->name));
    EXPECT_TRUE(names.insert(s->name).second) << "registered twice";
    EXPECT_FALSE(s->summary.empty());
    EXPECT_FALSE(s->applies_doc.empty());
    ASSERT_NE(s->applies, nullptr);
    ASSERT_NE(s->make, nullptr);
    EXPECT_FALSE(AlgorithmsFor(*s).empty()) << "applies to no registered algorithm";
    EXPECT_EQ(FindReplicaStrategy(s->name), s);
    EXPECT_EQ(&GetReplicaStrategy(s->name), s);
    for (const AlgorithmSpec* a : AlgorithmsFor(*s)) {
      const auto fit = ReplicaStrategiesFor(*a);
      EXPECT_NE(std::find(fit.begin(), fit.end(), s), fit.end());
    }
  }
  EXPECT_EQ(FindReplicaStrategy("no_such"), nullptr);
  try {
    GetReplicaStrategy("no_such");
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    for (std::string_view n : names) EXPECT_NE(std::string(e.what()).find(n), std::string::npos);
  }
}

// An instance of `spec` over `n` equal nodes with its defaults, or null when
// the defaults cannot hold n nodes.
std::unique_ptr<Algorithm> Build(const AlgorithmSpec& spec, uint32_t n) {
  try {
    return spec.Make(MakeNumberedNodes(n));
  } catch (const std::exception&) {
    return nullptr;
  }
}

TEST(ReplicaKit, DistinctLiveCopiesOverEveryAlgorithmItAppliesTo) {
  for (const ReplicaStrategy* s : AllReplicaStrategies()) {
    for (const AlgorithmSpec* a : AlgorithmsFor(*s)) {
      SCOPED_TRACE(std::string(s->name) + " over " + std::string(a->name));
      auto algo = Build(*a, 12);
      ASSERT_NE(algo, nullptr);
      for (uint32_t k : {1u, 3u, 12u}) {
        auto sel = s->Make(ReplicaInput{algo.get(), k});
        size_t short_sets = 0;
        for (uint64_t h : Hashes(2000, k)) {
          const Ids got = SelectAll(*sel, h);
          ASSERT_LE(got.size(), k);
          short_sets += got.size() < k;
          ASSERT_FALSE(got.empty());
          ASSERT_EQ(std::set<uint32_t>(got.begin(), got.end()).size(), got.size()) << "repeats";
          for (uint32_t id : got) ASSERT_LT(id, 12u);
          if (s->first_is_locate) {
            ASSERT_EQ(got[0], algo->Locate(h));
          }
        }
        if (!s->short_results) {
          EXPECT_EQ(short_sets, 0u) << "k " << k;
        }
      }
    }
  }
}

// The exact invariant of a minimal scheme: with X gone, a key's replica set
// changes if and only if it held a copy on X.
TEST(ReplicaKit, MinimalStrategiesMoveExactlyTheRemovedNodesCopies) {
  constexpr uint32_t kNodes = 16, kCopies = 3;
  size_t checked = 0;
  for (const ReplicaStrategy* s : AllReplicaStrategies()) {
    if (!s->minimal) continue;
    for (const AlgorithmSpec* a : AlgorithmsFor(*s)) {
      auto algo = Build(*a, kNodes);
      if (algo == nullptr || !algo->capabilities().minimal_disruption) continue;
      SCOPED_TRACE(std::string(s->name) + " over " + std::string(a->name));
      const uint32_t x = a->capabilities.arbitrary_removal ? 5 : kNodes - 1;
      const std::vector<uint64_t> keys = Hashes(20000, 99);
      std::vector<Ids> before;
      {
        auto sel = s->Make(ReplicaInput{algo.get(), kCopies});
        for (uint64_t h : keys) before.push_back(SelectAll(*sel, h));
      }
      algo->Remove(x);
      auto sel = s->Make(ReplicaInput{algo.get(), kCopies});
      size_t held = 0, changed = 0, wrong = 0;
      for (size_t i = 0; i < keys.size(); ++i) {
        const Ids& b = before[i];
        Ids after = SelectAll(*sel, keys[i]), bs = b;
        std::sort(after.begin(), after.end());
        std::sort(bs.begin(), bs.end());
        const bool had = std::find(b.begin(), b.end(), x) != b.end();
        const bool moved = after != bs;
        held += had;
        changed += moved;
        wrong += had != moved;
      }
      EXPECT_EQ(wrong, 0u) << held << " keys held a copy on " << x << ", " << changed
                           << " sets changed";
      EXPECT_GT(held, 0u);
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

TEST(ReplicaSalted, ShortOnlyAfterItsBound) {
  auto jump = MakeAlgorithm("jump", MakeNumberedNodes(4));
  const ReplicaStrategy& salted = GetReplicaStrategy("salted");
  auto one_try = salted.Make(ReplicaInput{jump.get(), 4}, Params{{"tries", uint64_t{1}}});
  auto many = salted.Make(ReplicaInput{jump.get(), 4}, Params{{"tries", uint64_t{1000}}});
  size_t short_one = 0, short_many = 0;
  for (uint64_t h : Hashes(5000, 3)) {
    short_one += SelectAll(*one_try, h).size() < 4;
    short_many += SelectAll(*many, h).size() < 4;
  }
  // One draw per copy: 4 distinct in a row has probability 4!/4^4 (9%).
  EXPECT_GT(short_one, 5000u * 80 / 100);
  EXPECT_EQ(short_many, 0u);  // (3/4)^1000 per key
  const Ids racks = {0, 0, 1, 1};
  const Topology topology = Racks(racks);
  auto spread = salted.Make(ReplicaInput{jump.get(), 3, &topology, DomainLevel::kRack});
  for (uint64_t h : Hashes(2000, 4)) {
    const Ids got = SelectAll(*spread, h);
    ASSERT_EQ(got.size(), 3u);
    EXPECT_NE(racks[got[0]], racks[got[1]]);
  }
}

std::string Refusal(const ReplicaStrategy& s, const ReplicaInput& in, const Params& p = {}) {
  try {
    s.Make(in, p);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no refusal";
}

TEST(ReplicaAdmit, RefusesInOneLine) {
  auto jump = MakeAlgorithm("jump", MakeNumberedNodes(300));
  auto hrw = MakeAlgorithm("rendezvous", MakeNumberedNodes(5));
  const ReplicaStrategy &salted = GetReplicaStrategy("salted"), &walk = GetReplicaStrategy("walk"),
                        &topk = GetReplicaStrategy("topk");
  EXPECT_EQ(Refusal(salted, {jump.get(), 0}), "replicas: need at least 1 copy per key (found 0)");
  EXPECT_EQ(Refusal(salted, {jump.get(), 257}), "replicas: at most 256 copies per key (found 257)");
  EXPECT_EQ(Refusal(topk, {hrw.get(), 6}),
            "replicas: 6 copies per key need 6 distinct nodes; 5 live");
  const Topology five = Racks({0, 1, 2, 3, 4}), four = Racks({0, 1, 2, 3});
  EXPECT_EQ(Refusal(GetReplicaStrategy("choosek"), {jump.get(), 2, &five, DomainLevel::kRack}),
            "strategy choosek does not place copies by failure domain; strategies that do: walk, "
            "nts, topk, salted, crush");
  EXPECT_EQ(Refusal(salted, {hrw.get(), 2, &four, DomainLevel::kRack}),
            "replicas: no rack for node id 4 (the topology describes 4 nodes)");
  EXPECT_EQ(Refusal(salted, {hrw.get(), 2, &five, DomainLevel::kZone}),
            "replicas: copies spread over zones, but the nodes carry no zone; levels they "
            "carry: rack");
  EXPECT_EQ(Refusal(salted, {hrw.get(), 2, nullptr, DomainLevel::kHost}),
            "replicas: copies spread over hosts, but the nodes carry no host; levels they "
            "carry: none");
  const std::string not_for = Refusal(walk, {jump.get(), 3});
  EXPECT_NE(not_for.find("strategy walk does not apply to algorithm jump"), std::string::npos);
  EXPECT_NE(not_for.find("strategies for jump: choosek, salted, random, copyset, mincopysets"),
            std::string::npos);
  EXPECT_NE(Refusal(salted, {jump.get(), 2}, Params{{"tries", uint64_t{0}}}).find("tries"),
            std::string::npos);
  EXPECT_EQ(Refusal(salted, {jump.get(), 2}, Params{{"bound", uint64_t{3}}}),
            "strategy salted has no parameter 'bound'; its parameters: tries");
  for (const std::string& m : {Refusal(salted, {jump.get(), 0}), not_for}) {
    EXPECT_EQ(m.find('\n'), std::string::npos);
  }
}

// --- choosek against ConsistentChooseK's recurrence, written here ----------

// jump_i(key, m): the algorithm's range hash (the test's jump) at the rank's
// own hash: the key hash for i = 0, Mix64(h + i * gamma) above.
uint32_t RankJump(uint64_t h, uint32_t i, uint32_t m) {
  const uint64_t hi = i == 0 ? h : Mix64(h + i * 0x9E3779B97F4A7C15ull);
  return static_cast<uint32_t>(JumpConsistentHash(hi, static_cast<int32_t>(m)));
}

// S(k, n) by the recurrence, as a sorted set.
std::set<uint32_t> ChooseKSet(uint64_t h, uint32_t k, uint32_t n) {
  if (k == 0) return {};
  uint32_t m = 0;
  for (uint32_t i = 0; i < k; ++i) m = std::max(m, RankJump(h, i, n - i) + i);
  std::set<uint32_t> s = ChooseKSet(h, k - 1, m);
  s.insert(m);
  return s;
}

// The ranking of [0, n): bucket j is the member S(j + 1, n) adds to S(j, n).
Ids ChooseKRanking(uint64_t h, uint32_t depth, uint32_t n) {
  Ids order;
  std::set<uint32_t> before;
  for (uint32_t j = 1; j <= depth; ++j) {
    const std::set<uint32_t> now = ChooseKSet(h, j, n);
    EXPECT_TRUE(std::includes(now.begin(), now.end(), before.begin(), before.end()))
        << "S(" << j - 1 << ", " << n << ") is not inside S(" << j << ", " << n << ")";
    for (uint32_t b : now) {
      if (!before.contains(b)) order.push_back(b);
    }
    before = now;
  }
  return order;
}

TEST(ReplicaChooseK, FollowsTheRecurrenceOverJump) {
  const ReplicaStrategy& choosek = GetReplicaStrategy("choosek");
  for (uint32_t n : {1u, 2u, 7u, 40u, 300u}) {
    auto jump = MakeAlgorithm("jump", MakeNumberedNodes(n));
    for (uint32_t k : {1u, 2u, 3u, 5u}) {
      if (k > n) continue;
      auto sel = choosek.Make(ReplicaInput{jump.get(), k});
      for (uint64_t h : Hashes(400, n * 31 + k)) {
        ASSERT_EQ(SelectAll(*sel, h), ChooseKRanking(h, k, n)) << "n " << n << ", k " << k;
      }
    }
  }
}

// Over memento with buckets removed: the first k working buckets of the
// ranking of [0, N), N the buckets ever used, each bucket's node.
TEST(ReplicaChooseK, SkipsRemovedBuckets) {
  const ReplicaStrategy& choosek = GetReplicaStrategy("choosek");
  for (const char* name : {"memento", "anchor", "dx"}) {
    auto algo = MakeAlgorithm(name, MakeNumberedNodes(20));
    for (uint32_t id : {3u, 17u, 4u, 11u, 0u}) algo->Remove(id);
    BucketView view;
    ASSERT_TRUE(algo->ViewBuckets(&view));
    const uint32_t n = static_cast<uint32_t>(view.ids.size());
    auto sel = choosek.Make(ReplicaInput{algo.get(), 4});
    for (uint64_t h : Hashes(300, 5)) {
      Ids want;
      for (uint32_t b : ChooseKRanking(h, n, n)) {
        if (view.ids[b] != BucketView::kNoNode && want.size() < 4) want.push_back(view.ids[b]);
      }
      ASSERT_EQ(SelectAll(*sel, h), want) << name;
      for (uint32_t id : want) ASSERT_NE(id, 3u);
    }
  }
}

// n -> n + 1 changes exactly one member of k/(n+1) of the sets (ConsistentChooseK
// property 4), within 5 binomial standard deviations.
TEST(ReplicaChooseK, OneMemberChangesOnAnAdd) {
  const ReplicaStrategy& choosek = GetReplicaStrategy("choosek");
  constexpr uint32_t kKeys = 40000;
  for (const char* name : {"jump", "power", "binomial", "flip", "jumpback"}) {
    for (uint32_t n : {5u, 60u}) {
      auto algo = MakeAlgorithm(name, MakeNumberedNodes(n));
      const uint32_t k = 3;
      std::vector<Ids> before;
      {
        auto sel = choosek.Make(ReplicaInput{algo.get(), k});
        for (uint64_t h : Hashes(kKeys, 77)) before.push_back(SelectAll(*sel, h));
      }
      algo->Add(MakeNumberedNodes(1, n)[0]);
      auto sel = choosek.Make(ReplicaInput{algo.get(), k});
      size_t changed = 0, i = 0;
      for (uint64_t h : Hashes(kKeys, 77)) {
        Ids a = before[i++], b = SelectAll(*sel, h);
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        if (a == b) continue;
        ++changed;
        Ids common;
        std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
        ASSERT_EQ(common.size(), k - 1) << name << ": more than one member changed";
        ASSERT_TRUE(std::find(b.begin(), b.end(), n) != b.end()) << "the new member is not new";
      }
      const double p = static_cast<double>(k) / (n + 1), mean = p * kKeys;
      EXPECT_NEAR(static_cast<double>(changed), mean, 5 * std::sqrt(mean * (1 - p)))
          << name << " n " << n;
    }
  }
}

// A bucket scheme of n ids whose range hash is jump and counts its calls.
uint64_t g_range_calls = 0;
uint32_t CountedJump(const void*, uint64_t key, uint32_t n) noexcept {
  ++g_range_calls;
  return static_cast<uint32_t>(JumpConsistentHash(key, static_cast<int32_t>(n)));
}
class CountingBuckets final : public Algorithm {
 public:
  explicit CountingBuckets(uint32_t n) : ids_(n) {
    for (uint32_t i = 0; i < n; ++i) ids_[i] = i;
  }
  std::string_view name() const noexcept override { return "counting_buckets"; }
  Capabilities capabilities() const noexcept override { return {}; }
  uint32_t Locate(uint64_t h) const noexcept override {
    return CountedJump(nullptr, h, static_cast<uint32_t>(ids_.size()));
  }
  size_t num_nodes() const noexcept override { return ids_.size(); }
  std::vector<uint32_t> live_ids() const override { return ids_; }
  uint32_t Add(const Node&) override { throw Unsupported("fixed"); }
  void Remove(uint32_t) override { throw Unsupported("fixed"); }
  size_t MemoryBytes() const noexcept override { return 0; }
  bool ViewBuckets(BucketView* v) const noexcept override {
    *v = BucketView{.ids = ids_, .range = &CountedJump};
    return true;
  }

 private:
  std::vector<uint32_t> ids_;
};

// The cost floor of choosek: M(k, n) alone takes k evaluations of the range
// hash, and growing the ranking copy by copy re-evaluates the ranks that
// held the maximum: at k = 3, between 3 and 3 + 3 per key (4.5 on average
// at n = 100 and 1,000), each as dear as one lookup.
TEST(ReplicaChooseK, RangeHashEvaluationsPerKey) {
  const ReplicaStrategy& choosek = GetReplicaStrategy("choosek");
  for (uint32_t n : {100u, 1000u}) {
    CountingBuckets algo(n);
    auto sel = choosek.make(ReplicaInput{&algo, 3}, {});
    g_range_calls = 0;
    const std::vector<uint64_t> keys = Hashes(20000, n);
    for (uint64_t h : keys) SelectAll(*sel, h);
    const double per_key = static_cast<double>(g_range_calls) / keys.size();
    EXPECT_GE(per_key, 3.0);
    EXPECT_LE(per_key, 6.0);
    EXPECT_NEAR(per_key, 4.5, 0.1) << "n " << n;
  }
}

// nts with one datacenter and the 2.x rack rule is the walk with domains
// (NtsOneDatacenter above reads both from Cassandra's source).
TEST(ReplicaNts, OneZoneAfterRacksIsTheWalkWithRacks) {
  std::vector<Node> nodes = MakeNumberedNodes(12);
  auto ring = MakeAlgorithm("ring", nodes, Params{{"points_per_node", uint64_t{8}}});
  const Ids rack = {0, 1, 2, 0, 1, 2, 0, 0, 0, 0, 1, 1};
  const Topology t = Racks(rack);
  const ReplicaStrategy& nts = GetReplicaStrategy("nts");
  for (uint32_t k : {1u, 2u, 3u, 5u, 12u}) {
    Walk w(*ring, k, rack);
    auto n = nts.Make({ring.get(), k, &t, DomainLevel::kRack}, {{"rack_rule", std::string("after_racks")}});
    auto repeats = nts.Make({ring.get(), k, &t, DomainLevel::kRack});
    for (uint64_t h : Hashes(2000, k)) {
      const Ids got = SelectAll(*n, h), in_walk = SelectAll(*repeats, h);
      ASSERT_EQ(got, SelectAll(*w, h)) << "k " << k;
      ASSERT_EQ(std::set<uint32_t>(got.begin(), got.end()),
                std::set<uint32_t>(in_walk.begin(), in_walk.end()))
          << "the two rack rules differ in more than order";
      ASSERT_EQ(got[0], in_walk[0]);
    }
  }
}

// Copyset Replication: every set is a copyset of the seeded permutations
// (at most P ceil(N/k) of them, each node's scatter width at most P (k - 1));
// mincopysets has ceil(N/k); random draws about min(keys, C(N, k)).
TEST(ReplicaCopysets, CountsOfCopysetsAndScatterWidth) {
  auto jump = MakeAlgorithm("jump", MakeNumberedNodes(30));
  auto count = [&](const char* name, uint32_t k, const Params& p) {
    auto sel = GetReplicaStrategy(name).Make(ReplicaInput{jump.get(), k}, p);
    std::set<Ids> sets;
    std::vector<std::set<uint32_t>> peers(30);
    for (uint64_t h : Hashes(20000, 9)) {
      Ids s = SelectAll(*sel, h);
      EXPECT_EQ(s[0], jump->Locate(h));
      for (uint32_t a : s) {
        for (uint32_t b : s) {
          if (a != b) peers[a].insert(b);
        }
      }
      std::sort(s.begin(), s.end());
      sets.insert(s);
    }
    size_t widest = 0;
    for (const auto& p : peers) widest = std::max(widest, p.size());
    return std::pair(sets.size(), widest);
  };
  EXPECT_EQ(count("mincopysets", 3, {}), std::pair(size_t{10}, size_t{2}));
  const auto [copysets, width] = count("copyset", 3, {{"scatter_width", uint64_t{4}}});
  EXPECT_LE(copysets, 20u);  // P = 2 permutations of 10 groups
  EXPECT_GT(copysets, 10u);
  EXPECT_LE(width, 4u);
  EXPECT_GE(count("random", 3, {}).first, 3500u);  // C(30, 3) = 4060, 20000 keys
  auto a = GetReplicaStrategy("copyset").Make(ReplicaInput{jump.get(), 3});
  auto b = GetReplicaStrategy("copyset").Make(ReplicaInput{jump.get(), 3}, {{"seed", uint64_t{2}}});
  size_t differ = 0;
  for (uint64_t h : Hashes(1000, 4)) differ += SelectAll(*a, h) != SelectAll(*b, h);
  EXPECT_GT(differ, 500u) << "the seed does not change the permutations";
}

}  // namespace
}  // namespace chsim
