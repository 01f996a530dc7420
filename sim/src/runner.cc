#include "chsim/sim/runner.h"

#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "chsim/sim/deployment.h"
#include "chsim/sim/errors.h"
#include "chsim/sim/interrupt.h"
#include "chsim/sim/metrics.h"
#include "chsim/sim/progress.h"
#include "chsim/sim/stats.h"
#include "chsim/sim/timing.h"
#include "chsim/sim/workload.h"

namespace chsim::sim {
namespace {

constexpr uint64_t kBlock = 1024;  // units per parallel block: its keys (~40 KB) stay in L1/L2
constexpr size_t kMaxTransitionNodes = 256;  // transition matrix only for small clusters

// Integer tallies of one pass over the workload (exact, order-independent).
// Cache-line aligned: each thread owns one, side by side in a vector.
struct alignas(64) Tally {
  std::vector<uint64_t> cur, prev, moved_in, moved_out;
  uint64_t units = 0, moved = 0, survivors = 0, from_start = 0;
  Eigen::MatrixXd transitions;  // prev node x cur node, when asked

  void Init(size_t g, bool remap, bool transitions_wanted) {
    cur.assign(g, 0);
    if (remap) {
      prev.assign(g, 0);
      moved_in.assign(g, 0);
      moved_out.assign(g, 0);
    }
    if (transitions_wanted) transitions = Eigen::MatrixXd::Zero(g, g);
  }
  void Merge(const Tally& o) {
    for (size_t i = 0; i < cur.size(); ++i) cur[i] += o.cur[i];
    for (size_t i = 0; i < prev.size(); ++i) {
      prev[i] += o.prev[i];
      moved_in[i] += o.moved_in[i];
      moved_out[i] += o.moved_out[i];
    }
    units += o.units;
    moved += o.moved;
    survivors += o.survivors;
    from_start += o.from_start;
    if (transitions.size()) transitions += o.transitions;
  }
};

struct PassInput {
  const Workload* workload;
  Deployment* cur;
  Deployment* prev;   // null at step 0 or without remap
  Deployment* start;  // idem
  bool transitions;
};

// Counts one batch of located units into `t`. Scalars accumulate in locals:
// a store to t.units per unit would alias t.cur's elements and stay in the
// loop.
void Count(const PassInput& in, std::span<const uint32_t> c, std::span<const uint32_t> p,
           std::span<const uint32_t> s0, std::span<const uint64_t> weights, Tally& t) {
  uint64_t* const cur = t.cur.data();
  if (!in.prev && weights.empty()) {  // balance only: the common, hot case
    for (size_t i = 0; i < c.size(); ++i) ++cur[c[i]];
    t.units += c.size();
    return;
  }
  const std::vector<bool>& live_cur = in.cur->live();
  const std::vector<bool>* live_prev = in.prev ? &in.prev->live() : nullptr;
  uint64_t units = 0, moved = 0, survivors = 0, from_start = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    uint64_t w = weights.empty() ? 1 : weights[i];
    units += w;
    cur[c[i]] += w;
    if (!in.prev) continue;
    t.prev[p[i]] += w;
    if (t.transitions.size()) t.transitions(p[i], c[i]) += static_cast<double>(w);
    if (p[i] != c[i]) {
      moved += w;
      t.moved_in[c[i]] += w;
      t.moved_out[p[i]] += w;
      bool from_survivor = live_cur[p[i]];
      bool to_survivor = c[i] < live_prev->size() && (*live_prev)[c[i]];
      if (from_survivor && to_survivor) survivors += w;
    }
    if (s0[i] != c[i]) from_start += w;
  }
  t.units += units;
  t.moved += moved;
  t.survivors += survivors;
  t.from_start += from_start;
}

// One pass over the workload: every unit located under cur (and prev/start).
Tally Pass(const PassInput& in, unsigned threads, Progress* progress) {
  const size_t g = in.cur->nodes().size();
  const bool remap = in.prev != nullptr;
  const Workload& w = *in.workload;
  const Hasher& hasher = in.cur->key_hasher();
  const uint64_t locates = remap ? 3 : 1;
  Tally total;
  total.Init(g, remap, in.transitions);

  if (in.cur->stateful()) {
    // Sequential, in index order: answers depend on arrival order.
    in.cur->ResetAssignments();
    if (in.prev) in.prev->ResetAssignments();
    if (in.start) in.start->ResetAssignments();
    uint32_t c[1], p[1], s0[1];
    uint64_t weight[1];
    auto one = [&](std::string_view k, uint64_t wt) {
      uint64_t h = hasher(k);
      c[0] = in.cur->Assign(h);
      if (remap) {
        p[0] = in.prev->Assign(h);
        s0[0] = in.start->Assign(h);
      }
      weight[0] = wt;
      Count(in, c, p, s0, weight, total);
    };
    if (w.indexed()) {
      KeyBlock block;
      for (uint64_t u = 0; u < w.units(); u += kBlock) {
        ThrowIfStopped();
        const size_t m = static_cast<size_t>(std::min<uint64_t>(kBlock, w.units() - u));
        w.KeysAt(u, m, &block);
        for (std::string_view k : block.keys) one(k, 1);
        if (progress) progress->Add(m * locates);
      }
    } else {
      uint64_t n = 0;
      w.ForEachLine([&](std::string_view k, uint64_t wt) {
        if ((++n & (kBlock - 1)) == 0) ThrowIfStopped();
        one(k, wt);
        return true;
      });
    }
    return total;
  }

  // Stateless: batches of hashes through LocateBatch.
  auto locate_batch = [&](std::span<const uint64_t> hashes, std::span<const uint64_t> weights,
                          std::vector<uint32_t>& c, std::vector<uint32_t>& p,
                          std::vector<uint32_t>& s0, Tally& t) {
    size_t m = hashes.size();
    in.cur->LocateBatch(hashes, {c.data(), m});
    if (remap) {
      in.prev->LocateBatch(hashes, {p.data(), m});
      in.start->LocateBatch(hashes, {s0.data(), m});
    }
    Count(in, {c.data(), m}, {p.data(), remap ? m : 0}, {s0.data(), remap ? m : 0}, weights, t);
  };

  if (!w.indexed()) {
    std::vector<uint64_t> hashes, weights;
    std::vector<uint32_t> c(kBlock), p(kBlock), s0(kBlock);
    auto flush = [&] {
      locate_batch(hashes, weights, c, p, s0, total);
      if (progress) progress->Add(hashes.size() * locates);
      hashes.clear();
      weights.clear();
      ThrowIfStopped();
    };
    w.ForEachLine([&](std::string_view k, uint64_t wt) {
      hashes.push_back(hasher(k));
      weights.push_back(wt);
      if (hashes.size() == kBlock) flush();
      return true;
    });
    if (!hashes.empty()) flush();
    return total;
  }

  const uint64_t units = w.units();
  const uint64_t blocks = (units + kBlock - 1) / kBlock;
  const unsigned workers =
      static_cast<unsigned>(std::min<uint64_t>(std::max(1u, threads), std::max<uint64_t>(blocks, 1)));
  std::vector<Tally> tallies(workers);
  std::atomic<uint64_t> next{0};
  std::atomic<bool> abort{false};
  std::exception_ptr error;
  std::mutex error_mu;
  auto work = [&](unsigned id) {
    try {
      Tally& t = tallies[id];
      t.Init(g, remap, in.transitions);
      KeyBlock block;
      std::vector<uint64_t> hashes(kBlock);
      std::vector<uint32_t> c(kBlock), p(kBlock), s0(kBlock);
      for (;;) {
        uint64_t b = next.fetch_add(1);
        if (b >= blocks || abort.load(std::memory_order_relaxed)) break;
        ThrowIfStopped();
        uint64_t begin = b * kBlock, end = std::min(units, begin + kBlock);
        size_t m = static_cast<size_t>(end - begin);
        w.KeysAt(begin, m, &block);  // render, then hash the block (SIMD MD5)
        HashBatch(hasher, block.keys, {hashes.data(), m});
        locate_batch({hashes.data(), m}, {}, c, p, s0, t);
        if (progress) progress->Add(m * locates);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
      abort = true;
    }
  };
  if (workers == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < workers; ++i) pool.emplace_back(work, i);
    work(0);
    for (std::thread& th : pool) th.join();
  }
  if (error) std::rethrow_exception(error);
  for (const Tally& t : tallies) total.Merge(t);  // integer sums: order-independent
  return total;
}

std::vector<double> WeightShares(const Deployment& d) {
  std::vector<double> p(d.nodes().size(), 0.0);
  double total = 0;
  for (size_t g = 0; g < p.size(); ++g) {
    if (d.live()[g]) total += d.nodes()[g].weight;
  }
  for (size_t g = 0; g < p.size(); ++g) {
    if (d.live()[g]) p[g] = d.nodes()[g].weight / total;
  }
  return p;
}

class Emitter {
 public:
  Emitter(CaseResult* r, uint32_t trial, uint32_t step) : r_(r), trial_(trial), step_(step) {}
  void operator()(std::string_view metric, double value) {
    r_->rows.push_back(MetricRow{trial_, step_, metric, value});
  }

