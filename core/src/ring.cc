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

using Entry = Ring::Entry;

// Point keys waiting for MD5: hashed many at a time with the multi-buffer MD5
// (md5_batch.h; equal to OpenSSL's digests), then turned into up to 4 points
// each (libketama's LE32 slices), appended in the order the keys were added.
class PointKeyBatch {
 public:
  explicit PointKeyBatch(std::vector<uint32_t>* points) : points_(points) {
    bytes_.reserve(kBatch * 32);
  }
  void Add(std::string_view key, uint32_t take) {
    bytes_.append(key);
    ends_[n_] = bytes_.size();
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
        points_->push_back(Md5Slice(digests_[i].data(), static_cast<int>(j)));
      }
    }
    n_ = 0;
    bytes_.clear();
  }

 private:
  static constexpr size_t kBatch = 512;
  std::vector<uint32_t>* points_;
  std::string bytes_;
  size_t n_ = 0;
  std::array<size_t, kBatch> ends_;
  std::array<uint8_t, kBatch> take_;
  std::array<std::string_view, kBatch> views_;
  std::array<std::array<uint8_t, 16>, kBatch> digests_;
};

// Sorts entries by point, stably, when they are already in order but for
// short runs (insertion sort: one compare per entry, and a move per inversion);
// std::stable_sort for a long stretch, as a crowded bucket can be.
void SortNearlySorted(Entry* first, Entry* last, uint32_t longest_bucket) {
  if (longest_bucket > 64) {
    std::stable_sort(first, last, [](const Entry& a, const Entry& b) { return a.point < b.point; });
    return;
  }
  for (Entry* i = first + 1; i < last; ++i) {
    if (!(i->point < (i - 1)->point)) continue;
    const Entry v = *i;
    Entry* j = i;
    for (; j > first && v.point < (j - 1)->point; --j) *j = *(j - 1);
    *j = v;
  }
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

  // The points, node by node in rank order (rank 0 is the profile's winner
  // of a tie), each node's point keys built in one buffer.
  std::vector<uint32_t> points;
  points.reserve(total_points);
  const bool later_wins = profile.tie == TieRule::kLaterWins;
  const size_t n_nodes = nodes.size();
  auto position_of = [&](size_t rank) { return later_wins ? n_nodes - 1 - rank : rank; };
  std::string key;
  PointKeyBatch batch(&points);
  for (size_t rank = 0; rank < n_nodes; ++rank) {
    const size_t r = position_of(rank);
    key = PointKeyPrefix(profile, nodes[order[r]]);
    key.push_back('-');
    const size_t prefix_len = key.size();
    key.resize(prefix_len + 10);  // room for any uint32_t in decimal
    const uint32_t want = counts[r];
    for (uint32_t i = 0, emitted = 0; emitted < want; ++i) {
      char* end = std::to_chars(key.data() + prefix_len, key.data() + key.size(), i).ptr;
      const std::string_view k(key.data(), static_cast<size_t>(end - key.data()));
      if (md5x4) {
        const uint32_t take = std::min<uint32_t>(4, want - emitted);
        batch.Add(k, take);
        emitted += take;
      } else {
        points.push_back(static_cast<uint32_t>((*profile.point_hasher)(k)));
        ++emitted;
      }
    }
  }
  batch.Flush();
  const size_t made = points.size();

  Ring ring;
  ring.num_nodes_ = nodes.size();
  ring.key_hasher_ = profile.key_hasher;
  ring.key_is_xxh3_ = profile.key_hasher->fn == &HashXxh3;
  ring.key_fn_ = profile.key_hasher->fn;
  ring.edge_greater_ = profile.edge == LookupEdge::kGreater;

  // Bucket index on the top `bits` bits of a point: bits = floor(log2 of the
  // points made) puts 1-2 points in a bucket on average (fewer buckets than
  // points: a smaller index, and with kPad = 4 compares a uniform hash still
  // finds its answer among the first 4 entries 96-99% of the time); capped at
  // 2^26 buckets (256 MiB, for rings of 2^27 points and more).
  const int bits = std::clamp(static_cast<int>(std::bit_width(made)) - 1, 1, 26);
  const int shift = 32 - bits;
  const size_t buckets = size_t{1} << bits;
  ring.shift_ = shift;

  // A stable sort by point (so equal points stay in rank order) in two
  // levels of counting sort (Knuth, TAOCP vol. 3, 5.2, Algorithm D), each
  // pass free of data-dependent branches. First on the top (up to 8) bits,
  // from the points into the ring's entries as {point, rank}.
  const int top_bits = std::min(bits, 8);
  const int top_shift = 32 - top_bits;
  const size_t tops = size_t{1} << top_bits;
  std::array<uint32_t, 257> top_start{};  // counts, then starts; [tops] = made
  for (uint32_t p : points) ++top_start[(p >> top_shift) + 1];
  for (size_t t = 0; t < tops; ++t) top_start[t + 1] += top_start[t];
  std::vector<Entry> entries;
  entries.reserve(made + kPad);
  entries.resize(made);
  {
    std::array<uint32_t, 256> head;
    std::copy(top_start.begin(), top_start.begin() + tops, head.begin());
    size_t i = 0;
    for (size_t rank = 0; rank < n_nodes; ++rank) {
      const size_t end = i + counts[position_of(rank)];
      for (; i < end; ++i) {
        const uint32_t p = points[i];
        entries[head[p >> top_shift]++] = {p, static_cast<uint32_t>(rank)};
      }
    }
  }
  points = {};

  // Then each top bucket (about 1/256 of the ring): a counting sort on the
  // index's remaining bits into a buffer, an insertion sort for the order
  // inside an index bucket, and a pass that turns ranks into owners, keeps a
  // run of equal points' first entry (the winner), drops or keeps the others
  // per profile, and writes them back in place from the front. Index bucket b
  // starts where its entries were placed, less the entries dropped before it.
  const int fine_bits = bits - top_bits;
  const size_t fines = size_t{1} << fine_bits;
  const uint32_t fine_mask = static_cast<uint32_t>(fines - 1);
  uint32_t largest_top = 0;
  for (size_t t = 0; t < tops; ++t) {
    largest_top = std::max(largest_top, top_start[t + 1] - top_start[t]);
  }
  std::unique_ptr<Entry[]> buf(new Entry[largest_top]);  // written before read
  std::vector<uint32_t> fine_start(fines + 1);
  std::vector<uint32_t> next(fines);  // write heads of the index buckets
  std::vector<uint32_t> dropped_in;   // index bucket of each entry dropped in this top bucket
  std::vector<uint32_t>& index = ring.index_;
  index.resize(buckets + 1);
  auto owner_of = [&](uint32_t rank) { return order[position_of(rank)]; };
  const DuplicatePoints dup = profile.duplicates;
  size_t n = 0;  // entries kept so far; never past the first entry not yet in buf
  uint32_t winner = 0;
  for (size_t t = 0; t < tops; ++t) {
    const Entry* first = entries.data() + top_start[t];
    const Entry* last = entries.data() + top_start[t + 1];
    const uint32_t len = top_start[t + 1] - top_start[t];
    std::fill(fine_start.begin(), fine_start.end(), 0);
    for (const Entry* e = first; e < last; ++e) ++fine_start[((e->point >> shift) & fine_mask) + 1];
    uint32_t longest = 0;
    for (size_t f = 0; f < fines; ++f) {
      longest = std::max(longest, fine_start[f + 1]);
      fine_start[f + 1] += fine_start[f];
    }
    std::copy(fine_start.begin(), fine_start.end() - 1, next.begin());
    for (const Entry* e = first; e < last; ++e) buf[next[(e->point >> shift) & fine_mask]++] = *e;
    SortNearlySorted(buf.get(), buf.get() + len, longest);
    const size_t base = n;
    dropped_in.clear();
    for (uint32_t i = 0; i < len; ++i) {
      const Entry e = buf[i];
      const bool first_of_run = n == 0 || entries[n - 1].point != e.point;
      if (first_of_run) winner = owner_of(e.owner);
      if (!first_of_run && dup == DuplicatePoints::kDrop) [[unlikely]] {
        dropped_in.push_back((e.point >> shift) & fine_mask);
        continue;
      }
      entries[n++] = {e.point, dup == DuplicatePoints::kKeep ? owner_of(e.owner) : winner};
    }
    size_t d = 0;
    for (size_t f = 0; f < fines; ++f) {
      while (d < dropped_in.size() && dropped_in[d] < f) ++d;
      index[t << fine_bits | f] = static_cast<uint32_t>(base + fine_start[f] - d);
    }
  }
  index[buckets] = static_cast<uint32_t>(n);
  entries.resize(n);
  entries.insert(entries.end(), kPad, Entry{UINT32_MAX, entries[0].owner});  // sentinels: the wrap
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

uint32_t Ring::HashByFn(std::string_view key) const noexcept {
  return static_cast<uint32_t>(key_fn_(key.data(), key.size()));
}

void Ring::LocateHashBatch(std::span<const uint32_t> hashes,
                           std::span<uint32_t> out) const noexcept {
  for (size_t i = 0; i < hashes.size(); ++i) out[i] = LocateHash(hashes[i]);
}

void Ring::LocateBatch(std::span<const std::string_view> keys,
                       std::span<uint32_t> out) const noexcept {
  // Hash a chunk (HashBatch: the multi-buffer MD5 for md5), then search it:
  // the chunk's hashes stay in L1, and the searches, free of the hash's calls
  // and of each other, overlap in the out-of-order window.
  constexpr size_t kChunk = 256;
  uint64_t h[kChunk];
  for (size_t base = 0; base < keys.size(); base += kChunk) {
    const size_t n = std::min(kChunk, keys.size() - base);
    HashBatch(*key_hasher_, keys.subspan(base, n), std::span(h, n));
    for (size_t i = 0; i < n; ++i) out[base + i] = LocateHash(static_cast<uint32_t>(h[i]));
  }
}

size_t Ring::MemoryBytes() const noexcept {
  return sizeof(Ring) + entries_.capacity() * sizeof(Entry) + index_.capacity() * sizeof(uint32_t);
}

}  // namespace chsim
