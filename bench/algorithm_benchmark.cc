// SPDX-License-Identifier: Apache-2.0
// Algorithms side by side, as the public comparison suites report them, over
// every algorithm of AllAlgorithms() (registration reads the registry: a new
// algorithm appears without edits here). Key hashes are precomputed 64-bit
// values (no key hashing), one thread; `modulo` is the baseline in the same
// binary, so ratios to it travel between machines. Names:
//   algo/lookup/<name>/removed:<pct>/mode:{tput,lat}/nodes:<n>
//       Locate on independent (tput) or chained (lat) keys after removing
//       <pct>% of the nodes at random (0, 10, 50, 90; the non-zero rows only
//       for algorithms with arbitrary removal). Counter bytes_per_node:
//       MemoryBytes / live nodes, i.e. memory per node after the removals.
//   algo/batch/<name>/removed:<pct>/nodes:<n>
//       LocateBatch over 1,024 keys after the same removals (0 and 10).
//   algo/keyed/<name>/hasher:<h>/nodes:<n>
//       Locate with the key hash included: each 16-byte key hashed by the
//       algorithm's key hasher with default parameters (xxh3, or the
//       profile's for ketama), then located; independent keys.
//   algo/resize/<name>/op:{add,remove}/nodes:<n>
//       ns per Add / per Remove at n nodes (items = operations): each
//       iteration applies up to 64 operations (1 for algorithms that rebuild)
//       and undoes them outside the timed region. Remove takes random live
//       nodes where supported, else the last one. One Add and Remove before
//       timing builds the live-label index (O(n) once; then O(1) per Add).
//   algo/interface/<fn>/via:{inline,locate,batch}/nodes:<n>
//       what the Algorithm interface costs: the same function inlined in the
//       loop, called per key through the interface (a virtual call), and
//       through one LocateBatch call per 1,024 keys (devirtualized inside).
//   algo/floor/power/nodes:<n>, algo/floor/power_mix64/nodes:<n>
//       The Mix64 that power's answer needs per key on its common path (the
//       spread key k, then Mix64(Mix64(k) ^ j), or Mix64(k ^ j) with
//       level_hash mix64), inlined in the loop with no call and nothing
//       else: a floor under any implementation of that mapping on one core
//       (scripts/compare-reference prints it beside the reference engine).
// Variants: the lookup, batch and keyed rows also run each entry of
// Variants(), an algorithm with a non-default parameter under its own name
// (power_mix64: power with level_hash mix64).
//   algo/grid/<name>/nodes:<n>
//       With --chsim_grid only: the tput lookup (nothing removed) at 35 node
//       counts from 2^16 to 2^18, 16 per doubling (2^(16 + i/16), rounded)
//       and 2^16 + 1, 2^17 + 1, where the range hashes' cost rises and falls
//       with n's place between two powers of two (scripts/lookup-vs-n plots
//       it).
// Nodes: 10^3, 10^4, 10^5, 10^6 (10^3 with --chsim_smoke). Structures that an
// algorithm refuses at a size (e.g. maglev's default table below n) are
// skipped with the algorithm's message. Initialisation time and bytes per node
// of a fresh structure: chsim_build_benchmark (build/algo:<name>).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "bench_common.h"
#include "chsim/algorithm.h"
#include "chsim/algorithms/jump.h"
#include "chsim/hasher.h"
#include "chsim/node.h"

