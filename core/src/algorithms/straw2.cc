// SPDX-License-Identifier: Apache-2.0
// `straw2`: Ceph's straw2 bucket for one copy, a flat CRUSH bucket over the
// live nodes (Weil, Brandt, Miller & Maltzahn, "CRUSH: Controlled, Scalable,
// Decentralized Placement of Replicated Data", SC 2006, section 3.4.4 for the
// straw bucket; straw2 is Ceph's exact form of it, src/crush/mapper.c
// bucket_straw2_choose, chsim/crush.h).
//
// Each node is a CRUSH device (item) with weight w as 16.16 fixed point
// (w * 0x10000). The nodes built over are devices 0..n-1 (node i is device
// i); a node added later is the next device, unless its label was removed
// before: it then gets its old device back, as a Ceph OSD keeps its id, so
// nodes failed and restored in any order get their keys back. The key hash's
// low 32 bits are CRUSH's input x (as in `crushtool --test`; the default key
// hasher is Ceph's object-name hash, so x is an object's raw hash before
// Ceph's PG step). Each device draws ln(u) / w, u = hash32_3(x, device, 0) &
// 0xffff, and the highest draw wins, the lowest device on a tie (Ceph: the
// first in the bucket, whose devices crushtool lists in id order). A draw
// depends only on its own device: adding a node moves keys only to it,
// removing one only its keys, and changing one node's weight only moves keys
// to or from it.
//
// The 16-bit u quantises each draw; over 100 nodes the shares stay within
// sampling error of the weights (balance_bound 1). Lookup is O(n): the nodes'
// hashes are computed a block at a time in vector lanes (crush/draw.h), then
// each draw's logarithm and its division by the weight (by shifts for the
// weight 1.0) one by one. When every node has the same weight, a draw is
// monotone in u, so a block whose highest u is below the least u that reaches
// the best draw so far is skipped whole: past the first blocks, nearly all.
#include <algorithm>
#include <unordered_map>

#include "../crush/draw.h"
#include "chsim/crush.h"
#include "internal.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kStraw2Spec;

namespace {

constexpr uint32_t kMaxStrawWeight = 65535;  // w * 0x10000 fits 32 bits

class Straw2 final : public AlgorithmBase {
 public:
  Straw2(std::span<const Node> nodes, const Params& p)
      : AlgorithmBase(kStraw2Spec, nodes, p), next_device_(static_cast<int32_t>(nodes.size())) {
    for (size_t i = 0; i < nodes.size(); ++i) Append(nodes[i], static_cast<int32_t>(i));
  }

  uint32_t Locate(uint64_t key_hash) const noexcept override {
    const uint32_t x = static_cast<uint32_t>(key_hash);
    Best best;
    uint32_t hashes[kBlock];
    for (size_t start = 0; start < devices_.size(); start += kBlock) {
      const size_t count = std::min(kBlock, devices_.size() - start);
      hash_lanes_(x, devices_.data() + start, count, 0, hashes);
      if (equal_weights_ && HighestU(hashes, count) < best.least_u) continue;
      DrawBlock(hashes, start, count, best);
    }
    return ids_[best.index];
  }
  bool ViewCrush(CrushView* view) const noexcept override {
    *view = CrushView{ids_, devices_, weights_};
    return true;
  }
  size_t MemoryBytes() const noexcept override {
    return devices_.capacity() * sizeof(int32_t) + weights_.capacity() * sizeof(uint32_t) +
           label_hashes_.capacity() * sizeof(uint64_t) + IdBytes() +
           removed_.size() * (sizeof(uint64_t) + sizeof(int32_t) + 2 * sizeof(void*));
  }

