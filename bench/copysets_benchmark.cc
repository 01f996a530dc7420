// SPDX-License-Identifier: Apache-2.0
// The replicas metric's durability figures (sim/run/copysets.h) at the size
// the target names: 10^7 keys of K = 3 copies, each on a uniform random
// 3-subset of n nodes (rendezvous top-k's placement, the most copysets any
// placement makes: about 10^7), counted once per distinct copyset; then 10^4
// random failure sets of 1% of the nodes evaluated against the copysets
// (keys losing every copy, keys losing their quorum) on 2 threads.
//   copysets/count/nodes:N      building the table: items = keys
//   copysets/loss/nodes:N       the Monte Carlo: items = failure sets
// The target: the loss evaluation of 10^4 sets over 10^7 keys under a minute
// on 2 cores at n = 1000 and 5000 (real_time of one iteration on a quiet
// machine; counter cpu_s_all_threads / 2 on a busy one), in memory bounded by
// the copysets (counter table_bytes).
//
// Flags (besides Google Benchmark's): --chsim_smoke (10^5 keys, 200 sets).
#include <sys/resource.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench_common.h"
#include "sim/run/copysets.h"

namespace chsim::bench {
namespace {

constexpr uint32_t kCopies = 3;

uint64_t Keys() { return g_smoke ? 100'000 : 10'000'000; }
uint64_t Sets() { return g_smoke ? 200 : 10'000; }

// CPU seconds of every thread of the process so far: on a busy machine the
// wall time says little, and this over 2 is the wall time on 2 quiet cores.
double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

sim::CopysetTable MakeTable(uint32_t nodes) {
  sim::CopysetTable t;
  SplitMix64 g(7);
  uint32_t c[kCopies];
  for (uint64_t k = 0; k < Keys(); ++k) {
    for (uint32_t i = 0; i < kCopies; ++i) {
      do {
        c[i] = static_cast<uint32_t>(Bounded(g.Next(), nodes));
      } while (std::find(c, c + i, c[i]) != c + i);
    }
    std::sort(c, c + kCopies);
    t.Add(c, 1);
  }
  return t;
}

void BM_Count(benchmark::State& state, uint32_t nodes) {
  size_t bytes = 0, copysets = 0;
  for (auto _ : state) {
    const sim::CopysetTable t = MakeTable(nodes);
    bytes = t.MemoryBytes();
    copysets = t.size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * Keys()));
  state.counters["copysets"] = static_cast<double>(copysets);
  state.counters["table_bytes"] = static_cast<double>(bytes);
}

void BM_Loss(benchmark::State& state, uint32_t nodes) {
  const sim::CopysetTable t = MakeTable(nodes);
  std::vector<uint32_t> live(nodes);
  for (uint32_t i = 0; i < nodes; ++i) live[i] = i;
  sim::LossRequest r;
  r.live = live;
  r.copies = kCopies;
  r.failed = nodes / 100;
  r.sets = Sets();
  r.seed = 1;
  r.threads = 2;
  sim::LossFigures l;
  const double cpu0 = ProcessCpuSeconds();
  for (auto _ : state) l = sim::EvaluateLoss(t, r);
  state.counters["cpu_s_all_threads"] = ProcessCpuSeconds() - cpu0;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * l.sets));
  state.counters["p"] = static_cast<double>(l.sets_with_loss) / static_cast<double>(l.sets);
  state.counters["formula"] = l.formula;
  state.counters["table_bytes"] = static_cast<double>(t.MemoryBytes());
}

void Register() {
  for (uint32_t n : {1000u, 5000u}) {
    const std::string at = "/nodes:" + std::to_string(n);
    benchmark::RegisterBenchmark(("copysets/count" + at).c_str(), BM_Count, n)
        ->Iterations(1)
        ->Unit(benchmark::kSecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("copysets/loss" + at).c_str(), BM_Loss, n)
        ->Iterations(1)
        ->Unit(benchmark::kSecond)
        ->UseRealTime();
  }
}

}  // namespace
}  // namespace chsim::bench

int main(int argc, char** argv) {
  chsim::bench::ParseCommonFlags(&argc, argv);
  chsim::bench::Register();
  return chsim::bench::RunBenchmarks(argc, argv);
}
