// SPDX-License-Identifier: Apache-2.0
#include "chsim/ring.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>

#include "chsim/md5.h"
#include "chsim/md5_batch.h"
#include "md5_rows.h"

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

// The bucket layout of a ring of `made` points: the index on the top `bits`
// bits of a point, bits = floor(log2 of the points made), which puts 1-2
// points in a bucket on average (fewer buckets than points: a smaller index,
// and with kPad = 4 compares a uniform hash still finds its answer among the
// first 4 entries 96-99% of the time), capped at 2^26 buckets (256 MiB, for
// rings of 2^27 points and more).
//
// The sort is a counting sort on those bits. Up to 2^kSingleLevelBits buckets
// (rings of up to 2^18 - 1 points; 1,600 nodes x 160) it is one level: the
// counters (the index itself, 512 KiB at most) and the entries stay in L2.
// Above that, two: first on the top 8 bits, then each top bucket on the rest,
// so that each pass's counters and destination stay in cache (measured: one
// level is faster at 100 and 1,000 nodes, two at 3,000).
struct Buckets {
  static constexpr int kSingleLevelBits = 17;
  explicit Buckets(size_t made)
      : bits(std::clamp(static_cast<int>(std::bit_width(made)) - 1, 1, 26)),
        shift(32 - bits),
        top_bits(bits > kSingleLevelBits ? std::min(bits, 8) : 0),
        top_shift(32 - top_bits),
        fine_bits(bits - top_bits),
        fine_mask((uint32_t{1} << fine_bits) - 1) {}
  int bits, shift, top_bits, top_shift, fine_bits;  // top_bits 0: one level
  uint32_t fine_mask;
  size_t tops() const { return size_t{1} << top_bits; }
  size_t fines() const { return size_t{1} << fine_bits; }
  uint32_t Fine(uint32_t point) const { return (point >> shift) & fine_mask; }
};

// Ring points made node by node: the point keys "PREFIX-i" (i = 0, 1, ...)
// of a node are written straight into the multi-buffer MD5's input rows
// (md5_rows.h), each from a row holding the node's prefix, and each digest
// gives up to 4 points (libketama's LE32 slices; equal to OpenSSL's MD5 bit
// for bit, tests/core/md5_batch_test.cc), written in key order. The sort's
// first pass, the histogram of the points' top bits, is counted on the way.
class Md5PointWriter {
 public:
  Md5PointWriter(uint32_t* out, uint32_t* top_count, int top_shift)
      : kernel_(md5mb::CurrentRowKernel()),
        out_(out),
        top_count_(top_count),
        top_shift_(top_shift) {
    std::memset(rows_, 0, sizeof rows_);  // lanes past the last key hash these
  }
  // Queues the first `want` points of a node whose keys are prefix + i
  // (prefix ends with '-'); flushes each full set of lanes.
  void AddNode(std::string_view prefix, uint32_t want) {
    // Key i's row: a copy of the node's row (prefix, zeros), then i's digits
    // and the 0x80 pad byte (one 8-byte store when they fit), and the bit
    // length. The node's row is read, never written, while its keys are made:
    // a row built byte by byte and then copied whole would stall each copy on
    // store-to-load forwarding.
    alignas(64) uint32_t node_row[16] = {};
    const size_t plen = prefix.size();
    const bool one_block = plen < kMd5OneBlockMaxLen;  // room for a digit
    if (one_block) std::memcpy(node_row, prefix.data(), plen);
    for (uint32_t i = 0, emitted = 0; emitted < want; ++i) {
      const uint32_t take = std::min<uint32_t>(4, want - emitted);
      emitted += take;
      uint32_t digits;
      const uint64_t word = DigitsAndPad(i, &digits);
      if (!one_block || i >= 10000000 || plen + digits > kMd5OneBlockMaxLen) {
        // A long name (or number): OpenSSL's MD5.
        const std::string key = std::string(prefix) + std::to_string(i);
        uint8_t d[16];
        Md5(key.data(), key.size(), d);
        for (uint32_t j = 0; j < take; ++j) Put(out_++, Md5Slice(d, static_cast<int>(j)));
        continue;
      }
      uint32_t* const row = rows_ + 16 * n_;
      std::memcpy(row, node_row, 64);
      char* const bytes = reinterpret_cast<char*>(row);
      if (plen + 8 <= 56) {  // clear of the length word (bytes 56..59)
        std::memcpy(bytes + plen, &word, 8);
      } else {
        for (uint32_t k = 0; k <= digits; ++k) bytes[plen + k] = static_cast<char>(word >> (8 * k));
      }
      row[14] = static_cast<uint32_t>((plen + digits) * 8);
      dst_[n_] = out_;
      take_[n_] = static_cast<uint8_t>(take);
      out_ += take;
      if (++n_ == kernel_.lanes) Flush();
    }
  }
  void Flush() {
    if (n_ == 0) return;
    kernel_.abcd(rows_, state_);
    const int lanes = kernel_.lanes;
    for (int l = 0; l < n_; ++l) {
      uint32_t* const dst = dst_[l];
      if (take_[l] == 4) [[likely]] {
        Put(dst, state_[l]);
        Put(dst + 1, state_[lanes + l]);
        Put(dst + 2, state_[2 * lanes + l]);
        Put(dst + 3, state_[3 * lanes + l]);
      } else {
        for (int j = 0; j < take_[l]; ++j) Put(dst + j, state_[j * lanes + l]);
      }
    }
    n_ = 0;
  }

