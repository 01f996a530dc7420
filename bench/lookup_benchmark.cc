// SPDX-License-Identifier: Apache-2.0
// Lookups: Ketama rings under every compatibility profile, and every algorithm
// of BenchAlgorithms() (the registry) x key hasher, at 10..100,000 nodes; key hash included
// (keys of 16-32 bytes) or excluded (pre-made uniform hashes); throughput and
// latency; the batched ring path. Names:
// <profile> is a compatibility profile or research-{xxh3,md5} (ResearchProfile, 160 points).
//   lookup/ring:<profile>/key_hash:{incl,excl}/mode:{tput,lat}/nodes:<n>
//   lookup/ring:<profile>/key_hash:incl/mode:batch/nodes:<n>   (Ring::LocateBatch)
//   lookup/algo:<name>/hasher:<h>/key_hash:{incl,excl}/mode:{tput,lat}/nodes:<n>
// Counter bytes_per_node: the structure's memory (MemoryBytes) per node.
//
// Flags (besides Google Benchmark's): --chsim_smoke;
// --hashers=a,b,... key hashers for the algorithm grid (default md5,xxh3,fnv1a_64,murmur3_32;
// `all` = every registered hasher).
#include <memory>
#include <span>
#include <string>

#include "bench_common.h"
#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/node.h"
#include "chsim/profile.h"
#include "chsim/profile_map.h"
#include "chsim/ring.h"

