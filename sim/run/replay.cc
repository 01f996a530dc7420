// SPDX-License-Identifier: Apache-2.0
// The cache replay: one pass over a trial's request stream through the run's
// caches and the twin's, then the rows of each step (group_cache.cc).
#include "sim/run/replay.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "sim/base/errors.h"
#include "sim/base/interrupt.h"
#include "sim/base/progress.h"
#include "sim/cache/cache.h"
#include "sim/run/deployment.h"
#include "sim/run/replay_internal.h"
#include "sim/workload/trace.h"

namespace chsim::sim {
namespace {

constexpr size_t kBlock = 1024;

// Each node's cache capacity in units (objects or bytes).
uint64_t NodeCapacity(const Scenario& s, const CaseSpec& c, uint64_t key_seed, size_t nodes) {
  const CacheCapacity& cap = s.cache_settings.capacity;
  if (!cap.fraction) return static_cast<uint64_t>(cap.value);
  const StreamStats st = c.workload->Stats(key_seed, true);
  const double total = static_cast<double>(cap.bytes ? st.unique_bytes : st.unique_objects);
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(cap.value * total / nodes)));
}

// The run or its twin: a deployment and a cache per live node (by global id).
struct Side {
  CacheArena arena;  // the caches' memory (destroyed after them)
  Deployment d;
  std::vector<std::unique_ptr<NodeCache>> caches;
  std::vector<NodeCache*> cache_of;  // caches[g].get(), for the hot loop
  std::vector<uint32_t> owner;       // node of each request of the block
  std::vector<uint8_t> hits;         // whether each request of the block hit
  uint32_t only = UINT32_MAX;        // the one live node, when there is one
  bool one_node = false;             // the block's requests all go to `only`

  Side(const Scenario& s, const CaseSpec& c, uint32_t trial)
      : d(s, c, trial), owner(kBlock), hits(kBlock) {}
  // A cache for every live node that has none; none for the others.
  void Sync(CachePolicy policy, uint64_t capacity, bool by_bytes) {
    caches.resize(d.nodes().size());
    for (size_t g = 0; g < caches.size(); ++g) {
      if (d.live()[g] && !caches[g]) {
        caches[g] = std::make_unique<NodeCache>(policy, capacity, by_bytes, 0, &arena);
      } else if (!d.live()[g]) {
        caches[g].reset();
      }
    }
    cache_of.resize(caches.size());
    for (size_t g = 0; g < caches.size(); ++g) cache_of[g] = caches[g].get();
    only = UINT32_MAX;
    if (d.num_live() == 1) {
      only = static_cast<uint32_t>(std::find(d.live().begin(), d.live().end(), true) -
                                   d.live().begin());
    }
  }
  // Every request goes to the one live node: no lookup, no key hash needed.
  bool OneNode() const { return only != UINT32_MAX && !d.stateful(); }
  void Locate(std::span<const uint64_t> hashes) {
    one_node = OneNode();
    if (one_node) {
      std::fill_n(owner.begin(), hashes.size(), only);
      return;
    }
    if (!d.stateful()) return d.LocateBatch(hashes, {owner.data(), hashes.size()});
    for (size_t j = 0; j < hashes.size(); ++j) owner[j] = d.Assign(hashes[j]);
  }
};

class Replay {
 public:
  Replay(const Scenario& s, const CaseSpec& c, uint32_t trial, Progress* progress, CaseResult& r)
      : s_(s),
        c_(c),
        trial_(trial),
        progress_(progress),
        r_(r),
        run_(s, c, trial),
        twin_(s, c, trial) {
    key_seed_ = SeedsForTrial(s.seed, trial).keys;
    length_ = c.workload->StreamLength(key_seed_);
    positions_ = EventPositions(s, c, length_);
    step_.window = ReplayWindow(s, length_);
    step_.epsilon = s.cache_settings.recovery_epsilon;
    step_.sized = c.workload->sized();
    by_bytes_ = s.cache_settings.capacity.bytes;
    capacity_ = NodeCapacity(s, c, key_seed_, run_.d.num_live());
    run_.Sync(c.cache_policy, capacity_, by_bytes_);
    const Hasher& h = run_.d.key_hasher();
    ids_are_hashes_ = h.fn == &HashXxh3;
    hashes_.resize(kBlock);
    ids_.resize(kBlock);
  }

  std::vector<std::vector<MetricRow>> Run();

 private:
  void BeginStep(uint64_t start);
  void EndStep(uint32_t step);
  // Applies event `step` (1-based) to the run; false if it stopped the case.
  bool Apply(uint32_t step);
  void Process(const RequestBlock& b);
  // Gives the twin copies of the run's caches: until the first event the two
  // are the same, so only the run is replayed and the twin's hits are its.
  void ForkTwin();

  const Scenario& s_;
  const CaseSpec& c_;
  uint32_t trial_;
  Progress* progress_;
  CaseResult& r_;
  Side run_, twin_;
  uint64_t key_seed_ = 0, length_ = 0, capacity_ = 0;
  bool by_bytes_ = false, ids_are_hashes_ = false;
  bool forked_ = false;  // the twin has caches of its own (an event has happened)
  std::vector<uint64_t> positions_;
  std::vector<uint64_t> hashes_, ids_;
  StepCounts step_;
  std::vector<std::vector<MetricRow>> rows_;
};

void Replay::BeginStep(uint64_t start) {
  step_.Reset(run_.d.nodes().size(), start);
  if (run_.d.stateful()) {
    run_.d.ResetAssignments();
    twin_.d.ResetAssignments();
  }
}

