// SPDX-License-Identifier: Apache-2.0
// Replay: what remapping costs a cache. One trial of a case reads the
// workload's request stream once, in order; every request between two events
// goes to the node the mapping of that moment gives, through that node's cache
// (cache.h), and at the same time through a twin: the same algorithm over the
// initial nodes with the same caches, to which no event happens. Misses above
// the twin's are what the events cost.
//
// Steps: step 0 covers the requests before the first event, step k those from
// event k up to the next. Events sit on the stream ("at": before request N,
// or before floor(F x length)).
//
// Nodes and their caches: a node that leaves (remove, fail) loses its cache;
// one that joins, or comes back (restore), starts with an empty cache, as a
// restarted memcached does; a reweight keeps the cache. Capacities are per
// node, the same for every node (fractions of the stream's distinct objects
// or bytes are split evenly over the initial nodes).
//
// Windows: each step is cut into windows of W requests from its start (W =
// "window", default max(100, length / 500)); the miss ratio of the run and of
// the twin per window gives the step's peak and its recovery, following
// Zhang et al., "When is the Cache Warm? Manufacturing a Rule of Thumb"
// (HotCloud 2020): a cache has warmed up when its windowed hit ratio is and
// stays within epsilon of that of an identical cache that suffered no change.
// Here: the first whole window of the step after which every whole window of
// the step is within epsilon ("recovery_epsilon", default 0.01); the recovery
// is the requests from the event to that window's start (a multiple of W),
// null when no window qualifies.
//
// Stateful algorithms (bounded loads) assign requests one at a time in
// stream order; their loads start afresh at each step, in the run and the
// twin alike.
//
// Until the first event the twin is the run (the same nodes, the same
// requests): each request is served once and counted for both, and at the
// first event the twin takes a copy of the run's caches.
//
// Determinism: a trial's replay is sequential; its rows do not depend on
// threads. Memory: the caches (about 33 bytes per cached object; twice, the
// run and the twin, from the first event on), per-node tallies and one row
// per window; never the stream.
//
// Thread-safety: reentrant; one trial per call.
#ifndef CHSIM_SIM_RUN_REPLAY_H_
#define CHSIM_SIM_RUN_REPLAY_H_

#include <cstdint>
#include <vector>

#include "sim/results/results.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {

class Progress;

// The window of a stream of `length` requests.
uint64_t ReplayWindow(const Scenario& s, uint64_t length) noexcept;

// The request index of each event on case c's stream of `length` requests.
// Throws UsageError naming the event's "at" for one at or past the end, or
// before the previous event.
std::vector<uint64_t> EventPositions(const Scenario& s, const CaseSpec& c, uint64_t length);

// Replays trial `trial` of case c: appends its cache_nodes and cache_windows
// rows to r and returns the metric rows of each step. When an event stops
// the case (on_unsupported: skip), returns the steps before it. Throws
// UsageError and RuntimeError as reading the stream does, Interrupted.
std::vector<std::vector<MetricRow>> ReplayTrial(const Scenario& s, const CaseSpec& c,
                                                uint32_t trial, Progress* progress, CaseResult& r);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RUN_REPLAY_H_
