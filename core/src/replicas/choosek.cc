// SPDX-License-Identifier: Apache-2.0
// `choosek`: ConsistentChooseK (github/rust-gems, crates/consistent-choose-k,
// 2025: README and src/choose_k.rs; the blog post
// blog/choose-k-consistent-hashing.md). Over a consistent range hash jump(key,
// n) in [0, n), with an independent draw per rank i, jump_i, the k-subset of
// [0, n) is
//   S(k, n) = {M(k, n)} u S(k-1, M(k, n)),  M(k, n) = max_{i<k} (jump_i(key, n-i) + i),
// k distinct buckets with no rejection step. Its proven properties: the set is
// uniform over the k-subsets; from n to n+1 exactly one member changes, with
// probability k/(n+1); it is prefix-stable in k (asking for k+1 only adds a
// member), which orders the copies: copy j is the member S(j, n) adds to
// S(j-1, n), grown as choose_k.rs's grow_k does (O(k) per copy).
//
// The per-rank draw: rust-gems hashes the rank i into the key's hasher
// (ManySeqBuilder::seq_builder); here jump_i is the instance's own range hash
// (BucketView::range: jump, power, flip, jumpback, binomial) at key hash h_0 = h
// (so the first copy is Locate's answer) and h_i = SplitMix64's i-th output
// for seed h, Mix64(h + i * 0x9E3779B97F4A7C15), for i >= 1.
//
// Over a bucket scheme with removed buckets (anchor, memento, dx, jumpback
// anchor: BucketView without a range hash of its own), the ranking is that of
// [0, N) over the N buckets ever used, with jump (Lamping & Veach) as the range
// hash, and the removed buckets are skipped as rust-gems' ConsistentNodeMap
// does: the copies are the first k working buckets in rank order, which
// depends on which buckets work, not on the order they were removed in. The
// ranking is grown at most kMaxRanked deep; a key whose first kMaxRanked
// ranks hold fewer than k working buckets is answered short.
//
// Minimal: removing a node (a bucket leaves the working set, or the last
// bucket of a range hash) changes only the rankings that held it within their
// first k working buckets.
#include <array>

#include "chsim/algorithms/jump.h"
#include "internal.h"

namespace chsim::replicas_internal {

extern const ReplicaStrategy kChooseKStrategy;

namespace {

constexpr uint32_t kMaxRanked = 1024;
constexpr uint64_t kGamma = 0x9E3779B97F4A7C15;

uint32_t Jump(const void*, uint64_t key, uint32_t n) noexcept {
  return static_cast<uint32_t>(JumpConsistentHash(key, static_cast<int32_t>(n)));
}

class ChooseK final : public ReplicaSelector {
 public:
  ChooseK(const ReplicaInput& in, BucketView view)
      : ReplicaSelector(in.k), view_(view), range_(view.range ? view.range : &Jump) {}

  uint32_t Select(uint64_t key_hash, std::span<uint32_t> out) const noexcept override {
    Ranking r{this, key_hash, static_cast<uint32_t>(view_.ids.size())};
    const uint32_t k = this->k();
    uint32_t placed = 0;
    while (placed < k && r.size < r.n && r.size < kMaxRanked) {
      const uint32_t id = view_.ids[r.Grow()];
      if (id != BucketView::kNoNode) out[placed++] = id;
    }
    return placed;
  }

 private:
  // One key's ranking: S(size, n) kept ascending in `samples` (choose_k.rs).
  struct Ranking {
    Ranking(const ChooseK* s, uint64_t h, uint32_t buckets) noexcept
        : self(s), key(h), n(buckets) {}

    const ChooseK* self;
    uint64_t key;
    uint32_t n;
    uint32_t size = 0;
    std::array<uint32_t, kMaxRanked> samples;  // [0, size) set

    // jump_i(key, m - i) + i.
    uint32_t Sample(uint32_t i, uint32_t m) const noexcept {
      const uint64_t h = i == 0 ? key : Mix64(key + i * kGamma);
      return self->range_(self->view_.context, h, m - i) + i;
    }
    // samples[0..size) from S(size, old n) to S(size, m), top down; the
    // samples below m stay (choose_k.rs shrink_n_inner).
    void Shrink(uint32_t m) noexcept {
      for (uint32_t i = size; i-- > 0;) {
        if (samples[i] < m) return;
        const uint32_t s = Sample(i, m);
        samples[i] = i > 0 && samples[i - 1] > s ? samples[i - 1] : s;
        m = samples[i];
      }
    }
    // S(size + 1, n) from S(size, n); returns the member it adds (grow_k).
    uint32_t Grow() noexcept {
      const uint32_t s = Sample(size, n);
      if (size == 0 || samples[size - 1] < s) {
        samples[size++] = s;
        return s;
      }
      const uint32_t top = samples[size - 1];
      std::array<uint32_t, kMaxRanked> before;
      std::copy(samples.begin(), samples.begin() + size, before.begin());
      Shrink(top);
      samples[size++] = top;
      // The member added: the one of the new set the old (both ascending) lacks.
      uint32_t j = 0;
      for (uint32_t i = 0; i < size; ++i) {
        if (j < size - 1 && samples[i] == before[j]) {
          ++j;
        } else {
          return samples[i];
        }
      }
      return top;  // unreachable: the new set has one member more
    }
  };

  BucketView view_;
  uint32_t (*range_)(const void*, uint64_t, uint32_t) noexcept;
};

std::unique_ptr<ReplicaSelector> Make(const ReplicaInput& in, const Params&) {
  BucketView view;
  in.algorithm->ViewBuckets(&view);
  return std::make_unique<ChooseK>(in, view);
}

}  // namespace

constinit const ReplicaStrategy kChooseKStrategy{
    .name = "choosek",
    .summary =
        "ConsistentChooseK: k distinct buckets, uniform over k-subsets, one member changes when "
        "n grows by one; removed buckets skipped",
    .paper =
        "github/rust-gems, crates/consistent-choose-k (ConsistentChooseKHasher, "
        "ConsistentNodeMap), 2025; the blog post choose-k-consistent-hashing.md",
    .year = 2025,
    .applies_doc =
        "bucket-based algorithms: consistent range hashes (jump, power, flip, "
        "jumpback, binomial) and the schemes that route around removed buckets "
        "(anchor, memento, dx)",
    .applies = [](const AlgorithmSpec& a) noexcept { return a.views.buckets; },
    .domain_rule = "",
    .minimal = true,
    .short_results = true,
    .first_is_locate = false,
    .make = Make,
};

}  // namespace chsim::replicas_internal
