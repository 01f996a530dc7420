// SPDX-License-Identifier: Apache-2.0
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
//
// Each probe finds the next point through a bucket index, as Ring does
// (chsim/ring.h): index_[b] is the first point whose top `bits` bits are >= b
// (bits = bit width of the node count: 0.5-1 point per bucket), and the kPad
// points from there are compared with the probe without branches; the count
// below the probe is the answer's offset (points past the bucket are above
// it). Only a crowded bucket (all kPad below) binary-searches the rest of the
// bucket. kPad sentinels UINT64_MAX end the array: a count that reaches the
// end is the wrap to point 0. Answers equal std::lower_bound's
// (tests/algorithms/multi_probe_test.cc compares them). Add and Remove
// rebuild the index: O(n + 2^bits).
#include <bit>

#include "devirtualize.h"
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
    std::vector<std::pair<uint64_t, uint32_t>> points(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      points[i] = {NodeSeed(*hasher_, nodes[i]), static_cast<uint32_t>(i)};
    }
    std::sort(points.begin(), points.end());  // equal points: the earlier id first
    for (const auto& [point, id] : points) points_.push_back(point), owners_.push_back(id);
    Reindex();
  }

  uint32_t Locate(uint64_t key_hash) const noexcept override {
    const uint64_t h1 = Mix64(key_hash);
    const uint64_t h2 = Mix64(h1 ^ 0x70726f6265ULL) | 1;  // "probe"
    uint64_t best_distance = UINT64_MAX;
    size_t best = 0;
    uint64_t probe = h1;
    for (uint32_t i = 0; i < probes_; ++i, probe += h2) {
      size_t j = Next(probe);
      if (j == size_) j = 0;                  // wrap
      const uint64_t d = points_[j] - probe;  // clockwise distance, mod 2^64
      if (d < best_distance) best_distance = d, best = j;
    }
    return owners_[best];
  }
  void LocateBatch(std::span<const uint64_t> hashes,
                   std::span<uint32_t> out) const noexcept override {
    LocateEach(*this, hashes, out);
  }
  size_t MemoryBytes() const noexcept override {
    return points_.capacity() * sizeof(uint64_t) +
           (owners_.capacity() + index_.capacity()) * sizeof(uint32_t) + IdBytes();
  }

 private:
  static constexpr size_t kPad = 4;  // points compared per probe; sentinels

  // Index of the first point >= probe (size_ if none).
  size_t Next(uint64_t probe) const noexcept {
    const uint64_t* e = points_.data() + index_[probe >> shift_];
    const size_t below = static_cast<size_t>(e[0] < probe) + static_cast<size_t>(e[1] < probe) +
                         static_cast<size_t>(e[2] < probe) + static_cast<size_t>(e[3] < probe);
    if (below == kPad) [[unlikely]]
      return Crowded(probe);
    return static_cast<size_t>(e - points_.data()) + below;
  }
  // The rest of a bucket holding more than kPad points below the probe.
  [[gnu::noinline]] size_t Crowded(uint64_t probe) const noexcept {
    const size_t b = static_cast<size_t>(probe >> shift_);
    const uint64_t* first = points_.data() + index_[b] + kPad;
    const uint64_t* last = points_.data() + index_[b + 1];
    return static_cast<size_t>(std::lower_bound(first, last, probe) - points_.data());
  }

  // Point, owner and index are rebuilt into temporaries and swapped in, so a
  // throw (bad_alloc) changes nothing.
  void OnAdd(const Node& node, uint32_t id) override {
    auto [points, owners] = Unpadded(size_ + 1);
    const uint64_t point = NodeSeed(*hasher_, node);
    // Equal points (a 64-bit collision): the later node sorts after and is
    // never nearest; deterministic either way.
    auto at = std::upper_bound(points.begin(), points.end(), point);
    owners.insert(owners.begin() + (at - points.begin()), id);
    points.insert(at, point);
    Commit(std::move(points), std::move(owners));
  }
  void OnRemove(size_t, uint32_t id) override {
    auto [points, owners] = Unpadded(size_);
    const auto j = std::find(owners.begin(), owners.end(), id) - owners.begin();
    points.erase(points.begin() + j);
    owners.erase(owners.begin() + j);
    Commit(std::move(points), std::move(owners));
  }
  // Copies of the points and owners without the sentinels, with room for
  // `room` of each plus the sentinels.
  std::pair<std::vector<uint64_t>, std::vector<uint32_t>> Unpadded(size_t room) const {
    std::pair<std::vector<uint64_t>, std::vector<uint32_t>> out;
    out.first.reserve(room + kPad);
    out.second.reserve(room + kPad);
    out.first.assign(points_.begin(), points_.begin() + static_cast<ptrdiff_t>(size_));
    out.second.assign(owners_.begin(), owners_.begin() + static_cast<ptrdiff_t>(size_));
    return out;
  }
  void Commit(std::vector<uint64_t> points, std::vector<uint32_t> owners) {
    std::swap(points, points_);
    std::swap(owners, owners_);
    try {
      Reindex();
    } catch (...) {
      std::swap(points, points_);
      std::swap(owners, owners_);
      throw;
    }
  }
  // Appends the kPad sentinels to the sorted points and rebuilds index_ (the
  // invariants above). Strong guarantee: index_ is built aside.
  void Reindex() {
    const size_t n = points_.size();
    points_.reserve(n + kPad);
    owners_.reserve(n + kPad);
    const int bits = std::min(static_cast<int>(std::bit_width(n)), 24);
    const int shift = 64 - bits;
    std::vector<uint32_t> index((size_t{1} << bits) + 1, 0);
    size_t j = 0;
    for (size_t b = 0; b + 1 < index.size(); ++b) {
      while (j < n && (points_[j] >> shift) < b) ++j;
      index[b] = static_cast<uint32_t>(j);
    }
    index.back() = static_cast<uint32_t>(n);
    points_.resize(n + kPad, UINT64_MAX);  // no allocation: reserved
    owners_.resize(n + kPad, owners_[0]);
    index_.swap(index);
    size_ = n;
    shift_ = shift;
  }

  const Hasher* hasher_;
  uint32_t probes_;
  std::vector<uint64_t> points_;  // ascending, then kPad sentinels UINT64_MAX
  std::vector<uint32_t> owners_;  // parallel: node id
  std::vector<uint32_t> index_;   // 2^bits + 1 entries: first point of each top-bits bucket
  size_t size_ = 0;               // points without the sentinels
  int shift_ = 63;                // 64 - bits
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
    .tuned_param = "probes",
    // Peak-to-mean falls roughly as 1 + 1/k (the paper reports 1.05 at 21).
    .tune_guess = [](uint64_t, double target) { return 1 / (target - 1); },
    .balance_bound = 1.15,
    .memory_bytes = [](const Params&, uint64_t n) { return 20.0 * static_cast<double>(n); },
    .memory_doc = "20-24 bytes per node (point, owner, id, 4-8 of bucket index)",
    .key_hasher = KeyHasherOrPointHasher,
    .make = MakeAs<MultiProbe>,
};

}  // namespace chsim::algorithms_internal
