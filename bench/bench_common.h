// SPDX-License-Identifier: Apache-2.0
// Shared pieces of chsim's Google Benchmark programs: deterministic inputs
// (keys, hashes, node lists) made outside the timed region, one generic item
// runner for throughput and latency, and the smoke mode CTest uses.
//
// Conventions (every benchmark follows them):
// - names are "group/what/param:value/..."; numeric arguments are named
//   (Google Benchmark's ArgName), e.g. ".../nodes:100";
// - every iteration processes kChunk items; items_per_second is reported, so
//   ns per item = 1e9 / items_per_second;
// - "tput" runs independent items (the CPU may overlap them); "lat" makes the
//   next item's input depend on the previous answer through an opaque zero, so
//   items run strictly one after the other (limits.md's method).
// - `--chsim_smoke` (stripped before Google Benchmark sees argv) registers a
//   small subset with one iteration each: CTest runs every binary that way.
#ifndef CHSIM_BENCH_BENCH_COMMON_H_
#define CHSIM_BENCH_BENCH_COMMON_H_

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/node.h"
#include "chsim/simd.h"
#include "chsim/splitmix.h"

namespace chsim::bench {

inline constexpr int kChunk = 1024;

// Set by ParseCommonFlags.
inline bool g_smoke = false;

// Removes chsim's own flags from argv (before benchmark::Initialize); exits 2
// when CHSIM_SIMD asks for a level this CPU lacks (chsim/simd.h).
inline void ParseCommonFlags(int* argc, char** argv) {
  if (const char* error = SimdOverrideError()) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], error);
    std::exit(2);
  }
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    if (std::strcmp(argv[i], "--chsim_smoke") == 0) {
      g_smoke = true;
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  argv[out] = nullptr;
}

// The rest of every benchmark binary's main, after its benchmarks are
// registered: Google Benchmark's flags, the run, exit 2 on a flag it does not
// know.
inline int RunBenchmarks(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// The project's seeded generator (core's chsim/splitmix.h). Inputs draw
// bounded values with Bounded(rng.Next(), n), the multiply-shift without
// rejection, so the streams (and the gate baseline) stay as they were.
using chsim::Bounded;
using chsim::SplitMix64;

// A pool of keys packed in one buffer; a power-of-two count so the runner can
// wrap with a mask.
struct KeyPool {
  std::string bytes;
  std::vector<std::string_view> keys;
  size_t mask = 0;
};

// `count` (a power of two) random alphanumeric keys with lengths uniform in
// [min_len, max_len].
inline KeyPool MakeKeys(size_t count, size_t min_len, size_t max_len, uint64_t seed = 42) {
  static constexpr char kAlnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  SplitMix64 rng{seed};
  KeyPool pool;
  std::vector<size_t> lens(count);
  size_t total = 0;
  for (size_t& l : lens) total += (l = min_len + Bounded(rng.Next(), max_len - min_len + 1));
  pool.bytes.resize(total);
  size_t off = 0;
  for (size_t l : lens) {
    for (size_t j = 0; j < l; ++j) pool.bytes[off + j] = kAlnum[Bounded(rng.Next(), 62)];
    off += l;
  }
  off = 0;
  pool.keys.reserve(count);
  for (size_t l : lens) {
    pool.keys.emplace_back(pool.bytes.data() + off, l);
    off += l;
  }
  pool.mask = count - 1;
  return pool;
}

// Pool size for keys of about `len` bytes: 2^20 keys, capped at ~64 MiB of key
// bytes, 2^12 in smoke mode.
inline size_t PoolCount(size_t len) {
  if (g_smoke) return size_t{1} << 12;
  size_t n = size_t{1} << 20;
  while (n > 4096 && n * len > (size_t{64} << 20)) n >>= 1;
  return n;
}

inline std::vector<uint64_t> MakeHashes(size_t count, uint64_t seed = 7) {
  SplitMix64 rng{seed};
  std::vector<uint64_t> h(count);
  for (uint64_t& x : h) x = rng.Next();
  return h;
}

// A zero the compiler cannot see through: `x & OpaqueZero()` makes a data
// dependency without changing x.
inline uint64_t OpaqueZero() {
  uint64_t z = 0;
  benchmark::DoNotOptimize(z);
  return z;
}

// The generic runner. `op(i, dep)` handles item i (i < pool size, wrapped by
// `mask`) and returns a value; in latency mode the next index depends on it.
template <bool kLatency, typename Op>
void RunItems(benchmark::State& state, size_t mask, Op&& op) {
  const uint64_t zero = OpaqueZero();
  size_t i = 0;
  uint64_t dep = 0;
  for (auto _ : state) {
    for (int k = 0; k < kChunk; ++k) {
      if constexpr (kLatency) {
        dep = op((i + (dep & zero)) & mask);
      } else {
        uint64_t r = op(i & mask);
        benchmark::DoNotOptimize(r);
      }
      ++i;
    }
  }
  benchmark::DoNotOptimize(dep);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kChunk);
}

// Applies the smoke-mode rule (one iteration) to a registered benchmark.
inline benchmark::internal::Benchmark* Tune(benchmark::internal::Benchmark* b) {
  if (g_smoke) b->Iterations(1);
  return b;
}

// Node counts: 10..100,000 (10, 1000 in smoke mode).
inline std::vector<int64_t> NodeCounts() {
  if (g_smoke) return {10, 1000};
  return {10, 100, 1000, 10000, 100000};
}

// The algorithms the benchmarks run: every algorithm of the registry.
inline std::span<const AlgorithmSpec* const> BenchAlgorithms() noexcept { return AllAlgorithms(); }

// `spec` over n numbered nodes with its default parameters; `hasher` becomes
// its node hasher when it has one (a `hasher` parameter with a default:
// ketama's is the profile's key hasher override, left alone).
inline std::unique_ptr<Algorithm> MakeBenchAlgorithm(const AlgorithmSpec& spec, size_t n,
                                                     std::string_view hasher = {}) {
  Params params;
  const ParamSpec* p = spec.FindParam("hasher");
  if (!hasher.empty() && p != nullptr && !p->default_text.empty())
    params.Set("hasher", std::string(hasher));
  const std::vector<Node> nodes = MakeNumberedNodes(static_cast<uint32_t>(n));
  return spec.Make(nodes, params);
}

inline std::string Join(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (std::string_view p : parts) {
    if (!s.empty()) s += '/';
    s += p;
  }
  return s;
}

}  // namespace chsim::bench

#endif  // CHSIM_BENCH_BENCH_COMMON_H_
