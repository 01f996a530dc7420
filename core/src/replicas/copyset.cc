// SPDX-License-Identifier: Apache-2.0
// `copyset`: Copyset Replication (Cidon, Rumble, Stutsman, Katti, Ousterhout &
// Rosenblum, "Copysets: Reducing the Frequency of Data Loss in Cloud Storage",
// USENIX ATC 2013, section 4): P = ceil(S / (R - 1)) random permutations of
// the nodes (S: the scatter width, R = k the copies), each cut into groups of R
// consecutive nodes; each group is a copyset. A key's primary is the
// algorithm's Locate answer ("the primary goes anywhere"); its other copies
// are the rest of one copyset that holds the primary, drawn by the key hash
// among those that do. A permutation whose length is not a multiple of R has
// its last group completed with its first nodes (wrapping), so every node
// lies in at least one copyset per permutation.
//
// The permutations are drawn from the parameter `seed` (Fisher-Yates over the
// live ids in ascending order, permutation p from DeriveSeed(seed, p)): the
// same seed and the same live nodes give the same copysets on every run and
// thread. `mincopysets` is the single permutation (S = R - 1): the fewest
// copysets, N / R. Both are durability baselines, not consistent hashing:
// the copysets are redrawn whenever the live nodes change (not minimal).
//
// Cost: one lookup, one hash and a copy of k - 1 ids per key; memory P
// permutations of the live ids plus an index from node to its copysets.
#include "internal.h"

namespace chsim::replicas_internal {

extern const ReplicaStrategy kCopysetStrategy;

namespace {

class Copysets final : public ReplicaSelector {
 public:
  Copysets(const ReplicaInput& in, uint64_t permutations, uint64_t seed)
      : ReplicaSelector(in.k), algorithm_(*in.algorithm), seed_(seed) {
    const std::vector<uint32_t> live = in.algorithm->live_ids();
    const uint32_t n = static_cast<uint32_t>(live.size()), k = in.k;
    const uint32_t groups = (n + k - 1) / k;
    uint32_t max_id = 0;
    for (uint32_t id : live) max_id = std::max(max_id, id);
    std::vector<std::vector<uint32_t>> of_node(max_id + 1);
    for (uint64_t p = 0; p < permutations; ++p) {
      std::vector<uint32_t> perm = live;
      SplitMix64 rng(DeriveSeed(seed, p));
      for (uint32_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[rng.Below(i)]);
      for (uint32_t g = 0; g < groups; ++g) {
        const uint32_t set = static_cast<uint32_t>(members_.size() / k);
        for (uint32_t j = 0; j < k; ++j) {
          const uint32_t id = perm[(g * k + j) % n];
          members_.push_back(id);
          of_node[id].push_back(set);
        }
      }
    }
    begin_.assign(max_id + 2, 0);
    for (uint32_t id = 0; id <= max_id; ++id) {
      begin_[id + 1] = begin_[id] + static_cast<uint32_t>(of_node[id].size());
      sets_.insert(sets_.end(), of_node[id].begin(), of_node[id].end());
    }
  }

  uint32_t Select(uint64_t key_hash, std::span<uint32_t> out) const noexcept override {
    const uint32_t k = this->k(), primary = algorithm_.Locate(key_hash);
    const uint32_t count = begin_[primary + 1] - begin_[primary];
    const uint32_t set = sets_[begin_[primary] + Bounded(Mix64(key_hash ^ seed_), count)];
    out[0] = primary;
    uint32_t placed = 1;
    for (uint32_t j = 0; j < k; ++j) {
      const uint32_t id = members_[set * k + j];
      if (id != primary) out[placed++] = id;
    }
    return placed;
  }

 private:
  const Algorithm& algorithm_;
  uint64_t seed_;
  std::vector<uint32_t> members_;  // copyset s: members_[s k .. s k + k)
  std::vector<uint32_t> begin_;    // node id -> its copysets: sets_[begin_[id] .. begin_[id + 1])
  std::vector<uint32_t> sets_;
};

constexpr ParamSpec kParams[] = {
    {.name = "scatter_width",
     .type = ParamType::kInteger,
     .doc = "S: the nodes that hold copies of a node's data; ceil(S / (k - 1)) permutations",
     .default_number = 10,
     .min = 1,
     .max = 100000,
     .sweepable = true},
    kCopysetSeedParam,
};

}  // namespace

std::unique_ptr<ReplicaSelector> MakeCopysets(const ReplicaInput& in, uint64_t permutations,
                                              uint64_t seed) {
  return std::make_unique<Copysets>(in, std::max<uint64_t>(permutations, 1), seed);
}

constinit const ReplicaStrategy kCopysetStrategy = CopysetsBaseline({
    .name = "copyset",
    .summary = "Copyset Replication: the primary's copyset among ceil(S/(k-1)) seeded "
               "permutations cut into groups of k (a durability baseline)",
    .paper = "Cidon et al., \"Copysets: Reducing the Frequency of Data Loss in Cloud Storage\", "
             "USENIX ATC 2013, section 4",
    .params = kParams,
    .make = [](const ReplicaInput& in, const Params& p) -> std::unique_ptr<ReplicaSelector> {
      const uint64_t s = p.Integer("scatter_width"), r = std::max<uint64_t>(in.k - 1, 1);
      return MakeCopysets(in, (s + r - 1) / r, p.Integer("seed"));
    },
});

}  // namespace chsim::replicas_internal
