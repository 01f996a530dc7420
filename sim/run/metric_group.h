// SPDX-License-Identifier: Apache-2.0
// MetricGroup: one entry of a scenario's "metrics" list, as a spec. A group
// owns its catalog rows, says which passes of a run it needs, and holds the
// hooks that write its rows. Each group is one file (sim/run/group_*.cc) and
// one row of the registry (sim/run/metric_groups.cc); the scenario reader,
// the runner, the schema, `chsim list`, the results catalog and the report
// read the groups from there, and no other list of groups exists.
//
// A run calls a selected group's hooks in registry order:
//   trial   once per trial, before the steps (its rows, by step, join each
//           step's after the step hooks' rows), with the threads the case
//           may use;
//   step    once per trial and step, after the key pass when one ran;
//   event   trial 0, after each event the run timed (needs.event_timing);
//   timed   once per case, after every case has simulated (needs.timing).
// A hook may be null. Rows are written in the order the hooks emit them, so
// a group's output order is its hooks' order, and results are deterministic
// when its hooks are.
//
// A group's emitters name their metrics with MetricIn(kRows, "name") (a
// consteval lookup in the group's own rows): a metric missing from the rows
// does not compile.
//
// Thread-safety: specs are constants; hooks run concurrently for different
// cases and must only touch the CaseResult they are given.
#ifndef CHSIM_SIM_RUN_METRIC_GROUP_H_
#define CHSIM_SIM_RUN_METRIC_GROUP_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sim/run/metrics.h"

namespace chsim::sim {

struct Scenario;
struct CaseSpec;
struct CaseResult;
struct MetricRow;
struct StepFigures;
struct Cumulative;
struct ResizeTimes;
class Deployment;
class Progress;

// What a group needs from a run. The runner does a pass only when a
// selected group needs it.
struct GroupPasses {
  bool key_pass = false;      // place the workload's keys at every step (the Tally)
  bool previous = false;      // ... against the previous step's nodes too (moves)
  bool trials = false;        // run every trial (else trial 0, and only to time events)
  bool event_timing = false;  // trial 0 times the algorithm's Add and Remove calls
  bool replay = false;        // replay the request stream (the cache settings apply)
  bool timing = false;        // time the case after every case has simulated
};

// The rows of one trial, by step (index 0: the initial step).
using TrialRows = std::vector<std::vector<MetricRow>>;

struct MetricGroup {
  std::string_view name;  // the "metrics" entry that selects it
  std::string_view doc;   // one line: chsim list, the schema, results/README.md
  GroupPasses needs;
  std::span<const MetricSpec> rows;  // its catalog rows, in the order it writes them
  // The notebooks (notebooks/) that draw its figures; the report puts every
  // metric of the group that no figure draws in the group's generic table.
  std::span<const std::string_view> notebooks = {};

  TrialRows (*trial)(const Scenario& s, const CaseSpec& c, uint32_t trial, unsigned threads,
                     Progress* progress, CaseResult& r) = nullptr;
  void (*step)(const StepFigures& x, Cumulative& cum) = nullptr;
  void (*event)(const Deployment& d, const ResizeTimes& times, uint32_t step,
                CaseResult& r) = nullptr;
  void (*timed)(const Scenario& s, const CaseSpec& c, CaseResult& r) = nullptr;
  // The progress its trial hook reports for one case over all trials (the
  // runner's work estimate: progress and the --force limit); null: none.
  uint64_t (*work)(const Scenario& s, const CaseSpec& c) = nullptr;
};

// The row every step of a group with a step hook writes first.
inline constexpr MetricSpec kStepRows[] = {
    {"nodes", "nodes", "", true, "live nodes at this step"},
};

// The catalog row `name` of `rows`, found at compile time; a name that is
// not there is a compile error (the throw is not a constant expression).
consteval MetricRef MetricIn(std::span<const MetricSpec> rows, std::string_view name) {
  for (const MetricSpec& m : rows) {
    if (m.name == name) return MetricRef(m);
  }
  throw "metric not in its group's rows";
}

// Every group, in registry order (the order rows and `chsim list` hold them).
std::span<const MetricGroup* const> AllMetricGroups() noexcept;
// nullptr if no group has that name.
const MetricGroup* FindMetricGroup(std::string_view name) noexcept;
// The groups' names, in registry order: the choices of a "metrics" entry.
std::span<const std::string_view> MetricGroupNames() noexcept;

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RUN_METRIC_GROUP_H_
