#include "chsim/ring.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>

#include "chsim/md5.h"
#include "chsim/md5_batch.h"

namespace chsim {
namespace {

// The profile's node order: a permutation of 0..n-1.
std::vector<uint32_t> NodeOrderOf(const Profile& p, std::span<const Node> nodes) {
  std::vector<uint32_t> order(nodes.size());
  std::iota(order.begin(), order.end(), 0u);
  if (p.order == NodeOrder::kByNameLengthThenBytes) {
    // twemproxy nc_conf.c conf_validate_server: array_sort by string_compare,
    // which puts shorter names first, then compares bytes.
    std::vector<std::string> names(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) names[i] = PointKeyPrefix(p, nodes[i]);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      if (names[a].size() != names[b].size()) return names[a].size() < names[b].size();
      return names[a] < names[b];
    });
  }
  return order;
}

// HashMd5 through the own one-block MD5 (Md5Le32): same values.
uint64_t HashMd5OneBlock(const void* data, size_t len) noexcept { return Md5Le32(data, len); }

// Point keys waiting for MD5: hashed many at a time with the multi-buffer MD5
// (md5_batch.h; equal to OpenSSL's digests), then turned into up to 4 entries
// each (libketama's LE32 slices), in the order they were added.
class PointKeyBatch {
 public:
  explicit PointKeyBatch(std::vector<uint64_t>* entries) : entries_(entries) {
    bytes_.reserve(kBatch * 32);
  }
  void Add(std::string_view key, uint32_t rank, uint32_t take) {
    ends_[n_] = bytes_.size() + key.size();
    bytes_.append(key);
    rank_[n_] = rank;
    take_[n_] = static_cast<uint8_t>(take);
    if (++n_ == kBatch) Flush();
  }
  void Flush() {
    size_t start = 0;
    for (size_t i = 0; i < n_; ++i) {
      views_[i] = std::string_view(bytes_.data() + start, ends_[i] - start);
      start = ends_[i];
    }
    Md5BatchDigests(std::span(views_.data(), n_), std::span(digests_.data(), n_));
    for (size_t i = 0; i < n_; ++i) {
      for (uint32_t j = 0; j < take_[i]; ++j) {
        entries_->push_back(uint64_t{Md5Slice(digests_[i].data(), static_cast<int>(j))} << 32 |
                            rank_[i]);
      }
    }
    n_ = 0;
    bytes_.clear();
  }

 private:
  static constexpr size_t kBatch = 512;
  std::vector<uint64_t>* entries_;
  std::string bytes_;
  size_t n_ = 0;
  std::array<size_t, kBatch> ends_;
  std::array<uint32_t, kBatch> rank_;
  std::array<uint8_t, kBatch> take_;
  std::array<std::string_view, kBatch> views_;
  std::array<std::array<uint8_t, 16>, kBatch> digests_;
};

// Stable sort of entries by their top 32 bits (the point): LSD radix sort,
// 3 passes of 11, 11 and 10 bits (Knuth, TAOCP vol. 3, 5.2.5), all three
// histograms from one read; std::stable_sort below a few thousand entries,
// where the histograms would cost more than they save.
void SortByPoint(std::vector<uint64_t>& v) {
  if (v.size() < 4096) {
    std::stable_sort(v.begin(), v.end(),
                     [](uint64_t a, uint64_t b) { return (a >> 32) < (b >> 32); });
    return;
  }
  constexpr int kShift[3] = {32, 43, 54};
  constexpr uint32_t kMask[3] = {0x7FF, 0x7FF, 0x3FF};
  std::vector<uint32_t> count(3 * 2048, 0);
  for (uint64_t e : v) {
    for (int p = 0; p < 3; ++p) ++count[p * 2048 + ((e >> kShift[p]) & kMask[p])];
  }
  std::unique_ptr<uint64_t[]> tmp(new uint64_t[v.size()]);  // uninitialised: fully written
  uint64_t* src = v.data();
  uint64_t* dst = tmp.get();
  for (int p = 0; p < 3; ++p) {
    uint32_t* c = count.data() + p * 2048;
    uint32_t sum = 0;
    for (int b = 0; b < 2048; ++b) {
      const uint32_t k = c[b];
      c[b] = sum;
      sum += k;
    }
    for (size_t i = 0; i < v.size(); ++i) {
      const uint64_t e = src[i];
      dst[c[(e >> kShift[p]) & kMask[p]]++] = e;
    }
    std::swap(src, dst);
  }
  if (src != v.data()) std::copy(src, src + v.size(), v.data());  // odd pass count
}

}  // namespace

