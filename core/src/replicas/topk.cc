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
// With a failure-domain level: rendezvous over the domains first, then over
// the nodes inside each (the hierarchical form of HRW, as CRUSH's straw2
// descends its tree: straw2 is weighted HRW). A domain's seed is
// Mix64(XXH3("LEVEL=NAME")) (e.g. "rack=r1") and its weight the sum of its live
// nodes' weights, scored -W / ln(u) on the same key draw as the nodes; the
// copies go round-robin over the min(k, D) highest domains in rank order,
// each taking its next highest node, so the first min(k, D) copies sit in
// distinct domains and the rest (k > D) spread as evenly as the domains'
// sizes allow. The first copy is then the top node of the top domain, not
// necessarily Locate's answer.
//
// The copies are distinct by construction. Minimal (without domains): a
// node's score does not depend on the other nodes, so removing X changes
// only the rankings whose top k held X (the next node moves up), and adding
// one changes only those it enters.
//
// Cost: every live node is scored (O(n) per key, as Locate), and the top k
// kept by insertion into a sorted run of at most k scores; with domains, the
// D domains, then the nodes of the chosen ones.
#include "chsim/hasher.h"
#include "chsim/rendezvous.h"
#include "internal.h"

namespace chsim::replicas_internal {

extern const ReplicaStrategy kTopKStrategy;

namespace {

// The `want` best of score(0..count-1) into out (as value(i)), best first; a
// score enters only above the last held (strictly), after equal ones, so
// equal scores keep index order. Returns how many it holds.
template <class ScoreFn, class ValueFn>
uint32_t Rank(size_t count, uint32_t want, ScoreFn score, ValueFn value, uint32_t* out) noexcept {
  using Score = decltype(score(0));
  Score best[kMaxReplicas];
  uint32_t held = 0;
  for (size_t i = 0; i < count; ++i) {
    const Score s = score(i);
    if (held == want && !(s > best[want - 1])) continue;
    uint32_t j = held < want ? held++ : want - 1;
    for (; j > 0 && best[j - 1] < s; --j) {
      best[j] = best[j - 1];
      out[j] = out[j - 1];
    }
    best[j] = s;
    out[j] = value(i);
  }
  return held;
}

// The live nodes grouped by domain: members[begin[d]..begin[d+1]) are the
// view indices of domain d's nodes (ascending), seeds[d] and weights[d] its
// rendezvous seed and total weight.
struct DomainGroups {
  std::vector<uint64_t> seeds;
  std::vector<double> weights;
  std::vector<uint32_t> begin, members;

  DomainGroups(const ReplicaInput& in, const RendezvousView& view) {
    const std::span<const uint32_t> of = in.Domains();
    const DomainLevel level = *in.domain;
    std::vector<std::vector<uint32_t>> by(in.topology->Count(level));
    for (uint32_t i = 0; i < view.ids.size(); ++i) by[of[view.ids[i]]].push_back(i);
    begin.push_back(0);
    for (uint32_t d = 0; d < by.size(); ++d) {
      if (by[d].empty()) continue;
      const std::string name =
          std::string(DomainLevelName(level)) + "=" + in.topology->Name(level, d);
      seeds.push_back(Mix64(HashXxh3(name.data(), name.size())));
      double w = 0;
      for (uint32_t i : by[d]) w += view.weights[i];
      weights.push_back(w);
      members.insert(members.end(), by[d].begin(), by[d].end());
      begin.push_back(static_cast<uint32_t>(members.size()));
    }
  }
  uint32_t count() const noexcept { return static_cast<uint32_t>(seeds.size()); }
};

class TopK final : public ReplicaSelector {
 public:
  TopK(const ReplicaInput& in, RendezvousView view) : ReplicaSelector(in.k), view_(view) {
    if (in.domain) groups_.emplace(in, view);
  }

  uint32_t Select(uint64_t key_hash, std::span<uint32_t> out) const noexcept override {
    const uint64_t key = RendezvousMixKey(key_hash);
    if (groups_) return SelectByDomain(key, out.data());
    return RankNodes(
        key, view_.seeds.size(), k(), [](size_t i) { return i; }, out.data());
  }

