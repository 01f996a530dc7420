// SPDX-License-Identifier: Apache-2.0
// Metrics: the catalog of every figure a result file can hold (MetricSpec:
// name, unit, the scenario "metrics" entry that selects it, whether it is
// deterministic, its meaning; `chsim list` and results/README.md print the
// same), and the pure functions that compute the balance and remapping
// figures.
//
// A row refers to its catalog entry through a MetricRef made at compile time
// by Metric("name"): emitting a metric that has no entry does not compile.
// Adding a metric is one row here and one line in its group's emitter
// (sim/run/emitters.cc).
//
// Conventions: a node's ratio is load_i / expected_i with expected_i = total *
// w_i / W over the live nodes; "max_over_mean" is the largest ratio (with
// equal weights: max load / mean load), "cv" the population standard
// deviation of the ratios. Remapping fractions are of the total load units
// (keys, or requests for Zipf).
//
// Thread-safety: constants and pure functions.
#ifndef CHSIM_SIM_RUN_METRICS_H_
#define CHSIM_SIM_RUN_METRICS_H_

#include <cstdint>
#include <span>
#include <string_view>

namespace chsim::sim {

struct MetricSpec {
  std::string_view name;
  std::string_view unit;
  // The scenario "metrics" entry that selects it: balance, remap,
  // throughput or cache ("" for nodes, always written).
  std::string_view group;
  bool deterministic;  // same seed => same value on any machine and thread count
  std::string_view meaning;
};

// Every metric, in the order rows hold them within a step: nodes,
// structural.*, theory.*, sampled.*, remap.*, throughput.*, cache.*.
inline constexpr MetricSpec kMetricCatalog[] = {
    {"nodes", "nodes", "", true, "live nodes at this step"},
    {"structural.max_over_mean", "ratio", "balance", true,
     "largest exact share / expected share (weight share) over live nodes; no sampling noise"},
    {"structural.min_over_mean", "ratio", "balance", true, "smallest exact share / expected share"},
    {"structural.cv", "ratio", "balance", true,
     "coefficient of variation of exact share / expected share across live nodes"},
    {"structural.over_eps_share", "fraction", "balance", true,
     "share of live nodes whose exact share / expected exceeds 1 + epsilon"},
    {"structural.inside_wh99", "fraction", "balance", true,
     "rings: share of nodes whose exact share / mean lies inside theory.wh99_low..high (about "
     "0.99 if the theory holds)"},
    {"sampled.units", "count", "balance", true,
     "load units placed: keys, or requests (Zipf), or file weights"},
    {"sampled.max_over_mean", "ratio", "balance", true,
     "largest load / expected load (expected = units * weight share)"},
    {"sampled.min_over_mean", "ratio", "balance", true, "smallest load / expected load"},
    {"sampled.cv", "ratio", "balance", true, "coefficient of variation of load / expected load"},
    {"sampled.over_eps_share", "fraction", "balance", true,
     "share of live nodes whose load / expected exceeds 1 + epsilon"},
    {"sampled.chi2", "statistic", "balance", true,
     "Pearson chi-square of the loads against the weight shares"},
    {"sampled.chi2_p", "probability", "balance", true,
     "p-value of sampled.chi2 with nodes - 1 degrees of freedom (small: the loads are not a "
     "sample of the weight shares)"},
    {"sampled.floor_cv", "ratio", "balance", true,
     "sampling-noise floor of sampled.cv: sqrt(mean (1-p_i)/(K p_i)), about sqrt(n/K)"},
    {"sampled.floor_max_over_mean", "ratio", "balance", true,
     "sampling-noise floor of sampled.max_over_mean: 1 + sqrt(2 ln n) * floor_cv"},
    {"sampled.bytes_max_over_mean", "ratio", "balance", true,
     "workloads with sizes: largest node's requested bytes / expected bytes (weight share)"},
    {"sampled.bytes_cv", "ratio", "balance", true,
     "workloads with sizes: coefficient of variation of requested bytes / expected"},
    {"theory.cv", "ratio", "balance", true, "rings, equal weights: 1/sqrt(v), v points per node"},
    {"theory.max_over_mean", "ratio", "balance", true,
     "rings, equal weights: 1 + sqrt(2 ln n / v)"},
    {"theory.wh99_low", "ratio", "balance", true,
     "rings: Wilson-Hilferty 99% lower bound of a node's load/mean, (1 - a - 2.576 sqrt a)^3, "
     "a = 1/(9v)"},
    {"theory.wh99_high", "ratio", "balance", true,
     "rings: the upper bound, (1 - a + 2.576 sqrt a)^3"},
    {"remap.moved", "fraction", "remap", true, "units whose node changed in this step / units"},
    {"remap.minimal", "fraction", "remap", true,
     "least units any scheme must move to reach this step's loads / units (removed nodes' "
     "load, or added nodes' load)"},
    {"remap.minimal_ideal", "fraction", "remap", true,
     "least share of the key space any scheme must move between the ideal weight shares "
     "before and after (what a perfectly balanced scheme moves)"},
    {"remap.excess", "fraction", "remap", true, "remap.moved - remap.minimal"},
    {"remap.moved_between_survivors", "fraction", "remap", true,
     "units moved from a node live before and after to another such node / units "
     "(monotonicity violations)"},
    {"remap.moved_from_start", "fraction", "remap", true,
     "units on a different node than at step 0 / units (0 after fail + restore for a "
     "consistent scheme: restore brings nodes back last-failed-first, the only order in which "
     "anchor, memento and jump can return every key)"},
    {"remap.cumulative.moved", "fraction", "remap", true, "sum of remap.moved over steps 1..this"},
    {"remap.cumulative.minimal", "fraction", "remap", true,
     "sum of remap.minimal over steps 1..this"},
    {"remap.cumulative.excess", "fraction", "remap", true,
     "sum of remap.excess over steps 1..this"},
    {"remap.cumulative.moved_between_survivors", "fraction", "remap", true,
     "sum of remap.moved_between_survivors over steps 1..this"},
    {"remap.rebuilt", "count", "remap", true,
     "1 when an unsupported removal fell back to rebuilding the algorithm (on_unsupported: "
     "rebuild) at or before this step"},
    {"throughput.ns_per_lookup", "ns", "throughput", false,
     "key hash precomputed, independent lookups (LocateBatch): ns per lookup"},
    {"throughput.ns_per_lookup_latency", "ns", "throughput", false,
     "key hash precomputed, each lookup depends on the previous answer"},
    {"throughput.ns_per_lookup_with_hash", "ns", "throughput", false,
     "hashing the key bytes + lookup, independent keys, the simulator's own path: keys hashed a "
     "block at a time (md5/md5_64 through the multi-buffer SIMD MD5), then LocateBatch"},
    {"throughput.ns_per_lookup_with_hash_latency", "ns", "throughput", false,
     "hashing + lookup, each key depends on the previous answer; one key at a time through the "
     "fastest scalar hash equal to the hasher (md5: chsim's one-block MD5)"},
    {"throughput.lookups_per_second", "1/s", "throughput", false,
     "1e9 / throughput.ns_per_lookup_with_hash (one thread)"},
    {"throughput.build_ms", "ms", "throughput", false,
     "building the algorithm over the initial nodes (CPU ms, median; a first build under 50 ms "
     "is an uncounted warm-up)"},
    {"throughput.ns_per_add", "ns", "throughput", false,
     "median over the timeline's events that add nodes (add, restore, reweight) of "
     "throughput.event_ns_per_add"},
    {"throughput.ns_per_remove", "ns", "throughput", false,
     "median over the timeline's events that remove nodes (remove, fail, reweight) of "
     "throughput.event_ns_per_remove"},
    {"throughput.event_ns_per_add", "ns", "throughput", false,
     "this event's Add calls on the algorithm, trial 0: CPU ns per call (no row when the event "
     "made none)"},
    {"throughput.event_ns_per_remove", "ns", "throughput", false,
     "this event's Remove calls on the algorithm, trial 0: CPU ns per call (none for removals "
     "the algorithm refused)"},
    {"throughput.memory_bytes_per_node", "bytes", "throughput", true,
     "the algorithm's MemoryBytes() / live nodes: step 0 a fresh build over the initial nodes, "
     "step s the structure after event s (trial 0)"},
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

// A catalog entry as a row holds it; compares equal to its name.
class MetricRef {
 public:
  constexpr explicit MetricRef(const MetricSpec& spec) noexcept : spec_(&spec) {}
  constexpr const MetricSpec& spec() const noexcept { return *spec_; }
  constexpr std::string_view name() const noexcept { return spec_->name; }
  friend constexpr bool operator==(MetricRef a, std::string_view name) noexcept {
    return a.spec_->name == name;
  }

 private:
  const MetricSpec* spec_;
};

// The catalog entry `name`, found at compile time; an unknown name is a
// compile error (the throw is not a constant expression).
consteval MetricRef Metric(std::string_view name) {
  for (const MetricSpec& m : kMetricCatalog) {
    if (m.name == name) return MetricRef(m);
  }
  throw "metric not in kMetricCatalog";
}

inline std::span<const MetricSpec> AllMetrics() noexcept { return kMetricCatalog; }
// nullptr if unknown.
const MetricSpec* FindMetric(std::string_view name) noexcept;

struct BalanceFigures {
  double max_over_mean = 0;
  double min_over_mean = 0;
  double cv = 0;
  double over_eps_share = 0;  // share of nodes with ratio > 1 + eps
};
// REQUIRES: !ratios.empty().
BalanceFigures BalanceFromRatios(std::span<const double> ratios, double epsilon) noexcept;

struct ChiSquareFigures {
  double statistic = 0;
  double df = 0;
  double p_value = 1;
};
// Pearson's goodness of fit of observed counts to probabilities `p` (sum 1).
ChiSquareFigures ChiSquareTest(std::span<const double> observed,
                               std::span<const double> p) noexcept;

// Relative sampling noise of a node's count with K units: the CV the ratios
// show from sampling alone, sqrt(mean_i (1 - p_i) / (K p_i)) (about sqrt(n/K)).
double SamplingFloorCv(std::span<const double> p, double total) noexcept;

// Least units any scheme must move to go from load vector `before` to
// `after` (same total, indexed alike): the total-variation distance
// sum_i max(0, after_i - before_i). For a removal it is the removed nodes'
// load, for an add the new nodes' load.
double MinimalMoves(std::span<const double> before, std::span<const double> after) noexcept;

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RUN_METRICS_H_
