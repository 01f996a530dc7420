// SPDX-License-Identifier: Apache-2.0
// Replica selection (chsim/replica.h) against one lookup per key: every
// strategy of the registry over the first algorithm it applies to (registry
// order), K copies per key, pre-made uniform key hashes (the key hash is not
// timed), at 100 and 1,000 nodes. Names:
//   replicas/strategy:<s>/algo:<a>/k:<k>/mode:{tput,lat,batch}/nodes:<n>  (Select)
//   replicas/locate/algo:<a>/mode:{tput,lat,batch}/nodes:<n>   (Locate, the baseline)
// mode:batch is the path `chsim locate --replicas K` takes: SelectBatch (and
// LocateBatch for the baseline) over blocks of kBlock hashes.
// items_per_second counts keys (one replica set, or one lookup, per item), so
// the cost of K copies against one lookup is the ratio of the two rows'
// items_per_second at the same algorithm and nodes.
//
// Flags (besides Google Benchmark's): --chsim_smoke.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.h"
#include "chsim/algorithm.h"
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

void Register() {
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
  chsim::bench::ParseCommonFlags(&argc, argv);
  chsim::bench::Register();
  return chsim::bench::RunBenchmarks(argc, argv);
}