Ring Ring::Build(const Profile& profile, std::span<const Node> nodes, bool weighted) {
  if (nodes.empty()) throw std::invalid_argument("a ring needs at least one node");
  if (nodes.size() > kMaxNodes) {
    throw std::invalid_argument("a ring takes at most " + std::to_string(kMaxNodes) +
                                " nodes (got " + std::to_string(nodes.size()) + ")");
  }
  if (profile.key_hasher == nullptr || profile.point_hasher == nullptr) {
    throw std::invalid_argument("profile '" + profile.name + "' has no hasher");
  }
  if (profile.weighted_only_above_one) weighted = false;
  for (const Node& n : nodes) {
    if (n.weight != 1) weighted = true;
    if (n.weight == 0) throw std::invalid_argument("node '" + n.label + "' has weight 0");
  }
  const uint64_t total_weight = TotalWeight(nodes);
  const std::vector<uint32_t> order = NodeOrderOf(profile, nodes);
  const bool md5x4 = profile.points_per_hash == 4 || (weighted && profile.weighted_uses_md5);

  std::vector<uint32_t> counts(nodes.size());
  uint64_t total_points = 0;
  for (size_t r = 0; r < nodes.size(); ++r) {
    const Node& node = nodes[order[r]];
    counts[r] = PointsForNode(profile, weighted, node.weight, total_weight, nodes.size());
    total_points += counts[r];
  }
  if (total_points > kMaxPoints) {
    throw std::invalid_argument("ring would have " + std::to_string(total_points) +
                                " points; the limit is " + std::to_string(kMaxPoints));
  }
  if (total_points == 0) throw std::invalid_argument("ring would have no points");

  // Each entry packs (point << 32 | tie rank) so one integer sort orders the
  // ring by point and then by the profile's winner first.
  // Each entry packs (point << 32 | tie rank); rank 0 is the profile's winner.
  // Entries are made in ascending rank, so a stable sort on the point alone
  // orders the ring by (point, rank).
  std::vector<uint64_t> entries;
  entries.reserve(total_points);
  const bool later_wins = profile.tie == TieRule::kLaterWins;
  const size_t n_nodes = nodes.size();
  std::string key;
  PointKeyBatch batch(&entries);
  for (size_t rank = 0; rank < n_nodes; ++rank) {
    const size_t r = later_wins ? n_nodes - 1 - rank : rank;  // position in profile order
    key = PointKeyPrefix(profile, nodes[order[r]]);
    key.push_back('-');
    const size_t prefix_len = key.size();
    char digits[16];
    const uint32_t want = counts[r];
    for (uint32_t i = 0, emitted = 0; emitted < want; ++i) {
      auto [end, ec] = std::to_chars(digits, digits + sizeof digits, i);
      (void)ec;
      key.resize(prefix_len);
      key.append(digits, end);
      if (md5x4) {
        const uint32_t take = std::min<uint32_t>(4, want - emitted);
        batch.Add(key, static_cast<uint32_t>(rank), take);
        emitted += take;
      } else {
        entries.push_back(uint64_t{static_cast<uint32_t>((*profile.point_hasher)(key))} << 32 |
                          rank);
        ++emitted;
      }
    }
  }
  batch.Flush();
  SortByPoint(entries);

  Ring ring;
  ring.num_nodes_ = nodes.size();
  ring.key_hasher_ = profile.key_hasher;
  ring.key_is_md5_ = profile.key_hasher->fn == &HashMd5;
  ring.key_fn_ = ring.key_is_md5_ ? &HashMd5OneBlock : profile.key_hasher->fn;
  ring.edge_greater_ = profile.edge == LookupEdge::kGreater;
  auto owner_of = [&](uint64_t e) {
    uint32_t rank = static_cast<uint32_t>(e);
    uint32_t r = later_wins ? static_cast<uint32_t>(n_nodes - 1 - rank) : rank;
    return order[r];
  };
  ring.points_.reserve(entries.size() + 1);
  ring.owners_.reserve(entries.size() + 1);
  uint32_t winner = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const uint32_t point = static_cast<uint32_t>(entries[i] >> 32);
    const bool first_of_run = i == 0 || (entries[i - 1] >> 32) != point;
    if (first_of_run) winner = owner_of(entries[i]);
    if (!first_of_run && profile.duplicates == DuplicatePoints::kDrop) continue;
    ring.points_.push_back(point);
    ring.owners_.push_back(profile.duplicates == DuplicatePoints::kKeep ? owner_of(entries[i])
                                                                        : winner);
  }
  entries = {};
  const size_t n = ring.points_.size();
  ring.points_.push_back(UINT32_MAX);       // sentinel, never compared
  ring.owners_.push_back(ring.owners_[0]);  // the wrap

  // Bucket index on the top `bits` bits: index_[b] = first position whose
  // point >= b << shift. About one point per bucket (bits = ceil(log2 n)),
  // capped at 2^24 buckets (64 MiB); crowded buckets fall back to a binary search.
  int bits = std::clamp(static_cast<int>(std::bit_width(n - 1)), 1, 24);
  ring.shift_ = 32 - bits;
  const size_t buckets = size_t{1} << bits;
  ring.index_.resize(buckets + 1);
  size_t pos = 0;
  for (size_t b = 0; b < buckets; ++b) {
    const uint64_t start = uint64_t{b} << ring.shift_;
    while (pos < n && ring.points_[pos] < start) ++pos;
    ring.index_[b] = static_cast<uint32_t>(pos);
  }
  ring.index_[buckets] = static_cast<uint32_t>(n);
  return ring;
}

