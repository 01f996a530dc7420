// SPDX-License-Identifier: Apache-2.0
// Hashers x key length: every registered hasher (AllHashers) on random
// alphanumeric keys of 8..250 bytes, throughput and latency; chsim's own MD5
// paths beside them (md5_batch.h): the scalar one-block MD5 and the
// multi-buffer kernels, 1024 keys per call; and every hasher through
// HashBatch (the batched lookups' path), 1024 keys per call. Names:
//   hash/<hasher>/mode:{tput,lat,batch}/len:<bytes>
//   hash/md5_own_scalar/mode:{tput,lat}/len:<bytes>
//   hash/md5_batch/isa:<isa>/mode:batch/len:<bytes>
#include <map>
#include <span>

#include "bench_common.h"
#include "chsim/hasher.h"
#include "chsim/md5_batch.h"

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

void BM_HashBatch(benchmark::State& state, const Hasher* hasher) {
  const KeyPool& pool = FixedLengthKeys(static_cast<size_t>(state.range(0)));
  std::vector<uint64_t> out(kChunk);
  const size_t batches = (pool.mask + 1) / kChunk;
  size_t b = 0;
  for (auto _ : state) {
    HashBatch(*hasher, std::span(pool.keys).subspan((b++ % batches) * kChunk, kChunk), out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kChunk);
}

template <bool kLatency>
void BM_Md5OwnScalar(benchmark::State& state) {
  const KeyPool& pool = FixedLengthKeys(static_cast<size_t>(state.range(0)));
  RunItems<kLatency>(state, pool.mask, [&](size_t i) -> uint64_t {
    return Md5Le32(pool.keys[i].data(), pool.keys[i].size());
  });
}

void BM_Md5Batch(benchmark::State& state, std::string isa) {
  const KeyPool& pool = FixedLengthKeys(static_cast<size_t>(state.range(0)));
  const std::string saved = Md5BatchIsa();
  if (!SetMd5BatchIsa(isa)) {
    state.SkipWithError("ISA not supported by this CPU");
    return;
  }
  std::vector<uint32_t> out(kChunk);
  const size_t batches = (pool.mask + 1) / kChunk;
  size_t b = 0;
  for (auto _ : state) {
    Md5BatchLe32(std::span(pool.keys).subspan((b++ % batches) * kChunk, kChunk), out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kChunk);
  SetMd5BatchIsa(saved);
}

void Register() {
  std::vector<int64_t> lens =
      g_smoke ? std::vector<int64_t>{8, 64} : std::vector<int64_t>{8, 16, 32, 55, 64, 128, 250};
  for (const Hasher& h : AllHashers()) {
    for (bool lat : {false, true}) {
      std::string name = Join({"hash", h.name, lat ? "mode:lat" : "mode:tput"});
      auto* b = lat ? benchmark::RegisterBenchmark(name.c_str(), BM_Hash<true>, &h)
                    : benchmark::RegisterBenchmark(name.c_str(), BM_Hash<false>, &h);
      for (int64_t len : lens) b->Arg(len);
      Tune(b->ArgName("len"));
    }
    std::string name = Join({"hash", h.name, "mode:batch"});
    auto* b = benchmark::RegisterBenchmark(name.c_str(), BM_HashBatch, &h);
    for (int64_t len : lens) b->Arg(len);
    Tune(b->ArgName("len"));
  }
  for (bool lat : {false, true}) {
    std::string name = Join({"hash", "md5_own_scalar", lat ? "mode:lat" : "mode:tput"});
    auto* b = benchmark::RegisterBenchmark(name.c_str(),
                                           lat ? BM_Md5OwnScalar<true> : BM_Md5OwnScalar<false>);
    for (int64_t len : lens) b->Arg(len);
    Tune(b->ArgName("len"));
  }
  for (const char* isa : {"avx512", "avx2", "portable"}) {
    if (!SetMd5BatchIsa(isa)) continue;  // registers only what this CPU runs
    std::string name = Join({"hash", "md5_batch", std::string("isa:") + isa, "mode:batch"});
    auto* b = benchmark::RegisterBenchmark(name.c_str(), BM_Md5Batch, std::string(isa));
    for (int64_t len : lens) b->Arg(len);
    Tune(b->ArgName("len"));
  }
  SetMd5BatchIsa("avx512") || SetMd5BatchIsa("avx2") || SetMd5BatchIsa("portable");
}

}  // namespace
}  // namespace chsim::bench

int main(int argc, char** argv) {
  chsim::bench::ParseCommonFlags(&argc, argv);
  chsim::bench::Register();
  return chsim::bench::RunBenchmarks(argc, argv);
}
