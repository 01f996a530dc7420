// `jump`: jump consistent hash (Lamping & Veach 2014) behind the Algorithm
// interface; buckets are the live nodes in id order.
//
// Jump maps to buckets 0..n-1, so it can only grow or shrink at the end: Add
// appends a bucket, Remove accepts only the most recently added live node
// (last in, first out; the base refuses any other with Unsupported: use
// anchor or memento, or the simulator's documented fallback). No weights.
// Shares are exactly 1/n in expectation but not structurally exact for a
// finite key set, so StructuralShares is not offered.
#include "chsim/algorithms/jump.h"

#include "internal.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kJumpSpec;

namespace {

class Jump final : public AlgorithmBase {
 public:
  Jump(std::span<const Node> nodes, const Params& p) : AlgorithmBase(kJumpSpec, nodes, p) {}

  uint32_t Locate(uint64_t key_hash) const noexcept override {
    return ids_[JumpConsistentHash(key_hash, static_cast<int32_t>(ids_.size()))];
  }
  void LocateBatch(std::span<const uint64_t> hashes,
                   std::span<uint32_t> out) const noexcept override {
    const uint32_t* ids = ids_.data();
    const int32_t n = static_cast<int32_t>(ids_.size());
    for (size_t i = 0; i < hashes.size(); ++i) out[i] = ids[JumpConsistentHash(hashes[i], n)];
  }
  // The id map; jump itself has no state.
  size_t MemoryBytes() const noexcept override { return IdBytes(); }

 private:
  void OnAdd(const Node&, uint32_t) override {}
  void OnRemove(size_t, uint32_t) override {}
};

constexpr ParamSpec kParams[] = {kKeyHasherParam};

}  // namespace

constinit const AlgorithmSpec kJumpSpec{
    .name = "jump",
    .summary = "jump consistent hash, equal to Guava's consistentHash; last-in-first-out removal",
    .paper =
        "Lamping & Veach, \"A Fast, Minimal Memory, Consistent Hash Algorithm\", "
        "arXiv:1406.2294",
    .year = 2014,
    .capabilities = {.weights = false,
                     .arbitrary_removal = false,
                     .incremental = true,
                     .exact_shares = false,
                     .stateful = false,
                     .minimal_disruption = true,
                     .history_free = false},
    .params = kParams,
    .balance_bound = 1,
    .memory_bytes = [](const Params&, uint64_t n) { return 4.0 * static_cast<double>(n); },
    .memory_doc = "4 bytes per node (the id map)",
    .key_hasher = KeyHasherOrXxh3,
    .make = [](std::span<const Node> nodes, const Params& p) -> std::unique_ptr<Algorithm> {
      return std::make_unique<Jump>(nodes, p);
    },
};

}  // namespace chsim::algorithms_internal
