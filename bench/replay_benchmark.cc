// SPDX-License-Identifier: Apache-2.0
// The cache replay beside locate alone, in one binary, on the same requests:
// ring/xxh3 (160 points per node) at n = 100, a Zipf(1.0) stream over 10^7
// objects ("user:<rank>" keys, made outside the timed region), per-node
// caches holding 10^6 objects in all, warmed by one pass over the stream
// before timing. Each item is one request:
//   replay/locate/nodes:100                  hash the key, locate its node
//   replay/cache:<policy>/nodes:100          the same, then the node's cache
//                                            (the simulator's ServeRequests)
//   replay/cache:<policy>+twin/nodes:100     the simulator's whole per-request
//                                            work: two locates (run and twin)
//                                            and two caches
// The target: replay/cache:lru at most 3x replay/locate (items_per_second).
// Requests are processed in blocks of 1024, as the simulator does.
//
// Flags (besides Google Benchmark's): --chsim_smoke (10^4 objects cached).
#include <memory>
#include <string>
#include <vector>

#include "bench_common.h"
#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "sim/cache/cache.h"
#include "sim/workload/zipf.h"

namespace chsim::bench {
namespace {

constexpr size_t kNodes = 100;
constexpr uint64_t kObjects = 10'000'000;

size_t CachedObjects() { return g_smoke ? 10'000 : 1'000'000; }
size_t StreamLength() { return g_smoke ? size_t{1} << 14 : size_t{1} << 22; }

// The request stream: keys of Zipf(1.0) ranks, packed in one buffer.
const KeyPool& Requests() {
  static const KeyPool pool = [] {
    KeyPool p;
    const size_t n = StreamLength();
    sim::ZipfSampler zipf(kObjects, 1.0);
    SplitMix64 rng(11);
    std::vector<size_t> ends;
    for (size_t i = 0; i < n; ++i) {
      p.bytes += "user:" + std::to_string(zipf.Sample(rng));
      ends.push_back(p.bytes.size());
    }
    for (size_t i = 0, start = 0; i < n; start = ends[i++]) {
      p.keys.emplace_back(p.bytes.data() + start, ends[i] - start);
    }
    p.mask = n - 1;
    return p;
  }();
  return pool;
}

const Algorithm& Ring() {
  static const std::unique_ptr<Algorithm> ring =
      MakeBenchAlgorithm(*FindAlgorithm("ring"), kNodes, "xxh3");
  return *ring;
}

// What a block of requests needs besides the caches.
struct Block {
  std::vector<uint64_t> hashes = std::vector<uint64_t>(kChunk);
  std::vector<uint32_t> owners = std::vector<uint32_t>(kChunk), twin = std::vector<uint32_t>(kChunk);
  std::vector<uint32_t> sizes = std::vector<uint32_t>(kChunk, 1);
  std::vector<sim::RequestOp> ops = std::vector<sim::RequestOp>(kChunk, sim::RequestOp::kRead);
  std::vector<uint8_t> hits = std::vector<uint8_t>(kChunk);
};

// Hashes and locates requests [b * kChunk, (b + 1) * kChunk) of the stream.
void Locate(const Hasher& xxh3, size_t b, Block& k, std::vector<uint32_t>& owners) {
  const KeyPool& pool = Requests();
  const size_t blocks = (pool.mask + 1) / kChunk;
  HashBatch(xxh3, std::span(pool.keys).subspan((b % blocks) * kChunk, kChunk), k.hashes);
  Ring().LocateBatch(k.hashes, owners);
}

struct Caches {
  std::vector<std::unique_ptr<sim::NodeCache>> owned;
  std::vector<sim::NodeCache*> raw;
  Caches(sim::CachePolicy p) {
    for (size_t i = 0; i < kNodes; ++i) {
      owned.push_back(std::make_unique<sim::NodeCache>(p, CachedObjects() / kNodes, false));
      raw.push_back(owned.back().get());
    }
  }
};

void BM_Locate(benchmark::State& state) {
  const Hasher& xxh3 = GetHasher("xxh3");
  Block k;
  size_t b = 0;
  for (auto _ : state) {
    Locate(xxh3, b++, k, k.owners);
    benchmark::DoNotOptimize(k.owners.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kChunk);
}

void BM_Replay(benchmark::State& state, sim::CachePolicy policy, bool twin) {
  const Hasher& xxh3 = GetHasher("xxh3");
  Caches run(policy), other(policy);
  Block k;
  auto serve = [&](size_t b) {
    Locate(xxh3, b, k, k.owners);  // ring/xxh3: the object id is the key hash
    sim::ServeRequests(run.raw.data(), k.owners, k.hashes, k.sizes, k.ops, k.hits);
    if (twin) {
      Ring().LocateBatch(k.hashes, k.twin);
      sim::ServeRequests(other.raw.data(), k.twin, k.hashes, k.sizes, k.ops, k.hits);
    }
  };
  const size_t blocks = (Requests().mask + 1) / kChunk;
  for (size_t b = 0; b < blocks; ++b) serve(b);  // warm: the caches fill
  size_t b = 0, hits = 0, served = 0;
  for (auto _ : state) {
    serve(b++);
    for (uint8_t h : k.hits) hits += h;
    served += kChunk;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kChunk);
  state.counters["hit_ratio"] = served ? static_cast<double>(hits) / served : 0;
  size_t bytes = 0, objects = 0;
  for (const auto& c : run.owned) {
    bytes += c->MemoryBytes();
    objects += c->objects();
  }
  state.counters["bytes_per_cached_object"] = objects ? static_cast<double>(bytes) / objects : 0;
}

void Register() {
  Requests();  // made once, outside every timed region
  Ring();
  const std::string n = "/nodes:" + std::to_string(kNodes);
  Tune(benchmark::RegisterBenchmark(("replay/locate" + n).c_str(), BM_Locate));
  for (sim::CachePolicy p : {sim::CachePolicy::kLru, sim::CachePolicy::kFifo,
                             sim::CachePolicy::kClock, sim::CachePolicy::kS3Fifo}) {
    const std::string name(sim::CachePolicyName(p));
    for (bool twin : {false, true}) {
      if (twin && g_smoke) continue;
      const std::string full = "replay/cache:" + name + (twin ? "+twin" : "") + n;
      Tune(benchmark::RegisterBenchmark(full.c_str(), BM_Replay, p, twin));
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
