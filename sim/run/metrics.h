// SPDX-License-Identifier: Apache-2.0
// Metrics: the catalog of every figure a result file can hold (MetricSpec:
// name, unit, the scenario "metrics" entry that selects it, whether it is
// deterministic, its meaning; `chsim list` and results/README.md print the
// same), and the pure functions that compute the balance and remapping
// figures.
//
// Each metric group (metric_group.h) owns its rows, in its own file
// (sim/run/group_*.cc); a row refers to its entry through a MetricRef made at
// compile time by MetricIn(rows, "name"): emitting a metric that has no entry
// does not compile. Adding a metric is one row and one line in its group's
// emitter.
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
  // The metric group (the scenario "metrics" entry) that writes it; "" for
  // "nodes", written at every step of any group with a step hook.
  std::string_view group;
  bool deterministic;  // same seed => same value on any machine and thread count
  std::string_view meaning;
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

// Every metric: "nodes", then each group's rows in registry order
// (metric_groups.cc), the order rows hold them within a step.
std::span<const MetricSpec> AllMetrics() noexcept;
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
