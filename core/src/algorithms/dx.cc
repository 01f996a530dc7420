// SPDX-License-Identifier: Apache-2.0
// `dx`: DxHash (Chaos Dong & Fang Wang, "DxHash: A Scalable Consistent Hash
// Based on the Pseudo-Random Sequence", arXiv:2107.07930, 2021): the lookup
// walks a pseudo-random sequence seeded by the key over a node-state array of
// `capacity` buckets (the paper's NSArray and its size) and returns the first
// working bucket. Arbitrary removal, O(capacity / working) expected probes,
// capacity / 8 bytes of state plus the removal stack.
//
// - Lookup (the paper's lookup algorithm): probe i is Bounded(x_i, capacity),
//   x_0, x_1, ... the SplitMix64 stream seeded by the key hash (chsim's
//   SplitMix64: a bijection of the index, so every bucket is reached and the
//   walk ends while one bucket works). Balance: the first working bucket of a
//   uniform sequence is uniform over the working buckets.
// - Remove: the bucket's state bit is cleared; its keys continue their walk
//   to their next working bucket, no other key moves (minimal disruption).
// - Add: sets the bit of an inactive bucket, which takes exactly the keys
//   whose walk reaches it before their current bucket. Which inactive bucket:
//   the most recently removed one (the removal stack the authors' Java
//   implementation keeps), else the lowest never used; so failed nodes
//   restored in reverse removal order get every key back, in any other order
//   they take over the last-removed buckets (capabilities: history_free =
//   false, as anchor and memento).
// - Capacity: the NSArray size bounds the working nodes; 0 means twice the
//   initial nodes (as anchor), and the admission check refuses a build or a
//   later add beyond it exactly as the instance would, so the plan refuses
//   such a timeline before it runs. The paper's Scale operation (doubling
//   the array) remaps keys between survivors, so Add at capacity is refused
//   with Unsupported instead. No weights (the paper's weighted variant is not
//   implemented).
#include "devirtualize.h"
#include "internal.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kDxSpec;

namespace {

class Dx final : public AlgorithmBase {
 public:
  Dx(std::span<const Node> nodes, const Params& p)
      : AlgorithmBase(kDxSpec, nodes, p, LiveList::kUnordered),
        capacity_(static_cast<uint32_t>(CapacityOf(p, nodes.size()))),
        working_(capacity_, nodes.size()),
        free_(static_cast<uint32_t>(nodes.size())),
        buckets_(nodes.size()) {}

  // The paper's lookup: the first working bucket of the key's sequence,
  // probed two at a time. Probe i depends only on the key and i, so both are
  // computed and tested side by side and the earlier working one is taken
  // without a branch: the loop's exit, a coin flip per probe at the default
  // capacity, becomes a 3-in-4 event per pair.
  uint32_t Locate(uint64_t key_hash) const noexcept override {
    for (uint64_t x = key_hash;; x += 2 * kSplitMixGamma) {
      const uint32_t b0 = Probe(x), b1 = Probe(x + kSplitMixGamma);
      const bool w0 = working_.Test(b0), w1 = working_.Test(b1);
      if (w0 | w1) return buckets_.IdAt(Choose(w0, b0, b1));
    }
  }
  void LocateBatch(std::span<const uint64_t> hashes,
                   std::span<uint32_t> out) const noexcept override {
    LocateEach(*this, hashes, out);
  }
  bool ViewBuckets(BucketView* view) const noexcept override {
    *view = buckets_.View();
    return true;
  }
  size_t MemoryBytes() const noexcept override {
    return working_.MemoryBytes() + free_.MemoryBytes() + buckets_.MemoryBytes();
  }

 private:
  // Admit guarantees a free bucket; Place is the only allocation, done first.
  void OnAdd(const Node&, uint32_t id) override {
    const uint32_t b = free_.Top();
    buckets_.Place(b, id);
    free_.Pop();
    working_.Set(b);
  }
  // The push is the only allocation, done first.
  void OnRemove(size_t, uint32_t id) override {
    const uint32_t b = buckets_.BucketOf(id);
    free_.Push(b);
    buckets_.Release(id);
    working_.Clear(b);
  }
  // Bucket of probe x: x is SplitMix64's state, its output Mix64(x).
  uint32_t Probe(uint64_t x) const noexcept {
    return static_cast<uint32_t>(Bounded(Mix64(x), capacity_));
  }

  uint32_t capacity_;
  WorkingBits working_;  // the NSArray
  RestoreStack free_;    // inactive buckets, in the order Add takes them
  BucketMap buckets_;    // ids on the working buckets
};

void Admit(const Params& p, const TimelineStep& step) { AdmitCapacity("dx", p, step); }

constexpr ParamSpec kParams[] = {
    kKeyHasherParam,
    kCapacityParam,
};

}  // namespace

constinit const AlgorithmSpec kDxSpec{
    .name = "dx",
    .summary =
        "DxHash: the first working bucket of a pseudo-random walk over the NSArray; any node "
        "removable, capacity fixed at build",
    .paper =
        "Dong & Wang, \"DxHash: A Scalable Consistent Hash Based on the Pseudo-Random "
        "Sequence\", arXiv:2107.07930",
    .year = 2021,
    .capabilities = kRemovalStackCapabilities,
    .views = {.buckets = true},
    .params = kParams,
    .balance_bound = 1,
    .memory_bytes =
        [](const Params& p, uint64_t n) {
          return 0.125 * static_cast<double>(CapacityOf(p, n)) + 8.0 * static_cast<double>(n);
        },
    .memory_doc = "1 bit per bucket of capacity, 8 bytes per node; 4 more per add or removal",
    .key_hasher = KeyHasherOrXxh3,
    .admit = Admit,
    .make = MakeAs<Dx>,
};

}  // namespace chsim::algorithms_internal
