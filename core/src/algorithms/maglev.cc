// `maglev`: Maglev hashing (Eisenbud et al. NSDI 2016) behind the Algorithm
// interface. A key hash k maps to table[k mod M]; M is prime (default 65537,
// the paper's evaluation size for small backend counts). Every add/remove
// rebuilds the whole table from the live nodes' permutations, as the paper
// does; the rebuild keeps most entries but not all, so disruption is small
// but not minimal (tests/algorithms measure it). Shares are exact: entry s
// receives the hash values congruent to s mod M.
#include "chsim/algorithms/maglev.h"

#include <algorithm>

#include "internal.h"

namespace chsim {

bool IsPrime(uint64_t m) noexcept {
  if (m < 2) return false;
  if (m % 2 == 0) return m == 2;
  for (uint64_t d = 3; d * d <= m; d += 2) {
    if (m % d == 0) return false;
  }
  return true;
}

MaglevBackend MaglevBackendForSeed(uint64_t seed, uint64_t table_size) noexcept {
  using algorithms_internal::Mix2;
  MaglevBackend b;
  b.offset = Mix2(seed, 0x6f6666736574ULL) % table_size;      // "offset"
  b.skip = Mix2(seed, 0x736b6970ULL) % (table_size - 1) + 1;  // "skip"
  return b;
}

std::vector<uint32_t> MaglevPopulate(std::span<const MaglevBackend> backends, uint64_t table_size) {
  const uint64_t m = table_size;
  if (!IsPrime(m)) {
    throw std::invalid_argument("maglev: table size " + std::to_string(m) + " is not prime");
  }
  if (backends.empty()) throw std::invalid_argument("maglev: no backends");
  if (backends.size() > m) {
    throw std::invalid_argument("maglev: table size " + std::to_string(m) + " is smaller than " +
                                std::to_string(backends.size()) + " backends");
  }
  uint32_t w_max = 0;
  for (const MaglevBackend& b : backends) {
    if (b.offset >= m || b.skip == 0 || b.skip >= m || b.weight == 0) {
      throw std::invalid_argument("maglev: backend with offset " + std::to_string(b.offset) +
                                  ", skip " + std::to_string(b.skip) + ", weight " +
                                  std::to_string(b.weight) +
                                  " (need offset < M, 1 <= skip < M, weight >= 1)");
    }
    w_max = std::max(w_max, b.weight);
  }
  constexpr uint32_t kEmpty = UINT32_MAX;
  std::vector<uint32_t> entry(m, kEmpty);
  std::vector<uint64_t> next(backends.size());  // next preferred entry of each backend
  for (size_t i = 0; i < backends.size(); ++i) next[i] = backends[i].offset;
  uint64_t filled = 0;
  for (uint64_t round = 1; filled < m; ++round) {
    for (size_t i = 0; i < backends.size() && filled < m; ++i) {
      const uint64_t w = backends[i].weight;
      if (w != w_max && (round * w) / w_max == ((round - 1) * w) / w_max) continue;  // no turn
      uint64_t c = next[i];
      while (entry[c] != kEmpty) {  // the permutation visits every entry: terminates
        c += backends[i].skip;
        if (c >= m) c -= m;
      }
      entry[c] = static_cast<uint32_t>(i);
      c += backends[i].skip;
      next[i] = c >= m ? c - m : c;
      ++filled;
    }
  }
  return entry;
}

namespace algorithms_internal {
namespace {

constexpr std::string_view kName = "maglev";

class Maglev final : public Algorithm {
 public:
  Maglev(std::span<const Node> nodes, const Hasher& hasher, uint64_t m)
      : hasher_(&hasher), m_(m), nodes_(nodes.begin(), nodes.end()), ids_(nodes.size()) {
    Rebuild();
  }

  std::string_view name() const noexcept override { return kName; }
  Capabilities capabilities() const noexcept override { return kMaglevCapabilities; }
  uint32_t Locate(uint64_t key_hash) const noexcept override { return table_[key_hash % m_]; }
  void LocateBatch(std::span<const uint64_t> hashes,
                   std::span<uint32_t> out) const noexcept override {
    const uint32_t* t = table_.data();
    for (size_t i = 0; i < hashes.size(); ++i) out[i] = t[hashes[i] % m_];
  }
  size_t num_nodes() const noexcept override { return ids_.size(); }
  std::vector<uint32_t> live_ids() const override { return ids_.ids(); }

  uint32_t Add(const Node& node) override {
    CheckNewNode(kName, nodes_, node);
    if (nodes_.size() + 1 > m_) {
      throw Unsupported("maglev: table size " + std::to_string(m_) + " cannot hold " +
                        std::to_string(nodes_.size() + 1) + " nodes");
    }
    nodes_.push_back(node);
    uint32_t id = ids_.Issue();
    Rebuild();
    return id;
  }
  void Remove(uint32_t id) override {
    size_t i = ids_.IndexOf(kName, id);
    RequireNotLast(kName, ids_.size());
    nodes_.erase(nodes_.begin() + static_cast<std::ptrdiff_t>(i));
    ids_.EraseAt(i);
    Rebuild();
  }
  size_t MemoryBytes() const noexcept override {
    return table_.capacity() * sizeof(uint32_t) + ids_.ids().capacity() * sizeof(uint32_t);
  }
  std::optional<std::vector<double>> StructuralShares() const override {
    const uint64_t q = UINT64_MAX / m_, r = UINT64_MAX % m_;  // hash values 0..2^64-1
    std::vector<double> shares(ids_.next(), 0.0);
    for (uint64_t s = 0; s < m_; ++s) {
      shares[table_[s]] += static_cast<double>(q + (s <= r ? 1 : 0)) * 0x1.0p-64;
    }
    return shares;
  }

 private:
  void Rebuild() {
    std::vector<MaglevBackend> backends(nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) {
      backends[i] = MaglevBackendForSeed(NodeSeed(*hasher_, nodes_[i]), m_);
      backends[i].weight = nodes_[i].weight;
    }
    table_ = MaglevPopulate(backends, m_);
    for (uint32_t& e : table_) e = ids_.ids()[e];  // backend index -> node id
  }

  const Hasher* hasher_;
  uint64_t m_;
  std::vector<Node> nodes_;  // live, parallel to ids_
  IdSet ids_;
  std::vector<uint32_t> table_;  // entry -> node id
};

}  // namespace

std::unique_ptr<Algorithm> NewMaglev(std::span<const Node> nodes, const AlgorithmParams& p) {
  CheckNodes(kName, nodes);
  // Limit: 2^28 entries (about 2 GB to populate, 1 GB resident); 100 n for
  // the largest n (10^6) fits.
  if (!IsPrime(p.table_size) || p.table_size > (uint64_t{1} << 28)) {
    throw std::invalid_argument("maglev: table_size must be a prime below 2^28 (got " +
                                std::to_string(p.table_size) + "); e.g. 65537 or 655373");
  }
  if (nodes.size() > p.table_size) {
    throw std::invalid_argument("maglev: table_size " + std::to_string(p.table_size) +
                                " is smaller than the " + std::to_string(nodes.size()) +
                                " nodes; the paper advises M > 100 n");
  }
  return std::make_unique<Maglev>(nodes, GetHasher(p.hasher), p.table_size);
}

}  // namespace algorithms_internal
}  // namespace chsim