 private:
  // The decimal digits of i < 10^7 followed by 0x80, as the bytes of a
  // little-endian word (first digit in the low byte); *digits = their count.
  static uint64_t DigitsAndPad(uint32_t i, uint32_t* digits) {
    uint64_t word = 0x80;
    uint32_t n = 0;
    do {
      word = word << 8 | ('0' + i % 10);
      i /= 10;
      ++n;
    } while (i != 0 && n < 7);
    *digits = i == 0 ? n : 8;  // 8: i >= 10^7, not represented
    return word;
  }
  void Put(uint32_t* dst, uint32_t point) {
    *dst = point;
    ++top_count_[point >> top_shift_];
  }

  const md5mb::RowKernel kernel_;
  uint32_t* out_;
  uint32_t* const top_count_;
  const int top_shift_;
  int n_ = 0;  // keys queued
  alignas(64) uint32_t rows_[16 * md5mb::kMaxLanes];
  alignas(64) uint32_t state_[4 * md5mb::kMaxLanes];
  uint32_t* dst_[md5mb::kMaxLanes];
  uint8_t take_[md5mb::kMaxLanes];
};

// Sorts entries by point, stably, when they are already in order but for
// short runs: an insertion sort, in two steps per window of entries so that
// the common case costs no mispredicted branch (~1 entry in 6 is out of
// order after the counting sort, at random): a branch-free scan lists the
// entries not above the one before, then each is inserted, and the insertion
// goes on while the next ones are out of order (it moved a larger entry in
// front of them). std::stable_sort for a long stretch, as a crowded bucket
// can be. Appends to *equal the point of every entry equal to the one before
// it once sorted (an entry goes after the entries equal to it, so the check is
// where it lands; a point may be listed more than once).
void SortNearlySorted(Entry* first, Entry* last, uint32_t longest_bucket,
                      std::vector<uint32_t>* equal) {
  const size_t n = static_cast<size_t>(last - first);
  if (longest_bucket > 64) {
    std::stable_sort(first, last, [](const Entry& a, const Entry& b) { return a.point < b.point; });
    for (size_t i = 1; i < n; ++i) {
      if (first[i].point == first[i - 1].point) equal->push_back(first[i].point);
    }
    return;
  }
  constexpr size_t kWindow = 2048;
  uint32_t listed[kWindow];
  for (size_t begin = 1; begin < n; begin += kWindow) {
    const size_t end = std::min(n, begin + kWindow);
    size_t count = 0;
    for (size_t i = begin; i < end; ++i) {
      listed[count] = static_cast<uint32_t>(i);
      count += first[i].point <= first[i - 1].point;
    }
    for (size_t k = 0; k < count; ++k) {
      for (size_t i = listed[k]; i < n && first[i].point <= first[i - 1].point; ++i) {
        const Entry v = first[i];
        size_t j = i;
        for (; j > 0 && v.point < first[j - 1].point; --j) first[j] = first[j - 1];
        first[j] = v;
        if (j > 0 && first[j - 1].point == v.point) equal->push_back(v.point);
      }
    }
  }
}