 private:
  CaseResult* r_;
  uint32_t trial_, step_;
};

struct Cumulative {
  double moved = 0, minimal = 0, excess = 0, survivors = 0;
};

void EmitStep(const Scenario& s, const Deployment& cur, const Deployment* prev,
              const Tally* tally, uint32_t trial, uint32_t step, Cumulative& cum,
              CaseResult& r) {
  Emitter emit(&r, trial, step);
  const size_t g = cur.nodes().size();
  std::vector<double> p = WeightShares(cur);
  std::vector<uint32_t> live;
  for (uint32_t i = 0; i < g; ++i) {
    if (cur.live()[i]) live.push_back(i);
  }
  const double n = static_cast<double>(live.size());
  emit("nodes", n);
  std::optional<std::vector<double>> shares = cur.StructuralShares();
  if (s.balance) {
    if (shares) {
      std::vector<double> ratios;
      for (uint32_t i : live) ratios.push_back((*shares)[i] / p[i]);
      BalanceFigures b = BalanceFromRatios(ratios, s.epsilon);
      emit("structural.max_over_mean", b.max_over_mean);
      emit("structural.min_over_mean", b.min_over_mean);
      emit("structural.cv", b.cv);
      emit("structural.over_eps_share", b.over_eps_share);
    }
    if (cur.ring_points_per_node() > 0 && step == 0) {
      RingTheory t = RingTheoryFor(cur.ring_points_per_node(), n);
      if (shares) {
        size_t inside = 0;
        for (uint32_t i : live) {
          double ratio = (*shares)[i] / p[i];
          if (ratio >= t.wh99_low && ratio <= t.wh99_high) ++inside;
        }
        emit("structural.inside_wh99", static_cast<double>(inside) / n);
      }
      emit("theory.cv", t.cv);
      emit("theory.max_over_mean", t.max_over_mean);
      emit("theory.wh99_low", t.wh99_low);
      emit("theory.wh99_high", t.wh99_high);
    }
  }
  const double units = tally ? static_cast<double>(tally->units) : 0;
  if (tally && units > 0 && s.balance) {
    std::vector<double> ratios, observed, probs;
    for (uint32_t i : live) {
      double load = static_cast<double>(tally->cur[i]);
      ratios.push_back(load / (units * p[i]));
      observed.push_back(load);
      probs.push_back(p[i]);
    }
    BalanceFigures b = BalanceFromRatios(ratios, s.epsilon);
    ChiSquareFigures chi = ChiSquareTest(observed, probs);
    double floor_cv = SamplingFloorCv(probs, units);
    emit("sampled.units", units);
    emit("sampled.max_over_mean", b.max_over_mean);
    emit("sampled.min_over_mean", b.min_over_mean);
    emit("sampled.cv", b.cv);
    emit("sampled.over_eps_share", b.over_eps_share);
    emit("sampled.chi2", chi.statistic);
    emit("sampled.chi2_p", chi.p_value);
    emit("sampled.floor_cv", floor_cv);
    emit("sampled.floor_max_over_mean", 1 + std::sqrt(2 * std::log(std::max(n, 2.0))) * floor_cv);
  }
  if (tally && prev && units > 0 && s.remap) {
    std::vector<double> before(g, 0.0), after(g, 0.0);
    for (size_t i = 0; i < g; ++i) {
      before[i] = static_cast<double>(tally->prev[i]);
      after[i] = static_cast<double>(tally->cur[i]);
    }
    std::vector<double> p_prev = WeightShares(*prev);
    p_prev.resize(g, 0.0);
    double moved = static_cast<double>(tally->moved) / units;
    double minimal = MinimalMoves(before, after) / units;
    double survivors = static_cast<double>(tally->survivors) / units;
    cum.moved += moved;
    cum.minimal += minimal;
    cum.excess += moved - minimal;
    cum.survivors += survivors;
    emit("remap.moved", moved);
    emit("remap.minimal", minimal);
    emit("remap.minimal_ideal", MinimalMoves(p_prev, p));
    emit("remap.excess", moved - minimal);
    emit("remap.moved_between_survivors", survivors);
    emit("remap.moved_from_start", static_cast<double>(tally->from_start) / units);
    emit("remap.cumulative.moved", cum.moved);
    emit("remap.cumulative.minimal", cum.minimal);
    emit("remap.cumulative.excess", cum.excess);
    emit("remap.cumulative.moved_between_survivors", cum.survivors);
    emit("remap.rebuilt", cur.rebuilt() ? 1 : 0);
  }
  // Per-node long table and transitions.
  bool per_node = s.per_node == PerNode::kAll || (s.per_node == PerNode::kFirstTrial && trial == 0);
  if (per_node) {
    const double nan = std::nan("");
    for (uint32_t i = 0; i < g; ++i) {
      bool was_live = prev && i < prev->live().size() && prev->live()[i];
      if (!cur.live()[i] && !was_live) continue;
      NodeRow row{trial, step, i, cur.nodes()[i].weight, nan, nan, nan, nan, nan};
      if (tally && units > 0) {
        row.load = static_cast<double>(tally->cur[i]);
        row.expected = units * p[i];
        if (prev) {
          row.moved_in = static_cast<double>(tally->moved_in[i]);
          row.moved_out = static_cast<double>(tally->moved_out[i]);
        }
      }
      if (shares) row.share = (*shares)[i];
      r.nodes.push_back(row);
    }
    if (tally && tally->transitions.size()) {
      for (Eigen::Index a = 0; a < tally->transitions.rows(); ++a) {
        for (Eigen::Index b = 0; b < tally->transitions.cols(); ++b) {
          if (a != b && tally->transitions(a, b) > 0) {
            r.transitions.push_back(TransitionRow{trial, step, static_cast<uint32_t>(a),
                                                  static_cast<uint32_t>(b),
                                                  tally->transitions(a, b)});
          }
        }
      }
    }
  }
}

bool Samples(const Scenario& s, const CaseSpec& c) {
  if (!s.balance && !s.remap) return false;
  return c.workload.type == WorkloadConfig::Type::kFile || c.workload.keys > 0;
}

uint64_t UnitsOf(const CaseSpec& c) {
  switch (c.workload.type) {
    case WorkloadConfig::Type::kZipf:
      return c.workload.requests;
    case WorkloadConfig::Type::kFile:
      return 1'000'000;  // unknown until read; a guess for progress only
    default:
      return c.workload.keys;
  }
}

// --- Throughput ---------------------------------------------------------

volatile uint32_t g_opaque_zero = 0;  // read once per timing loop: defeats constant folding
volatile uint64_t g_sink = 0;

void MeasureThroughput(const Scenario& s, const CaseSpec& c, CaseResult& r) {
  std::vector<Node> nodes = InitialNodes(s, c, 0);
  bool weighted = s.file_weighted || s.weights.kind != WeightSpec::Kind::kUniform;
  // Build time: median of up to `repetitions` builds, at most ~2 s in all,
  // a cheap first build discarded as warm-up (timing.h).
  std::unique_ptr<Algorithm> alg;
  const double build_ms = MedianBuildMs(
      [&] {
        alg.reset();
        alg = MakeCaseAlgorithm(c.algorithm, nodes, weighted);
      },
      s.throughput_repetitions, 2000, ThrowIfStopped);
  // Keys: the case's workload (trial 0), packed.
  WorkloadConfig wc = c.workload;
  if (wc.type == WorkloadConfig::Type::kFile || wc.keys == 0) {
    wc.type = WorkloadConfig::Type::kUniform;
    wc.shape = "user:{n}";
    wc.keys = s.throughput_keys;
  }
  Workload w(wc, SeedsForTrial(s.seed, 0).keys);
  size_t m = s.throughput_keys;
  if (w.units() < m) {
    m = std::max<size_t>(16, static_cast<size_t>(w.units()));
  }
  size_t pow2 = 1;
  while (pow2 * 2 <= m) pow2 *= 2;
  m = pow2;  // a power of two, so the latency chain can wrap with a mask
  std::string buffer, key;
  std::vector<uint32_t> offsets, lengths;
  std::vector<std::string_view> views;
  for (size_t i = 0; i < m; ++i) {
    w.KeyAt(i % std::max<uint64_t>(1, w.units()), &key);
    offsets.push_back(static_cast<uint32_t>(buffer.size()));
    lengths.push_back(static_cast<uint32_t>(key.size()));
    buffer += key;
  }
  for (size_t i = 0; i < m; ++i) views.emplace_back(buffer.data() + offsets[i], lengths[i]);
  const Hasher& hasher = GetHasher(c.algorithm.key_hasher);
  std::vector<uint64_t> hashes(m);
  for (size_t i = 0; i < m; ++i) hashes[i] = hasher(buffer.data() + offsets[i], lengths[i]);
  std::vector<uint32_t> out(m);
  // Items per timed call: all keys, or fewer for slow algorithms (rendezvous
  // at 100,000 nodes) so that one call stays under a quarter of min_time.
  size_t items = m;
  {
    const double t0 = ThreadCpuNs();
    uint64_t acc = 0;
    for (size_t i = 0; i < 16; ++i) acc += alg->Locate(hashes[i]);
    g_sink = g_sink + acc;
    double per = (ThreadCpuNs() - t0) / 16;
    double budget = s.throughput_min_ms * 1e6 / 4;
    while (items > 16 && static_cast<double>(items) * per * 4 > budget) items /= 2;
  }
  const Algorithm& a = *alg;
  const uint32_t reps = s.throughput_repetitions, min_ms = s.throughput_min_ms;
  const size_t mask = m - 1;
  const char* data = buffer.data();
  // Stateful algorithms are timed through Locate (no assignment). Batches
  // may wrap around the end of the key set: [first, first + items) mod m.
  // With the hash, independent keys take the simulator's own path (HashBatch:
  // the multi-buffer MD5 for md5, then LocateBatch); dependent keys the
  // hasher one key at a time (md5: chsim's one-block MD5).
  std::vector<uint64_t> batch_hashes(items);
  const std::function<void()> check = ThrowIfStopped;
  double no_hash = MedianNsPerItem(
      [&](size_t first) {
        size_t len = std::min(items, m - first);
        a.LocateBatch({hashes.data() + first, len}, {out.data(), len});
        if (len < items) a.LocateBatch({hashes.data(), items - len}, {out.data() + len, items - len});
        g_sink = g_sink + out[0];
      },
      items, m, reps, min_ms, check);
  double no_hash_latency = MedianNsPerItem(
      [&](size_t first) {
        uint32_t zero = g_opaque_zero, prev = 0;
        size_t idx = first;
        for (size_t i = 0; i < items; ++i) {
          prev = a.Locate(hashes[idx] ^ (prev & zero));
          idx = (idx + 1 + (prev & zero)) & mask;
        }
        g_sink = g_sink + prev;
      },
      items, m, reps, min_ms, check);
  double with_hash = MedianNsPerItem(
      [&](size_t first) {
        size_t len = std::min(items, m - first);
        HashBatch(hasher, {views.data() + first, len}, batch_hashes);
        if (len < items) {
          HashBatch(hasher, {views.data(), items - len}, {batch_hashes.data() + len, items - len});
        }
        a.LocateBatch(batch_hashes, {out.data(), items});
        g_sink = g_sink + out[0];
      },
      items, m, reps, min_ms, check);
  double with_hash_latency = MedianNsPerItem(
      [&](size_t first) {
        uint32_t zero = g_opaque_zero, prev = 0;
        size_t idx = first;
        for (size_t i = 0; i < items; ++i) {
          prev = a.Locate(hasher.fn(data + offsets[idx] + (prev & zero), lengths[idx]));
          idx = (idx + 1 + (prev & zero)) & mask;
        }
        g_sink = g_sink + prev;
      },
      items, m, reps, min_ms, check);
  Emitter emit(&r, 0, 0);
  emit("throughput.ns_per_lookup", no_hash);
  emit("throughput.ns_per_lookup_latency", no_hash_latency);
  emit("throughput.ns_per_lookup_with_hash", with_hash);
  emit("throughput.ns_per_lookup_with_hash_latency", with_hash_latency);
  emit("throughput.lookups_per_second", 1e9 / with_hash);
  emit("throughput.build_ms", build_ms);
  emit("throughput.memory_bytes_per_node",
       static_cast<double>(a.MemoryBytes()) / static_cast<double>(nodes.size()));
}

}  // namespace

