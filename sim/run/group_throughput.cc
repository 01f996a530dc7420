// SPDX-License-Identifier: Apache-2.0
// The throughput metric group: ns per lookup (independent and dependent,
// with and without hashing the key), build time and memory, timed after the
// simulation one case at a time (throughput.cc); and the Add / Remove times
// trial 0 measured as it applied the events, with their medians.
#include <algorithm>
#include <utility>
#include <vector>

#include "sim/run/metric_group.h"
#include "sim/run/runner_internal.h"

namespace chsim::sim {
namespace {

constexpr MetricSpec kRows[] = {
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
    {"throughput.ns_per_replica_set", "ns", "throughput", false,
     "with replication: key hash precomputed, independent keys, the case's K copies of one key "
     "(the strategy's SelectBatch over trial 0's initial nodes)"},
    {"throughput.replica_set_over_lookup", "ratio", "throughput", false,
     "with replication: throughput.ns_per_replica_set / throughput.ns_per_lookup"},
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
};

consteval MetricRef Metric(std::string_view name) { return MetricIn(kRows, name); }

// Trial 0: the rows of event `step` timed by `times` (when the event made
// such calls) and the memory per live node of `d` after it.
void EmitEvent(const Deployment& d, const ResizeTimes& times, uint32_t step, CaseResult& r) {
  RowWriter emit(&r, 0, step);
  // Per call, clock cost subtracted: a call shorter than the clock's jitter
  // can come out below zero, which says "too short to see", not a gain.
  if (times.adds > 0) emit(Metric("throughput.event_ns_per_add"), times.add_ns / times.adds);
  if (times.removes > 0) {
    emit(Metric("throughput.event_ns_per_remove"), times.remove_ns / times.removes);
  }
  emit(Metric("throughput.memory_bytes_per_node"),
       static_cast<double>(d.algorithm().MemoryBytes()) / static_cast<double>(d.num_live()));
}

// The medians over the events of the per-event Add / Remove times
// (EmitEvent's rows), as step-0 rows; none without such rows.
void EmitEventMedians(RowWriter& emit, const CaseResult& r) {
  for (auto [per_event, median] :
       {std::pair{Metric("throughput.event_ns_per_add"), Metric("throughput.ns_per_add")},
        std::pair{Metric("throughput.event_ns_per_remove"), Metric("throughput.ns_per_remove")}}) {
    std::vector<double> v;
    for (const MetricRow& row : r.rows) {
      if (row.trial == 0 && row.metric == per_event.name()) v.push_back(row.value);
    }
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    const size_t h = v.size() / 2;
    emit(median, v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2);
  }
}

// The case timed over trial 0's nodes: rows of trial 0, step 0.
void EmitTimed(const Scenario& s, const CaseSpec& c, CaseResult& r) {
  const CaseTimes t = TimeCase(s, c);
  RowWriter emit(&r, 0, 0);
  emit(Metric("throughput.ns_per_lookup"), t.ns.no_hash);
  emit(Metric("throughput.ns_per_lookup_latency"), t.ns.no_hash_latency);
  emit(Metric("throughput.ns_per_lookup_with_hash"), t.ns.with_hash);
  emit(Metric("throughput.ns_per_lookup_with_hash_latency"), t.ns.with_hash_latency);
  emit(Metric("throughput.lookups_per_second"), 1e9 / t.ns.with_hash);
  if (c.replicas > 0) {
    emit(Metric("throughput.ns_per_replica_set"), t.ns_per_replica_set);
    emit(Metric("throughput.replica_set_over_lookup"), t.ns_per_replica_set / t.ns.no_hash);
  }
  emit(Metric("throughput.build_ms"), t.build_ms);
  EmitEventMedians(emit, r);
  emit(Metric("throughput.memory_bytes_per_node"), t.memory_bytes / t.nodes);
}

constexpr std::string_view kNotebooks[] = {"throughput.ipynb"};

}  // namespace

extern const MetricGroup kThroughputGroup;
constexpr MetricGroup kThroughputGroup{
    .name = "throughput",
    .doc =
        "lookup and build times, memory, and the timeline's Add and Remove times (not "
        "deterministic: timed on this machine)",
    .needs = {.event_timing = true, .timing = true},
    .rows = kRows,
    .notebooks = kNotebooks,
    .event = EmitEvent,
    .timed = EmitTimed,
};

}  // namespace chsim::sim