namespace chsim::bench {
namespace {

bool g_grid = false;  // --chsim_grid

// 2^(16 + i/16) for i = 0..32, rounded, and 2^16 + 1, 2^17 + 1 (where the
// range hashes are slowest), ascending (2^16 and 2^18 with --chsim_smoke).
std::vector<int64_t> GridSizes() {
  std::vector<int64_t> n;
  for (int i = 0; i <= 32; i += g_smoke ? 32 : 1) {
    n.push_back(static_cast<int64_t>(std::llround(std::exp2(16.0 + i / 16.0))));
    if (!g_smoke && i % 16 == 0 && i < 32) n.push_back(n.back() + 1);
  }
  return n;
}

std::vector<int64_t> Sizes() {
  if (g_smoke) return {1000};
  return {1000, 10000, 100000, 1000000};
}

const std::vector<uint64_t>& Hashes() {
  static const std::vector<uint64_t> h = MakeHashes(g_smoke ? 4096 : size_t{1} << 20);
  return h;
}

// A registry algorithm with non-default parameters, benchmarked as `label`.
struct Variant {
  std::string label, algorithm;
  Params params;
};

const std::vector<Variant>& Variants() {
  static const std::vector<Variant> v = {
      {"power_mix64", "power", Params{{"level_hash", std::string("mix64")}}}};
  return v;
}

// MakeAlgorithm for a registry name or a Variants() label.
std::unique_ptr<Algorithm> MakeNamed(const std::string& name, std::span<const Node> nodes) {
  for (const Variant& v : Variants()) {
    if (v.label == name) return MakeAlgorithm(v.algorithm, nodes, v.params);
  }
  return MakeAlgorithm(name, nodes);
}

// Builds `name` (MakeNamed) over n numbered nodes and removes `removed_pct`% of them, a
// random set (a fixed seed: every algorithm loses the same ids), in descending
// id order. An algorithm that rebuilds on every change (!incremental) is built
// over the survivors instead: the same structure without 10^5 rebuilds.
// Throws what MakeAlgorithm throws.
std::unique_ptr<Algorithm> Build(const std::string& name, size_t n, int removed_pct) {
  const std::vector<Node> nodes = MakeNumberedNodes(static_cast<uint32_t>(n));
  std::unique_ptr<Algorithm> a = MakeNamed(name, nodes);
  SplitMix64 rng(0x72656d6f7665ULL);  // "remove"
  std::vector<uint32_t> ids = a->live_ids();
  const size_t count = n * static_cast<size_t>(removed_pct) / 100;
  if (count == 0) return a;
  for (size_t r = 0; r < count; ++r) {  // the first `count` of a Fisher-Yates shuffle
    std::swap(ids[r], ids[r + Bounded(rng.Next(), ids.size() - r)]);
  }
  std::sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(count), std::greater<>());
  if (!a->capabilities().incremental) {
    std::vector<bool> gone(n, false);
    for (size_t r = 0; r < count; ++r) gone[ids[r]] = true;
    std::vector<Node> survivors;
    for (size_t i = 0; i < n; ++i) {
      if (!gone[i]) survivors.push_back(nodes[i]);
    }
    a.reset();
    return MakeNamed(name, survivors);
  }
  for (size_t r = 0; r < count; ++r) a->Remove(ids[r]);
  return a;
}

// One-slot cache: benchmarks run in registration order, grouped by structure.
// A structure the algorithm refuses skips every benchmark that asks for it
// (repetitions and the rows after the first included), with the refusal.
Algorithm* Cached(benchmark::State& state, const std::string& name, size_t n, int removed_pct) {
  static std::string key;
  static std::unique_ptr<Algorithm> a;
  static std::string refusal;
  const std::string want = name + "/" + std::to_string(n) + "/" + std::to_string(removed_pct);
  if (key != want) {
    a.reset();
    refusal.clear();
    key = want;
    try {
      a = Build(name, n, removed_pct);
    } catch (const std::exception& e) {
      refusal = e.what();
    }
  }
  if (a == nullptr) state.SkipWithError(refusal.c_str());
  return a.get();
}

void BM_Lookup(benchmark::State& state, std::string name, int removed_pct, bool lat) {
  const size_t n = static_cast<size_t>(state.range(0));
  const Algorithm* a = Cached(state, name, n, removed_pct);
  if (a == nullptr) return;
  const std::vector<uint64_t>& hashes = Hashes();
  auto op = [&](size_t i) -> uint64_t { return a->Locate(hashes[i]); };
  if (lat) {
    RunItems<true>(state, hashes.size() - 1, op);
  } else {
    RunItems<false>(state, hashes.size() - 1, op);
  }
  state.counters["bytes_per_node"] = static_cast<double>(a->MemoryBytes()) / a->num_nodes();
}

void BM_Batch(benchmark::State& state, std::string name, int removed_pct) {
  const Algorithm* a = Cached(state, name, static_cast<size_t>(state.range(0)), removed_pct);
  if (a == nullptr) return;
  const std::vector<uint64_t>& hashes = Hashes();
  std::vector<uint32_t> out(kChunk);
  size_t b = 0;
  const size_t batches = hashes.size() / kChunk;
  for (auto _ : state) {
    a->LocateBatch(std::span(hashes).subspan((b++ % batches) * kChunk, kChunk), out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kChunk);
}

// 16-byte keys, hashed inside the timed loop.
const KeyPool& Keys16() {
  static const KeyPool pool = MakeKeys(g_smoke ? 4096 : size_t{1} << 20, 16, 16);
  return pool;
}

void BM_Keyed(benchmark::State& state, std::string name, const Hasher* hasher) {
  const Algorithm* a = Cached(state, name, static_cast<size_t>(state.range(0)), 0);
  if (a == nullptr) return;
  const KeyPool& pool = Keys16();
  RunItems<false>(state, pool.mask, [&](size_t i) -> uint64_t {
    return a->Locate(hasher->fn(pool.keys[i].data(), pool.keys[i].size()));
  });
}

// remix: level_hash mix2 (the default), else mix64.
void BM_PowerFloor(benchmark::State& state, bool remix) {
  const uint32_t mask =
      static_cast<uint32_t>(std::bit_ceil(static_cast<uint64_t>(state.range(0)))) - 1;
  const std::vector<uint64_t>& hashes = Hashes();
  RunItems<false>(state, hashes.size() - 1, [&](size_t i) -> uint64_t {
    const uint64_t k = Mix64(hashes[i]);
    const int j = std::bit_width((static_cast<uint32_t>(k) & mask) | 1u) - 1;
    return Mix64((remix ? Mix64(k) : k) ^ static_cast<uint64_t>(j));
  });
}

void BM_Resize(benchmark::State& state, std::string name, bool add) {
  const size_t n = static_cast<size_t>(state.range(0));
  try {
    std::unique_ptr<Algorithm> a = Build(name, n, 0);
    const Capabilities caps = a->capabilities();
    const size_t ops = caps.incremental ? std::min<size_t>(64, n / 2) : 1;
    std::vector<Node> node_of = MakeNumberedNodes(static_cast<uint32_t>(n));  // by id
    const std::vector<Node> extra = MakeNumberedNodes(static_cast<uint32_t>(ops), n);
    SplitMix64 rng(0x726573697a65ULL);  // "resize"
    std::vector<uint32_t> ids;
    // The first Add builds the live-label index (O(n) once, as a build):
    // done before timing.
    a->Remove(a->Add(MakeNumberedNodes(1, static_cast<uint32_t>(n + ops))[0]));
    auto add_node = [&](Node node) {  // untimed; a copy: node_of may reallocate
      const uint32_t id = a->Add(node);
      if (id >= node_of.size()) node_of.resize(size_t{id} + 1);
      node_of[id] = std::move(node);
      return id;
    };
    for (auto _ : state) {
      if (add) {
        for (size_t i = 0; i < ops; ++i) ids.push_back(a->Add(extra[i]));
        state.PauseTiming();
        for (size_t i = ops; i-- > 0;) a->Remove(ids[i]);
      } else {
        state.PauseTiming();
        std::vector<uint32_t> live = a->live_ids();
        for (size_t i = 0; i < ops; ++i) {
          const size_t at =
              caps.arbitrary_removal ? Bounded(rng.Next(), live.size()) : live.size() - 1;
          ids.push_back(live[at]);
          live.erase(live.begin() + static_cast<std::ptrdiff_t>(at));
        }
        state.ResumeTiming();
        for (uint32_t id : ids) a->Remove(id);
        state.PauseTiming();
        for (size_t i = ops; i-- > 0;) add_node(node_of[ids[i]]);  // undo, last removed first
      }
      ids.clear();
      state.ResumeTiming();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * ops));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// The interface's cost: `inline` runs `fn` (the algorithm's own lookup) in
// the loop, `locate` the interface's virtual Locate per key, `batch` one
// LocateBatch per chunk.
enum class Via { kInline, kLocate, kBatch };

template <typename Fn>
void BM_Interface(benchmark::State& state, std::string name, Via via, Fn fn) {
  const size_t n = static_cast<size_t>(state.range(0));
  const Algorithm* a = Cached(state, name, n, 0);
  if (a == nullptr) return;
  const std::vector<uint64_t>& hashes = Hashes();
  const std::vector<uint32_t> ids = a->live_ids();  // bucket -> id, as the algorithm maps
  if (via == Via::kBatch) {
    BM_Batch(state, name, 0);
    return;
  }
  if (via == Via::kInline) {
    // As the algorithm does: jump skips the id map while ids equal buckets,
    // modulo always reads it.
    const uint32_t* id = ids.data();
    const bool identity = name == "jump" && ids.back() + 1 == ids.size();
    RunItems<false>(state, hashes.size() - 1, [&](size_t i) -> uint64_t {
      const size_t b = fn(hashes[i], n);
      return identity ? b : id[b];
    });
  } else {
    RunItems<false>(state, hashes.size() - 1,
                    [&](size_t i) -> uint64_t { return a->Locate(hashes[i]); });
  }
}

void Register() {
  std::vector<std::pair<std::string, const AlgorithmSpec*>> named;
  for (const AlgorithmSpec* spec : AllAlgorithms()) named.emplace_back(spec->name, spec);
  for (const Variant& v : Variants()) named.emplace_back(v.label, &GetAlgorithm(v.algorithm));
  for (const auto& [name, spec] : named) {
    for (int removed : {0, 10, 50, 90}) {
      if (removed > 0 && !spec->capabilities.arbitrary_removal) continue;
      for (bool lat : {false, true}) {
        const std::string bm = "algo/lookup/" + name + "/removed:" + std::to_string(removed) +
                               (lat ? "/mode:lat" : "/mode:tput");
        auto* b = benchmark::RegisterBenchmark(bm.c_str(), BM_Lookup, name, removed, lat);
        for (int64_t n : Sizes()) b->Arg(n);
        Tune(b->ArgName("nodes"));
      }
    }
    for (int removed : {0, 10}) {
      if (removed > 0 && !spec->capabilities.arbitrary_removal) continue;
      const std::string bm = "algo/batch/" + name + "/removed:" + std::to_string(removed);
      auto* b = benchmark::RegisterBenchmark(bm.c_str(), BM_Batch, name, removed);
      for (int64_t n : Sizes()) b->Arg(n);
      Tune(b->ArgName("nodes"));
    }
    const Hasher& hasher = GetHasher(spec->KeyHasher(spec->Resolve({})));
    const std::string keyed = "algo/keyed/" + name + "/hasher:" + std::string(hasher.name);
    auto* k = benchmark::RegisterBenchmark(keyed.c_str(), BM_Keyed, name, &hasher);
    for (int64_t n : Sizes()) k->Arg(n);
    Tune(k->ArgName("nodes"));
  }
  for (const AlgorithmSpec* spec : AllAlgorithms()) {
    const std::string name(spec->name);
    for (bool add : {true, false}) {
      const std::string bm = "algo/resize/" + name + (add ? "/op:add" : "/op:remove");
      auto* b = benchmark::RegisterBenchmark(bm.c_str(), BM_Resize, name, add);
      for (int64_t n : Sizes()) b->Arg(n);
      Tune(b->ArgName("nodes")->Iterations(spec->capabilities.incremental ? 20 : 3));
    }
  }
  for (bool remix : {true, false}) {
    auto* floor = benchmark::RegisterBenchmark(
        remix ? "algo/floor/power" : "algo/floor/power_mix64", BM_PowerFloor, remix);
    for (int64_t n : Sizes()) floor->Arg(n);
    Tune(floor->ArgName("nodes"));
  }
  for (const AlgorithmSpec* spec : AllAlgorithms()) {
    if (!g_grid) break;
    const std::string name(spec->name);
    auto* b =
        benchmark::RegisterBenchmark(("algo/grid/" + name).c_str(), BM_Lookup, name, 0, false);
    for (int64_t n : GridSizes()) b->Arg(n);
    Tune(b->ArgName("nodes"));
  }
  // The interface's cost, on the cheapest lookup (modulo) and on jump.
  auto modulo = [](uint64_t h, size_t n) { return static_cast<size_t>(h % n); };
  auto jump = [](uint64_t h, size_t n) {
    return static_cast<size_t>(JumpConsistentHash(h, static_cast<int32_t>(n)));
  };
  for (Via via : {Via::kInline, Via::kLocate, Via::kBatch}) {
    const char* tag = via == Via::kInline ? "inline" : via == Via::kLocate ? "locate" : "batch";
    auto* m = benchmark::RegisterBenchmark(
        ("algo/interface/modulo/via:" + std::string(tag)).c_str(),
        [=](benchmark::State& s) { BM_Interface(s, "modulo", via, modulo); });
    auto* j = benchmark::RegisterBenchmark(
        ("algo/interface/jump/via:" + std::string(tag)).c_str(),
        [=](benchmark::State& s) { BM_Interface(s, "jump", via, jump); });
    for (int64_t n : Sizes()) m->Arg(n), j->Arg(n);
    Tune(m->ArgName("nodes"));
    Tune(j->ArgName("nodes"));
  }
}

}  // namespace
}  // namespace chsim::bench

int main(int argc, char** argv) {
  int out = 1;  // strip --chsim_grid
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--chsim_grid") == 0) {
      chsim::bench::g_grid = true;
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  argv[argc] = nullptr;
  chsim::bench::ParseCommonFlags(&argc, argv);
  chsim::bench::Register();
  return chsim::bench::RunBenchmarks(argc, argv);
}