// The profile's plan of a ring: every node's point count, in rank order (rank
// 0 is the profile's winner of a tie), and the owner of each rank.
struct RingPlan {
  std::vector<uint32_t> owner;   // rank -> node index in the caller's list
  std::vector<uint32_t> counts;  // rank -> points
  uint64_t total = 0;
  bool md5x4 = false;
};

RingPlan PlanRing(const Profile& profile, std::span<const Node> nodes, bool weighted) {
  if (profile.engine != Engine::kRing) {
    throw std::invalid_argument("profile '" + profile.name +
                                "' is not a 32-bit ring (chsim/profile_map.h builds it)");
  }
  if (nodes.empty()) throw std::invalid_argument("a ring needs at least one node");
  if (nodes.size() > Ring::kMaxNodes) {
    throw std::invalid_argument("a ring takes at most " + std::to_string(Ring::kMaxNodes) +
                                " nodes (got " + std::to_string(nodes.size()) + ")");
  }
  if (profile.key_hasher == nullptr || profile.point_hasher == nullptr) {
    throw std::invalid_argument("profile '" + profile.name + "' has no hasher");
  }
  if (profile.weighted_only_above_one) weighted = false;
  for (const Node& n : nodes) {
    if (n.weight != 1) weighted = true;
    if (n.weight == 0) throw std::invalid_argument("node '" + n.label + "' has weight 0");
    CheckWeight(profile, n.weight, n.label);
  }
  const uint64_t total_weight = TotalWeight(nodes);
  const std::vector<uint32_t> order = NodeOrderOf(profile, nodes);
  const size_t n = nodes.size();
  RingPlan plan;
  plan.md5x4 = profile.points_per_hash == 4 || (weighted && profile.weighted_uses_md5);
  plan.owner.resize(n);
  plan.counts.resize(n);
  const bool later_wins = profile.tie == TieRule::kLaterWins;
  for (size_t rank = 0; rank < n; ++rank) {
    const size_t r = later_wins ? n - 1 - rank : rank;
    const Node& node = nodes[order[r]];
    plan.owner[rank] = order[r];
    plan.counts[rank] = PointsForNode(profile, weighted, node.weight, total_weight, n);
    plan.total += plan.counts[rank];
  }
  if (plan.total > Ring::kMaxPoints) {
    throw std::invalid_argument("ring would have " + std::to_string(plan.total) +
                                " points; the limit is " + std::to_string(Ring::kMaxPoints));
  }
  if (plan.total == 0) throw std::invalid_argument("ring would have no points");
  return plan;
}

// The points, node by node in rank order, each node's point keys built from
// its prefix; count[p >> count_shift] is incremented for each point p.
std::unique_ptr<uint32_t[]> MakePoints(const Profile& profile, std::span<const Node> nodes,
                                       const RingPlan& plan, uint32_t* count, int count_shift) {
  std::unique_ptr<uint32_t[]> points(new uint32_t[plan.total]);  // each written once
  std::string key;
  if (plan.md5x4) {
    auto writer = std::make_unique<Md5PointWriter>(points.get(), count, count_shift);
    for (size_t rank = 0; rank < nodes.size(); ++rank) {
      key = PointKeyPrefix(profile, nodes[plan.owner[rank]]);
      key.push_back('-');
      writer->AddNode(key, plan.counts[rank]);
    }
    writer->Flush();
    return points;
  }
  uint32_t* out = points.get();
  for (size_t rank = 0; rank < nodes.size(); ++rank) {
    key = PointKeyPrefix(profile, nodes[plan.owner[rank]]);
    key.push_back('-');
    const size_t prefix_len = key.size();
    key.resize(prefix_len + 10);  // room for any uint32_t in decimal
    for (uint32_t i = 0; i < plan.counts[rank]; ++i) {
      char* end = std::to_chars(key.data() + prefix_len, key.data() + key.size(), i).ptr;
      const auto p = static_cast<uint32_t>(
          (*profile.point_hasher)(key.data(), static_cast<size_t>(end - key.data())));
      *out++ = p;
      ++count[p >> count_shift];
    }
  }
  return points;
}

