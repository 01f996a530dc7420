// SPDX-License-Identifier: Apache-2.0
// Internal to the replay (replay.cc, group_cache.cc): the counts of one step
// and the rows made from them.
#ifndef CHSIM_SIM_RUN_REPLAY_INTERNAL_H_
#define CHSIM_SIM_RUN_REPLAY_INTERNAL_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sim/cache/policy.h"
#include "sim/results/results.h"
#include "sim/run/deployment.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {

// One window: its first request (stream index) and what it counted.
struct CacheWindow {
  uint64_t start = 0, requests = 0, reads = 0, misses = 0, twin_misses = 0;
};

// Whether every op is a read (true when empty); no early exit, so the
// compiler vectorizes it.
inline bool AllReads(std::span<const RequestOp> ops) noexcept {
  uint8_t other = 0;
  for (RequestOp op : ops) {
    other |= static_cast<uint8_t>(op) != static_cast<uint8_t>(RequestOp::kRead);
  }
  return other == 0;
}

// Integer counts of one step, per node of the run (by global id) and per
// window; the twin's misses in total.
struct StepCounts {
  uint64_t window = 1;  // requests per window
  double epsilon = 0;   // recovery_epsilon
  bool sized = false;   // the stream has sizes: byte rows
  uint64_t start = 0;   // the step's first request
  std::vector<uint64_t> requests, reads, misses, miss_bytes, read_bytes;
  uint64_t twin_misses = 0, twin_miss_bytes = 0;
  std::vector<CacheWindow> windows;
  uint64_t window_left = 0;  // requests still to go in windows.back()

  void Reset(size_t nodes, uint64_t first) {
    start = first;
    for (auto* v : {&requests, &reads, &misses, &miss_bytes, &read_bytes}) v->assign(nodes, 0);
    twin_misses = twin_miss_bytes = 0;
    windows.clear();
    window_left = 0;
  }
  // Counts a block of requests in order: request j went to node owners[j]
  // (a read when ops[j] is kRead, else a write or delete), hits[j] and
  // twin_hits[j] are 1 for a read that hit in the run and the twin (the same
  // span when the twin is the run); one_node: every owner is owners[0].
  // Windows open as requests reach them.
  void Count(std::span<const uint32_t> owners, std::span<const uint32_t> sizes,
             std::span<const RequestOp> ops, std::span<const uint8_t> hits,
             std::span<const uint8_t> twin_hits, bool one_node) {
    // Reads all to one node (a trace of reads through one node): sums.
    const bool uniform = one_node && !owners.empty() && AllReads(ops);
    for (size_t j = 0; j < owners.size();) {
      if (window_left == 0) {
        windows.push_back(CacheWindow{start + windows.size() * window});
        window_left = window;
      }
      const size_t end =
          j + static_cast<size_t>(std::min<uint64_t>(window_left, owners.size() - j));
      const Sums s = uniform ? CountReads(j, end, owners[0], sizes, hits, twin_hits)
                     : twin_hits.data() == hits.data()
                         ? CountRun<true>(j, end, owners, sizes, ops, hits, twin_hits)
                         : CountRun<false>(j, end, owners, sizes, ops, hits, twin_hits);
      CacheWindow& w = windows.back();
      w.requests += end - j;
      w.reads += s.reads;
      w.misses += s.misses;
      w.twin_misses += s.twin_misses;
      twin_misses += s.twin_misses;
      twin_miss_bytes += s.twin_miss_bytes;
      window_left -= end - j;
      j = end;
    }
  }

 private:
  struct Sums {
    uint64_t reads = 0, misses = 0, twin_misses = 0, twin_miss_bytes = 0;
  };
  // CountRun of requests [j, end) that are all reads sent to `node`: the
  // same counts as sums over the hits and sizes.
  Sums CountReads(size_t j, size_t end, uint32_t node, std::span<const uint32_t> sizes,
                  std::span<const uint8_t> hits, std::span<const uint8_t> twin_hits) {
    uint64_t hit_count = 0, twin_hit_count = 0, bytes = 0, hit_bytes = 0, twin_hit_bytes = 0;
    for (size_t k = j; k < end; ++k) {
      const uint64_t size = sizes[k];
      hit_count += hits[k];
      twin_hit_count += twin_hits[k];
      bytes += size;
      hit_bytes += size & (0 - uint64_t{hits[k]});
      twin_hit_bytes += size & (0 - uint64_t{twin_hits[k]});
    }
    const uint64_t n = end - j;
    requests[node] += n;
    reads[node] += n;
    read_bytes[node] += bytes;
    misses[node] += n - hit_count;
    miss_bytes[node] += bytes - hit_bytes;
    return {n, n - hit_count, n - twin_hit_count, bytes - twin_hit_bytes};
  }
  // Requests [j, end) of a block, within one window.
  template <bool kTwinIsRun>
  Sums CountRun(size_t j, size_t end, std::span<const uint32_t> owners,
                std::span<const uint32_t> sizes, std::span<const RequestOp> ops,
                std::span<const uint8_t> hits, std::span<const uint8_t> twin_hits) {
    // Locals: the counters are plain uint64_t arrays; the sums stay in registers.
    uint64_t *node_requests = requests.data(), *node_reads = reads.data();
    uint64_t *node_misses = misses.data(), *node_miss_bytes = miss_bytes.data();
    uint64_t* node_read_bytes = read_bytes.data();
    Sums s;
    uint64_t miss_bytes_sum = 0;
    for (; j < end; ++j) {
      const uint32_t node = owners[j];
      ++node_requests[node];
      if (ops[j] != RequestOp::kRead) continue;
      const uint64_t size = sizes[j], miss = hits[j] ^ 1u;
      ++s.reads;
      ++node_reads[node];
      node_read_bytes[node] += size;
      node_misses[node] += miss;
      node_miss_bytes[node] += size & (0 - miss);
      s.misses += miss;
      miss_bytes_sum += size & (0 - miss);
      if constexpr (!kTwinIsRun) {
        const uint64_t twin_miss = twin_hits[j] ^ 1u;
        s.twin_misses += twin_miss;
        s.twin_miss_bytes += size & (0 - twin_miss);
      }
    }
    if constexpr (kTwinIsRun) {
      s.twin_misses = s.misses;
      s.twin_miss_bytes = miss_bytes_sum;
    }
    return s;
  }
};

// Requests from the step's start to the first whole window after which every
// whole window is within epsilon of the twin's miss ratio; nullopt when the
// step has no such window.
std::optional<uint64_t> RecoveryRequests(const StepCounts& st) noexcept;

// What the rows of one step are made from.
struct StepView {
  const Scenario* s;
  const Deployment* run;  // after the step's event
  const StepCounts* counts;
  uint32_t trial, step;
  uint64_t capacity;  // per node, in units
  bool by_bytes;
};

// Appends the step's metric rows to `rows`, and its per-node and window rows
// to r (as output.per_node asks). `objects` and `bytes`: each node's cache
// content at the step's end, by global id.
void EmitCacheStep(const StepView& v, std::span<const uint64_t> objects,
                   std::span<const uint64_t> bytes, std::vector<MetricRow>& rows, CaseResult& r);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RUN_REPLAY_INTERNAL_H_
