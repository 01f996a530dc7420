// SPDX-License-Identifier: Apache-2.0
#include "sim/run/runner.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <optional>

#include "sim/base/errors.h"
#include "sim/base/interrupt.h"
#include "sim/base/progress.h"
#include "sim/base/thread_pool.h"
#include "sim/run/deployment.h"
#include "sim/run/plan.h"
#include "sim/run/replay.h"
#include "sim/run/runner_internal.h"
#include "sim/run/timing.h"
#include "sim/workload/workload.h"

namespace chsim::sim {

void Tally::Init(size_t g, bool remap, bool transitions_wanted, bool sized) {
  cur.assign(g, 0);
  if (sized) bytes.assign(g, 0);
  if (remap) {
    prev.assign(g, 0);
    moved_in.assign(g, 0);
    moved_out.assign(g, 0);
  }
  if (transitions_wanted) transitions = Eigen::MatrixXd::Zero(g, g);
}

void Tally::Merge(const Tally& o) {
  for (size_t i = 0; i < cur.size(); ++i) cur[i] += o.cur[i];
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] += o.bytes[i];
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

namespace {

constexpr uint64_t kBlock = 1024;  // units per parallel block: its keys (~40 KB) stay in L1/L2
constexpr size_t kMaxTransitionNodes = 256;  // transition matrix only for small clusters

struct PassInput {
  const Workload* workload;
  uint64_t seed;  // the trial's key seed
  Deployment* cur;
  Deployment* prev;   // null at step 0 or without remap
  Deployment* start;  // idem
  bool transitions;
  uint64_t work_per_locate;  // progress units per located unit (KeyWork)
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

// Adds each unit's size to the bytes of its node (workloads with sizes).
void CountBytes(std::span<const uint32_t> c, std::span<const uint32_t> sizes, Tally& t) {
  for (size_t i = 0; i < sizes.size(); ++i) t.bytes[c[i]] += sizes[i];
}

// Stateful algorithms (bounded loads): keys one at a time, in index order,
// through Assign.
void PassStateful(const PassInput& in, Progress* progress, Tally& total) {
  const bool remap = in.prev != nullptr;
  const Workload& w = *in.workload;
  const Hasher& hasher = in.cur->key_hasher();
  const uint64_t locates = remap ? 3 : 1;
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
  if (!w.streams()) {  // a weighted key file
    uint64_t n = 0;
    w.ForEachLine([&](std::string_view k, uint64_t wt) {
      if ((++n & (kBlock - 1)) == 0) ThrowIfStopped();
      one(k, wt);
      return true;
    });
    return;
  }
  auto reader = w.OpenRequests(in.seed);
  RequestBlock block;
  for (reader->Next(kBlock, &block); block.size() > 0; reader->Next(kBlock, &block)) {
    ThrowIfStopped();
    for (size_t j = 0; j < block.size(); ++j) {
      one(block.keys.keys[j], 1);
      if (w.sized()) CountBytes(c, {&block.sizes[j], 1}, total);
    }
    if (progress) progress->Add(block.size() * locates * in.work_per_locate);
  }
}

// Buffers of one thread's batches.
struct Batch {
  std::vector<uint64_t> hashes, weights;
  std::vector<uint32_t> c, p, s0;
  Batch() : hashes(kBlock), c(kBlock), p(kBlock), s0(kBlock) {}
  // Locates hashes[0, m) under cur (and prev, start) and counts them.
  void Locate(const PassInput& in, size_t m, bool weighted, Tally& t) {
    const bool remap = in.prev != nullptr;
    in.cur->LocateBatch({hashes.data(), m}, {c.data(), m});
    if (remap) {
      in.prev->LocateBatch({hashes.data(), m}, {p.data(), m});
      in.start->LocateBatch({hashes.data(), m}, {s0.data(), m});
    }
    Count(in, {c.data(), m}, {p.data(), remap ? m : 0}, {s0.data(), remap ? m : 0},
          {weights.data(), weighted ? m : 0}, t);
  }
};

// A streamed workload (a key file, a trace): its units in order, batched,
// on this thread.
void PassLines(const PassInput& in, Progress* progress, Tally& total) {
  const Hasher& hasher = in.cur->key_hasher();
  const uint64_t locates = (in.prev ? 3 : 1) * in.work_per_locate;
  Batch b;
  if (in.workload->streams()) {
    auto reader = in.workload->OpenRequests(in.seed);
    RequestBlock block;
    for (reader->Next(kBlock, &block); block.size() > 0; reader->Next(kBlock, &block)) {
      const size_t m = block.size();
      HashBatch(hasher, block.keys.keys, {b.hashes.data(), m});
      b.Locate(in, m, false, total);
      if (in.workload->sized()) CountBytes({b.c.data(), m}, block.sizes, total);
      if (progress) progress->Add(m * locates);
      ThrowIfStopped();
    }
    return;
  }
  b.weights.resize(kBlock);  // a weighted key file
  size_t m = 0;
  auto flush = [&] {
    b.Locate(in, m, true, total);
    if (progress) progress->Add(m * locates);
    m = 0;
    ThrowIfStopped();
  };
  in.workload->ForEachLine([&](std::string_view k, uint64_t wt) {
    b.hashes[m] = hasher(k);
    b.weights[m] = wt;
    if (++m == kBlock) flush();
    return true;
  });
  if (m > 0) flush();
}

// One pass over the workload: every unit located under cur (and prev/start).
Tally Pass(const PassInput& in, unsigned threads, Progress* progress) {
  const size_t g = in.cur->nodes().size();
  const bool remap = in.prev != nullptr;
  const bool sized = in.workload->sized();
  Tally total;
  total.Init(g, remap, in.transitions, sized);
  if (in.cur->stateful()) {
    PassStateful(in, progress, total);
    return total;
  }
  if (!in.workload->indexed()) {
    PassLines(in, progress, total);
    return total;
  }
  // Indexed: blocks of units over the threads, one tally per thread.
  const Workload& w = *in.workload;
  const Hasher& hasher = in.cur->key_hasher();
  const uint64_t units = w.units(), blocks = (units + kBlock - 1) / kBlock;
  const unsigned workers = static_cast<unsigned>(
      std::min<uint64_t>(std::max(1u, threads), std::max<uint64_t>(blocks, 1)));
  std::vector<Tally> tallies(workers);
  std::vector<Batch> batches(workers);
  std::vector<KeyBlock> keys(workers);
  std::vector<std::vector<uint32_t>> sizes(workers, std::vector<uint32_t>(sized ? kBlock : 0));
  for (Tally& t : tallies) t.Init(g, remap, in.transitions, sized);
  ParallelFor(blocks, workers, [&](unsigned worker, uint64_t b) {
    ThrowIfStopped();
    const uint64_t begin = b * kBlock, end = std::min(units, begin + kBlock);
    const size_t m = static_cast<size_t>(end - begin);
    w.KeysAt(in.seed, begin, m, &keys[worker]);  // render, then hash the block (SIMD MD5)
    HashBatch(hasher, keys[worker].keys, {batches[worker].hashes.data(), m});
    batches[worker].Locate(in, m, false, tallies[worker]);
    if (sized) {
      const std::span<uint32_t> sz(sizes[worker].data(), m);
      w.SizesAt(in.seed, keys[worker], sz);
      CountBytes({batches[worker].c.data(), m}, sz, tallies[worker]);
    }
    if (progress) progress->Add(m * (remap ? 3 : 1) * in.work_per_locate);
  });
  for (const Tally& t : tallies) total.Merge(t);  // integer sums: order-independent
  return total;
}

// One trial of a case: its deployments, the events, a pass per step.
void RunTrial(const Scenario& s, const CaseSpec& c, uint32_t trial, unsigned key_threads,
              Progress* progress, CaseResult& r) {
  const bool sample = CaseSamples(s, c);
  const bool remap = s.Needs(&GroupPasses::previous) && !s.events.empty() && sample;
  Deployment cur(s, c, trial);
  std::optional<Deployment> prev, start;
  if (remap) {
    prev.emplace(s, c, trial);
    start.emplace(s, c, trial);
  }
  const uint64_t key_seed = SeedsForTrial(s.seed, trial).keys;
  Cumulative cum;
  bool steps = false;  // a selected group has a step hook
  for (const MetricGroup* g : s.groups) steps = steps || g->step;
  const bool transitions = s.transitions && cur.nodes().size() <= kMaxTransitionNodes;
  auto record_nodes = [&] {
    r.labels.resize(trial + 1);
    r.labels[trial].clear();
    for (const Node& n : cur.nodes()) r.labels[trial].push_back(n.label);
  };
  record_nodes();
  // Trial 0 times the algorithm's Add and Remove calls as the events apply
  // them (reading the clock changes nothing the other rows see).
  const bool time_resizes = s.Needs(&GroupPasses::event_timing) && trial == 0;
  ResizeTimes times;
  if (time_resizes) {
    times.clock_ns = ClockPairNs();
    cur.TimeResizes(&times);
  }
  // Trial hooks (the cache replay reads the stream once for every step):
  // their rows join each step's after the others.
  std::vector<TrialRows> trial_rows;
  for (const MetricGroup* g : s.groups) {
    if (g->trial) trial_rows.push_back(g->trial(s, c, trial, key_threads, progress, r));
  }
  for (uint32_t step = 0; step <= s.events.size(); ++step) {
    if (step > 0) {
      times = ResizeTimes{times.clock_ns};
      cur.Apply(s.events[step - 1], step);
      record_nodes();
    }
    std::optional<Tally> tally;
    if (sample) {
      const bool with_prev = remap && step > 0;
      PassInput in{c.workload.get(),
                   key_seed,
                   &cur,
                   with_prev ? &*prev : nullptr,
                   with_prev ? &*start : nullptr,
                   transitions && with_prev,
                   KeyWork(c)};
      tally = Pass(in, key_threads, progress);
    }
    if (steps) {
      EmitStep({&s, &cur, step > 0 && prev ? &*prev : nullptr, tally ? &*tally : nullptr, trial,
                step, PerNodeApplied(s.per_node, c.nodes)},
               cum, r);
    }
    for (const MetricGroup* g : s.groups) {
      if (time_resizes && step > 0 && g->event) g->event(cur, times, step, r);
    }
    for (const TrialRows& rows : trial_rows) {
      if (step < rows.size()) r.rows.insert(r.rows.end(), rows[step].begin(), rows[step].end());
    }
    if (step > 0 && prev) prev->Apply(s.events[step - 1], step);
  }
}

// The timed hooks of the selected groups, in registry order.
void TimeGroups(const Scenario& s, const CaseSpec& c, CaseResult& r) {
  for (const MetricGroup* g : s.groups) {
    if (g->timed) g->timed(s, c, r);
  }
}

// Timing, after every case has simulated: one case at a time.
void TimeCases(const Scenario& s, RunOutput& out, Progress* progress, size_t* finished) {
  if (progress) progress->SetPhase("timing");
  for (size_t k = 0; k < out.cases.size(); ++k) {
    try {
      if (out.results[k].status == "ok") TimeGroups(s, *out.cases[k], out.results[k]);
    } catch (const CaseSkipped& e) {
      out.results[k].status = "skipped";
      out.results[k].message = e.what();
    } catch (const Interrupted&) {
      if (finished) *finished = k;
      throw;
    }
    if (progress) {
      progress->Add(TimingWork(s, *out.cases[k]));
      progress->CaseDone();
    }
  }
}

}  // namespace

uint32_t TrialsApplied(const Scenario& s) {
  if (s.Needs(&GroupPasses::trials)) return s.trials;
  return s.Needs(&GroupPasses::event_timing) && !s.events.empty() ? 1 : 0;
}

bool CaseSamples(const Scenario& s, const CaseSpec& c) {
  return s.Needs(&GroupPasses::key_pass) && c.workload->samples();
}

std::vector<const CaseSpec*> ShardCases(const Scenario& s, const Shard& shard) {
  std::vector<const CaseSpec*> out;
  for (const CaseSpec& c : s.cases) {
    if (c.index % shard.count == shard.index) out.push_back(&c);
  }
  return out;
}

uint64_t KeyWork(const CaseSpec& c) {
  const AlgorithmSpec& spec = *c.algorithm.spec;
  if (!spec.lookup_work) return 1;
  return std::max<uint64_t>(1, std::llround(spec.lookup_work(c.algorithm.params, c.nodes)));
}

uint64_t TimingWork(const Scenario& s, const CaseSpec& c) {
  constexpr uint64_t kUnitsPerMs = 50'000;  // O(1) placements, as CheckWork's estimate
  return uint64_t{s.throughput_repetitions} *
         std::max(uint64_t{s.throughput_min_ms} * kUnitsPerMs, s.throughput_keys * KeyWork(c));
}

uint64_t EstimateWork(const Scenario& s, const std::vector<const CaseSpec*>& cases,
                      bool lookup_work) {
  uint64_t total = 0;
  for (const CaseSpec* c : cases) {
    if (CaseSamples(s, *c)) {
      uint64_t per_trial = c->workload->units();
      if (s.Needs(&GroupPasses::previous)) per_trial += 3 * c->workload->units() * s.events.size();
      total += per_trial * s.trials * (lookup_work ? KeyWork(*c) : 1);
    }
    if (s.Needs(&GroupPasses::replay))
      total += 2 * c->workload->units() * s.trials;  // the run and its twin
    if (s.Needs(&GroupPasses::timing)) total += lookup_work ? TimingWork(s, *c) : 1;
    for (const MetricGroup* g : s.groups) {
      if (g->work) total += g->work(s, *c);
    }
  }
  return std::max<uint64_t>(total, 1);
}

void CheckWork(const Scenario& s, const std::vector<const CaseSpec*>& cases, bool force) {
  const uint64_t work = EstimateWork(s, cases, false);
  if (work <= kMaxWorkWithoutForce || force) return;
  char what[256];
  std::snprintf(what, sizeof what,
                "found a run of %.3g key placements (keys x trials x (1 + 3 x events), over "
                "%zu cases; about %.1f h at 50 M keys/s); accepted: up to %.0e without "
                "--force (add --force to run it anyway, or split it with --shard I/N)",
                static_cast<double>(work), cases.size(), static_cast<double>(work) / 5e7 / 3600,
                static_cast<double>(kMaxWorkWithoutForce));
  throw UsageError(s.path + ": " + what);
}

CaseResult RunCase(const Scenario& s, const CaseSpec& c, unsigned key_threads, Progress* progress,
                   bool with_throughput) {
  CaseResult r;
  r.status = "ok";
  r.step_events.push_back("initial");
  for (const EventSpec& e : s.events) r.step_events.push_back(e.label);
  try {
    // A throughput-only scenario builds nothing here (MeasureThroughput does)
    // but trial 0's timeline when it has one, for the resize rows.
    const uint32_t trials = TrialsApplied(s);
    for (uint32_t trial = 0; trial < trials; ++trial) {
      ThrowIfStopped();
      RunTrial(s, c, trial, key_threads, progress, r);
    }
    if (with_throughput && s.Needs(&GroupPasses::timing)) {
      TimeGroups(s, c, r);
      if (progress) progress->Add(TimingWork(s, c));
    }
  } catch (const CaseSkipped& e) {
    r.status = "skipped";
    r.message = e.what();
  }
  return r;
}

RunOutput RunScenario(const Scenario& s, const RunOptions& options, Progress* progress,
                      size_t* finished) {
  if (options.plan) {
    if (progress) progress->SetPhase("planning");
    PlanScenario(s, PlanOptions{options.threads, options.shard, options.force});
  }
  RunOutput out;
  out.cases = ShardCases(s, options.shard);
  out.results.resize(out.cases.size());
  const unsigned threads = std::max(1u, options.threads);
  const size_t n = out.cases.size();
  const unsigned workers = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(n, 1)));
  const unsigned key_threads = std::max(1u, threads / workers);
  std::atomic<size_t> done{0};
  const bool timing = s.Needs(&GroupPasses::timing);
  if (progress) progress->SetPhase("simulating");
  try {
    ParallelFor(n, workers, [&](unsigned, uint64_t k) {
      out.results[k] = RunCase(s, *out.cases[k], key_threads, progress, false);
      done.fetch_add(1);
      if (progress && !timing) progress->CaseDone();
    });
  } catch (...) {
    if (finished) *finished = timing ? 0 : done.load();
    throw;
  }
  if (timing) TimeCases(s, out, progress, finished);
  if (finished) *finished = n;
  return out;
}

}  // namespace chsim::sim
