// SPDX-License-Identifier: Apache-2.0
// `random`: random replication as the Copysets paper models HDFS, RAMCloud
// and Cassandra (Cidon et al., "Copysets: Reducing the Frequency of Data Loss
// in Cloud Storage", USENIX ATC 2013, section 2: "the primary replica is
// placed on a node, the secondaries on random nodes"): the primary is the
// algorithm's Locate answer, the other k - 1 copies distinct live nodes drawn
// uniformly from SplitMix64(Mix64(key hash) ^ seed), a draw of a node held
// already drawn again. Every key draws its own, so with K keys there are about
// min(K, C(N, k)) copysets: the durability baseline the paper improves on.
// Not minimal (a removed node changes the live list every draw indexes).
#include "internal.h"

namespace chsim::replicas_internal {

extern const ReplicaStrategy kRandomStrategy;

namespace {

class Random final : public ReplicaSelector {
 public:
  Random(const ReplicaInput& in, uint64_t seed)
      : ReplicaSelector(in.k),
        algorithm_(*in.algorithm),
        live_(in.algorithm->live_ids()),
        seed_(seed) {}

  uint32_t Select(uint64_t key_hash, std::span<uint32_t> out) const noexcept override {
    const uint32_t k = this->k();
    out[0] = algorithm_.Locate(key_hash);
    SplitMix64 rng(Mix64(key_hash) ^ seed_);
    for (uint32_t placed = 1; placed < k;) {
      const uint32_t id = live_[rng.Below(live_.size())];
      if (!Holds(out.data(), placed, id)) out[placed++] = id;
    }
    return k;
  }

 private:
  const Algorithm& algorithm_;
  std::vector<uint32_t> live_;
  uint64_t seed_;
};

constexpr ParamSpec kParams[] = {kCopysetSeedParam};

}  // namespace

constinit const ReplicaStrategy kRandomStrategy = CopysetsBaseline({
    .name = "random",
    .summary = "random replication: the primary, then k - 1 distinct nodes drawn at random per "
               "key (the Copysets paper's baseline)",
    .paper = "Cidon et al., \"Copysets: Reducing the Frequency of Data Loss in Cloud Storage\", "
             "USENIX ATC 2013, section 2",
    .params = kParams,
    .make = [](const ReplicaInput& in, const Params& p) -> std::unique_ptr<ReplicaSelector> {
      return std::make_unique<Random>(in, p.Integer("seed"));
    },
});

}  // namespace chsim::replicas_internal
