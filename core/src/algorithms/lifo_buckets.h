// SPDX-License-Identifier: Apache-2.0
// LifoBuckets<Fn>: the Algorithm of a consistent range hash, a function
// Fn(key, n) -> bucket in [0, n) that moves a key only to bucket n when n
// grows by one (jump, power, flip, jumpback, binomial), and LifoSpec, the
// registry fields such an algorithm shares (its ViewBuckets gives the
// function at any n to the replica strategies, views.buckets).
//
// Buckets are the live nodes in id order (AlgorithmBase's ids_), so the set
// can only grow or shrink at the end: Add appends a bucket, Remove accepts
// only the most recently added live node (the base refuses any other with
// Unsupported, since the spec lacks arbitrary_removal). No weights.
//
// Fn is a small value type: Fn(n), or Fn(n, params) for a range hash with
// parameters (given the algorithm's resolved Params), precomputes what a
// lookup at n buckets needs (masks, powers of two) and `uint32_t
// operator()(uint64_t key) const noexcept` answers. It is rebuilt at every
// Add and Remove and must not throw (the spec checked the parameters).
// Lookups are noexcept, allocation-free and devirtualized in LocateBatch
// (devirtualize.h); an Fn may also define `void Batch(std::span<const
// uint64_t> keys, std::span<uint32_t> buckets) const noexcept` (buckets[i] =
// (*this)(keys[i])), which LocateBatch then uses, parameters or not. An
// algorithm file is then its Fn and
//   extern const AlgorithmSpec kXxxSpec;
//   constinit const AlgorithmSpec kXxxSpec = LifoSpec({.name = ..., .summary =
//       ..., .paper = ..., .year = ..., .make = MakeLifo<XxxFn, kXxxSpec>});
// with `.params = ...` too when Fn takes parameters (kKeyHasherParam among
// them).
#ifndef CHSIM_CORE_SRC_ALGORITHMS_LIFO_BUCKETS_H_
#define CHSIM_CORE_SRC_ALGORITHMS_LIFO_BUCKETS_H_

#include <memory>
#include <type_traits>

#include "devirtualize.h"
#include "internal.h"

namespace chsim::algorithms_internal {

// The range hash at n buckets: Fn(n, params) when Fn takes parameters, else Fn(n).
template <class Fn>
Fn MakeRangeHash(uint32_t n, const Params& params) {
  if constexpr (std::is_constructible_v<Fn, uint32_t, const Params&>) {
    return Fn(n, params);
  } else {
    return Fn(n);
  }
}

template <class Fn>
class LifoBuckets final : public AlgorithmBase {
 public:
  LifoBuckets(const AlgorithmSpec& spec, std::span<const Node> nodes, const Params& p)
      : AlgorithmBase(spec, nodes, p),
        fn_(MakeRangeHash<Fn>(static_cast<uint32_t>(nodes.size()), params())) {}

  uint32_t Locate(uint64_t key_hash) const noexcept override {
    return bucket_ids_.Id(ids_.data(), fn_(key_hash));
  }
  void LocateBatch(std::span<const uint64_t> hashes,
                   std::span<uint32_t> out) const noexcept override {
    if constexpr (requires { fn_.Batch(hashes, out); }) {
      fn_.Batch(hashes, out);
      bucket_ids_.MapInPlace(ids_.data(), out.first(hashes.size()));
    } else {
      LocateEach(*this, hashes, out);
    }
  }
  // The id map; the function has no state.
  size_t MemoryBytes() const noexcept override { return IdBytes(); }
  // Bucket b holds ids_[b]; the range hash at any n is Fn(n) (MakeRangeHash).
  bool ViewBuckets(BucketView* view) const noexcept override {
    *view = BucketView{.ids = ids_, .range = &RangeAt, .context = &params()};
    return true;
  }

 private:
  // The new node is bucket n - 1; the removed one was bucket n (`index`).
  void OnAdd(const Node&, uint32_t id) override {
    bucket_ids_.Placed(static_cast<uint32_t>(ids_.size() - 1), id);
    Refit();
  }
  void OnRemove(size_t index, uint32_t id) override {
    bucket_ids_.Released(static_cast<uint32_t>(index), id);
    Refit();
  }
  void Refit() noexcept { fn_ = MakeRangeHash<Fn>(static_cast<uint32_t>(ids_.size()), params()); }
  static uint32_t RangeAt(const void* params, uint64_t key, uint32_t n) noexcept {
    return MakeRangeHash<Fn>(n, *static_cast<const Params*>(params))(key);
  }

  Fn fn_;                 // the range hash at n = ids_.size()
  BucketIds bucket_ids_;  // bucket b holds ids_[b]
};

template <class Fn, const AlgorithmSpec& kSpec>
std::unique_ptr<Algorithm> MakeLifo(std::span<const Node> nodes, const Params& p) {
  return std::make_unique<LifoBuckets<Fn>>(kSpec, nodes, p);
}

inline constexpr ParamSpec kLifoParams[] = {kKeyHasherParam};

// `s` (name, summary, paper, year, make; a balance_bound other than 1 when
// shares are not equal; params when Fn takes any) completed with what every
// range hash declares: range_hash, LIFO removal, minimal disruption, no
// weights, the key_hasher parameter (kLifoParams when `s` declares none;
// declared params must include it, or the spec does not compile), 4 bytes per
// node.
constexpr AlgorithmSpec LifoSpec(AlgorithmSpec s) {
  s.views.buckets = true;
  s.capabilities = {.weights = false,
                    .arbitrary_removal = false,
                    .incremental = true,
                    .exact_shares = false,
                    .stateful = false,
                    .minimal_disruption = true,
                    .history_free = false,
                    .range_hash = true};
  if (s.params.empty()) s.params = kLifoParams;
  bool has_key_hasher = false;
  for (const ParamSpec& p : s.params) has_key_hasher |= p.name == kKeyHasherParam.name;
  if (!has_key_hasher) throw "LifoSpec: declared params must include kKeyHasherParam";
  s.memory_bytes = [](const Params&, uint64_t n) { return 4.0 * static_cast<double>(n); };
  s.memory_doc = "4 bytes per node (the id map)";
  s.key_hasher = KeyHasherOrXxh3;
  return s;
}

}  // namespace chsim::algorithms_internal

#endif  // CHSIM_CORE_SRC_ALGORITHMS_LIFO_BUCKETS_H_
