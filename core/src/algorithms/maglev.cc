// SPDX-License-Identifier: Apache-2.0
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

extern const AlgorithmSpec kMaglevSpec;

namespace {

class Maglev final : public AlgorithmBase {
 public:
  Maglev(std::span<const Node> nodes, const Params& p)
      : AlgorithmBase(kMaglevSpec, nodes, p),
        hasher_(&GetHasher(p.Text("hasher"))),
        m_(p.Integer("table_size")) {
    Rebuild();
  }

  uint32_t Locate(uint64_t key_hash) const noexcept override { return table_[key_hash % m_]; }
  void LocateBatch(std::span<const uint64_t> hashes,
                   std::span<uint32_t> out) const noexcept override {
    const uint32_t* t = table_.data();
    for (size_t i = 0; i < hashes.size(); ++i) out[i] = t[hashes[i] % m_];
  }
  size_t MemoryBytes() const noexcept override {
    return table_.capacity() * sizeof(uint32_t) + IdBytes();
  }
  std::optional<std::vector<double>> StructuralShares() const override {
    const uint64_t q = UINT64_MAX / m_, r = UINT64_MAX % m_;  // hash values 0..2^64-1
    std::vector<double> shares(next_id_, 0.0);
    for (uint64_t s = 0; s < m_; ++s) {
      shares[table_[s]] += static_cast<double>(q + (s <= r ? 1 : 0)) * 0x1.0p-64;
    }
    return shares;
  }

 private:
  void OnAdd(const Node&, uint32_t) override { Rebuild(); }
  void OnRemove(size_t, uint32_t) override { Rebuild(); }
  void Rebuild() {
    std::vector<MaglevBackend> backends(nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) {
      backends[i] = MaglevBackendForSeed(NodeSeed(*hasher_, nodes_[i]), m_);
      backends[i].weight = nodes_[i].weight;
    }
    std::vector<uint32_t> table = MaglevPopulate(backends, m_);
    for (uint32_t& e : table) e = ids_[e];  // backend index -> node id
    table_.swap(table);
  }

  const Hasher* hasher_;
  uint64_t m_;
  std::vector<uint32_t> table_;  // entry -> node id
};

// Limit: 2^28 entries (about 2 GB to populate, 1 GB resident); 100 n for the
// largest scenario n (10^6) fits.
constexpr uint64_t kMaxTableSize = uint64_t{1} << 28;

// Smallest prime >= max(65537, 100 n): the paper's advice M > 100 n.
uint64_t AutoTableSize(uint64_t n) {
  uint64_t m = std::max<uint64_t>(65537, 100 * n);
  while (!IsPrime(m)) ++m;
  return m;
}

void Admit(const Params& p, const TimelineStep& step) {
  const uint64_t m = p.Integer("table_size");
  const size_t n = step.live.size();
  if (n <= m) return;
  if (step.op == TimelineStep::Op::kBuild) {
    throw std::invalid_argument("maglev: table_size " + std::to_string(m) +
                                " is smaller than the " + std::to_string(n) +
                                " nodes; the paper advises M > 100 n");
  }
  throw Unsupported("maglev: table size " + std::to_string(m) + " cannot hold " +
                    std::to_string(n) + " nodes");
}

constexpr ParamSpec kParams[] = {
    kHasherParam,
    kKeyHasherParam,
    {.name = "table_size",
     .type = ParamType::kInteger,
     .doc = "lookup table entries M, a prime; the paper advises M > 100 n",
     .default_number = 65537,
     .min = 2,
     .max = kMaxTableSize,
     .rule = IsPrime,
     .rule_doc = "a prime",
     .auto_value = AutoTableSize,
     .auto_doc = "the smallest prime >= max(65537, 100 n), n the initial nodes",
     .symbol = "M"},
};

}  // namespace

constinit const AlgorithmSpec kMaglevSpec{
    .name = "maglev",
    .summary = "Maglev lookup table, rebuilt on change; weighted by turns per round",
    .paper =
        "Eisenbud et al., \"Maglev: A Fast and Reliable Software Network Load Balancer\", "
        "NSDI 2016",
    .year = 2016,
    .capabilities = {.weights = true,
                     .arbitrary_removal = true,
                     .incremental = false,
                     .exact_shares = true,
                     .stateful = false,
                     .minimal_disruption = false,
                     .history_free = false},
    .params = kParams,
    .tuned_param = "table_size",
    // Each backend gets floor or ceil(M/n) entries (section 3.4): max/mean
    // is about 1 + n/M.
    .tune_guess = [](uint64_t n, double target) { return static_cast<double>(n) / (target - 1); },
    .balance_bound = 1.01,
    .memory_bytes =
        [](const Params& p, uint64_t n) {
          return 4.0 * static_cast<double>(p.Integer("table_size") + n);
        },
    .memory_doc = "4 bytes per table entry, 4 per node",
    .key_hasher = KeyHasherOrXxh3,
    .admit = Admit,
    .make = MakeAs<Maglev>,
};

}  // namespace algorithms_internal
}  // namespace chsim
