#include "chsim/sim/metrics.h"

#include <algorithm>
#include <cmath>

#include "chsim/sim/stats.h"

namespace chsim::sim {
namespace {

constexpr MetricInfo kMetrics[] = {
    {"nodes", "nodes", true, "live nodes at this step"},
    {"structural.max_over_mean", "ratio", true,
     "largest exact share / expected share (weight share) over live nodes; no sampling noise"},
    {"structural.min_over_mean", "ratio", true, "smallest exact share / expected share"},
    {"structural.cv", "ratio", true,
     "coefficient of variation of exact share / expected share across live nodes"},
    {"structural.over_eps_share", "fraction", true,
     "share of live nodes whose exact share / expected exceeds 1 + epsilon"},
    {"structural.inside_wh99", "fraction", true,
     "rings: share of nodes whose exact share / mean lies inside theory.wh99_low..high (about "
     "0.99 if the theory holds)"},
    {"sampled.units", "count", true, "load units placed: keys, or requests (Zipf), or file weights"},
    {"sampled.max_over_mean", "ratio", true,
     "largest load / expected load (expected = units * weight share)"},
    {"sampled.min_over_mean", "ratio", true, "smallest load / expected load"},
    {"sampled.cv", "ratio", true, "coefficient of variation of load / expected load"},
    {"sampled.over_eps_share", "fraction", true,
     "share of live nodes whose load / expected exceeds 1 + epsilon"},
    {"sampled.chi2", "statistic", true,
     "Pearson chi-square of the loads against the weight shares"},
    {"sampled.chi2_p", "probability", true,
     "p-value of sampled.chi2 with nodes - 1 degrees of freedom (small: the loads are not a "
     "sample of the weight shares)"},
    {"sampled.floor_cv", "ratio", true,
     "sampling-noise floor of sampled.cv: sqrt(mean (1-p_i)/(K p_i)), about sqrt(n/K)"},
    {"sampled.floor_max_over_mean", "ratio", true,
     "sampling-noise floor of sampled.max_over_mean: 1 + sqrt(2 ln n) * floor_cv"},
    {"theory.cv", "ratio", true, "rings, equal weights: 1/sqrt(v), v points per node"},
    {"theory.max_over_mean", "ratio", true, "rings, equal weights: 1 + sqrt(2 ln n / v)"},
    {"theory.wh99_low", "ratio", true,
     "rings: Wilson-Hilferty 99% lower bound of a node's load/mean, (1 - a - 2.576 sqrt a)^3, "
     "a = 1/(9v)"},
    {"theory.wh99_high", "ratio", true, "rings: the upper bound, (1 - a + 2.576 sqrt a)^3"},
    {"remap.moved", "fraction", true, "units whose node changed in this step / units"},
    {"remap.minimal", "fraction", true,
     "least units any scheme must move to reach this step's loads / units (removed nodes' "
     "load, or added nodes' load)"},
    {"remap.minimal_ideal", "fraction", true,
     "least share of the key space any scheme must move between the ideal weight shares "
     "before and after (what a perfectly balanced scheme moves)"},
    {"remap.excess", "fraction", true, "remap.moved - remap.minimal"},
    {"remap.moved_between_survivors", "fraction", true,
     "units moved from a node live before and after to another such node / units "
     "(monotonicity violations)"},
    {"remap.moved_from_start", "fraction", true,
     "units on a different node than at step 0 / units (0 after fail + restore for a "
     "consistent scheme)"},
    {"remap.cumulative.moved", "fraction", true, "sum of remap.moved over steps 1..this"},
    {"remap.cumulative.minimal", "fraction", true, "sum of remap.minimal over steps 1..this"},
    {"remap.cumulative.excess", "fraction", true, "sum of remap.excess over steps 1..this"},
    {"remap.cumulative.moved_between_survivors", "fraction", true,
     "sum of remap.moved_between_survivors over steps 1..this"},
    {"remap.rebuilt", "count", true,
     "1 when an unsupported removal fell back to rebuilding the algorithm (on_unsupported: "
     "rebuild) at or before this step"},
    {"throughput.ns_per_lookup", "ns", false,
     "key hash precomputed, independent lookups (LocateBatch): ns per lookup"},
    {"throughput.ns_per_lookup_latency", "ns", false,
     "key hash precomputed, each lookup depends on the previous answer"},
    {"throughput.ns_per_lookup_with_hash", "ns", false,
     "hashing the key bytes + lookup, independent keys"},
    {"throughput.ns_per_lookup_with_hash_latency", "ns", false,
     "hashing + lookup, each key depends on the previous answer"},
    {"throughput.lookups_per_second", "1/s", false,
     "1e9 / throughput.ns_per_lookup_with_hash (one thread)"},
    {"throughput.build_ms", "ms", false, "building the algorithm over the initial nodes"},
    {"throughput.memory_bytes_per_node", "bytes", true,
     "the algorithm's MemoryBytes() / nodes"},
};

}  // namespace

std::span<const MetricInfo> AllMetrics() noexcept { return kMetrics; }

const MetricInfo* FindMetric(std::string_view name) noexcept {
  for (const MetricInfo& m : kMetrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

BalanceFigures BalanceFromRatios(std::span<const double> ratios, double epsilon) noexcept {
  BalanceFigures b;
  double sum = 0, mx = ratios[0], mn = ratios[0];
  size_t over = 0;
  for (double r : ratios) {
    sum += r;
    mx = std::max(mx, r);
    mn = std::min(mn, r);
    if (r > 1 + epsilon) ++over;
  }
  double n = static_cast<double>(ratios.size());
  double mean = sum / n, ss = 0;
  for (double r : ratios) ss += (r - mean) * (r - mean);
  b.max_over_mean = mx;
  b.min_over_mean = mn;
  b.cv = std::sqrt(ss / n) / mean;
  b.over_eps_share = static_cast<double>(over) / n;
  return b;
}

ChiSquareFigures ChiSquareTest(std::span<const double> observed,
                               std::span<const double> p) noexcept {
  ChiSquareFigures c;
  double total = 0;
  for (double o : observed) total += o;
  size_t cells = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    if (p[i] <= 0) continue;
    double e = total * p[i];
    c.statistic += (observed[i] - e) * (observed[i] - e) / e;
    ++cells;
  }
  c.df = cells > 1 ? static_cast<double>(cells - 1) : 1;
  c.p_value = ChiSquarePValue(c.statistic, c.df);
  return c;
}

double SamplingFloorCv(std::span<const double> p, double total) noexcept {
  double sum = 0;
  size_t n = 0;
  for (double pi : p) {
    if (pi <= 0) continue;
    sum += (1 - pi) / (total * pi);
    ++n;
  }
  return n == 0 || total <= 0 ? 0 : std::sqrt(sum / static_cast<double>(n));
}

double MinimalMoves(std::span<const double> before, std::span<const double> after) noexcept {
  double m = 0;
  for (size_t i = 0; i < after.size(); ++i) {
    double b = i < before.size() ? before[i] : 0;
    if (after[i] > b) m += after[i] - b;
  }
  return m;
}

}  // namespace chsim::sim
