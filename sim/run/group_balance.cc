// SPDX-License-Identifier: Apache-2.0
// The balance metric group: how even the load is at each step. Structural
// figures from the algorithm's exact shares, the Gamma(v) theory of rings
// beside them, and the sampled loads of the key pass with their chi-square
// test and sampling-noise floor.
#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/base/stats.h"
#include "sim/run/metric_group.h"
#include "sim/run/runner_internal.h"

namespace chsim::sim {
namespace {

constexpr MetricSpec kRows[] = {
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
};

consteval MetricRef Metric(std::string_view name) { return MetricIn(kRows, name); }

void EmitStructural(const StepFigures& x) {
  if (!x.shares) return;
  std::vector<double> ratios;
  for (uint32_t i : x.live) ratios.push_back((*x.shares)[i] / x.p[i]);
  BalanceFigures b = BalanceFromRatios(ratios, x.st.s->epsilon);
  x.emit(Metric("structural.max_over_mean"), b.max_over_mean);
  x.emit(Metric("structural.min_over_mean"), b.min_over_mean);
  x.emit(Metric("structural.cv"), b.cv);
  x.emit(Metric("structural.over_eps_share"), b.over_eps_share);
}

// Rings at step 0: the Gamma(v) model's figures, and how many exact shares
// fall inside its 99% band.
void EmitTheory(const StepFigures& x) {
  const double v = x.st.cur->ring_points_per_node();
  if (v <= 0 || x.st.step != 0) return;
  const double n = static_cast<double>(x.live.size());
  RingTheory t = RingTheoryFor(v, n);
  if (x.shares) {
    size_t inside = 0;
    for (uint32_t i : x.live) {
      double ratio = (*x.shares)[i] / x.p[i];
      if (ratio >= t.wh99_low && ratio <= t.wh99_high) ++inside;
    }
    x.emit(Metric("structural.inside_wh99"), static_cast<double>(inside) / n);
  }
  x.emit(Metric("theory.cv"), t.cv);
  x.emit(Metric("theory.max_over_mean"), t.max_over_mean);
  x.emit(Metric("theory.wh99_low"), t.wh99_low);
  x.emit(Metric("theory.wh99_high"), t.wh99_high);
}

// Load in bytes: each node's requested bytes against its weight share.
void EmitSampledBytes(const StepFigures& x) {
  const Tally& t = *x.st.tally;
  double total = 0;
  for (uint32_t i : x.live) total += static_cast<double>(t.bytes[i]);
  if (total <= 0) return;
  std::vector<double> ratios;
  for (uint32_t i : x.live) ratios.push_back(static_cast<double>(t.bytes[i]) / (total * x.p[i]));
  BalanceFigures b = BalanceFromRatios(ratios, x.st.s->epsilon);
  x.emit(Metric("sampled.bytes_max_over_mean"), b.max_over_mean);
  x.emit(Metric("sampled.bytes_cv"), b.cv);
}

void EmitSampled(const StepFigures& x) {
  const Tally& t = *x.st.tally;
  const double n = static_cast<double>(x.live.size());
  std::vector<double> ratios, observed, probs;
  for (uint32_t i : x.live) {
    double load = static_cast<double>(t.cur[i]);
    ratios.push_back(load / (x.units * x.p[i]));
    observed.push_back(load);
    probs.push_back(x.p[i]);
  }
  BalanceFigures b = BalanceFromRatios(ratios, x.st.s->epsilon);
  ChiSquareFigures chi = ChiSquareTest(observed, probs);
  double floor_cv = SamplingFloorCv(probs, x.units);
  x.emit(Metric("sampled.units"), x.units);
  x.emit(Metric("sampled.max_over_mean"), b.max_over_mean);
  x.emit(Metric("sampled.min_over_mean"), b.min_over_mean);
  x.emit(Metric("sampled.cv"), b.cv);
  x.emit(Metric("sampled.over_eps_share"), b.over_eps_share);
  x.emit(Metric("sampled.chi2"), chi.statistic);
  x.emit(Metric("sampled.chi2_p"), chi.p_value);
  x.emit(Metric("sampled.floor_cv"), floor_cv);
  x.emit(Metric("sampled.floor_max_over_mean"),
         1 + std::sqrt(2 * std::log(std::max(n, 2.0))) * floor_cv);
  if (!t.bytes.empty()) EmitSampledBytes(x);
}
void EmitBalanceStep(const StepFigures& x, Cumulative&) {
  EmitStructural(x);
  EmitTheory(x);
  if (x.st.tally && x.units > 0) EmitSampled(x);
}

constexpr std::string_view kNotebooks[] = {"balance.ipynb", "tuning.ipynb"};

}  // namespace

extern const MetricGroup kBalanceGroup;
constexpr MetricGroup kBalanceGroup{
    .name = "balance",
    .doc = "load balance at every step: exact shares, sampled loads, and the ring theory",
    .needs = {.key_pass = true, .trials = true},
    .rows = kRows,
    .notebooks = kNotebooks,
    .step = EmitBalanceStep,
};

}  // namespace chsim::sim