// Writes the entries src[0, len) -- sorted by point, equal points in rank
// order, index bucket f starting at starts[f] -- to dst (dst <= src; the
// same array is fine): a run of equal points keeps its first entry (the
// winner) and drops or keeps the others per profile (kKeepAsWinner: owned by
// the winner). `equal` holds the points of the runs (from SortNearlySorted;
// runs are rare: ~3 in a ring of 160,000 points). index[f] = base +
// starts[f] - the entries dropped before bucket f (index may be starts).
// Returns the entries written.
size_t KeepRuns(const Buckets& b, DuplicatePoints dup, std::vector<uint32_t>& equal, Entry* src,
                size_t len, Entry* dst, const uint32_t* starts, uint32_t* index, size_t base) {
  struct Drop {
    size_t at;      // position in src
    size_t bucket;  // its index bucket
  };
  std::vector<Drop> drops;  // ascending
  std::sort(equal.begin(), equal.end());
  equal.erase(std::unique(equal.begin(), equal.end()), equal.end());
  size_t p = 0;  // runs come in ascending order: a scan never goes back
  for (const uint32_t v : equal) {
    p = std::max<size_t>(p, starts[b.Fine(v)]);
    while (src[p].point != v) ++p;  // the run's first entry (its bucket is sorted)
    for (size_t q = p + 1; q < len && src[q].point == v; ++q) {
      if (dup == DuplicatePoints::kKeepAsWinner) src[q].owner = src[p].owner;
      if (dup == DuplicatePoints::kDrop) drops.push_back({q, b.Fine(v)});
    }
  }
  size_t out = 0, from = 0;
  for (const Drop& d : drops) {
    if (dst + out != src + from) std::memmove(dst + out, src + from, (d.at - from) * sizeof(Entry));
    out += d.at - from;
    from = d.at + 1;
  }
  if (dst + out != src + from) std::memmove(dst + out, src + from, (len - from) * sizeof(Entry));
  out += len - from;
  if (index == starts && base == 0 && drops.empty()) return out;
  size_t f = 0;
  for (size_t k = 0; k <= drops.size(); ++k) {  // buckets after the k-th drop's: k before them
    const size_t until = k < drops.size() ? drops[k].bucket + 1 : b.fines();
    for (; f < until; ++f) index[f] = static_cast<uint32_t>(base + starts[f] - k);
  }
  return out;
}

// Exclusive prefix sums of count[0, n) in place; returns the largest count.
uint32_t CountsToStarts(uint32_t* count, size_t n) {
  uint32_t sum = 0, longest = 0;
  for (size_t f = 0; f < n; ++f) {
    const uint32_t c = count[f];
    count[f] = sum;
    sum += c;
    longest = std::max(longest, c);
  }
  return longest;
}

// The one-level sort: index[0, 2^bits) holds each bucket's count (from
// MakePoints); the points go straight to their bucket in `entries`, ranks in
// order, and index becomes the ring's index. Returns the entries kept.
size_t SortOneLevel(const Buckets& b, const RingPlan& plan, DuplicatePoints dup,
                    const uint32_t* points, Entry* entries, uint32_t* index) {
  const size_t buckets = b.fines();
  const uint32_t longest = CountsToStarts(index, buckets);
  const int shift = b.shift;
  const uint32_t* p = points;
  for (size_t rank = 0; rank < plan.owner.size(); ++rank) {  // index[f]: next slot of f
    const uint32_t owner = plan.owner[rank];
    for (const uint32_t* end = p + plan.counts[rank]; p < end; ++p) {
      entries[index[*p >> shift]++] = {*p, owner};
    }
  }
  std::memmove(index + 1, index, (buckets - 1) * sizeof(uint32_t));  // ends -> starts
  index[0] = 0;
  std::vector<uint32_t> equal;
  SortNearlySorted(entries, entries + plan.total, longest, &equal);
  return KeepRuns(b, dup, equal, entries, plan.total, entries, index, index, 0);
}