 private:
  void OnAdd(const Node& node, uint32_t) override {
    const uint64_t h = HashXxh3(node.label.data(), node.label.size());
    const auto back = removed_.find(h);
    Append(node, back != removed_.end() ? back->second : next_device_);
    if (back != removed_.end()) {
      removed_.erase(back);
    } else {
      ++next_device_;
    }
  }
  void OnRemove(size_t i, uint32_t) override {
    const auto at = static_cast<std::ptrdiff_t>(i);
    removed_.emplace(label_hashes_[i], devices_[i]);
    devices_.erase(devices_.begin() + at);
    weights_.erase(weights_.begin() + at);
    label_hashes_.erase(label_hashes_.begin() + at);
    SetEqualWeights();
  }
  // The highest draw so far, and (with equal weights) the least u <= kTopU
  // whose draw reaches it: a node whose min(u, kTopU) is lower draws less and
  // cannot win.
  struct Best {
    size_t index = 0;
    int64_t draw = INT64_MIN;
    uint32_t least_u = 0;
  };
  static uint32_t HighestU(const uint32_t* hashes, size_t count) noexcept {
    uint32_t high = 0;
    for (size_t j = 0; j < count; ++j) high = std::max(high, std::min(hashes[j] & 0xffff, kTopU));
    return high;
  }
  // The draws of devices start.. start + count - 1 from their hashes; the
  // highest wins, the lowest device on a tie.
  void DrawBlock(const uint32_t* hashes, size_t start, size_t count, Best& best) const noexcept {
    const crush::LnTables& ln = crush::GeneratedLnTables();
    for (size_t j = 0; j < count; ++j) {
      const size_t i = start + j;
      const int64_t d = crush::internal::Straw2DrawOfHash(hashes[j], weights_[i], ln);
      if (d < best.draw || (d == best.draw && devices_[i] > devices_[best.index])) continue;
      best.index = i, best.draw = d;
      if (!equal_weights_) continue;
      // At one weight a draw is monotone in u up to kTopU (u = 0xffff draws
      // less than 0xfffe: Ln keeps it below 2^48): step down to the least u
      // whose draw reaches d.
      uint32_t u = std::min(hashes[j] & 0xffff, kTopU);
      while (u > 0 && crush::internal::Straw2DrawOfHash(u - 1, weights_[i], ln) >= d) --u;
      best.least_u = u;
    }
  }
  void SetEqualWeights() noexcept {
    equal_weights_ = std::all_of(weights_.begin(), weights_.end(),
                                 [&](uint32_t w) { return w == weights_.front(); });
  }
  void Append(const Node& n, int32_t device) {
    ReserveOneMore(devices_);  // all first: a throw changes nothing
    ReserveOneMore(weights_);
    ReserveOneMore(label_hashes_);
    devices_.push_back(device);
    weights_.push_back(n.weight * crush::kWeightOne);
    label_hashes_.push_back(HashXxh3(n.label.data(), n.label.size()));
    SetEqualWeights();
  }

  static constexpr size_t kBlock = 64;       // items hashed side by side
  static constexpr uint32_t kTopU = 0xfffe;  // draws are monotone in u up to here
  const crush::internal::Hash32_3LanesFn hash_lanes_ = crush::internal::Hash32_3LanesForCpu();
  bool equal_weights_ = true;  // every live node has the same weight
  // Parallel to ids_: each live node's device, 16.16 weight and label hash.
  std::vector<int32_t> devices_;
  std::vector<uint32_t> weights_;
  std::vector<uint64_t> label_hashes_;
  std::unordered_map<uint64_t, int32_t> removed_;  // a removed label's hash -> its device
  int32_t next_device_;
};

void Admit(const Params&, const TimelineStep& step) {
  for (const Node& n : step.live) {
    if (n.weight > kMaxStrawWeight) {
      throw std::invalid_argument("straw2: weight " + std::to_string(n.weight) + " of node " +
                                  n.label + " above 65535 (16.16 fixed point)");
    }
  }
}

constexpr ParamSpec kParams[] = {{
    .name = "key_hasher",
    .type = ParamType::kString,
    .doc = "hasher applied to key bytes; its low 32 bits are CRUSH's input x",
    .default_text = "ceph_rjenkins",
    .choices = HasherNames,
}};

}  // namespace

constinit const AlgorithmSpec kStraw2Spec{
    .name = "straw2",
    .summary =
        "Ceph's straw2 bucket: the highest ln(u)/w, u a 16-bit rjenkins1 hash, exact to "
        "crushtool",
    .paper =
        "Weil, Brandt, Miller & Maltzahn, \"CRUSH: Controlled, Scalable, Decentralized Placement "
        "of Replicated Data\", SC 2006",
    .year = 2006,
    .capabilities = {.weights = true,
                     .arbitrary_removal = true,
                     .incremental = true,
                     .exact_shares = false,
                     .stateful = false,
                     .minimal_disruption = true,
                     .history_free = true},
    .views = {.crush = true},
    .params = kParams,
    .balance_bound = 1,
    .memory_bytes = [](const Params&, uint64_t n) { return 20.0 * static_cast<double>(n); },
    .memory_doc = "20 bytes per node (device, 16.16 weight, label hash, id); 24 per removed label",
    .lookup_work = [](const Params&, uint64_t n) { return static_cast<double>(n) / 16.0; },
    .key_hasher = [](const Params& p) -> std::string_view { return p.Text("key_hasher"); },
    .admit = Admit,
    .make = MakeAs<Straw2>,
};

}  // namespace chsim::algorithms_internal