namespace chsim::bench {
namespace {

const KeyPool& Keys() {
  static const KeyPool pool = MakeKeys(PoolCount(32), 16, 32);
  return pool;
}

const std::vector<uint64_t>& Hashes() {
  static const std::vector<uint64_t> h = MakeHashes(Keys().keys.size());
  return h;
}

// A named profile, or "research-<hasher>": ResearchProfile(hasher, 160).
Profile ProfileByName(const std::string& name) {
  if (name.rfind("research-", 0) == 0) return ResearchProfile(GetHasher(name.substr(9)), 160);
  return MakeProfile(name);
}

std::vector<std::string> RingProfiles() {
  std::vector<std::string> out;
  for (const ProfileInfo& p : AllProfiles()) out.emplace_back(p.name);
  out.push_back("research-xxh3");
  out.push_back("research-md5");
  return out;
}

// One-slot caches: benchmarks are registered grouped by structure, so each
// structure (a Ring, or a ProfileMap) is built once per group (outside any
// timed region).
template <typename Structure>
const Structure& Cached(const std::string& profile, size_t n) {
  static std::string key;
  static Structure built;
  std::string want = profile + "/" + std::to_string(n);
  if (key != want) {
    built = Structure();
    std::vector<Node> nodes = MakeNumberedNodes(static_cast<uint32_t>(n));
    built = Structure::Build(ProfileByName(profile), nodes);
    key = want;
  }
  return built;
}

enum class Mode { kTput, kLat, kBatch };

// Batched lookups: locate_batch(keys, out) over the pool, kChunk keys a call.
template <typename LocateBatch>
void RunBatches(benchmark::State& state, const KeyPool& pool, LocateBatch locate_batch) {
  std::vector<uint32_t> out(kChunk);
  const size_t batches = (pool.mask + 1) / kChunk;
  size_t b = 0;
  for (auto _ : state) {
    locate_batch(
        std::span<const std::string_view>(pool.keys).subspan((b % batches) * kChunk, kChunk),
        std::span<uint32_t>(out));
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
    ++b;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kChunk);
}

void BM_Ring(benchmark::State& state, std::string profile, bool incl, Mode mode) {
  const size_t n = static_cast<size_t>(state.range(0));
  const Ring& ring = Cached<Ring>(profile, n);
  const KeyPool& pool = Keys();
  const std::vector<uint64_t>& hashes = Hashes();
  if (mode == Mode::kBatch) {
    RunBatches(state, pool,
               [&](auto keys, std::span<uint32_t> out) { ring.LocateBatch(keys, out); });
  } else if (incl) {
    auto op = [&](size_t i) -> uint64_t { return ring.Locate(pool.keys[i]); };
    if (mode == Mode::kLat)
      RunItems<true>(state, pool.mask, op);
    else
      RunItems<false>(state, pool.mask, op);
  } else {
    // Hashes in the profile's key space, masked before timing (LocateHash requires it).
    std::vector<uint32_t> own(hashes.size());
    for (size_t i = 0; i < own.size(); ++i)
      own[i] = static_cast<uint32_t>(hashes[i]) & ring.space_mask();
    auto op = [&](size_t i) -> uint64_t { return ring.LocateHash(own[i]); };
    if (mode == Mode::kLat)
      RunItems<true>(state, pool.mask, op);
    else
      RunItems<false>(state, pool.mask, op);
  }
  state.counters["bytes_per_node"] = static_cast<double>(ring.MemoryBytes()) / n;
}

// A profile whose engine is a ProfileMap (pymemcache): the same modes as
// BM_Ring, LocateHash scoring the stand-in key of the 64-bit hash.
void BM_Map(benchmark::State& state, std::string profile, bool incl, Mode mode) {
  const size_t n = static_cast<size_t>(state.range(0));
  const ProfileMap& map = Cached<ProfileMap>(profile, n);
  const KeyPool& pool = Keys();
  const std::vector<uint64_t>& hashes = Hashes();
  if (mode == Mode::kBatch) {
    RunBatches(state, pool,
               [&](auto keys, std::span<uint32_t> out) { map.LocateBatch(keys, out); });
  } else {
    auto op = [&](size_t i) -> uint64_t {
      return incl ? map.Locate(pool.keys[i]) : map.LocateHash(hashes[i]);
    };
    if (mode == Mode::kLat)
      RunItems<true>(state, pool.mask, op);
    else
      RunItems<false>(state, pool.mask, op);
  }
  state.counters["bytes_per_node"] = static_cast<double>(map.MemoryBytes()) / n;
}

bool IsMapProfile(const std::string& name) {
  return name.rfind("research-", 0) != 0 && MakeProfile(name).engine != Engine::kRing;
}

void RegisterRings() {
  for (const std::string& p : RingProfiles()) {
    struct V {
      bool incl;
      Mode mode;
      const char* tag;
    };
    for (V v : {V{true, Mode::kTput, "key_hash:incl/mode:tput"},
                V{true, Mode::kLat, "key_hash:incl/mode:lat"},
                V{true, Mode::kBatch, "key_hash:incl/mode:batch"},
                V{false, Mode::kTput, "key_hash:excl/mode:tput"},
                V{false, Mode::kLat, "key_hash:excl/mode:lat"}}) {
      std::string name = Join({"lookup", "ring:" + p, v.tag});
      auto* b = IsMapProfile(p)
                    ? benchmark::RegisterBenchmark(name.c_str(), BM_Map, p, v.incl, v.mode)
                    : benchmark::RegisterBenchmark(name.c_str(), BM_Ring, p, v.incl, v.mode);
      for (int64_t n : NodeCounts()) b->Arg(n);
      Tune(b->ArgName("nodes"));
    }
  }
}

const Algorithm& CachedAlgorithm(const AlgorithmSpec* algo, const std::string& hasher, size_t n) {
  static std::string key;
  static std::unique_ptr<Algorithm> a;
  std::string want = std::string(algo->name) + "/" + hasher + "/" + std::to_string(n);
  if (key != want || !a) {
    a.reset();
    a = MakeBenchAlgorithm(*algo, n, hasher);
    key = want;
  }
  return *a;
}

void BM_Algo(benchmark::State& state, const AlgorithmSpec* algo, const Hasher* hasher, bool incl,
             bool lat) {
  const size_t n = static_cast<size_t>(state.range(0));
  const Algorithm* a;
  try {
    a = &CachedAlgorithm(algo, std::string(hasher->name), n);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const KeyPool& pool = Keys();
  const std::vector<uint64_t>& hashes = Hashes();
  const HashFn fn = hasher->fn;
  if (incl) {
    auto op = [&](size_t i) -> uint64_t {
      return a->Locate(fn(pool.keys[i].data(), pool.keys[i].size()));
    };
    if (lat)
      RunItems<true>(state, pool.mask, op);
    else
      RunItems<false>(state, pool.mask, op);
  } else {
    auto op = [&](size_t i) -> uint64_t { return a->Locate(hashes[i]); };
    if (lat)
      RunItems<true>(state, pool.mask, op);
    else
      RunItems<false>(state, pool.mask, op);
  }
  state.counters["bytes_per_node"] = static_cast<double>(a->MemoryBytes()) / n;
}

std::vector<const Hasher*> GridHashers(const std::string& spec) {
  std::vector<const Hasher*> out;
  if (spec == "all") {
    for (const Hasher& h : AllHashers()) out.push_back(&h);
    return out;
  }
  size_t start = 0;
  while (start <= spec.size()) {
    size_t end = spec.find(',', start);
    if (end == std::string::npos) end = spec.size();
    out.push_back(&GetHasher(spec.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

void RegisterAlgorithms(const std::string& hasher_spec) {
  std::vector<const Hasher*> hashers = GridHashers(hasher_spec);
  if (g_smoke) hashers.resize(1);
  for (const AlgorithmSpec* info : BenchAlgorithms()) {
    for (const Hasher* h : hashers) {
      for (int v = 0; v < 4; ++v) {
        const bool incl = v < 2, lat = v % 2 == 1;
        std::string name =
            Join({"lookup", "algo:" + std::string(info->name), "hasher:" + std::string(h->name),
                  incl ? "key_hash:incl" : "key_hash:excl", lat ? "mode:lat" : "mode:tput"});
        auto* b = benchmark::RegisterBenchmark(name.c_str(), BM_Algo, info, h, incl, lat);
        for (int64_t n : NodeCounts()) b->Arg(n);
        Tune(b->ArgName("nodes"));
      }
    }
  }
}

}  // namespace
}  // namespace chsim::bench

int main(int argc, char** argv) {
  using namespace chsim::bench;
  std::string hashers = "md5,xxh3,fnv1a_64,murmur3_32";
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a.substr(0, 10) == "--hashers=")
      hashers = std::string(a.substr(10));
    else
      argv[out++] = argv[i];
  }
  argc = out;
  ParseCommonFlags(&argc, argv);
  try {
    RegisterRings();
    RegisterAlgorithms(hashers);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lookup_benchmark: %s\n", e.what());
    return 2;
  }
  return RunBenchmarks(argc, argv);
}
