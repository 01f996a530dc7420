// SPDX-License-Identifier: Apache-2.0
// The rows of one step, one emitter per metric group. Each metric is named by
// Metric("..."), checked against the catalog (metrics.h) at compile time.
#include <cmath>
#include <optional>

#include "sim/base/stats.h"
#include "sim/run/metrics.h"
#include "sim/run/runner_internal.h"

namespace chsim::sim {
namespace {

// Writes rows of one trial and step.
class Emitter {
 public:
  Emitter(CaseResult* r, uint32_t trial, uint32_t step) : r_(r), trial_(trial), step_(step) {}
  void operator()(MetricRef metric, double value) {
    r_->rows.push_back(MetricRow{trial_, step_, metric, value});
  }

 private:
  CaseResult* r_;
  uint32_t trial_, step_;
};

// What the group emitters share.
struct Step {
  const StepState& st;
  Emitter& emit;
  std::vector<uint32_t> live;  // global ids
  std::vector<double> p;       // expected shares
  std::optional<std::vector<double>> shares;
  double units;
};

void EmitStructural(const Step& x) {
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
void EmitTheory(const Step& x) {
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
void EmitSampledBytes(const Step& x) {
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

void EmitSampled(const Step& x) {
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

void EmitRemap(const Step& x, Cumulative& cum) {
  const Tally& t = *x.st.tally;
  const size_t g = x.st.cur->nodes().size();
  std::vector<double> before(g, 0.0), after(g, 0.0);
  for (size_t i = 0; i < g; ++i) {
    before[i] = static_cast<double>(t.prev[i]);
    after[i] = static_cast<double>(t.cur[i]);
  }
  std::vector<double> p_prev = WeightShares(*x.st.prev);
  p_prev.resize(g, 0.0);
  const double moved = static_cast<double>(t.moved) / x.units;
  const double minimal = MinimalMoves(before, after) / x.units;
  const double survivors = static_cast<double>(t.survivors) / x.units;
  cum.moved += moved;
  cum.minimal += minimal;
  cum.excess += moved - minimal;
  cum.survivors += survivors;
  x.emit(Metric("remap.moved"), moved);
  x.emit(Metric("remap.minimal"), minimal);
  x.emit(Metric("remap.minimal_ideal"), MinimalMoves(p_prev, x.p));
  x.emit(Metric("remap.excess"), moved - minimal);
  x.emit(Metric("remap.moved_between_survivors"), survivors);
  x.emit(Metric("remap.moved_from_start"), static_cast<double>(t.from_start) / x.units);
  x.emit(Metric("remap.cumulative.moved"), cum.moved);
  x.emit(Metric("remap.cumulative.minimal"), cum.minimal);
  x.emit(Metric("remap.cumulative.excess"), cum.excess);
  x.emit(Metric("remap.cumulative.moved_between_survivors"), cum.survivors);
  x.emit(Metric("remap.rebuilt"), x.st.cur->rebuilt() ? 1 : 0);
}

// The per-node long table and the transitions (not metrics: their own tables).
void EmitPerNode(const Step& x, CaseResult& r) {
  const StepState& st = x.st;
  const PerNode mode = st.per_node;
  if (mode == PerNode::kNone || (mode == PerNode::kFirstTrial && st.trial != 0)) return;
  const double nan = std::nan("");
  const Deployment& cur = *st.cur;
  for (uint32_t i = 0; i < cur.nodes().size(); ++i) {
    bool was_live = st.prev && i < st.prev->live().size() && st.prev->live()[i];
    if (!cur.live()[i] && !was_live) continue;
    NodeRow row{st.trial, st.step, i, cur.nodes()[i].weight, nan, nan, nan, nan, nan};
    if (st.tally && x.units > 0) {
      row.load = static_cast<double>(st.tally->cur[i]);
      row.expected = x.units * x.p[i];
      if (st.prev) {
        row.moved_in = static_cast<double>(st.tally->moved_in[i]);
        row.moved_out = static_cast<double>(st.tally->moved_out[i]);
      }
    }
    if (x.shares) row.share = (*x.shares)[i];
    r.nodes.push_back(row);
  }
  if (!st.tally || st.tally->transitions.size() == 0) return;
  const Eigen::MatrixXd& m = st.tally->transitions;
  for (Eigen::Index a = 0; a < m.rows(); ++a) {
    for (Eigen::Index b = 0; b < m.cols(); ++b) {
      if (a != b && m(a, b) > 0) {
        r.transitions.push_back(TransitionRow{st.trial, st.step, static_cast<uint32_t>(a),
                                              static_cast<uint32_t>(b), m(a, b)});
      }
    }
  }
}

}  // namespace

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

void EmitResize(const Deployment& d, const ResizeTimes& times, uint32_t step, CaseResult& r) {
  Emitter emit(&r, 0, step);
  // Per call, clock cost subtracted: a call shorter than the clock's jitter
  // can come out below zero, which says "too short to see", not a gain.
  if (times.adds > 0) emit(Metric("throughput.event_ns_per_add"), times.add_ns / times.adds);
  if (times.removes > 0) {
    emit(Metric("throughput.event_ns_per_remove"), times.remove_ns / times.removes);
  }
  emit(Metric("throughput.memory_bytes_per_node"),
       static_cast<double>(d.algorithm().MemoryBytes()) / static_cast<double>(d.num_live()));
}

void EmitStep(const StepState& st, Cumulative& cum, CaseResult& r) {
  Emitter emit(&r, st.trial, st.step);
  Step x{st,
         emit,
         {},
         WeightShares(*st.cur),
         st.cur->StructuralShares(),
         st.tally ? static_cast<double>(st.tally->units) : 0};
  for (uint32_t i = 0; i < st.cur->nodes().size(); ++i) {
    if (st.cur->live()[i]) x.live.push_back(i);
  }
  emit(Metric("nodes"), static_cast<double>(x.live.size()));
  if (st.s->balance) {
    EmitStructural(x);
    EmitTheory(x);
  }
  if (st.tally && x.units > 0 && st.s->balance) EmitSampled(x);
  if (st.tally && st.prev && x.units > 0 && st.s->remap) EmitRemap(x, cum);
  EmitPerNode(x, r);
}

}  // namespace chsim::sim
