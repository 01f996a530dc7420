// `modulo`: the non-consistent baseline, node = live[hash mod n].
//
// Nodes are kept in id order; removing any node shifts every later one, and
// any change of n remaps about (n-1)/n of all keys: the disruption consistent
// hashing exists to avoid. Shares are exact: of the 2^64 hash values, residue
// i gets floor(2^64 / n) or one more.
#include "internal.h"

namespace chsim::algorithms_internal {
namespace {

constexpr std::string_view kName = "modulo";

class Modulo final : public Algorithm {
 public:
  Modulo(std::span<const Node> nodes) : nodes_(nodes.begin(), nodes.end()), ids_(nodes.size()) {}

  std::string_view name() const noexcept override { return kName; }
  Capabilities capabilities() const noexcept override { return kModuloCapabilities; }
  uint32_t Locate(uint64_t key_hash) const noexcept override {
    return ids_.ids()[key_hash % ids_.size()];
  }
  void LocateBatch(std::span<const uint64_t> hashes,
                   std::span<uint32_t> out) const noexcept override {
    const uint32_t* ids = ids_.ids().data();
    const uint64_t n = ids_.size();
    for (size_t i = 0; i < hashes.size(); ++i) out[i] = ids[hashes[i] % n];
  }
  size_t num_nodes() const noexcept override { return ids_.size(); }
  std::vector<uint32_t> live_ids() const override { return ids_.ids(); }

  uint32_t Add(const Node& node) override {
    CheckNewNode(kName, nodes_, node);
    RequireUnweighted(kName, std::span<const Node>(&node, 1));
    nodes_.push_back(node);
    return ids_.Issue();
  }
  void Remove(uint32_t id) override {
    size_t i = ids_.IndexOf(kName, id);
    RequireNotLast(kName, ids_.size());
    nodes_.erase(nodes_.begin() + static_cast<std::ptrdiff_t>(i));
    ids_.EraseAt(i);
  }
  size_t MemoryBytes() const noexcept override { return ids_.ids().capacity() * sizeof(uint32_t); }
  std::optional<std::vector<double>> StructuralShares() const override {
    const uint64_t n = ids_.size();
    const uint64_t q = UINT64_MAX / n, r = UINT64_MAX % n;  // values 0..2^64-1
    std::vector<double> shares(ids_.next(), 0.0);
    for (uint64_t i = 0; i < n; ++i) {
      shares[ids_.ids()[i]] = static_cast<double>(q + (i <= r ? 1 : 0)) * 0x1.0p-64;
    }
    return shares;
  }

 private:
  std::vector<Node> nodes_;  // live, parallel to ids_ (labels for duplicate checks)
  IdSet ids_;
};

}  // namespace

std::unique_ptr<Algorithm> NewModulo(std::span<const Node> nodes, const AlgorithmParams&) {
  CheckNodes(kName, nodes);
  RequireUnweighted(kName, nodes);
  return std::make_unique<Modulo>(nodes);
}

}  // namespace chsim::algorithms_internal