// The second level of the two-level sort, for one top bucket: entries
// [first, last), ranks in order where points are equal, go through a counting
// sort on the fine bits into buf and an insertion sort inside each index
// bucket, then back to `entries` from position `kept` on (kept <= first),
// runs of equal points handled by KeepRuns. Writes index[f] for the top
// bucket's index buckets; returns the new count of kept entries.
size_t SortTopBucket(const Buckets& b, DuplicatePoints dup, Entry* entries, size_t kept,
                     size_t first, size_t last, Entry* __restrict buf,
                     uint32_t* __restrict fine_start, uint32_t* __restrict next,
                     uint32_t* __restrict index, std::vector<uint32_t>* equal) {
  const size_t fines = b.fines();
  const uint32_t len = static_cast<uint32_t>(last - first);
  const int shift = b.shift;
  const uint32_t mask = b.fine_mask;
  const Entry* const in = entries + first;
  std::fill(fine_start, fine_start + fines, 0);
  for (uint32_t i = 0; i < len; ++i) ++fine_start[(in[i].point >> shift) & mask];
  const uint32_t longest = CountsToStarts(fine_start, fines);
  std::copy(fine_start, fine_start + fines, next);
  for (uint32_t i = 0; i < len; ++i) buf[next[(in[i].point >> shift) & mask]++] = in[i];
  equal->clear();
  SortNearlySorted(buf, buf + len, longest, equal);
  return kept + KeepRuns(b, dup, *equal, buf, len, entries + kept, fine_start, index, kept);
}

// The two-level sort: the points, counted by their top bits in top_start
// ([t + 1]), go to `entries` by top bucket, ranks in order, then each top
// bucket (about 1/256 of the ring) is sorted on the fine bits. Returns the
// entries kept.
size_t SortTwoLevel(const Buckets& b, const RingPlan& plan, DuplicatePoints dup,
                    std::unique_ptr<uint32_t[]> points, std::array<uint32_t, 257>& top_start,
                    Entry* entries, uint32_t* index) {
  const size_t tops = b.tops();
  for (size_t t = 0; t < tops; ++t) top_start[t + 1] += top_start[t];
  {
    std::array<uint32_t, 256> head;
    std::copy(top_start.begin(), top_start.begin() + tops, head.begin());
    const uint32_t* p = points.get();
    for (size_t rank = 0; rank < plan.owner.size(); ++rank) {
      const uint32_t owner = plan.owner[rank];
      for (const uint32_t* end = p + plan.counts[rank]; p < end; ++p) {
        entries[head[*p >> b.top_shift]++] = {*p, owner};
      }
    }
  }
  points.reset();
  uint32_t largest_top = 0;
  for (size_t t = 0; t < tops; ++t) {
    largest_top = std::max(largest_top, top_start[t + 1] - top_start[t]);
  }
  std::unique_ptr<Entry[]> buf(new Entry[largest_top]);  // written before read
  std::vector<uint32_t> fine_start(b.fines()), next(b.fines()), equal;
  size_t kept = 0;
  for (size_t t = 0; t < tops; ++t) {
    kept = SortTopBucket(b, dup, entries, kept, top_start[t], top_start[t + 1], buf.get(),
                         fine_start.data(), next.data(), index + (t << b.fine_bits), &equal);
  }
  return kept;
}

// The points of a node under a rule other than point-key hashing, written to
// out[0, count).
void RulePoints(const Profile& profile, const Node& node, uint32_t count, uint32_t* out) {
  switch (profile.point_rule) {
    case PointRule::kPointKeyHash:
    case PointRule::kWeightModulo:
    case PointRule::kServerIdMix:
      break;  // MakePoints, WeightModuloEntries, RuleEntries (the ids)
    case PointRule::kIdentDecimal: {
      // shardcfg_hashcircle: VRT_HashStrands32(TOSTRANDS(2, ident, "%d" j))
      // for j < replicas, the strands hashed as one string.
      std::string key = node.name.empty() ? node.label : node.name;
      const size_t ident_len = key.size();
      key.resize(ident_len + 10);  // room for any uint32_t in decimal
      for (uint32_t j = 0; j < count; ++j) {
        char* end = std::to_chars(key.data() + ident_len, key.data() + key.size(), j).ptr;
        out[j] = static_cast<uint32_t>(
            (*profile.point_hasher)(key.data(), static_cast<size_t>(end - key.data())));
      }
      return;
    }
    case PointRule::kDecimalThenPeer: {
      // consistenthash.go Add: m.hash([]byte(strconv.Itoa(i) + key)).
      const std::string& peer = node.name.empty() ? node.label : node.name;
      std::string key(10 + peer.size(), '\0');  // room for any uint32_t in decimal
      for (uint32_t i = 0; i < count; ++i) {
        char* end = std::to_chars(key.data(), key.data() + 10, i).ptr;
        std::memcpy(end, peer.data(), peer.size());
        out[i] = static_cast<uint32_t>((*profile.point_hasher)(
            key.data(), static_cast<size_t>(end - key.data()) + peer.size()));
      }
      return;
    }
    case PointRule::kCrc32Chain: {
      // base = CRC-32 of host, NUL, port; point j continues it over the
      // little-endian bytes of point j - 1 (zlib's crc32(crc, ...) continues
      // a finished CRC, as ngx_crc32_update does before ngx_crc32_final).
      const HostPort hp = NginxHostPort(node.label);
      std::string text(hp.host);
      text.push_back('\0');
      text.append(hp.port);
      const uLong base =
          crc32(0L, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size()));
      uint32_t prev = 0;
      for (uint32_t j = 0; j < count; ++j) {
        const unsigned char le[4] = {
            static_cast<unsigned char>(prev), static_cast<unsigned char>(prev >> 8),
            static_cast<unsigned char>(prev >> 16), static_cast<unsigned char>(prev >> 24)};
        prev = static_cast<uint32_t>(crc32(base, le, 4));
        out[j] = prev;
      }
      return;
    }
  }
}

