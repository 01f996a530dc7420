// SPDX-License-Identifier: Apache-2.0
// Replica selection (chsim/replica.h) against one lookup per key: every
// strategy of the registry over the first algorithm it applies to (registry
// order), K copies per key, pre-made uniform key hashes (the key hash is not
// timed), at 100 and 1,000 nodes. Names:
//   replicas/strategy:<s>/algo:<a>/k:<k>/mode:{tput,lat,batch}/nodes:<n>  (Select)
//   replicas/locate/algo:<a>/mode:{tput,lat,batch}/nodes:<n>   (Locate, the baseline)
//   replicas/crush/map:rack-host-osd/k:3/mode:tput/nodes:1000        (CRUSH alone)
// mode:batch is the path `chsim locate --replicas K` takes: SelectBatch (and
// LocateBatch for the baseline) over blocks of kBlock hashes.
// The crush row is CRUSH's rule over a 3-level map of 1,000 devices (10 racks of
// 10 hosts of 10 devices, straw2, weight 1), `chooseleaf firstn 0 type
// host`, inputs x = 0, 1, 2, ... as `crushtool --test` takes them;
// bench/crush-speed times crushtool itself on the same map (written by
// --chsim_crush_map_out=FILE) beside it.
// items_per_second counts keys (one replica set, or one lookup, per item), so
// the cost of K copies against one lookup is the ratio of the two rows'
// items_per_second at the same algorithm and nodes.
//
// Flags (besides Google Benchmark's): --chsim_smoke, --chsim_crush_map_out=FILE
// (write the CRUSH map in crushtool's text form and exit).
#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.h"
#include "chsim/algorithm.h"
#include "chsim/crush.h"
#include "chsim/crush_text.h"
#include "chsim/replica.h"

