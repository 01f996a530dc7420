// SPDX-License-Identifier: Apache-2.0
// `rendezvous`: highest random weight hashing (Thaler & Ravishankar, "Using
// Name-Based Mappings to Increase Hit Rates", IEEE/ACM ToN 1998); weighted per
// Schindelhauer & Schomaker ("Weighted Distributed Hash Tables", SPAA 2005).
//
// Each node i has a seed s_i (its label hashed with the registry hasher). For
// a key hash k, x_i = Mix2(k, s_i) is a 64-bit pseudo-random value, u_i its
// image in (0, 1), and the node with the highest score -w_i / ln(u_i) wins
// (chsim/rendezvous.h holds the draw and the score; the topk replica strategy
// ranks by the same functions).
// -w/ln(u) with u uniform makes node i win with probability w_i / sum w: the
// scores are exponential races (P(score_i <= t) = exp(-w_i / t)). With equal
// weights the score is monotone in x_i, so the comparison is done on x_i
// directly (no logarithm); ties go to the lower id in both modes.
//
// Adding a node only lets it win keys; removing one only moves its keys: the
// scores of the others never change, so disruption is minimal, weighted or not.
// Lookup is O(n) per key; with equal weights the draws are made in vector
// lanes (simd/rendezvous_lanes.h, AVX2 or AVX-512 as the CPU has and
// CHSIM_SIMD allows), with the same answers.
#include "chsim/rendezvous.h"

#include "chsim/simd.h"
#include "internal.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kRendezvousSpec;

// The index of the highest draw Mix64(mixed_key ^ seeds[i]), i < n, the
// lowest among equals (simd/rendezvous_avx2.cc, simd/rendezvous_avx512.cc).
using RendezvousBestFn = size_t (*)(uint64_t mixed_key, const uint64_t* seeds, size_t n) noexcept;
size_t RendezvousBestAvx2(uint64_t, const uint64_t*, size_t) noexcept;
size_t RendezvousBestAvx512(uint64_t, const uint64_t*, size_t) noexcept;

namespace {

// The widest kernel the CPU has and CHSIM_SIMD allows; null: scalar only.
RendezvousBestFn ChooseBest() noexcept {
#if defined(__x86_64__)
  return PickSimd<RendezvousBestFn>(nullptr, RendezvousBestAvx2, RendezvousBestAvx512, true);
#else
  return nullptr;
#endif
}

class Rendezvous final : public AlgorithmBase {
 public:
  Rendezvous(std::span<const Node> nodes, const Params& p)
      : AlgorithmBase(kRendezvousSpec, nodes, p), hasher_(&GetHasher(p.Text("hasher"))) {
    for (const Node& n : nodes) Append(n);
  }

  uint32_t Locate(uint64_t key_hash) const noexcept override {
    const uint64_t k = RendezvousMixKey(key_hash);
    const size_t n = seeds_.size();
    size_t best = 0;
    if (uniform_) {
      static const RendezvousBestFn lanes = ChooseBest();
      if (lanes != nullptr) return ids_[lanes(k, seeds_.data(), n)];
      uint64_t best_x = RendezvousDraw(k, seeds_[0]);
      for (size_t i = 1; i < n; ++i) {
        uint64_t x = RendezvousDraw(k, seeds_[i]);
        if (x > best_x) best_x = x, best = i;
      }
    } else {
      double best_s = Score(k, 0);
      for (size_t i = 1; i < n; ++i) {
        double s = Score(k, i);
        if (s > best_s) best_s = s, best = i;
      }
    }
    return ids_[best];
  }
  bool ViewRendezvous(RendezvousView* view) const noexcept override {
    *view = RendezvousView{seeds_, weights_, ids_, uniform_};
    return true;
  }
  size_t MemoryBytes() const noexcept override {
    return seeds_.capacity() * sizeof(uint64_t) + weights_.capacity() * sizeof(double) + IdBytes();
  }

 private:
  void OnAdd(const Node& node, uint32_t) override { Append(node); }
  void OnRemove(size_t i, uint32_t) override {
    seeds_.erase(seeds_.begin() + static_cast<std::ptrdiff_t>(i));
    weights_.erase(weights_.begin() + static_cast<std::ptrdiff_t>(i));
    UpdateUniform();
  }
  // Mix2(key, seed) with the key's first mix hoisted out of the node loop.
  double Score(uint64_t mixed_key, size_t i) const noexcept {
    return RendezvousScore(RendezvousDraw(mixed_key, seeds_[i]), weights_[i]);
  }
  void Append(const Node& n) {
    ReserveOneMore(seeds_);  // both first: a throw changes nothing
    ReserveOneMore(weights_);
    seeds_.push_back(NodeSeed(*hasher_, n));
    weights_.push_back(static_cast<double>(n.weight));
    UpdateUniform();
  }
  void UpdateUniform() {
    uniform_ =
        std::all_of(weights_.begin(), weights_.end(), [&](double w) { return w == weights_[0]; });
  }

  const Hasher* hasher_;
  std::vector<uint64_t> seeds_;  // parallel to ids_
  std::vector<double> weights_;
  bool uniform_ = true;
};

constexpr ParamSpec kParams[] = {kHasherParam, kKeyHasherParam};

}  // namespace

constinit const AlgorithmSpec kRendezvousSpec{
    .name = "rendezvous",
    .summary =
        "highest random weight; weighted by the score -w/ln(u) (Schindelhauer & "
        "Schomaker 2005); O(n) per lookup",
    .paper =
        "Thaler & Ravishankar, \"Using Name-Based Mappings to Increase Hit Rates\", "
        "IEEE/ACM Transactions on Networking 1998",
    .year = 1998,
    .capabilities = {.weights = true,
                     .arbitrary_removal = true,
                     .incremental = true,
                     .exact_shares = false,
                     .stateful = false,
                     .minimal_disruption = true,
                     .history_free = true},
    .views = {.rendezvous = true},
    .params = kParams,
    .balance_bound = 1,
    .memory_bytes = [](const Params&, uint64_t n) { return 20.0 * static_cast<double>(n); },
    .memory_doc = "20 bytes per node (seed, weight, id)",
    .lookup_work = [](const Params&, uint64_t n) { return static_cast<double>(n) / 32.0; },
    .key_hasher = KeyHasherOrXxh3,
    .make = MakeAs<Rendezvous>,
};

}  // namespace chsim::algorithms_internal