 private:
  // The `want` best of the nodes at view indices index(0..count-1), as ids.
  template <class IndexFn>
  uint32_t RankNodes(uint64_t key, size_t count, uint32_t want, IndexFn index,
                     uint32_t* out) const noexcept {
    auto id = [&](size_t i) { return view_.ids[index(i)]; };
    if (view_.uniform) {
      return Rank(
          count, want, [&](size_t i) { return RendezvousDraw(key, view_.seeds[index(i)]); }, id,
          out);
    }
    return Rank(
        count, want,
        [&](size_t i) {
          const size_t n = index(i);
          return RendezvousScore(RendezvousDraw(key, view_.seeds[n]), view_.weights[n]);
        },
        id, out);
  }

  uint32_t SelectByDomain(uint64_t key, uint32_t* out) const noexcept {
    const DomainGroups& g = *groups_;
    const uint32_t k = this->k(), chosen = std::min(k, g.count());
    uint32_t top[kMaxReplicas];  // domain indices, best first
    Rank(
        g.count(), chosen,
        [&](size_t d) { return RendezvousScore(RendezvousDraw(key, g.seeds[d]), g.weights[d]); },
        [](size_t d) { return static_cast<uint32_t>(d); }, top);
    // Copies per domain, dealt round-robin in rank order, a full domain passed.
    uint32_t count[kMaxReplicas] = {}, size[kMaxReplicas];
    for (uint32_t r = 0; r < chosen; ++r) size[r] = g.begin[top[r] + 1] - g.begin[top[r]];
    for (uint32_t dealt = 0; dealt < k;) {
      for (uint32_t r = 0; r < chosen && dealt < k; ++r) {
        if (count[r] < size[r]) ++count[r], ++dealt;
      }
    }
    // Each domain's best count[r] nodes, then out in rounds: round j takes the
    // j-th node of every domain that has one, in rank order.
    uint32_t picked[kMaxReplicas], offset[kMaxReplicas];
    for (uint32_t r = 0, at = 0; r < chosen; at += count[r++]) {
      const uint32_t first = g.begin[top[r]];
      offset[r] = at;
      RankNodes(
          key, size[r], count[r], [&](size_t i) { return g.members[first + i]; }, picked + at);
    }
    uint32_t placed = 0;
    for (uint32_t j = 0; placed < k; ++j) {
      for (uint32_t r = 0; r < chosen; ++r) {
        if (j < count[r]) out[placed++] = picked[offset[r] + j];
      }
    }
    return placed;
  }

  RendezvousView view_;
  std::optional<DomainGroups> groups_;
};

std::unique_ptr<ReplicaSelector> Make(const ReplicaInput& in, const Params&) {
  RendezvousView view;
  in.algorithm->ViewRendezvous(&view);
  return std::make_unique<TopK>(in, view);
}

}  // namespace

constinit const ReplicaStrategy kTopKStrategy{
    .name = "topk",
    .summary =
        "the k highest rendezvous scores, weighted by -w/ln(u); with a domain, the top "
        "domains first, then the top nodes inside each",
    .paper =
        "Thaler & Ravishankar, \"Using Name-Based Mappings to Increase Hit Rates\", "
        "IEEE/ACM Transactions on Networking 1998 (the ranking); Schindelhauer & Schomaker, "
        "\"Weighted Distributed Hash Tables\", SPAA 2005 (the weights)",
    .year = 1998,
    .applies_doc = "algorithms that rank nodes by rendezvous scores",
    .applies = [](const AlgorithmSpec& a) noexcept { return a.views.rendezvous; },
    .domain_rule =
        "rendezvous over the domains (weight: their live nodes' weights), then over the nodes of "
        "each: copies round-robin over the min(k, D) top domains in rank order, so the first "
        "min(k, D) sit in distinct domains",
    .minimal = true,
    .short_results = false,
    .first_is_locate = true,
    .make = Make,
};

}  // namespace chsim::replicas_internal
