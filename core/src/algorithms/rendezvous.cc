// `rendezvous`: highest random weight hashing (Thaler & Ravishankar, "Using
// Name-Based Mappings to Increase Hit Rates", IEEE/ACM ToN 1998); weighted per
// Schindelhauer & Schomaker ("Weighted Distributed Hash Tables", SPAA 2005).
//
// Each node i has a seed s_i (its label hashed with the registry hasher). For
// a key hash k, x_i = Mix2(k, s_i) is a 64-bit pseudo-random value, u_i its
// image in (0, 1), and the node with the highest score -w_i / ln(u_i) wins.
// -w/ln(u) with u uniform makes node i win with probability w_i / sum w: the
// scores are exponential races (P(score_i <= t) = exp(-w_i / t)). With equal
// weights the score is monotone in x_i, so the comparison is done on x_i
// directly (no logarithm); ties go to the lower id in both modes.
//
// Adding a node only lets it win keys; removing one only moves its keys: the
// scores of the others never change, so disruption is minimal, weighted or not.
// Lookup is O(n) per key.
#include <cmath>

#include "internal.h"

namespace chsim::algorithms_internal {
namespace {

constexpr std::string_view kName = "rendezvous";

class Rendezvous final : public Algorithm {
 public:
  Rendezvous(std::span<const Node> nodes, const Hasher& hasher)
      : hasher_(&hasher), ids_(nodes.size()) {
    for (const Node& n : nodes) Append(n);
  }

  std::string_view name() const noexcept override { return kName; }
  Capabilities capabilities() const noexcept override { return kRendezvousCapabilities; }
  uint32_t Locate(uint64_t key_hash) const noexcept override {
    const uint64_t k = Mix64(key_hash);
    const size_t n = seeds_.size();
    size_t best = 0;
    if (uniform_) {
      uint64_t best_x = Mix64(k ^ seeds_[0]);
      for (size_t i = 1; i < n; ++i) {
        uint64_t x = Mix64(k ^ seeds_[i]);
        if (x > best_x) best_x = x, best = i;
      }
    } else {
      double best_s = Score(k, 0);
      for (size_t i = 1; i < n; ++i) {
        double s = Score(k, i);
        if (s > best_s) best_s = s, best = i;
      }
    }
    return ids_.ids()[best];
  }
  size_t num_nodes() const noexcept override { return ids_.size(); }
  std::vector<uint32_t> live_ids() const override { return ids_.ids(); }

  uint32_t Add(const Node& node) override {
    CheckNewNode(kName, nodes_, node);
    Append(node);
    return ids_.Issue();
  }
  void Remove(uint32_t id) override {
    size_t i = ids_.IndexOf(kName, id);
    RequireNotLast(kName, ids_.size());
    auto at = [i](auto& v) { v.erase(v.begin() + static_cast<std::ptrdiff_t>(i)); };
    at(nodes_), at(seeds_), at(weights_), ids_.EraseAt(i);
    UpdateUniform();
  }
  size_t MemoryBytes() const noexcept override {
    return seeds_.capacity() * sizeof(uint64_t) + weights_.capacity() * sizeof(double) +
           ids_.ids().capacity() * sizeof(uint32_t);
  }

 private:
  // Mix2(key, seed) with the key's first mix hoisted out of the node loop.
  double Score(uint64_t mixed_key, size_t i) const noexcept {
    const double u = UnitOpen(Mix64(mixed_key ^ seeds_[i]));
    return -weights_[i] / std::log(u);  // ln(u) < 0: the score is positive
  }
  void Append(const Node& n) {
    nodes_.push_back(n);
    seeds_.push_back(NodeSeed(*hasher_, n));
    weights_.push_back(static_cast<double>(n.weight));
    UpdateUniform();
  }
  void UpdateUniform() {
    uniform_ =
        std::all_of(weights_.begin(), weights_.end(), [&](double w) { return w == weights_[0]; });
  }

  const Hasher* hasher_;
  std::vector<Node> nodes_;  // live, parallel to ids_
  std::vector<uint64_t> seeds_;
  std::vector<double> weights_;
  bool uniform_ = true;
  IdSet ids_;
};

}  // namespace

std::unique_ptr<Algorithm> NewRendezvous(std::span<const Node> nodes, const AlgorithmParams& p) {
  CheckNodes(kName, nodes);
  return std::make_unique<Rendezvous>(nodes, GetHasher(p.hasher));
}

}  // namespace chsim::algorithms_internal