void Replay::EndStep(uint32_t step) {
  rows_.emplace_back();
  const StepView v{&s_, &run_.d, &step_, trial_, step, capacity_, by_bytes_};
  std::vector<uint64_t> objects(run_.caches.size(), 0), bytes(run_.caches.size(), 0);
  for (size_t g = 0; g < run_.caches.size(); ++g) {
    if (!run_.caches[g]) continue;
    objects[g] = run_.caches[g]->objects();
    bytes[g] = run_.caches[g]->stored_bytes();
  }
  EmitCacheStep(v, objects, bytes, rows_.back(), r_);
}

void Replay::ForkTwin() {
  twin_.caches.resize(run_.caches.size());
  twin_.cache_of.resize(run_.caches.size());
  for (size_t g = 0; g < run_.caches.size(); ++g) {
    if (run_.caches[g]) {
      twin_.caches[g] = std::make_unique<NodeCache>(*run_.caches[g], &twin_.arena);
    }
    twin_.cache_of[g] = twin_.caches[g].get();
  }
  twin_.only = run_.only;  // the twin keeps the nodes the run has before its first event
  forked_ = true;
}

bool Replay::Apply(uint32_t step) {
  if (!forked_) ForkTwin();
  try {
    run_.d.Apply(s_.events[step - 1], step);
  } catch (const CaseSkipped&) {
    return false;  // the classic pass over the same timeline stops there too
  }
  run_.Sync(c_.cache_policy, capacity_, by_bytes_);
  return true;
}

// Hashes and owners for the block, each side's caches in request order,
// then the counts.
void Replay::Process(const RequestBlock& b) {
  const size_t m = b.size();
  const bool made = b.ids.size() == m;  // the reader made the object ids
  std::span<const uint64_t> ids(made ? b.ids.data() : ids_.data(), m), hashes = ids;
  if (made && b.ids_raw) {  // integer ids: their keys' hashes only where a side locates
    if (!run_.OneNode() || (forked_ && !twin_.OneNode())) {
      DecimalKeyObjectIds(ids, {hashes_.data(), m});
      hashes = {hashes_.data(), m};
    }
  } else if (!ids_are_hashes_ || !made) {
    HashBatch(run_.d.key_hasher(), b.keys.keys, {hashes_.data(), m});
    hashes = {hashes_.data(), m};
  }
  if (ids_are_hashes_ && !made) ids = hashes;
  if (!ids_are_hashes_ && !made) HashBatch(*FindHasher("xxh3"), b.keys.keys, {ids_.data(), m});
  for (Side* side : {&run_, &twin_}) {
    if (side == &twin_ && !forked_) break;
    side->Locate(hashes);
    if (side->one_node) {
      ServeRequests(*side->cache_of[side->only], ids, b.sizes, b.ops, {side->hits.data(), m});
    } else {
      ServeRequests(side->cache_of.data(), {side->owner.data(), m}, ids, b.sizes, b.ops,
                    {side->hits.data(), m});
    }
  }
  const Side& twin = forked_ ? twin_ : run_;
  step_.Count({run_.owner.data(), m}, b.sizes, b.ops, {run_.hits.data(), m}, {twin.hits.data(), m},
              run_.one_node);
}

std::vector<std::vector<MetricRow>> Replay::Run() {
  auto reader = c_.workload->OpenRequests(key_seed_);
  RequestBlock block;
  // With XXH3 (the key hash is the object id) only the ids are read, as the
  // trace's own integers where it has them.
  block.keys_wanted = !ids_are_hashes_;
  block.raw_ids_wanted = ids_are_hashes_;
  uint64_t pos = 0;
  uint32_t step = 0;
  BeginStep(0);
  for (;;) {
    while (step < positions_.size() && positions_[step] == pos) {
      EndStep(step);
      if (!Apply(++step)) return std::move(rows_);
      BeginStep(pos);
    }
    const uint64_t next = step < positions_.size() ? positions_[step] : UINT64_MAX;
    reader->Next(static_cast<size_t>(std::min<uint64_t>(kBlock, next - pos)), &block);
    if (block.size() == 0) break;
    ThrowIfStopped();
    Process(block);
    pos += block.size();
    if (progress_) progress_->Add(2 * block.size());
  }
  EndStep(step);
  return std::move(rows_);
}

}  // namespace

uint64_t ReplayWindow(const Scenario& s, uint64_t length) noexcept {
  if (s.cache_settings.window > 0) return s.cache_settings.window;
  return std::max<uint64_t>(100, length / 500);
}

std::vector<uint64_t> EventPositions(const Scenario& s, const CaseSpec& c, uint64_t length) {
  std::vector<uint64_t> out;
  for (const EventSpec& e : s.events) {
    if (!e.at) continue;
    const uint64_t p = e.at->by_fraction
                           ? static_cast<uint64_t>(std::floor(e.at->fraction * length))
                           : e.at->request;
    const std::string where = s.path + ": " + e.pointer + "/at: ";
    if (p >= length) {
      throw UsageError(where + "found request " + std::to_string(p) + "; accepted: 0.." +
                       (length == 0 ? std::string("(none)") : std::to_string(length - 1)) +
                       " (case " + c.id + " has a stream of " + std::to_string(length) +
                       " requests)");
    }
    if (!out.empty() && p < out.back()) {
      throw UsageError(where + "found request " + std::to_string(p) +
                       ", before the previous event's " + std::to_string(out.back()) +
                       "; accepted: events in stream order");
    }
    out.push_back(p);
  }
  return out;
}

std::vector<std::vector<MetricRow>> ReplayTrial(const Scenario& s, const CaseSpec& c,
                                                uint32_t trial, Progress* progress, CaseResult& r) {
  return Replay(s, c, trial, progress, r).Run();
}

}  // namespace chsim::sim
