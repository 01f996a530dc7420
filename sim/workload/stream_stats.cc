// SPDX-License-Identifier: Apache-2.0
// Workload::Stats: one pass over a request stream counting requests, reads
// and (with a bottom-k sketch) distinct objects and their bytes.
#include <map>

#include "sim/base/interrupt.h"
#include "sim/base/rng.h"
#include "sim/workload/workload.h"

namespace chsim::sim {
namespace {

constexpr size_t kSketch = 65536;

// The k smallest Mix(id) values seen, with each object's first size.
class BottomK {
 public:
  void Add(uint64_t id, uint32_t size) {
    const uint64_t h = Mix(id);
    if (kept_.size() == kSketch && h >= kept_.rbegin()->first) return;
    if (!kept_.try_emplace(h, size).second) return;
    bytes_ += size;
    if (kept_.size() > kSketch) {
      bytes_ -= kept_.rbegin()->second;
      kept_.erase(std::prev(kept_.end()));
    }
  }
  void Finish(StreamStats* st) const {
    st->has_unique = true;
    st->exact = kept_.size() < kSketch;
    if (st->exact) {
      st->unique_objects = kept_.size();
      st->unique_bytes = bytes_;
      return;
    }
    // (k - 1) / (the k-th smallest hash as a fraction of 2^64).
    const double kth = (static_cast<double>(kept_.rbegin()->first) + 1) * 0x1.0p-64;
    const double objects = (kSketch - 1) / kth;
    st->unique_objects = static_cast<uint64_t>(objects + 0.5);
    st->unique_bytes = static_cast<uint64_t>(objects * static_cast<double>(bytes_) / kSketch + 0.5);
  }

 private:
  std::map<uint64_t, uint32_t> kept_;
  uint64_t bytes_ = 0;
};

}  // namespace

void RequestReader::CountRest(uint64_t* requests, uint64_t* reads) {
  RequestBlock block;
  for (Next(4096, &block); block.size() > 0; Next(4096, &block)) {
    ThrowIfStopped();
    *requests += block.size();
    for (RequestOp op : block.ops) *reads += op == RequestOp::kRead;
  }
}

StreamStats Workload::Stats(uint64_t seed, bool unique) const {
  std::lock_guard<std::mutex> lock(stats_mu_);
  const uint64_t key = indexed() ? seed : 0;
  auto it = stats_.find(key);
  if (it != stats_.end() && (it->second.has_unique || !unique)) return it->second;
  StreamStats st;
  BottomK sketch;
  auto reader = OpenRequests(seed);
  if (!unique) {
    reader->CountRest(&st.requests, &st.reads);
    stats_[key] = st;
    return st;
  }
  RequestBlock block;
  for (reader->Next(4096, &block); block.size() > 0; reader->Next(4096, &block)) {
    ThrowIfStopped();
    st.requests += block.size();
    for (size_t j = 0; j < block.size(); ++j) {
      if (block.ops[j] != RequestOp::kRead) continue;
      ++st.reads;
      if (unique) sketch.Add(ObjectId(block.keys.keys[j]), block.sizes[j]);
    }
  }
  if (unique) sketch.Finish(&st);
  stats_[key] = st;
  return st;
}

}  // namespace chsim::sim
