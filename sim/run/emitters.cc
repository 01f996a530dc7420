// SPDX-License-Identifier: Apache-2.0
// The rows of one step: "nodes", each selected group's step hook
// (metric_group.h), then the per-node rows and transitions.
#include <cmath>

#include "sim/run/metric_group.h"
#include "sim/run/runner_internal.h"

namespace chsim::sim {
namespace {

// The per-node long table and the transitions (not metrics: their own tables).
void EmitPerNode(const StepFigures& x, CaseResult& r) {
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

void EmitStep(const StepState& st, Cumulative& cum, CaseResult& r) {
  RowWriter emit(&r, st.trial, st.step);
  StepFigures x{st,
                emit,
                {},
                WeightShares(*st.cur),
                st.cur->StructuralShares(),
                st.tally ? static_cast<double>(st.tally->units) : 0};
  for (uint32_t i = 0; i < st.cur->nodes().size(); ++i) {
    if (st.cur->live()[i]) x.live.push_back(i);
  }
  emit(MetricIn(kStepRows, "nodes"), static_cast<double>(x.live.size()));
  for (const MetricGroup* g : st.s->groups) {
    if (g->step) g->step(x, cum);
  }
  EmitPerNode(x, r);
}

}  // namespace chsim::sim
