// SPDX-License-Identifier: Apache-2.0
// The cache metric group: what remapping costs a cache. The replay (replay.cc)
// reads the request stream once per trial; this file writes the rows of each
// of its steps, with the per-node and window tables.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "sim/run/metric_group.h"
#include "sim/run/replay.h"
#include "sim/run/replay_internal.h"
#include "sim/run/runner_internal.h"

namespace chsim::sim {
namespace {

constexpr MetricSpec kRows[] = {
    {"cache.requests", "requests", "cache", true,
     "requests of this step (from its event to the next): reads, writes and deletes"},
    {"cache.reads", "requests", "cache", true, "reads of this step (each a hit or a miss)"},
    {"cache.misses", "requests", "cache", true, "reads that missed the cache of their node"},
    {"cache.hit_ratio", "fraction", "cache", true, "1 - cache.misses / cache.reads"},
    {"cache.twin_misses", "requests", "cache", true,
     "misses of the twin: the same stream through the same algorithm and caches, no events"},
    {"cache.twin_hit_ratio", "fraction", "cache", true, "1 - cache.twin_misses / cache.reads"},
    {"cache.extra_misses", "requests", "cache", true, "cache.misses - cache.twin_misses"},
    {"cache.extra_miss_ratio", "fraction", "cache", true, "cache.extra_misses / cache.reads"},
    {"cache.read_bytes", "bytes", "cache", true, "bytes of this step's reads (sized requests)"},
    {"cache.miss_bytes", "bytes", "cache", true,
     "bytes of the reads that missed: what the backing store served"},
    {"cache.byte_hit_ratio", "fraction", "cache", true, "1 - cache.miss_bytes / cache.read_bytes"},
    {"cache.extra_miss_bytes", "bytes", "cache", true, "cache.miss_bytes - the twin's miss bytes"},
    {"cache.peak_window_miss_ratio", "fraction", "cache", true,
     "largest miss ratio over the step's whole windows (cache.window requests each, counted "
     "from the step's start)"},
    {"cache.twin_peak_window_miss_ratio", "fraction", "cache", true,
     "the twin's largest windowed miss ratio over the same windows"},
    {"cache.recovery_requests", "requests", "cache", true,
     "requests from the event to the first window after which every whole window of the step "
     "has a miss ratio within cache.recovery_epsilon of the twin's (Zhang et al., HotCloud "
     "2020: the hit ratio is and stays comparable to an undisturbed twin's); null when the step "
     "ends first (cache.recovered 0)"},
    {"cache.recovered", "count", "cache", true,
     "1 when the windowed miss ratio settled within epsilon of the twin's before the step "
     "ended, else 0 (the next event or the end of the stream came first)"},
    {"cache.objects", "objects", "cache", true,
     "objects cached on the live nodes at the step's end"},
    {"cache.stored_bytes", "bytes", "cache", true,
     "bytes cached on the live nodes at the step's end"},
    {"cache.stored_bytes_max_over_mean", "ratio", "cache", true,
     "largest node's cached bytes / expected (weight share of the total), at the step's end"},
    {"cache.stored_bytes_cv", "ratio", "cache", true,
     "coefficient of variation of cached bytes / expected across live nodes"},
    {"cache.requested_bytes_max_over_mean", "ratio", "cache", true,
     "largest node's requested bytes in the step / expected (weight share)"},
    {"cache.requested_bytes_cv", "ratio", "cache", true,
     "coefficient of variation of requested bytes / expected across live nodes"},
    {"cache.node_capacity_objects", "objects", "cache", true,
     "each node's cache capacity (a capacity in objects, fractions resolved)"},
    {"cache.node_capacity_bytes", "bytes", "cache", true,
     "each node's cache capacity (a capacity in bytes, fractions resolved)"},
};

consteval MetricRef Metric(std::string_view name) { return MetricIn(kRows, name); }

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

double Ratio(double a, double b) { return b > 0 ? a / b : kNan; }

double Sum(const std::vector<uint64_t>& v) {
  return static_cast<double>(std::accumulate(v.begin(), v.end(), uint64_t{0}));
}

bool Whole(const StepCounts& st, const CacheWindow& w) { return w.requests == st.window; }

bool Within(const StepCounts& st, const CacheWindow& w) {
  if (w.reads == 0) return true;
  const double d = static_cast<double>(w.misses) - static_cast<double>(w.twin_misses);
  return std::fabs(d) / static_cast<double>(w.reads) <= st.epsilon;
}

class Rows {
 public:
  Rows(std::vector<MetricRow>* rows, const StepView& v) : rows_(rows), v_(v) {}
  void operator()(MetricRef m, double value) {
    rows_->push_back(MetricRow{v_.trial, v_.step, m, value});
  }

