// SPDX-License-Identifier: Apache-2.0
// Builds: Ring::Build under every compatibility profile (and research-xxh3),
// and every algorithm of BenchAlgorithms() (the registry), at 10..100,000 nodes. One item is
// one node placed, so items_per_second is nodes per second and the time per
// iteration is the build time. Counters: bytes_per_node (MemoryBytes / n),
// points (ring entries), per_point (seconds per ring entry). Beside each
// profile that hashes its points with MD5 (4 points per digest), its floor:
// the multi-buffer MD5 (Md5BatchDigests) of exactly the point keys the build
// hashes, keys made outside the timed region, per_point over the same ring
// entries. Names:
//   build/ring:<profile>/nodes:<n>
//   build/md5_floor:<profile>/nodes:<n>
//   build/algo:<name>/nodes:<n>
#include <array>
#include <memory>
#include <string>

#include "bench_common.h"
#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/md5_batch.h"
#include "chsim/node.h"
#include "chsim/profile.h"
#include "chsim/ring.h"
#include "point_keys.h"

namespace chsim::bench {
namespace {

Profile ProfileByName(const std::string& name) {
  if (name.rfind("research-", 0) == 0) return ResearchProfile(GetHasher(name.substr(9)), 160);
  return MakeProfile(name);
}

void BM_BuildRing(benchmark::State& state, std::string profile_name) {
  const size_t n = static_cast<size_t>(state.range(0));
  const std::vector<Node> nodes = MakeNumberedNodes(static_cast<uint32_t>(n));
  const Profile profile = ProfileByName(profile_name);
  size_t bytes = 0, points = 0;
  for (auto _ : state) {
    Ring ring = Ring::Build(profile, nodes);
    bytes = ring.MemoryBytes();
    points = ring.size();
    benchmark::DoNotOptimize(ring);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  state.counters["bytes_per_node"] = static_cast<double>(bytes) / n;
  state.counters["points"] = static_cast<double>(points);
  state.counters["per_point"] = benchmark::Counter(
      static_cast<double>(points),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_Md5Floor(benchmark::State& state, std::string profile_name) {
  const size_t n = static_cast<size_t>(state.range(0));
  const std::vector<Node> nodes = MakeNumberedNodes(static_cast<uint32_t>(n));
  const Profile profile = ProfileByName(profile_name);
  const size_t points = Ring::Build(profile, nodes).size();
  PointKeys keys;
  MakeMd5PointKeys(profile, nodes, &keys);
  std::vector<std::array<uint8_t, 16>> digests(keys.views.size());
  for (auto _ : state) {
    Md5BatchDigests(keys.views, digests);
    benchmark::DoNotOptimize(digests.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  state.counters["digests"] = static_cast<double>(keys.views.size());
  state.counters["per_point"] = benchmark::Counter(
      static_cast<double>(points),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_BuildAlgo(benchmark::State& state, const AlgorithmSpec* algo) {
  const size_t n = static_cast<size_t>(state.range(0));
  const std::vector<Node> nodes = MakeNumberedNodes(static_cast<uint32_t>(n));
  size_t bytes = 0;
  try {
    for (auto _ : state) {
      std::unique_ptr<Algorithm> a = algo->Make(nodes);
      bytes = a->MemoryBytes();
      benchmark::DoNotOptimize(a.get());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  state.counters["bytes_per_node"] = static_cast<double>(bytes) / n;
}

void Register() {
  std::vector<std::string> profiles;
  for (const ProfileInfo& p : AllProfiles()) {
    if (MakeProfile(p.name).engine == Engine::kRing) profiles.emplace_back(p.name);
  }
  profiles.push_back("research-xxh3");
  for (const std::string& p : profiles) {
    std::string name = "build/ring:" + p;
    auto* b = benchmark::RegisterBenchmark(name.c_str(), BM_BuildRing, p);
    for (int64_t n : NodeCounts()) b->Arg(n);
    Tune(b->ArgName("nodes")->Unit(benchmark::kMillisecond));
    const Profile profile = ProfileByName(p);
    if (profile.points_per_hash == 4 && profile.point_hasher->fn == &HashMd5) {
      name = "build/md5_floor:" + p;
      b = benchmark::RegisterBenchmark(name.c_str(), BM_Md5Floor, p);
      for (int64_t n : NodeCounts()) b->Arg(n);
      Tune(b->ArgName("nodes")->Unit(benchmark::kMillisecond));
    }
  }
  for (const AlgorithmSpec* info : BenchAlgorithms()) {
    std::string name = "build/algo:" + std::string(info->name);
    auto* b = benchmark::RegisterBenchmark(name.c_str(), BM_BuildAlgo, info);
    for (int64_t n : NodeCounts()) b->Arg(n);
    Tune(b->ArgName("nodes")->Unit(benchmark::kMillisecond));
  }
}

}  // namespace
}  // namespace chsim::bench

int main(int argc, char** argv) {
  chsim::bench::ParseCommonFlags(&argc, argv);
  chsim::bench::Register();
  return chsim::bench::RunBenchmarks(argc, argv);
}
