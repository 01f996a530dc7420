// `jump`: jump consistent hash (Lamping & Veach 2014) behind the Algorithm
// interface; buckets are the live nodes in id order.
//
// Jump maps to buckets 0..n-1, so it can only grow or shrink at the end: Add
// appends a bucket, Remove accepts only the most recently added live node
// (last in, first out) and refuses any other with Unsupported (use anchor or
// memento, or the simulator's documented fallback). No weights. Shares are
// exactly 1/n in expectation but not structurally exact for a finite key set,
// so StructuralShares is not offered.
#include "chsim/algorithms/jump.h"

#include "internal.h"

namespace chsim::algorithms_internal {
namespace {

constexpr std::string_view kName = "jump";

class Jump final : public Algorithm {
 public:
  explicit Jump(std::span<const Node> nodes) : labels_(), ids_(nodes.size()) {
    for (const Node& n : nodes) labels_.push_back(n);
  }

  std::string_view name() const noexcept override { return kName; }
  Capabilities capabilities() const noexcept override { return kJumpCapabilities; }
  uint32_t Locate(uint64_t key_hash) const noexcept override {
    return ids_.ids()[JumpConsistentHash(key_hash, static_cast<int32_t>(ids_.size()))];
  }
  void LocateBatch(std::span<const uint64_t> hashes,
                   std::span<uint32_t> out) const noexcept override {
    const uint32_t* ids = ids_.ids().data();
    const int32_t n = static_cast<int32_t>(ids_.size());
    for (size_t i = 0; i < hashes.size(); ++i) out[i] = ids[JumpConsistentHash(hashes[i], n)];
  }
  size_t num_nodes() const noexcept override { return ids_.size(); }
  std::vector<uint32_t> live_ids() const override { return ids_.ids(); }

  uint32_t Add(const Node& node) override {
    CheckNewNode(kName, labels_, node);
    RequireUnweighted(kName, std::span<const Node>(&node, 1));
    if (ids_.size() >= static_cast<size_t>(INT32_MAX)) {
      throw Unsupported("jump: at most 2^31 - 1 buckets");
    }
    labels_.push_back(node);
    return ids_.Issue();
  }
  void Remove(uint32_t id) override {
    size_t i = ids_.IndexOf(kName, id);
    if (i + 1 != ids_.size()) {
      throw Unsupported("jump: can only remove the most recently added live node (id " +
                        std::to_string(ids_.ids().back()) + "), not node " + std::to_string(id) +
                        "; use anchor or memento for arbitrary removal");
    }
    RequireNotLast(kName, ids_.size());
    labels_.pop_back();
    ids_.EraseAt(i);
  }
  size_t MemoryBytes() const noexcept override {
    return ids_.ids().capacity() * sizeof(uint32_t);  // the id map; jump itself has no state
  }

 private:
  std::vector<Node> labels_;  // live nodes in bucket order (for duplicate checks)
  IdSet ids_;                 // bucket b is live id ids_[b]
};

}  // namespace

std::unique_ptr<Algorithm> NewJump(std::span<const Node> nodes, const AlgorithmParams&) {
  CheckNodes(kName, nodes);
  RequireUnweighted(kName, nodes);
  if (nodes.size() > static_cast<size_t>(INT32_MAX)) {
    throw std::invalid_argument("jump: at most 2^31 - 1 buckets");
  }
  return std::make_unique<Jump>(nodes);
}

}  // namespace chsim::algorithms_internal