// nginx's modulo (ngx_http_upstream_get_hash_peer): w = v % total weight;
// `while (w >= peer->weight) { w -= peer->weight; peer = peer->next; }` down
// the servers in list order. One entry per run of v with the same server, at
// its last v.
std::vector<Entry> WeightModuloEntries(const Profile& profile, std::span<const Node> nodes) {
  const uint64_t total = TotalWeight(nodes);
  const uint64_t space = uint64_t{1} << profile.hash_space_bits;
  auto owner_of = [&](uint64_t v) {
    uint64_t w = v % total;
    uint32_t i = 0;
    while (w >= nodes[i].weight) w -= nodes[i++].weight;
    return i;
  };
  std::vector<Entry> entries;
  uint32_t owner = owner_of(0);
  for (uint64_t v = 0; v < space; ++v) {
    const uint32_t next = v + 1 < space ? owner_of(v + 1) : UINT32_MAX;
    if (next != owner) entries.push_back({static_cast<uint32_t>(v), owner});
    owner = next;
  }
  return entries;
}

// HAProxy's points (PointRule::kServerIdMix): HaproxyFullHash(id * 4096 + j),
// in 32-bit arithmetic as lb_chash.c computes them.
void ServerIdPoints(uint32_t id, uint32_t count, uint32_t* out) {
  for (uint32_t j = 0; j < count; ++j) out[j] = HaproxyFullHash(id * 4096u + j);
}

// LookupEdge::kNearest over distinct sorted points: between points a < b a
// hash h goes to a when h - a <= b - h, that is up to floor((a + b) / 2), so
// an entry there owned by a's server (when that is past a) makes ">=" answer
// the nearest point. Across the wrap, b is the first point + 2^32, and the
// boundary entry lands before the first point when it passes 2^32.
std::vector<Entry> NearestEntries(const std::vector<Entry>& points) {
  std::vector<Entry> out;
  out.reserve(2 * points.size());
  const size_t n = points.size();
  const uint64_t wrap_mid =
      (uint64_t{points[n - 1].point} + points[0].point + (uint64_t{1} << 32)) / 2;
  const bool mid_first = wrap_mid >> 32 != 0;
  if (mid_first) out.push_back({static_cast<uint32_t>(wrap_mid), points[n - 1].owner});
  for (size_t i = 0; i < n; ++i) {
    out.push_back(points[i]);
    const uint64_t next =
        i + 1 < n ? uint64_t{points[i + 1].point} : (uint64_t{1} << 32) + points[0].point;
    const uint64_t mid = (uint64_t{points[i].point} + next) / 2;
    if (mid > points[i].point && (i + 1 < n || !mid_first)) {
      out.push_back({static_cast<uint32_t>(mid), points[i].owner});
    }
  }
  return out;
}

// Profile::buckets (PECL memcache): bucket i takes the owner of the first
// point >= i * step (step = floor((2^32 - 1) / buckets)), else of the first
// point; one entry per run of buckets with the same owner, at its last
// bucket. REQUIRES: `points` sorted, not empty.
std::vector<Entry> BucketEntries(const std::vector<Entry>& points, uint32_t buckets) {
  const uint32_t step = UINT32_MAX / buckets;
  std::vector<Entry> out;
  size_t at = 0;
  for (uint32_t i = 0; i < buckets; ++i) {
    while (at < points.size() && points[at].point < i * step) ++at;
    const uint32_t owner = points[at < points.size() ? at : 0].owner;
    if (!out.empty() && out.back().owner == owner) {
      out.back().point = i;
    } else {
      out.push_back({i, owner});
    }
  }
  return out;
}

