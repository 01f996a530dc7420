// Hashers x key length: every registered hasher (AllHashers) on random
// alphanumeric keys of 8..250 bytes, throughput and latency. Names:
//   hash/<hasher>/mode:{tput,lat}/len:<bytes>
#include <map>

#include "bench_common.h"
#include "chsim/hasher.h"

namespace chsim::bench {
namespace {

const KeyPool& FixedLengthKeys(size_t len) {
  static std::map<size_t, KeyPool> cache;
  auto it = cache.find(len);
  if (it == cache.end()) it = cache.emplace(len, MakeKeys(PoolCount(len), len, len)).first;
  return it->second;
}

template <bool kLatency>
void BM_Hash(benchmark::State& state, const Hasher* hasher) {
  const KeyPool& pool = FixedLengthKeys(static_cast<size_t>(state.range(0)));
  const HashFn fn = hasher->fn;
  RunItems<kLatency>(state, pool.mask, [&](size_t i) {
    std::string_view k = pool.keys[i];
    return fn(k.data(), k.size());
  });
  state.SetBytesProcessed(state.items_processed() * state.range(0));
}

void Register() {
  std::vector<int64_t> lens = g_smoke ? std::vector<int64_t>{8, 64}
                                      : std::vector<int64_t>{8, 16, 32, 55, 64, 128, 250};
  for (const Hasher& h : AllHashers()) {
    for (bool lat : {false, true}) {
      std::string name = Join({"hash", h.name, lat ? "mode:lat" : "mode:tput"});
      auto* b = lat ? benchmark::RegisterBenchmark(name.c_str(), BM_Hash<true>, &h)
                    : benchmark::RegisterBenchmark(name.c_str(), BM_Hash<false>, &h);
      for (int64_t len : lens) b->Arg(len);
      Tune(b->ArgName("len"));
    }
  }
}

}  // namespace
}  // namespace chsim::bench

int main(int argc, char** argv) {
  chsim::bench::ParseCommonFlags(&argc, argv);
  chsim::bench::Register();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
