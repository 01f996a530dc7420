// SPDX-License-Identifier: Apache-2.0
// `topk`: the k highest rendezvous scores. Highest random weight is Thaler &
// Ravishankar, "Using Name-Based Mappings to Increase Hit Rates", IEEE/ACM
// ToN 1998; the top k of its ranking as the replica set is the form
// Wikipedia's "Rendezvous hashing" gives and Vespa's ideal-state
// distribution uses (its top `redundancy` nodes). Weighted by the
// logarithmic method -w / ln(u) (Schindelhauer & Schomaker, "Weighted
// Distributed Hash Tables", SPAA 2005). The scores are the algorithm's own
// (chsim/rendezvous.h), so the first copy is its Locate's answer; equal
// scores rank the lower id first, as Locate breaks ties.
//
// The copies are distinct by construction. Minimal: a node's score does not
// depend on the other nodes, so removing X changes only the rankings whose
// top k held X (the next node moves up), and adding one changes only those it
// enters.
//
// Cost: every live node is scored (O(n) per key, as Locate), and the top k
// kept by insertion into a sorted run of at most k scores.
#include "chsim/rendezvous.h"
#include "internal.h"

namespace chsim::replicas_internal {

extern const ReplicaStrategy kTopKStrategy;

namespace {

class TopK final : public ReplicaSelector {
 public:
  TopK(const ReplicaInput& in, RendezvousView view) : ReplicaSelector(in.k), view_(view) {}

  uint32_t Select(uint64_t key_hash, std::span<uint32_t> out) const noexcept override {
    const uint64_t key = RendezvousMixKey(key_hash);
    if (view_.uniform) {
      return Rank(out.data(), [&](size_t i) { return RendezvousDraw(key, view_.seeds[i]); });
    }
    return Rank(out.data(), [&](size_t i) {
      return RendezvousScore(RendezvousDraw(key, view_.seeds[i]), view_.weights[i]);
    });
  }

 private:
  // The k best of score(i) over the live nodes into out, best first; a score
  // enters only above the k-th (strictly), and goes after equal ones, so
  // equal scores keep list (id) order.
  template <class ScoreFn>
  uint32_t Rank(uint32_t* out, ScoreFn score) const noexcept {
    using Score = decltype(score(0));
    Score best[kMaxReplicas];
    const uint32_t k = this->k();
    uint32_t held = 0;
    for (size_t i = 0; i < view_.seeds.size(); ++i) {
      const Score s = score(i);
      if (held == k && !(s > best[k - 1])) continue;
      uint32_t j = held < k ? held++ : k - 1;
      for (; j > 0 && best[j - 1] < s; --j) {
        best[j] = best[j - 1];
        out[j] = out[j - 1];
      }
      best[j] = s;
      out[j] = view_.ids[i];
    }
    return held;
  }

  RendezvousView view_;
};

std::unique_ptr<ReplicaSelector> Make(const ReplicaInput& in, const Params&) {
  RendezvousView view;
  in.algorithm->ViewRendezvous(&view);
  return std::make_unique<TopK>(in, view);
}

}  // namespace

constinit const ReplicaStrategy kTopKStrategy{
    .name = "topk",
    .summary = "the k highest rendezvous scores, weighted by -w/ln(u)",
    .paper =
        "Thaler & Ravishankar, \"Using Name-Based Mappings to Increase Hit Rates\", "
        "IEEE/ACM Transactions on Networking 1998 (the ranking); Schindelhauer & Schomaker, "
        "\"Weighted Distributed Hash Tables\", SPAA 2005 (the weights)",
    .year = 1998,
    .applies_doc = "algorithms that rank nodes by rendezvous scores",
    .applies = [](const AlgorithmSpec& a) noexcept { return a.views.rendezvous; },
    .domain_rule = "",
    .minimal = true,
    .short_results = false,
    .first_is_locate = true,
    .make = Make,
};

}  // namespace chsim::replicas_internal