// The ring's entries for a profile whose points come from RulePoints: every
// point with its owner, sorted stably by point (equal points in rank order),
// then each run of equal points reduced per profile.duplicates.
std::vector<Entry> RuleEntries(const Profile& profile, std::span<const Node> nodes,
                               const RingPlan& plan) {
  if (profile.point_rule == PointRule::kWeightModulo) return WeightModuloEntries(profile, nodes);
  if (profile.point_rule == PointRule::kIdentDecimal) {
    // Varnish skips a backend whose ident is already added
    // (shardcfg_apply_change, "already exists - skipping"); a list that
    // relies on that is refused rather than silently shortened.
    std::vector<std::pair<std::string_view, size_t>> idents;  // ident, node
    for (size_t i = 0; i < nodes.size(); ++i) {
      idents.emplace_back(nodes[i].name.empty() ? nodes[i].label : nodes[i].name, i);
    }
    std::sort(idents.begin(), idents.end());
    for (size_t k = 1; k < idents.size(); ++k) {
      if (idents[k].first != idents[k - 1].first) continue;
      throw std::invalid_argument(
          "servers '" + nodes[idents[k - 1].second].label + "' and '" +
          nodes[idents[k].second].label + "' have the same ident '" + std::string(idents[k].first) +
          "' (Varnish skips a second add_backend of an ident); give each its own NAME");
    }
  }
  std::vector<uint32_t> ids;
  if (profile.point_rule == PointRule::kServerIdMix) ids = HaproxyServerIds(nodes);
  std::vector<Entry> entries(plan.total);
  std::vector<uint32_t> points;
  size_t at = 0;
  for (size_t rank = 0; rank < plan.owner.size(); ++rank) {
    const uint32_t owner = plan.owner[rank];
    points.resize(plan.counts[rank]);
    if (profile.point_rule == PointRule::kPointKeyHash) {  // one point per point key
      std::string key = PointKeyPrefix(profile, nodes[owner]) + "-";
      const size_t base = key.size();
      key.resize(base + 10);  // room for any uint32_t in decimal
      for (uint32_t i = 0; i < plan.counts[rank]; ++i) {
        const char* end = std::to_chars(key.data() + base, key.data() + key.size(), i).ptr;
        points[i] = static_cast<uint32_t>(
            (*profile.point_hasher)(key.data(), static_cast<size_t>(end - key.data())));
      }
    } else if (ids.empty()) {
      RulePoints(profile, nodes[owner], plan.counts[rank], points.data());
    } else {
      ServerIdPoints(ids[owner], plan.counts[rank], points.data());
    }
    for (const uint32_t p : points) entries[at++] = {p, owner};
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.point < b.point; });
  if (!ids.empty()) {
    // full_hash is a bijection: equal points come from ids equal modulo 2^20
    // (id x 4096 wraps), whose trees HAProxy fills with duplicate keys.
    for (size_t i = 1; i < entries.size(); ++i) {
      if (entries[i].point != entries[i - 1].point) continue;
      throw std::invalid_argument(
          "servers '" + nodes[entries[i - 1].owner].label + "' and '" +
          nodes[entries[i].owner].label + "' have ids " +
          std::to_string(ids[entries[i - 1].owner]) + " and " +
          std::to_string(ids[entries[i].owner]) +
          " whose points coincide (id x 4096 wraps at 2^32); give ids that differ below 2^20");
    }
  }
  size_t out = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (out > 0 && entries[i].point == entries[out - 1].point) {
      if (profile.duplicates == DuplicatePoints::kDrop) continue;
      if (profile.duplicates == DuplicatePoints::kKeepAsWinner) {
        entries[i].owner = entries[out - 1].owner;
      }
    }
    entries[out++] = entries[i];
  }
  entries.resize(out);
  if (profile.edge == LookupEdge::kNearest) return NearestEntries(entries);
  if (profile.buckets != 0) return BucketEntries(entries, profile.buckets);
  return entries;
}

}  // namespace

