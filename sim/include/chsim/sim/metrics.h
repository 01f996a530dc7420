// Metrics: the catalog of every figure a result file can hold (name, unit,
// meaning; `chsim list` and results/README.md print the same), and the pure
// functions that compute the balance and remapping figures of DESIGN.md
// section 3.
//
// Conventions: a node's ratio is load_i / expected_i with expected_i = total *
// w_i / W over the live nodes; "max_over_mean" is the largest ratio (with
// equal weights: max load / mean load), "cv" the population standard
// deviation of the ratios. Remapping fractions are of the total load units
// (keys, or requests for Zipf).
//
// Thread-safety: pure functions.
#ifndef CHSIM_SIM_METRICS_H_
#define CHSIM_SIM_METRICS_H_

#include <cstdint>
#include <span>
#include <string_view>

namespace chsim::sim {

struct MetricInfo {
  std::string_view name;
  std::string_view unit;
  bool deterministic;  // same seed => same value on any machine and thread count
  std::string_view description;
};

// Every metric, grouped: structural.*, sampled.*, theory.*, remap.*, throughput.*.
std::span<const MetricInfo> AllMetrics() noexcept;
// nullptr if unknown.
const MetricInfo* FindMetric(std::string_view name) noexcept;

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
// load, for an add the new nodes' load (DESIGN.md's "minimal").
double MinimalMoves(std::span<const double> before, std::span<const double> after) noexcept;

}  // namespace chsim::sim

#endif  // CHSIM_SIM_METRICS_H_
