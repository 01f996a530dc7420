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

// XXH3 inlined from xxHash's header (its functions become static here): the
// same code as libxxhash 0.8's XXH3_64bits (its output is frozen since 0.8.0),
// without the PLT call. tests/core/ring_test.cc checks it against HashXxh3.
#define XXH_INLINE_ALL
#include <xxhash.h>

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
// HashXxh3 through the header-inlined XXH3: same values.
uint64_t HashXxh3Inline(const void* data, size_t len) noexcept { return XXH3_64bits(data, len); }

using Entry = Ring::Entry;

// Point keys waiting for MD5: hashed many at a time with the multi-buffer MD5
// (md5_batch.h; equal to OpenSSL's digests), then turned into up to 4 entries
// each (libketama's LE32 slices), in the order they were added.
class PointKeyBatch {
 public:
  explicit PointKeyBatch(std::vector<Entry>* entries) : entries_(entries) {
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
        entries_->push_back({Md5Slice(digests_[i].data(), static_cast<int>(j)), rank_[i]});
      }
    }
    n_ = 0;
    bytes_.clear();
  }

 private:
  static constexpr size_t kBatch = 512;
  std::vector<Entry>* entries_;
  std::string bytes_;
  size_t n_ = 0;
  std::array<size_t, kBatch> ends_;
  std::array<uint32_t, kBatch> rank_;
  std::array<uint8_t, kBatch> take_;
  std::array<std::string_view, kBatch> views_;
  std::array<std::array<uint8_t, 16>, kBatch> digests_;
};

// Stable sort of entries by point: LSD radix sort, 3 passes of 11, 11 and 10
// bits (Knuth, TAOCP vol. 3, 5.2.5), all three histograms from one read;
// std::stable_sort below a few thousand entries, where the histograms would
// cost more than they save.
void SortByPoint(std::vector<Entry>& v) {
  if (v.size() < 4096) {
    std::stable_sort(v.begin(), v.end(),
                     [](const Entry& a, const Entry& b) { return a.point < b.point; });
    return;
  }
  constexpr int kShift[3] = {0, 11, 22};
  constexpr uint32_t kMask[3] = {0x7FF, 0x7FF, 0x3FF};
  std::vector<uint32_t> count(3 * 2048, 0);
  for (const Entry& e : v) {
    for (int p = 0; p < 3; ++p) ++count[p * 2048 + ((e.point >> kShift[p]) & kMask[p])];
  }
  std::unique_ptr<Entry[]> tmp(new Entry[v.size()]);  // fully written by the first pass
  Entry* src = v.data();
  Entry* dst = tmp.get();
  for (int p = 0; p < 3; ++p) {
    uint32_t* c = count.data() + p * 2048;
    uint32_t sum = 0;
    for (int b = 0; b < 2048; ++b) {
      const uint32_t k = c[b];
      c[b] = sum;
      sum += k;
    }
    for (size_t i = 0; i < v.size(); ++i) {
      const Entry e = src[i];
      dst[c[(e.point >> kShift[p]) & kMask[p]]++] = e;
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

  // Entries are {point, tie rank} until sorted (rank 0 is the profile's
  // winner). They are made in ascending rank, so a stable sort on the point
  // alone orders the ring by (point, rank); ranks then become owners in place.
  std::vector<Entry> entries;
  entries.reserve(total_points + kPad);
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
        entries.push_back(
            {static_cast<uint32_t>((*profile.point_hasher)(key)), static_cast<uint32_t>(rank)});
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
  ring.key_fn_ = ring.key_is_md5_                      ? &HashMd5OneBlock
                 : profile.key_hasher->fn == &HashXxh3 ? &HashXxh3Inline
                                                       : profile.key_hasher->fn;
  ring.edge_greater_ = profile.edge == LookupEdge::kGreater;
  auto owner_of = [&](uint32_t rank) {
    return order[later_wins ? static_cast<uint32_t>(n_nodes - 1 - rank) : rank];
  };
  // Ranks to owners, in place; a run of equal points keeps its first entry
  // (the winner) and drops or keeps the others per profile.
  size_t n = 0;
  uint32_t winner = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry e = entries[i];
    const bool first_of_run = i == 0 || entries[n - 1].point != e.point;
    if (first_of_run) winner = owner_of(e.owner);
    if (!first_of_run && profile.duplicates == DuplicatePoints::kDrop) continue;
    entries[n++] = {e.point,
                    profile.duplicates == DuplicatePoints::kKeep ? owner_of(e.owner) : winner};
  }
  entries.resize(n);
  entries.insert(entries.end(), kPad, Entry{UINT32_MAX, entries[0].owner});  // sentinels: the wrap

  // Bucket index on the top `bits` bits: index_[b] = first entry whose point
  // >= b << shift. bits = floor(log2 n) puts 1-2 points in a bucket on average
  // (fewer buckets than points: a smaller index, and with kPad = 4 compares a
  // uniform hash still finds its answer in the first 4 entries 97-99% of the
  // time); capped at 2^26 buckets (256 MiB, a ring of 2^27+ points).
  const int bits = std::clamp(static_cast<int>(std::bit_width(n)) - 1, 1, 26);
  ring.shift_ = 32 - bits;
  const size_t buckets = size_t{1} << bits;
  ring.index_.resize(buckets + 1);
  size_t b = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t bucket = entries[i].point >> ring.shift_;
    while (b <= bucket) ring.index_[b++] = static_cast<uint32_t>(i);
  }
  while (b <= buckets) ring.index_[b++] = static_cast<uint32_t>(n);
  ring.entries_ = std::move(entries);
  return ring;
}

