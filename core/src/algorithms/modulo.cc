// SPDX-License-Identifier: Apache-2.0
// `modulo`: the non-consistent baseline, node = live[hash mod n].
//
// Nodes are kept in id order; removing any node shifts every later one, and
// any change of n remaps about (n-1)/n of all keys: the disruption consistent
// hashing exists to avoid. Shares are exact: of the 2^64 hash values, residue
// i gets floor(2^64 / n) or one more.
#include "internal.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kModuloSpec;

namespace {

class Modulo final : public AlgorithmBase {
 public:
  Modulo(std::span<const Node> nodes, const Params& p) : AlgorithmBase(kModuloSpec, nodes, p) {}

  uint32_t Locate(uint64_t key_hash) const noexcept override {
    return ids_[key_hash % ids_.size()];
  }
  void LocateBatch(std::span<const uint64_t> hashes,
                   std::span<uint32_t> out) const noexcept override {
    const uint32_t* ids = ids_.data();
    const uint64_t n = ids_.size();
    for (size_t i = 0; i < hashes.size(); ++i) out[i] = ids[hashes[i] % n];
  }
  size_t MemoryBytes() const noexcept override { return IdBytes(); }
  std::optional<std::vector<double>> StructuralShares() const override {
    const uint64_t n = ids_.size();
    const uint64_t q = UINT64_MAX / n, r = UINT64_MAX % n;  // values 0..2^64-1
    std::vector<double> shares(next_id_, 0.0);
    for (uint64_t i = 0; i < n; ++i) {
      shares[ids_[i]] = static_cast<double>(q + (i <= r ? 1 : 0)) * 0x1.0p-64;
    }
    return shares;
  }

 private:
  void OnAdd(const Node&, uint32_t) override {}
  void OnRemove(size_t, uint32_t) override {}
};

constexpr ParamSpec kParams[] = {kKeyHasherParam};

}  // namespace

constinit const AlgorithmSpec kModuloSpec{
    .name = "modulo",
    .summary = "non-consistent baseline: node = live[hash mod n]",
    .paper = "",
    .year = 0,
    .capabilities = {.weights = false,
                     .arbitrary_removal = true,
                     .incremental = true,
                     .exact_shares = true,
                     .stateful = false,
                     .minimal_disruption = false,
                     .history_free = false},
    .params = kParams,
    .balance_bound = 1,
    .memory_bytes = [](const Params&, uint64_t n) { return 4.0 * static_cast<double>(n); },
    .memory_doc = "4 bytes per node (the id list)",
    .key_hasher = KeyHasherOrXxh3,
    .make = MakeAs<Modulo>,
};

}  // namespace chsim::algorithms_internal