std::vector<const CaseSpec*> ShardCases(const Scenario& s, const Shard& shard) {
  std::vector<const CaseSpec*> out;
  for (const CaseSpec& c : s.cases) {
    if (c.index % shard.count == shard.index) out.push_back(&c);
  }
  return out;
}

uint64_t EstimateWork(const Scenario& s, const std::vector<const CaseSpec*>& cases) {
  uint64_t total = 0;
  for (const CaseSpec* c : cases) {
    if (Samples(s, *c)) {
      uint64_t per_trial = UnitsOf(*c);
      if (s.remap) per_trial += 3 * UnitsOf(*c) * s.events.size();
      total += per_trial * s.trials;
    }
    if (s.throughput) total += 1;
  }
  return std::max<uint64_t>(total, 1);
}

CaseResult RunCase(const Scenario& s, const CaseSpec& c, unsigned key_threads,
                   Progress* progress, bool with_throughput) {
  CaseResult r;
  r.status = "ok";
  r.step_events.push_back("initial");
  for (const EventSpec& e : s.events) r.step_events.push_back(e.label);
  const bool sample = Samples(s, c);
  const bool remap = s.remap && !s.events.empty() && sample;
  try {
    // A throughput-only scenario builds nothing here (MeasureThroughput does).
    const uint32_t trials = s.balance || s.remap ? s.trials : 0;
    for (uint32_t trial = 0; trial < trials; ++trial) {
      ThrowIfStopped();
      Deployment cur(s, c, trial);
      std::optional<Deployment> prev, start;
      if (remap) {
        prev.emplace(s, c, trial);
        start.emplace(s, c, trial);
      }
      std::optional<Workload> workload;
      if (sample) workload.emplace(c.workload, SeedsForTrial(s.seed, trial).keys);
      Cumulative cum;
      const bool transitions = s.transitions && cur.nodes().size() <= kMaxTransitionNodes;
      auto record_nodes = [&] {
        r.labels.resize(trial + 1);
        r.labels[trial].clear();
        for (const Node& n : cur.nodes()) r.labels[trial].push_back(n.label);
      };
      record_nodes();
      for (uint32_t step = 0; step <= s.events.size(); ++step) {
        if (step > 0) {
          cur.Apply(s.events[step - 1], step);
          record_nodes();
        }
        std::optional<Tally> tally;
        if (sample && (step == 0 || remap || s.balance)) {
          bool with_prev = remap && step > 0;
          PassInput in{&*workload, &cur, with_prev ? &*prev : nullptr,
                       with_prev ? &*start : nullptr, transitions && with_prev};
          tally = Pass(in, key_threads, progress);
        }
        EmitStep(s, cur, step > 0 && prev ? &*prev : nullptr, tally ? &*tally : nullptr, trial,
                 step, cum, r);
        if (step > 0 && prev) prev->Apply(s.events[step - 1], step);
      }
    }
    if (with_throughput && s.throughput) {
      MeasureThroughput(s, c, r);
      if (progress) progress->Add(1);
    }
  } catch (const CaseSkipped& e) {
    r.status = "skipped";
    r.message = e.what();
  } catch (const chsim::Unsupported& e) {
    r.status = "skipped";
    r.message = e.what();
  }
  return r;
}

