// SPDX-License-Identifier: Apache-2.0
// Throughput timing of one case: build time and ns per lookup (independent
// and dependent lookups, with and without hashing the key), measured in
// thread CPU time after the simulation, one case at a time. Its rows are the
// throughput group's (group_throughput.cc).
#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/base/interrupt.h"
#include "sim/run/replication.h"
#include "sim/run/runner_internal.h"
#include "sim/run/timing.h"

namespace chsim::sim {
namespace {

volatile uint32_t g_opaque_zero = 0;  // read once per timing loop: defeats constant folding
volatile uint64_t g_sink = 0;

// The keys the lookups are timed on: the case's workload (trial 0), packed
// into one buffer; uniform "user:{n}" keys when it has none to index. Their
// count is a power of two, so the latency chain can wrap with a mask.
struct TimedKeys {
  std::string buffer;
  std::vector<uint32_t> offsets, lengths;
  std::vector<std::string_view> views;  // into buffer
  std::vector<uint64_t> hashes;         // the key hasher's, per key
  size_t count = 0;
};

void PackKeys(const Scenario& s, const CaseSpec& c, TimedKeys* k) {
  const Workload& w = *c.throughput_workload;
  const uint64_t seed = SeedsForTrial(s.seed, 0).keys;
  size_t m = s.throughput_keys;
  if (w.units() < m) m = std::max<size_t>(16, static_cast<size_t>(w.units()));
  size_t pow2 = 1;
  while (pow2 * 2 <= m) pow2 *= 2;
  k->count = m = pow2;
  std::string key;
  for (size_t i = 0; i < m; ++i) {
    w.KeyAt(seed, i % std::max<uint64_t>(1, w.units()), &key);
    k->offsets.push_back(static_cast<uint32_t>(k->buffer.size()));
    k->lengths.push_back(static_cast<uint32_t>(key.size()));
    k->buffer += key;
  }
  const Hasher& hasher = *c.algorithm.key_hasher;
  k->hashes.resize(m);
  for (size_t i = 0; i < m; ++i) {
    k->views.emplace_back(k->buffer.data() + k->offsets[i], k->lengths[i]);
    k->hashes[i] = hasher(k->buffer.data() + k->offsets[i], k->lengths[i]);
  }
}

// Items per timed call: all keys, or fewer for slow algorithms (rendezvous
// at 100,000 nodes) so that one call stays under a quarter of min_time.
size_t ItemsPerCall(const Scenario& s, const Algorithm& a, const TimedKeys& k) {
  size_t items = k.count;
  const double t0 = ThreadCpuNs();
  uint64_t acc = 0;
  for (size_t i = 0; i < 16; ++i) acc += a.Locate(k.hashes[i]);
  g_sink = g_sink + acc;
  const double per = (ThreadCpuNs() - t0) / 16;
  const double budget = s.throughput_min_ms * 1e6 / 4;
  while (items > 16 && static_cast<double>(items) * per * 4 > budget) items /= 2;
  return items;
}

// Stateful algorithms are timed through Locate (no assignment). Batches may
// wrap around the end of the key set: [first, first + items) mod m. With the
// hash, independent keys take the simulator's own path (HashBatch: the
// multi-buffer MD5 for md5, then LocateBatch); dependent keys the hasher one
// key at a time (md5: chsim's one-block MD5).
LookupNs TimeLookups(const Scenario& s, const Algorithm& a, const Hasher& hasher,
                     const TimedKeys& k, size_t items) {
  const uint32_t reps = s.throughput_repetitions, min_ms = s.throughput_min_ms;
  const size_t m = k.count, mask = m - 1;
  const char* data = k.buffer.data();
  const std::function<void()> check = ThrowIfStopped;
  std::vector<uint32_t> out(m);
  std::vector<uint64_t> batch_hashes(items);
  LookupNs ns;
  ns.no_hash = MedianNsPerItem(
      [&](size_t first) {
        size_t len = std::min(items, m - first);
        a.LocateBatch({k.hashes.data() + first, len}, {out.data(), len});
        if (len < items)
          a.LocateBatch({k.hashes.data(), items - len}, {out.data() + len, items - len});
        g_sink = g_sink + out[0];
      },
      items, m, reps, min_ms, check);
  ns.no_hash_latency = MedianNsPerItem(
      [&](size_t first) {
        uint32_t zero = g_opaque_zero, prev = 0;
        size_t idx = first;
        for (size_t i = 0; i < items; ++i) {
          prev = a.Locate(k.hashes[idx] ^ (prev & zero));
          idx = (idx + 1 + (prev & zero)) & mask;
        }
        g_sink = g_sink + prev;
      },
      items, m, reps, min_ms, check);
  ns.with_hash = MedianNsPerItem(
      [&](size_t first) {
        size_t len = std::min(items, m - first);
        HashBatch(hasher, {k.views.data() + first, len}, batch_hashes);
        if (len < items) {
          HashBatch(hasher, {k.views.data(), items - len},
                    {batch_hashes.data() + len, items - len});
        }
        a.LocateBatch(batch_hashes, {out.data(), items});
        g_sink = g_sink + out[0];
      },
      items, m, reps, min_ms, check);
  ns.with_hash_latency = MedianNsPerItem(
      [&](size_t first) {
        uint32_t zero = g_opaque_zero, prev = 0;
        size_t idx = first;
        for (size_t i = 0; i < items; ++i) {
          prev = a.Locate(hasher.fn(data + k.offsets[idx] + (prev & zero), k.lengths[idx]));
          idx = (idx + 1 + (prev & zero)) & mask;
        }
        g_sink = g_sink + prev;
      },
      items, m, reps, min_ms, check);
  return ns;
}

// ns per replica set: the case's copies of independent keys (hash
// precomputed) over trial 0's initial nodes, through the selector's
// SelectBatch.
double TimeReplicaSets(const Scenario& s, const CaseSpec& c, const TimedKeys& k) {
  const Deployment d(s, c, 0);
  const CaseReplicas replicas(s, c, d, 0);
  const ReplicaSelector& selector = replicas.selector();
  const size_t m = k.count;
  size_t items = m;
  while (items > 16 && items * c.replicas > (size_t{1} << 20)) items /= 2;
  std::vector<uint32_t> out(items * c.replicas), counts(items);
  return MedianNsPerItem(
      [&](size_t first) {
        const size_t len = std::min(items, m - first);
        selector.SelectBatch({k.hashes.data() + first, len}, out, counts);
        if (len < items) {
          selector.SelectBatch({k.hashes.data(), items - len},
                               {out.data() + len * c.replicas, (items - len) * c.replicas},
                               {counts.data() + len, items - len});
        }
        g_sink = g_sink + out[0];
      },
      items, m, s.throughput_repetitions, s.throughput_min_ms, ThrowIfStopped);
}

}  // namespace

CaseTimes TimeCase(const Scenario& s, const CaseSpec& c) {
  AdmitCaseSize(s, c, InitialWeights(s, c, 0));
  std::vector<Node> nodes = InitialNodes(s, c, 0);
  // Build time: median of up to `repetitions` builds, at most ~2 s in all,
  // a cheap first build discarded as warm-up (timing.h).
  std::unique_ptr<Algorithm> alg;
  CaseTimes out;
  out.build_ms = MedianBuildMs(
      [&] {
        alg.reset();
        alg = BuildCaseAlgorithm(s, c, nodes, Build::kReal);
      },
      s.throughput_repetitions, 2000, ThrowIfStopped);
  TimedKeys keys;
  PackKeys(s, c, &keys);
  const Algorithm& a = *alg;
  out.ns = TimeLookups(s, a, *c.algorithm.key_hasher, keys, ItemsPerCall(s, a, keys));
  out.memory_bytes = static_cast<double>(a.MemoryBytes());
  out.nodes = static_cast<double>(nodes.size());
  if (c.replicas > 0) out.ns_per_replica_set = TimeReplicaSets(s, c, keys);
  return out;
}

}  // namespace chsim::sim