namespace chsim::bench {
namespace {

const std::vector<uint64_t>& Hashes() {
  static const std::vector<uint64_t> h = MakeHashes(g_smoke ? 1u << 12 : 1u << 20);
  return h;
}

std::vector<int64_t> Nodes() {
  if (g_smoke) return {100};
  return {100, 1000};
}

// One-slot cache: benchmarks are registered grouped by algorithm and nodes.
const Algorithm& Cached(const AlgorithmSpec& spec, size_t n) {
  static std::string key;
  static std::unique_ptr<Algorithm> algo;
  const std::string want = std::string(spec.name) + "/" + std::to_string(n);
  if (key != want) {
    algo = MakeBenchAlgorithm(spec, n);
    key = want;
  }
  return *algo;
}

template <bool kLatency>
void BM_Locate(benchmark::State& state, const AlgorithmSpec* spec) {
  const Algorithm& algo = Cached(*spec, static_cast<size_t>(state.range(0)));
  const std::vector<uint64_t>& h = Hashes();
  RunItems<kLatency>(state, h.size() - 1, [&](size_t i) { return algo.Locate(h[i]); });
}

template <bool kLatency>
void BM_Select(benchmark::State& state, const ReplicaStrategy* s, const AlgorithmSpec* spec,
               uint32_t k) {
  const Algorithm& algo = Cached(*spec, static_cast<size_t>(state.range(0)));
  const std::unique_ptr<ReplicaSelector> selector = s->Make(ReplicaInput{&algo, k});
  const std::vector<uint64_t>& h = Hashes();
  std::vector<uint32_t> out(k);
  RunItems<kLatency>(state, h.size() - 1, [&](size_t i) {
    const uint32_t placed = selector->Select(h[i], out);
    return uint64_t{out[placed - 1]};  // the last copy: the whole set is a dependency
  });
}

constexpr size_t kBlock = 1024;

// SelectBatch (k > 0) or LocateBatch (k = 0) a block at a time.
void BM_Batch(benchmark::State& state, const ReplicaStrategy* s, const AlgorithmSpec* spec,
              uint32_t k) {
  const Algorithm& algo = Cached(*spec, static_cast<size_t>(state.range(0)));
  std::unique_ptr<ReplicaSelector> selector;
  if (s != nullptr) selector = s->Make(ReplicaInput{&algo, k});
  const std::vector<uint64_t>& h = Hashes();
  std::vector<uint32_t> out(kBlock * std::max(k, 1u)), counts(kBlock);
  size_t at = 0;
  for (auto _ : state) {
    if (at + kBlock > h.size()) at = 0;
    const std::span<const uint64_t> block(h.data() + at, kBlock);
    if (selector) {
      selector->SelectBatch(block, out, counts);
    } else {
      algo.LocateBatch(block, out);
    }
    benchmark::DoNotOptimize(out.data());
    at += kBlock;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kBlock));
}

benchmark::internal::Benchmark* RegisterMode(const std::string& prefix, const char* mode,
                                             const ReplicaStrategy* s, const AlgorithmSpec* a,
                                             uint32_t k) {
  const std::string name = prefix + "/mode:" + mode;
  const std::string_view m = mode;
  if (m == "batch") return benchmark::RegisterBenchmark(name.c_str(), BM_Batch, s, a, k);
  const bool lat = m == "lat";
  if (s == nullptr) {
    return lat ? benchmark::RegisterBenchmark(name.c_str(), BM_Locate<true>, a)
               : benchmark::RegisterBenchmark(name.c_str(), BM_Locate<false>, a);
  }
  return lat ? benchmark::RegisterBenchmark(name.c_str(), BM_Select<true>, s, a, k)
             : benchmark::RegisterBenchmark(name.c_str(), BM_Select<false>, s, a, k);
}

// 10 racks x 10 hosts x 10 devices of weight 1.
crush::Map RackHostMap() {
  constexpr uint32_t kDevices = 1000;
  std::vector<int32_t> ids(kDevices);
  std::vector<uint32_t> weights(kDevices, crush::kWeightOne), host(kDevices), rack(kDevices);
  for (uint32_t d = 0; d < kDevices; ++d) {
    ids[d] = static_cast<int32_t>(d);
    host[d] = d / 10;
    rack[d] = d / 100;
  }
  const crush::Level levels[] = {{"host", host}, {"rack", rack}};
  return crush::BuildMap(ids, weights, levels, 0, false);
}

void BM_CrushRule(benchmark::State& state) {
  static const crush::Map map = RackHostMap();
  const std::vector<uint32_t> reweights = map.DefaultReweights();
  uint32_t x = 0;
  int32_t out[3];
  for (auto _ : state) {
    const uint32_t n = crush::DoRule(map, map.rules[0], x++, out, reweights);
    benchmark::DoNotOptimize(out[n - 1]);
  }
  state.SetItemsProcessed(state.iterations());
}

void Register() {
  auto* crush = benchmark::RegisterBenchmark(
      "replicas/crush/map:rack-host-osd/k:3/mode:tput/nodes:1000", BM_CrushRule);
  if (g_smoke) crush->Iterations(1);
  std::vector<const AlgorithmSpec*> baselines;
  for (const ReplicaStrategy* s : AllReplicaStrategies()) {
    const std::vector<const AlgorithmSpec*> fit = AlgorithmsFor(*s);
    if (fit.empty()) continue;
    const AlgorithmSpec* a = fit.front();
    if (std::find(baselines.begin(), baselines.end(), a) == baselines.end()) baselines.push_back(a);
    for (uint32_t k : {1u, 3u}) {
      const std::string prefix =
          Join({"replicas", "strategy:" + std::string(s->name), "algo:" + std::string(a->name),
                "k:" + std::to_string(k)});
      for (const char* mode : {"tput", "lat", "batch"}) {
        Tune(RegisterMode(prefix, mode, s, a, k)->ArgName("nodes")->ArgsProduct({Nodes()}));
      }
    }
  }
  for (const AlgorithmSpec* a : baselines) {
    const std::string prefix = Join({"replicas", "locate", "algo:" + std::string(a->name)});
    for (const char* mode : {"tput", "lat", "batch"}) {
      Tune(RegisterMode(prefix, mode, nullptr, a, 0)->ArgName("nodes")->ArgsProduct({Nodes()}));
    }
  }
}

}  // namespace
}  // namespace chsim::bench

int main(int argc, char** argv) {
  constexpr std::string_view kMapOut = "--chsim_crush_map_out=";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, kMapOut.size()) != kMapOut) continue;
    std::ofstream(std::string(arg.substr(kMapOut.size())))
        << chsim::crush::FormatMap(chsim::bench::RackHostMap());
    return 0;
  }
  chsim::bench::ParseCommonFlags(&argc, argv);
  chsim::bench::Register();
  return chsim::bench::RunBenchmarks(argc, argv);
}
