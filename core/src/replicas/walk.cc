// SPDX-License-Identifier: Apache-2.0
// `walk`: the ring walk of Dynamo's preference list (DeCandia et al., SOSP
// 2007, section 4.3 "Replication") and Cassandra's SimpleStrategy
// (calculateNaturalReplicas: walk the ring clockwise from the key's token and
// add each token's endpoint unless the list holds it already): from the entry
// the algorithm's Locate answers with, clockwise, the first k distinct nodes,
// the points of nodes already chosen skipped. The primary is Locate's answer.
//
// Failure domains: the walk first takes a node only if no copy sits in its
// domain yet, until min(k, D) copies are placed (D: the distinct domains of
// the live nodes), so that those copies are in distinct domains. When the
// domains run out (k > D), the remaining k - D copies are the first nodes not
// yet chosen in walk order from the key's point again: the nodes the first
// pass skipped, in the order it met them, then those after. That is the order
// Cassandra's NetworkTopologyStrategy gives within one datacenter, whose walk
// appends its skipped endpoints in walk order once every rack holds a copy;
// porting that strategy itself (datacenters, per-datacenter factors) is
// another strategy's work.
//
// Minimal: a removed node's points leave the ring and nothing else moves, so
// only the keys whose walk took that node change (without domains: the walk
// is the same up to the removed node's points).
//
// Cost: one lookup, then one entry per step. When the nodes' points
// interleave at random, a step meets a node already chosen with probability
// about (copies placed) / n, so k copies take about k steps for k << n. Each
// pass visits every entry at most once.
#include "chsim/ring.h"
#include "internal.h"

namespace chsim::replicas_internal {

extern const ReplicaStrategy kWalkStrategy;

namespace {

class Walk final : public ReplicaSelector {
 public:
  Walk(const ReplicaInput& in, RingView view) : ReplicaSelector(in.k), view_(view), domains_(in) {}

  uint32_t Select(uint64_t key_hash, std::span<uint32_t> out) const noexcept override {
    const size_t start = view_.Start(key_hash);
    const uint32_t k = this->k();
    uint32_t placed = 0;
    const uint32_t spread = domains_.Spread(k);
    if (spread > 0) placed = Pass<true>(start, out.data(), placed, spread);
    return Pass<false>(start, out.data(), placed, k);
  }

 private:
  // Walks one full turn from `start`, appending nodes not yet held (and, when
  // kFreshDomain, in a domain that holds no copy) until `want` are placed.
  template <bool kFreshDomain>
  uint32_t Pass(size_t start, uint32_t* out, uint32_t placed, uint32_t want) const noexcept {
    const size_t n = view_.ring->size();
    size_t i = start;
    for (size_t steps = 0; steps < n && placed < want; ++steps) {
      const uint32_t id = view_.IdAt(i);
      if (++i == n) i = 0;
      if (Holds(out, placed, id)) continue;
      if (kFreshDomain && domains_.Taken(out, placed, id)) continue;
      out[placed++] = id;
    }
    return placed;
  }

  RingView view_;
  DomainRule domains_;
};

std::unique_ptr<ReplicaSelector> Make(const ReplicaInput& in, const Params&) {
  RingView view;
  in.algorithm->ViewRing(&view);
  return std::make_unique<Walk>(in, view);
}

}  // namespace

constinit const ReplicaStrategy kWalkStrategy{
    .name = "walk",
    .summary =
        "clockwise from the key's point, the first k distinct nodes (Dynamo, Cassandra "
        "SimpleStrategy)",
    .paper =
        "DeCandia et al., \"Dynamo: Amazon's Highly Available Key-value Store\", SOSP 2007, "
        "section 4.3; Apache Cassandra SimpleStrategy",
    .year = 2007,
    .applies_doc = "ring-like algorithms: those that expose their points in order",
    .applies = [](const AlgorithmSpec& a) noexcept { return a.views.ring; },
    .domain_rule =
        "the first min(k, D) copies in distinct domains (D: the live nodes' domains); when "
        "k > D, the rest are the first nodes not yet chosen in walk order from the key's point",
    .minimal = true,
    .short_results = false,
    .first_is_locate = true,
    .make = Make,
};

}  // namespace chsim::replicas_internal