uint32_t Ring::Crowded(uint32_t h) const noexcept {
  // All kPad entries from the bucket's start are below h, so the answer is in
  // [lo + kPad, hi], and entry hi (the next bucket's first, or a sentinel) is
  // >= h. Branchless lower bound (Khuong & Morin 2017) over those positions;
  // each step keeps a range that holds the answer.
  const uint32_t b = h >> shift_;
  const Entry* base = entries_.data() + index_[b] + kPad;
  uint32_t len = index_[b + 1] + 1 - (index_[b] + kPad);
  while (len > 1) {
    const uint32_t half = len / 2;
    base = base[half - 1].point < h ? base + half : base;
    len -= half;
  }
  return static_cast<uint32_t>(base - entries_.data());
}

std::vector<uint64_t> Ring::ArcLengths() const {
  std::vector<uint64_t> arcs(num_nodes_, 0);
  const size_t n = size();
  if (n == 0) return arcs;
  // Under ">=", hashes in (v_{j-1}, v_j] go to the first entry of v_j's run;
  // under ">", hashes in [v_{j-1}, v_j) do. Both arcs have length v_j - v_{j-1};
  // the wrap arc (2^32 - v_last + v_first) goes to the first point's owner.
  uint32_t prev = entries_[0].point;
  for (size_t i = 1; i < n; ++i) {
    if (entries_[i].point == prev) continue;
    arcs[entries_[i].owner] += entries_[i].point - prev;
    prev = entries_[i].point;
  }
  arcs[entries_[0].owner] += (uint64_t{1} << 32) - prev + entries_[0].point;
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
  // Hash a chunk (the multi-buffer MD5 for md5), then search it: the chunk's
  // hashes stay in L1, and the searches, free of the hash's calls and of each
  // other, overlap in the out-of-order window.
  constexpr size_t kChunk = 256;
  uint32_t h[kChunk];
  for (size_t base = 0; base < keys.size(); base += kChunk) {
    const size_t n = std::min(kChunk, keys.size() - base);
    if (key_is_md5_) {
      Md5BatchLe32(keys.subspan(base, n), std::span(h, n));
    } else {
      for (size_t i = 0; i < n; ++i) h[i] = HashKey(keys[base + i]);
    }
    for (size_t i = 0; i < n; ++i) out[base + i] = LocateHash(h[i]);
  }
}

size_t Ring::MemoryBytes() const noexcept {
  return sizeof(Ring) + entries_.capacity() * sizeof(Entry) + index_.capacity() * sizeof(uint32_t);
}

}  // namespace chsim
