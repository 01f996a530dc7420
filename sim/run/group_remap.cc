// SPDX-License-Identifier: Apache-2.0
// The remap metric group: what each event moves. The keys whose node
// changed, beside the least any scheme must move (MinimalMoves, metrics.h),
// moves between surviving nodes, and the sums over the timeline.
#include <vector>

#include "sim/run/metric_group.h"
#include "sim/run/runner_internal.h"

namespace chsim::sim {
namespace {

constexpr MetricSpec kRows[] = {
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
};

consteval MetricRef Metric(std::string_view name) { return MetricIn(kRows, name); }

void EmitRemap(const StepFigures& x, Cumulative& cum) {
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
void EmitRemapStep(const StepFigures& x, Cumulative& cum) {
  if (x.st.tally && x.st.prev && x.units > 0) EmitRemap(x, cum);
}

constexpr std::string_view kNotebooks[] = {"remapping.ipynb"};

}  // namespace

extern const MetricGroup kRemapGroup;
constexpr MetricGroup kRemapGroup{
    .name = "remap",
    .doc = "what each event of the timeline moves, beside the least any scheme must move",
    .needs = {.key_pass = true, .previous = true, .trials = true},
    .rows = kRows,
    .notebooks = kNotebooks,
    .step = EmitRemapStep,
};

}  // namespace chsim::sim
