// `multi_probe`: multi-probe consistent hashing (Appleton & O'Reilly,
// "Multi-Probe Consistent Hashing", arXiv:1505.00062, 2015).
//
// Each node has one point on a 64-bit ring (its label's seed). A key is hashed
// `probes` times; for each probe the distance to the next node point clockwise
// is measured, and the key goes to the node at the smallest distance (ties:
// the earlier probe). With 21 probes the paper reports a peak-to-mean load of
// about 1.05 with one point per node. Probe i is h1 + i * h2 (Kirsch &
// Mitzenmacher double hashing, as the authors' Go library does) with h1, h2
// two mixes of the key hash, h2 odd.
//
// Adding a node can only shorten some distances, to itself; removing one only
// affects the keys it won: disruption is minimal. No weights (the paper has
// none): a weighted list is refused with Unsupported.
#include "internal.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kMultiProbeSpec;

namespace {

class MultiProbe final : public AlgorithmBase {
 public:
  MultiProbe(std::span<const Node> nodes, const Params& p)
      : AlgorithmBase(kMultiProbeSpec, nodes, p),
        hasher_(&GetHasher(p.Text("hasher"))),
        probes_(static_cast<uint32_t>(p.Integer("probes"))) {
    for (size_t i = 0; i < nodes.size(); ++i) Insert(nodes[i], static_cast<uint32_t>(i));
  }

  uint32_t Locate(uint64_t key_hash) const noexcept override {
    const uint64_t h1 = Mix64(key_hash);
    const uint64_t h2 = Mix64(h1 ^ 0x70726f6265ULL) | 1;  // "probe"
    const size_t n = points_.size();
    const uint64_t* pts = points_.data();
    uint64_t best_distance = UINT64_MAX;
    size_t best = 0;
    uint64_t probe = h1;
    for (uint32_t i = 0; i < probes_; ++i, probe += h2) {
      size_t j = static_cast<size_t>(std::lower_bound(pts, pts + n, probe) - pts);
      if (j == n) j = 0;                  // wrap
      const uint64_t d = pts[j] - probe;  // clockwise distance, mod 2^64
      if (d < best_distance) best_distance = d, best = j;
    }
    return owners_[best];
  }
  size_t MemoryBytes() const noexcept override {
    return points_.capacity() * sizeof(uint64_t) + owners_.capacity() * sizeof(uint32_t) +
           IdBytes();
  }

 private:
  void OnAdd(const Node& node, uint32_t id) override { Insert(node, id); }
  void OnRemove(size_t, uint32_t id) override {
    size_t j = static_cast<size_t>(std::find(owners_.begin(), owners_.end(), id) - owners_.begin());
    points_.erase(points_.begin() + static_cast<std::ptrdiff_t>(j));
    owners_.erase(owners_.begin() + static_cast<std::ptrdiff_t>(j));
  }
  void Insert(const Node& node, uint32_t id) {
    ReserveOneMore(points_);  // both first: a throw changes nothing
    ReserveOneMore(owners_);
    const uint64_t point = NodeSeed(*hasher_, node);
    // Equal points (a 64-bit collision): the later node sorts after and is
    // never nearest; deterministic either way.
    auto at = std::upper_bound(points_.begin(), points_.end(), point);
    owners_.insert(owners_.begin() + (at - points_.begin()), id);
    points_.insert(at, point);
  }

  const Hasher* hasher_;
  uint32_t probes_;
  std::vector<uint64_t> points_;  // ascending
  std::vector<uint32_t> owners_;  // parallel: node id
};

constexpr ParamSpec kParams[] = {
    kHasherParam,
    kKeyHasherParam,
    {.name = "probes",
     .type = ParamType::kInteger,
     .doc = "probes per key; the paper reports peak-to-mean about 1.05 with 21",
     .default_number = 21,
     .min = 1,
     .max = 1024},
};

}  // namespace

constinit const AlgorithmSpec kMultiProbeSpec{
    .name = "multi_probe",
    .summary = "multi-probe consistent hashing: one point per node, each key probed k times",
    .paper = "Appleton & O'Reilly, \"Multi-Probe Consistent Hashing\", arXiv:1505.00062",
    .year = 2015,
    .capabilities = {.weights = false,
                     .arbitrary_removal = true,
                     .incremental = true,
                     .exact_shares = false,
                     .stateful = false,
                     .minimal_disruption = true,
                     .history_free = true},
    .params = kParams,
    .balance_bound = 1.15,
    .memory_bytes = [](const Params&, uint64_t n) { return 16.0 * static_cast<double>(n); },
    .memory_doc = "16 bytes per node (point, owner, id)",
    .key_hasher = KeyHasherOrPointHasher,
    .make = [](std::span<const Node> nodes, const Params& p) -> std::unique_ptr<Algorithm> {
      return std::make_unique<MultiProbe>(nodes, p);
    },
};

}  // namespace chsim::algorithms_internal
