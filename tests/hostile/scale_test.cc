// Scale: 100,000 nodes build and look up under every compatibility profile
// (160 points per node where the profile takes a count: 16 million points)
// and every research algorithm. Checks what must hold at any size: the ring
// is sorted, every owner and every lookup answer is a valid node index, the
// lookups agree with a plain binary search on the point array, and the
// structural shares sum to 1. CTest labels: scale, slow (excluded from the
// sanitizer runs, where it would take minutes).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/node.h"
#include "chsim/profile.h"
#include "chsim/ring.h"
#include "chsim/splitmix.h"

namespace chsim {
namespace {

constexpr uint32_t kNodes = 100'000;
constexpr size_t kLookups = 1'000'000;

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class ProfileScale : public ::testing::TestWithParam<std::string> {};

TEST_P(ProfileScale, HundredThousandNodesBuildAndLookUp) {
  const Profile profile = MakeProfile(GetParam());
  const std::vector<Node> nodes = MakeNumberedNodes(kNodes);
  auto t0 = std::chrono::steady_clock::now();
  const Ring ring = Ring::Build(profile, nodes);
  const double build_s = Seconds(t0);

  auto points = ring.points();
  auto owners = ring.owners();
  ASSERT_EQ(ring.num_nodes(), kNodes);
  // Every profile places about points_per_node per node; duplicates may be dropped.
  ASSERT_GE(points.size(), uint64_t{kNodes} * profile.points_per_node * 99 / 100);
  ASSERT_LE(points.size(), uint64_t{kNodes} * std::max<uint32_t>(profile.points_per_node, 160));
  ASSERT_TRUE(std::is_sorted(points.begin(), points.end()));
  ASSERT_TRUE(std::all_of(owners.begin(), owners.end(), [](uint32_t o) { return o < kNodes; }));

  // Structural shares: exact, sum to 1, every node owns something.
  const std::vector<uint64_t> arcs = ring.ArcLengths();
  ASSERT_EQ(arcs.size(), kNodes);
  EXPECT_EQ(std::accumulate(arcs.begin(), arcs.end(), uint64_t{0}), uint64_t{1} << 32);
  const std::vector<double> shares = ring.StructuralShares();
  EXPECT_NEAR(std::accumulate(shares.begin(), shares.end(), 0.0), 1.0, 1e-9);

  // Lookups: in range, and equal to a plain binary search (first point >= h,
  // or > h for uhashring's edge; wrap to the first point).
  const bool greater = profile.edge == LookupEdge::kGreater;
  SplitMix64 rng(42);
  t0 = std::chrono::steady_clock::now();
  size_t mismatches = 0;
  for (size_t i = 0; i < kLookups; ++i) {
    const uint32_t h = static_cast<uint32_t>(rng.Next());
    const uint32_t got = ring.LocateHash(h);
    ASSERT_LT(got, kNodes);
    if (i % 16 == 0) {
      auto it = greater ? std::upper_bound(points.begin(), points.end(), h)
                        : std::lower_bound(points.begin(), points.end(), h);
      const size_t idx = it == points.end() ? 0 : static_cast<size_t>(it - points.begin());
      mismatches += owners[idx] != got;
    }
  }
  const double lookup_s = Seconds(t0);
  EXPECT_EQ(mismatches, 0u);
  // Key lookups through the profile's key hasher, one at a time and batched.
  std::vector<std::string> keys(4096);
  std::vector<std::string_view> views(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    keys[i] = "user:" + std::to_string(i);
    views[i] = keys[i];
  }
  std::vector<uint32_t> out(keys.size());
  ring.LocateBatch(views, out);
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_LT(out[i], kNodes);
    ASSERT_EQ(out[i], ring.Locate(views[i]));
  }
  std::printf("%s: %zu points, build %.2f s, %zu lookups %.2f s, %.1f MB\n", GetParam().c_str(),
              points.size(), build_s, kLookups, lookup_s, ring.MemoryBytes() / 1e6);
}

std::vector<std::string> ProfileNames() {
  std::vector<std::string> names;
  for (const ProfileInfo& p : AllProfiles()) names.emplace_back(p.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllProfiles, ProfileScale, ::testing::ValuesIn(ProfileNames()),
                         [](const auto& info) {
                           std::string s = info.param;
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

class AlgorithmScale : public ::testing::TestWithParam<std::string> {};

TEST_P(AlgorithmScale, HundredThousandNodesBuildAndLookUp) {
  const std::vector<Node> nodes = MakeNumberedNodes(kNodes);
  AlgorithmParams params;
  params.points_per_node = 160;
  params.table_size = 10'000'019;  // maglev: a prime >= 100 n (Eisenbud et al. suggest M >> n)
  auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<Algorithm> algo = MakeAlgorithm(GetParam(), nodes, params);
  const double build_s = Seconds(t0);
  ASSERT_EQ(algo->num_nodes(), kNodes);
  // rendezvous costs O(n) per lookup, multi_probe 21 probes each: fewer keys there.
  const size_t lookups = GetParam() == "rendezvous"    ? 2000
                         : GetParam() == "multi_probe" ? 100000
                                                       : kLookups;
  const bool stateful = algo->capabilities().stateful;
  SplitMix64 rng(7);
  t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < lookups; ++i) {
    const uint64_t h = rng.Next();
    const uint32_t id = stateful ? algo->Assign(h) : algo->Locate(h);
    ASSERT_LT(id, kNodes);
  }
  const double lookup_s = Seconds(t0);
  if (auto shares = algo->StructuralShares()) {
    ASSERT_EQ(shares->size(), kNodes);
    EXPECT_NEAR(std::accumulate(shares->begin(), shares->end(), 0.0), 1.0, 1e-9);
    EXPECT_TRUE(std::all_of(shares->begin(), shares->end(), [](double s) { return s >= 0; }));
  }
  std::printf("%s: build %.2f s, %zu lookups %.2f s, %.1f MB\n", GetParam().c_str(), build_s,
              lookups, lookup_s, algo->MemoryBytes() / 1e6);
}

std::vector<std::string> AlgorithmNames() {
  std::vector<std::string> names;
  for (const AlgorithmInfo& a : AllAlgorithms()) names.emplace_back(a.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllAlgorithms, AlgorithmScale, ::testing::ValuesIn(AlgorithmNames()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace chsim