RunOutput RunScenario(const Scenario& s, const RunOptions& options, Progress* progress,
                      size_t* finished) {
  RunOutput out;
  out.cases = ShardCases(s, options.shard);
  out.results.resize(out.cases.size());
  const unsigned threads = std::max(1u, options.threads);
  const size_t n = out.cases.size();
  const unsigned workers = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(n, 1)));
  const unsigned key_threads = std::max(1u, threads / workers);
  std::atomic<size_t> next{0}, done{0};
  std::atomic<bool> abort{false};
  std::exception_ptr error;
  std::mutex error_mu;
  if (progress) progress->SetPhase("simulating");
  auto work = [&] {
    try {
      for (;;) {
        size_t k = next.fetch_add(1);
        if (k >= n || abort.load()) break;
        out.results[k] = RunCase(s, *out.cases[k], key_threads, progress, false);
        done.fetch_add(1);
        if (progress && !s.throughput) progress->CaseDone();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
      abort = true;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < workers; ++i) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (error) {
    if (finished) *finished = s.throughput ? 0 : done.load();
    std::rethrow_exception(error);
  }
  // Throughput: one case at a time, alone on the machine's attention.
  if (s.throughput) {
    if (progress) progress->SetPhase("timing");
    for (size_t k = 0; k < n; ++k) {
      try {
        if (out.results[k].status == "ok") MeasureThroughput(s, *out.cases[k], out.results[k]);
      } catch (const chsim::Unsupported& e) {
        out.results[k].status = "skipped";
        out.results[k].message = e.what();
      } catch (const Interrupted&) {
        if (finished) *finished = k;
        throw;
      }
      if (progress) {
        progress->Add(1);
        progress->CaseDone();
      }
    }
  }
  if (finished) *finished = n;
  return out;
}

}  // namespace chsim::sim