std::vector<uint64_t> Ring::ArcLengths() const {
  std::vector<uint64_t> arcs(num_nodes_, 0);
  const size_t n = size();
  if (n == 0) return arcs;
  // Under ">=", hashes in (v_{j-1}, v_j] go to the first entry of v_j's run;
  // under ">", hashes in [v_{j-1}, v_j) do. Both arcs have length v_j - v_{j-1};
  // the wrap arc (2^32 - v_last + v_first) goes to the first point's owner.
  uint32_t prev = points_[0];
  for (size_t i = 1; i < n; ++i) {
    if (points_[i] == prev) continue;
    arcs[owners_[i]] += points_[i] - prev;
    prev = points_[i];
  }
  arcs[owners_[0]] += (uint64_t{1} << 32) - prev + points_[0];
  return arcs;
}

std::vector<double> Ring::StructuralShares() const {
  std::vector<uint64_t> arcs = ArcLengths();
  std::vector<double> shares(arcs.size());
  for (size_t i = 0; i < arcs.size(); ++i) shares[i] = static_cast<double>(arcs[i]) / 4294967296.0;
  return shares;
}

void Ring::LocateHashBatch(std::span<const uint32_t> hashes,
                           std::span<uint32_t> out) const noexcept {
  for (size_t i = 0; i < hashes.size(); ++i) out[i] = LocateHash(hashes[i]);
}

void Ring::LocateBatch(std::span<const std::string_view> keys,
                       std::span<uint32_t> out) const noexcept {
  if (!key_is_md5_) {
    for (size_t i = 0; i < keys.size(); ++i) out[i] = LocateHash(HashKey(keys[i]));
    return;
  }
  // Hash a chunk with the multi-buffer MD5, then search; the chunk's hashes
  // stay in L1 and the independent searches overlap.
  constexpr size_t kChunk = 256;
  uint32_t h[kChunk];
  for (size_t base = 0; base < keys.size(); base += kChunk) {
    const size_t n = std::min(kChunk, keys.size() - base);
    Md5BatchLe32(keys.subspan(base, n), std::span(h, n));
    for (size_t i = 0; i < n; ++i) out[base + i] = LocateHash(h[i]);
  }
}

size_t Ring::MemoryBytes() const noexcept {
  return sizeof(Ring) + points_.capacity() * sizeof(uint32_t) +
         owners_.capacity() * sizeof(uint32_t) + index_.capacity() * sizeof(uint32_t);
}

}  // namespace chsim