Ring Ring::Build(const Profile& profile, std::span<const Node> nodes, bool weighted) {
  const RingPlan plan = PlanRing(profile, nodes, weighted);
  const size_t made = plan.total;
  const Buckets b(made);
  Ring ring;
  ring.num_nodes_ = nodes.size();
  ring.key_hasher_ = profile.key_hasher;
  ring.key_is_xxh3_ = profile.key_hasher->fn == &HashXxh3;
  ring.key_fn_ = profile.key_hasher->fn;
  ring.edge_greater_ = profile.edge == LookupEdge::kGreater;
  ring.shift_ = b.shift;
  ring.space_bits_ = profile.hash_space_bits;
  ring.space_mask_ = static_cast<uint32_t>((uint64_t{1} << profile.hash_space_bits) - 1);

  // A stable sort by point (equal points stay in rank order: rank 0 wins a
  // tie) by counting sort (Knuth, TAOCP vol. 3, 5.2, Algorithm D), from the
  // points into the ring's entries as {point, owner}; then an insertion sort
  // inside each index bucket (1-2 points on average).
  std::vector<uint32_t>& index = ring.index_;
  index.resize((size_t{1} << b.bits) + 1);  // zeros: the one-level sort counts in it
  std::vector<Entry> entries;
  entries.reserve(made + kPad);
  entries.resize(made);  // Entry() leaves them unset: every one is written
  size_t kept;
  if (profile.point_rule != PointRule::kPointKeyHash || profile.buckets != 0) {
    entries = RuleEntries(profile, nodes, plan);
    kept = entries.size();
    entries.reserve(kept + kPad);
    // Buckets for the entries kept (kNearest adds one per point), over the
    // key space, which is narrower than 2^32 when hash_space_bits < 32 (then
    // fewer bits are shifted off).
    const Buckets rb(kept);
    index.assign((size_t{1} << rb.bits) + 1, 0);
    ring.shift_ = std::max(0, rb.shift - (32 - profile.hash_space_bits));
    size_t e = 0;  // index[f] = first entry with point >= f << shift
    for (size_t f = 0; f + 1 < index.size(); ++f) {
      const uint64_t start = uint64_t{f} << ring.shift_;
      while (e < kept && entries[e].point < start) ++e;
      index[f] = static_cast<uint32_t>(e);
    }
  } else if (b.top_bits == 0) {
    std::unique_ptr<uint32_t[]> points = MakePoints(profile, nodes, plan, index.data(), b.shift);
    kept = SortOneLevel(b, plan, profile.duplicates, points.get(), entries.data(), index.data());
  } else {
    std::array<uint32_t, 257> top_start{};  // counts at [t + 1], then starts
    std::unique_ptr<uint32_t[]> points =
        MakePoints(profile, nodes, plan, top_start.data() + 1, b.top_shift);
    kept = SortTwoLevel(b, plan, profile.duplicates, std::move(points), top_start, entries.data(),
                        index.data());
  }
  index.back() = static_cast<uint32_t>(kept);
  entries.resize(kept);
  // Sentinels: the answer past the last point, the wrap to the first point or
  // (kLastPoint) the last point itself.
  const uint32_t past_last =
      profile.past_last == PastLastPoint::kWrap ? entries[0].owner : entries.back().owner;
  entries.insert(entries.end(), kPad, Entry{UINT32_MAX, past_last});
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
  // under ">", hashes in [v_{j-1}, v_j) do. Both arcs have length v_j - v_{j-1}.
  // The rest, 2^32 - v_last + v_first hashes, is [0, v_first] (to the first
  // point's owner) and (v_last, 2^32) (to the sentinels' owner: the first
  // point's again where the ring wraps, the last point's where it does not).
  uint32_t prev = entries_[0].point;
  for (size_t i = 1; i < n; ++i) {
    if (entries_[i].point == prev) continue;
    arcs[entries_[i].owner] += entries_[i].point - prev;
    prev = entries_[i].point;
  }
  arcs[entries_[0].owner] += uint64_t{entries_[0].point} + 1;
  arcs[entries_[n].owner] += (uint64_t{1} << space_bits_) - 1 - prev;
  // Key hashes of a narrower space (space_bits_ < 32) stand for equal shares of 2^32.
  if (space_bits_ < 32) {
    for (uint64_t& a : arcs) a <<= 32 - space_bits_;
  }
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