 private:
  std::vector<MetricRow>* rows_;
  const StepView& v_;
};

// Max/mean and CV of per-node values against the live nodes' weight shares.
void EmitBalance(Rows& emit, const Deployment& d, double epsilon, std::span<const uint64_t> value,
                 MetricRef max_over_mean, MetricRef cv) {
  const std::vector<double> p = WeightShares(d);
  double total = 0;
  for (size_t g = 0; g < p.size(); ++g) total += d.live()[g] ? static_cast<double>(value[g]) : 0;
  if (total <= 0) return;
  std::vector<double> ratios;
  for (size_t g = 0; g < p.size(); ++g) {
    if (d.live()[g]) ratios.push_back(static_cast<double>(value[g]) / (total * p[g]));
  }
  const BalanceFigures b = BalanceFromRatios(ratios, epsilon);
  emit(max_over_mean, b.max_over_mean);
  emit(cv, b.cv);
}

void EmitWindows(Rows& emit, const StepCounts& st) {
  double peak = kNan, twin_peak = kNan;
  for (const CacheWindow& w : st.windows) {
    if (!Whole(st, w) || w.reads == 0) continue;
    const double reads = static_cast<double>(w.reads);
    peak = std::isnan(peak) ? w.misses / reads : std::max(peak, w.misses / reads);
    twin_peak =
        std::isnan(twin_peak) ? w.twin_misses / reads : std::max(twin_peak, w.twin_misses / reads);
  }
  emit(Metric("cache.peak_window_miss_ratio"), peak);
  emit(Metric("cache.twin_peak_window_miss_ratio"), twin_peak);
  const std::optional<uint64_t> recovery = RecoveryRequests(st);
  emit(Metric("cache.recovery_requests"), recovery ? static_cast<double>(*recovery) : kNan);
  emit(Metric("cache.recovered"), recovery ? 1 : 0);
}

// The per-node and window tables, for the trials output.per_node names.
void EmitTables(const StepView& v, std::span<const uint64_t> objects,
                std::span<const uint64_t> bytes, CaseResult& r) {
  const PerNode mode = v.s->per_node;
  if (mode == PerNode::kNone || (mode == PerNode::kFirstTrial && v.trial != 0)) return;
  const StepCounts& st = *v.counts;
  for (uint32_t g = 0; g < v.run->nodes().size(); ++g) {
    if (!v.run->live()[g]) continue;
    r.cache_nodes.push_back(CacheNodeRow{v.trial, v.step, g, st.requests[g], st.reads[g],
                                         st.misses[g], st.miss_bytes[g], st.read_bytes[g],
                                         objects[g], bytes[g]});
  }
  for (const CacheWindow& w : st.windows) {
    r.cache_windows.push_back(
        CacheWindowRow{v.trial, v.step, w.start, w.requests, w.reads, w.misses, w.twin_misses});
  }
}

}  // namespace

std::optional<uint64_t> RecoveryRequests(const StepCounts& st) noexcept {
  size_t whole = 0;
  while (whole < st.windows.size() && Whole(st, st.windows[whole])) ++whole;
  size_t first = whole;
  while (first > 0 && Within(st, st.windows[first - 1])) --first;
  if (first == whole) return std::nullopt;
  return first * st.window;
}

void EmitCacheStep(const StepView& v, std::span<const uint64_t> objects,
                   std::span<const uint64_t> bytes, std::vector<MetricRow>& rows, CaseResult& r) {
  const StepCounts& st = *v.counts;
  Rows emit(&rows, v);
  const double reads = Sum(st.reads), misses = Sum(st.misses);
  const double twin = static_cast<double>(st.twin_misses);
  emit(Metric("cache.requests"), Sum(st.requests));
  emit(Metric("cache.reads"), reads);
  emit(Metric("cache.misses"), misses);
  emit(Metric("cache.hit_ratio"), 1 - Ratio(misses, reads));
  emit(Metric("cache.twin_misses"), twin);
  emit(Metric("cache.twin_hit_ratio"), 1 - Ratio(twin, reads));
  emit(Metric("cache.extra_misses"), misses - twin);
  emit(Metric("cache.extra_miss_ratio"), Ratio(misses - twin, reads));
  if (st.sized) {
    const double read_bytes = Sum(st.read_bytes), miss_bytes = Sum(st.miss_bytes);
    emit(Metric("cache.read_bytes"), read_bytes);
    emit(Metric("cache.miss_bytes"), miss_bytes);
    emit(Metric("cache.byte_hit_ratio"), 1 - Ratio(miss_bytes, read_bytes));
    emit(Metric("cache.extra_miss_bytes"), miss_bytes - static_cast<double>(st.twin_miss_bytes));
  }
  EmitWindows(emit, st);
  uint64_t cached = 0, stored = 0;
  for (size_t g = 0; g < objects.size(); ++g) {
    cached += objects[g];
    stored += bytes[g];
  }
  emit(Metric("cache.objects"), static_cast<double>(cached));
  if (st.sized) {
    emit(Metric("cache.stored_bytes"), static_cast<double>(stored));
    EmitBalance(emit, *v.run, v.s->epsilon, bytes, Metric("cache.stored_bytes_max_over_mean"),
                Metric("cache.stored_bytes_cv"));
    EmitBalance(emit, *v.run, v.s->epsilon, st.read_bytes,
                Metric("cache.requested_bytes_max_over_mean"), Metric("cache.requested_bytes_cv"));
  }
  emit(v.by_bytes ? Metric("cache.node_capacity_bytes") : Metric("cache.node_capacity_objects"),
       static_cast<double>(v.capacity));
  EmitTables(v, objects, bytes, r);
}

namespace {
constexpr std::string_view kNotebooks[] = {"cache.ipynb"};
}  // namespace

extern const MetricGroup kCacheGroup;
constexpr MetricGroup kCacheGroup{
    .name = "cache",
    .doc =
        "a cache per node replaying the request stream: the misses each event costs beside "
        "a twin to which no event happens (the cache settings apply)",
    .needs = {.trials = true, .replay = true},
    .rows = kRows,
    .notebooks = kNotebooks,
    .trial = [](const Scenario& s, const CaseSpec& c, uint32_t trial, unsigned, Progress* progress,
                CaseResult& r) { return ReplayTrial(s, c, trial, progress, r); },
};

}  // namespace chsim::sim
