// SPDX-License-Identifier: Apache-2.0
#include "chsim/profile_map.h"

#include <xxhash.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

#include "murmur3.h"

namespace chsim {
namespace {

// The key's code points' low bytes (PymemcacheMurmur3): writes at most
// key.size() bytes to out and returns how many.
size_t CodePointBytes(std::string_view key, uint8_t* out) noexcept {
  size_t n = 0;
  for (size_t i = 0; i < key.size();) {
    const uint8_t b0 = static_cast<uint8_t>(key[i]);
    size_t need = b0 < 0x80                 ? 0
                  : b0 >= 0xC2 && b0 < 0xE0 ? 1
                  : b0 >= 0xE0 && b0 < 0xF0 ? 2
                  : b0 >= 0xF0 && b0 < 0xF5 ? 3
                                            : 4;
    uint32_t cp = need == 0 ? b0 : need == 1 ? b0 & 0x1F : need == 2 ? b0 & 0x0F : b0 & 0x07;
    bool ok = need < 4 && i + need < key.size();
    for (size_t k = 1; ok && k <= need; ++k) {
      const uint8_t c = static_cast<uint8_t>(key[i + k]);
      ok = (c & 0xC0) == 0x80;
      cp = cp << 6 | (c & 0x3F);
    }
    ok = ok && !(need == 2 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000))) &&
         !(need == 3 && (cp < 0x10000 || cp > 0x10FFFF));
    if (!ok) {  // surrogateescape: the byte itself
      out[n++] = b0;
      ++i;
      continue;
    }
    out[n++] = static_cast<uint8_t>(cp);
    i += need + 1;
  }
  return n;
}

// What Envoy hashes for a host (thread_aware_lb_impl.h hashKey): the
// `envoy.lb` hash_key or the hostname when used (the node's NAME), else the
// address as Envoy prints it (the label).
std::string_view EnvoyKey(const Node& n) { return n.name.empty() ? n.label : n.name; }

// thread_aware_lb_impl.cc normalizeHostWeights: weight / sum, in double.
std::vector<double> NormalizedWeights(std::span<const Node> nodes) {
  uint64_t sum = 0;
  for (const Node& n : nodes) sum += n.weight;
  std::vector<double> w;
  for (const Node& n : nodes) w.push_back(n.weight * 1.0 / static_cast<double>(sum));
  return w;
}

constexpr uint64_t kSignBit = uint64_t{1} << 63;
constexpr uint32_t kNoOwner = std::numeric_limits<uint32_t>::max();

}  // namespace

uint32_t PymemcacheMurmur3(std::string_view text) noexcept {
  std::vector<uint8_t> bytes(text.size());
  const size_t n = CodePointBytes(text, bytes.data());
  return murmur3::Finish(0, bytes.data(), n, n);
}

void CheckProfileMap(const Profile& p, std::span<const Node> nodes) {
  if (nodes.empty()) throw std::invalid_argument("a " + p.name + " map needs at least one node");
  uint64_t sum = 0;
  for (const Node& n : nodes) {
    if (n.weight == 0) throw std::invalid_argument("node '" + n.label + "' has weight 0");
    CheckWeight(p, n.weight, "");
    sum += n.weight;
  }
  const bool envoy = p.engine == Engine::kEnvoyRing || p.engine == Engine::kEnvoyMaglev;
  if (envoy && sum > std::numeric_limits<uint32_t>::max()) {  // validateEndpoints
    throw std::invalid_argument("the weights sum to " + std::to_string(sum) +
                                "; Envoy refuses a sum above 4294967295");
  }
}

// ring_hash_lb.cc Ring::Ring: scale = min(ceil(min_w x min_ring_size) /
// min_w, max_ring_size); host after host (list order), points "KEY_i" while
// the running count of hashes is below the running target (+= scale x w).
// Equal points stay in list order (Envoy's std::sort leaves them unordered).
void ProfileMap::BuildEnvoyRing(const Profile& p, std::span<const Node> nodes) {
  const std::vector<double> w = NormalizedWeights(nodes);
  const double min_w = std::min(1.0, *std::min_element(w.begin(), w.end()));
  const double scale = std::min(std::ceil(min_w * static_cast<double>(p.min_ring_size)) / min_w,
                                static_cast<double>(p.max_ring_size));
  std::vector<std::pair<uint64_t, uint32_t>> ring;
  ring.reserve(static_cast<size_t>(std::ceil(scale)));
  double current = 0.0, target = 0.0;
  std::string key;
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    key.assign(EnvoyKey(nodes[i]));
    key += '_';
    const size_t base = key.size();
    target += scale * w[i];
    for (uint64_t j = 0; current < target; ++j, ++current) {
      key.resize(base);
      key += std::to_string(j);
      ring.emplace_back(p.point_hasher->fn(key.data(), key.size()), i);
    }
  }
  std::stable_sort(ring.begin(), ring.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [h, owner] : ring) {
    ring_points_.push_back(h);
    ring_owners_.push_back(owner);
  }
}

// maglev_lb.cc: hosts sorted by key (equal keys in list order; Envoy orders
// them by pointer), offset = xxHash64(key) % M, skip = xxHash64(key, seed 1)
// % (M - 1) + 1; in rounds 1, 2, ..., a host takes its next free slot of
// (offset + skip x next) % M when round x w >= its target, which then grows
// by the largest w.
void ProfileMap::BuildEnvoyMaglev(const Profile& p, std::span<const Node> nodes) {
  struct Entry {
    std::string_view key;
    uint32_t node;
    double weight;
    uint64_t offset, skip, next;
    double target;
  };
  if (nodes.size() == 1) {  // Envoy's DegenerateMaglevTable: one entry, one host
    owners_table_.assign(1, 0);
    return;
  }
  const uint64_t m = p.table_size;
  const std::vector<double> w = NormalizedWeights(nodes);
  const double max_w = std::max(0.0, *std::max_element(w.begin(), w.end()));
  std::vector<Entry> entries;
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    const std::string_view k = EnvoyKey(nodes[i]);
    entries.push_back({k, i, w[i], XXH64(k.data(), k.size(), 0) % m,
                       XXH64(k.data(), k.size(), 1) % (m - 1) + 1, 0, 0.0});
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.key < b.key; });
  owners_table_.assign(m, kNoOwner);
  uint64_t filled = 0;
  for (uint32_t round = 1; filled < m; ++round) {
    for (size_t i = 0; i < entries.size() && filled < m; ++i) {
      Entry& e = entries[i];
      if (round * e.weight < e.target) continue;
      e.target += max_w;
      uint64_t c = (e.offset + e.skip * e.next) % m;
      while (owners_table_[c] != kNoOwner) c = (e.offset + e.skip * ++e.next) % m;
      owners_table_[c] = e.node;
      ++e.next;
      ++filled;
    }
  }
}

// Sharded.initialize: shard i (list order) puts 160 x weight points,
// hash("SHARD-i-NODE-n") or hash(NAME + "*" + n), into a TreeMap<Long>: a
// later put of an equal point takes it over.
void ProfileMap::BuildJedis(const Profile& p, std::span<const Node> nodes) {
  struct Point {
    uint64_t h;  // sign bit flipped: unsigned order is signed order
    uint32_t seq, owner;
  };
  std::vector<Point> ring;
  std::string key;
  uint32_t seq = 0;
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    const uint32_t count = PointsForNode(p, true, nodes[i].weight, 0, nodes.size());
    const std::string prefix =
        nodes[i].name.empty() ? "SHARD-" + std::to_string(i) + "-NODE-" : nodes[i].name + "*";
    for (uint32_t n = 0; n < count; ++n) {
      key = prefix + std::to_string(n);
      ring.push_back({p.point_hasher->fn(key.data(), key.size()) ^ kSignBit, seq++, i});
    }
  }
  std::sort(ring.begin(), ring.end(),
            [](const Point& a, const Point& b) { return a.h != b.h ? a.h < b.h : a.seq < b.seq; });
  for (size_t k = 0; k < ring.size(); ++k) {
    if (k + 1 < ring.size() && ring[k + 1].h == ring[k].h) continue;  // the later put wins
    ring_points_.push_back(ring[k].h);
    ring_owners_.push_back(ring[k].owner);
  }
}

// The sentinels and the bucket index (profile_map.h): bits = floor(log2 of
// the points), at least 1 and at most 24, as Ring's Buckets.
void ProfileMap::BuildIndex() {
  ring_size_ = ring_points_.size();
  int bits = 1;
  while (bits < 24 && (size_t{2} << bits) <= ring_size_) ++bits;
  shift_ = 64 - bits;
  index_.assign((size_t{1} << bits) + 1, 0);
  size_t i = 0;
  for (size_t b = 0; b + 1 < index_.size(); ++b) {
    while (i < ring_size_ && (ring_points_[i] >> shift_) < b) ++i;
    index_[b] = static_cast<uint32_t>(i);
  }
  index_.back() = static_cast<uint32_t>(ring_size_);
  ring_points_.insert(ring_points_.end(), kPad, std::numeric_limits<uint64_t>::max());
  ring_owners_.insert(ring_owners_.end(), kPad, ring_owners_.front());
}

ProfileMap ProfileMap::Build(const Profile& p, std::span<const Node> nodes) {
  CheckProfileMap(p, nodes);
  ProfileMap m;
  m.engine_ = p.engine;
  m.key_hasher_ = p.key_hasher;
  m.num_nodes_ = nodes.size();
  switch (p.engine) {
    case Engine::kEnvoyRing:
      m.BuildEnvoyRing(p, nodes);
      m.BuildIndex();
      return m;
    case Engine::kEnvoyMaglev:
      m.BuildEnvoyMaglev(p, nodes);
      return m;
    case Engine::kJedis:
      m.BuildJedis(p, nodes);
      m.BuildIndex();
      return m;
    default:
      break;
  }
  for (const Node& n : nodes) {
    Scorer s{};
    s.name = PointKeyPrefix(p, n);  // '%s:%s' % (host, port)
    std::string text = s.name + "-";
    std::vector<uint8_t> b(text.size());
    const size_t len = CodePointBytes(text, b.data());
    s.prefix_len = static_cast<uint32_t>(len);
    const size_t whole = len / 4 * 4;
    s.state = murmur3::Blocks(0, b.data(), whole);
    s.rest_len = static_cast<uint8_t>(len - whole);
    std::memcpy(s.rest, b.data() + whole, s.rest_len);
    m.scorers_.push_back(std::move(s));
  }
  return m;
}

uint32_t ProfileMap::RendezvousOwner(std::string_view key) const noexcept {
  // pymemcache rendezvous.py get_node: the highest score wins; on equal
  // scores the greater node name (max(str(node), str(winner))).
  uint8_t buf[3 + 4096];
  uint8_t* const k = buf + 3;
  std::vector<uint8_t> heap;
  uint8_t* kb = k;
  if (key.size() > 4096) {
    heap.resize(3 + key.size());
    kb = heap.data() + 3;
  }
  const size_t kn = CodePointBytes(key, kb);
  uint32_t best = 0, best_score = 0;
  for (uint32_t i = 0; i < scorers_.size(); ++i) {
    const Scorer& s = scorers_[i];
    uint8_t* start = kb - s.rest_len;
    std::memcpy(start, s.rest, s.rest_len);
    const uint32_t score = murmur3::Finish(s.state, start, s.rest_len + kn, s.prefix_len + kn);
    if (i == 0 || score > best_score || (score == best_score && s.name > scorers_[best].name)) {
      best = i;
      best_score = score;
    }
  }
  return best;
}

uint32_t ProfileMap::Locate(std::string_view key) const noexcept {
  if (engine_ == Engine::kRendezvous) return RendezvousOwner(key);
  return LocateHash(HashKey(key));
}

// Envoy Ring::chooseHost (libketama's search) and Jedis tailMap: the first
// point >= h, else the first point. Points past h's bucket are >= its end >
// h, so the count of the kPad points from the bucket's start below h never
// overshoots; a sentinel (UINT64_MAX, never below h) stops it at the wrap.
inline uint32_t ProfileMap::RingOwner(uint64_t h) const noexcept {
  const uint32_t first = index_[h >> shift_];
  const uint64_t* p = ring_points_.data() + first;
  const uint32_t below = static_cast<uint32_t>(p[0] < h) + static_cast<uint32_t>(p[1] < h) +
                         static_cast<uint32_t>(p[2] < h) + static_cast<uint32_t>(p[3] < h);
  if (below == kPad) [[unlikely]]
    return ring_owners_[Crowded(h)];
  return ring_owners_[first + below];
}

uint32_t ProfileMap::Crowded(uint64_t h) const noexcept {
  // The answer is in [first + kPad, next bucket's first], whose last point
  // is >= h: a branchless lower bound (Khuong & Morin 2017), as Ring's.
  const uint64_t b = h >> shift_;
  const uint64_t* base = ring_points_.data() + index_[b] + kPad;
  uint32_t len = index_[b + 1] + 1 - (index_[b] + static_cast<uint32_t>(kPad));
  while (len > 1) {
    const uint32_t half = len / 2;
    base = base[half - 1] < h ? base + half : base;
    len -= half;
  }
  return static_cast<uint32_t>(base - ring_points_.data());
}

uint32_t ProfileMap::LocateHash(uint64_t h) const noexcept {
  switch (engine_) {
    case Engine::kEnvoyMaglev:
      return owners_table_[h % owners_table_.size()];
    case Engine::kEnvoyRing:
      return RingOwner(h);
    case Engine::kJedis:
      return RingOwner(h ^ kSignBit);
    default:
      break;
  }
  char text[20];
  const auto end = std::to_chars(text, text + sizeof(text), h).ptr;
  return RendezvousOwner(std::string_view(text, static_cast<size_t>(end - text)));
}

// out[i] = f(hashes[i]): one engine's lookup inlined over a block of hashes,
// whose lookups are independent, so their loads overlap.
template <typename F>
static void EachHash(std::span<const uint64_t> hashes, uint32_t* out, F f) noexcept {
  for (size_t i = 0; i < hashes.size(); ++i) out[i] = f(hashes[i]);
}

void ProfileMap::LocateBatch(std::span<const std::string_view> keys,
                             std::span<uint32_t> out) const noexcept {
  if (engine_ == Engine::kRendezvous) {
    for (size_t i = 0; i < keys.size(); ++i) out[i] = RendezvousOwner(keys[i]);
    return;
  }
  // Hash a block of keys (HashBatch), then look them up.
  constexpr size_t kBlock = 256;
  uint64_t hashes[kBlock];
  const uint32_t* table = owners_table_.data();
  const uint64_t m = owners_table_.size();
  for (size_t start = 0; start < keys.size(); start += kBlock) {
    const size_t n = std::min(kBlock, keys.size() - start);
    const std::span<const uint64_t> hs(hashes, n);
    HashBatch(*key_hasher_, keys.subspan(start, n), {hashes, n});
    uint32_t* o = out.data() + start;
    if (engine_ == Engine::kEnvoyMaglev) {
      EachHash(hs, o, [&](uint64_t h) { return table[h % m]; });
    } else if (engine_ == Engine::kEnvoyRing) {
      EachHash(hs, o, [this](uint64_t h) { return RingOwner(h); });
    } else {
      EachHash(hs, o, [this](uint64_t h) { return RingOwner(h ^ kSignBit); });
    }
  }
}

void RingArcCounts(std::span<const uint64_t> points, std::span<const uint32_t> owners,
                   std::span<HashCount> out) noexcept {
  if (points.empty()) return;
  constexpr HashCount kSpace = HashCount{1} << 64;
  out[owners[0]] += kSpace - points.back() + points.front();
  for (size_t k = 1; k < points.size(); ++k) out[owners[k]] += points[k] - points[k - 1];
}

bool ProfileMap::KeyHashCounts(std::span<HashCount> out) const noexcept {
  if (engine_ == Engine::kEnvoyRing || engine_ == Engine::kJedis) {
    RingArcCounts(points(), point_owners(), out);  // Jedis's flipped sign bit keeps every arc
    return true;
  }
  if (engine_ != Engine::kEnvoyMaglev) return false;
  constexpr HashCount kSpace = HashCount{1} << 64;
  const uint64_t m = owners_table_.size();
  const HashCount each = kSpace / m, extra = kSpace % m;
  for (uint64_t e = 0; e < m; ++e) out[owners_table_[e]] += each + (e < extra ? 1 : 0);
  return true;
}

size_t ProfileMap::MemoryBytes() const noexcept {
  size_t bytes =
      sizeof(ProfileMap) + scorers_.capacity() * sizeof(Scorer) +
      ring_points_.capacity() * sizeof(uint64_t) +
      (ring_owners_.capacity() + owners_table_.capacity() + index_.capacity()) * sizeof(uint32_t);
  for (const Scorer& s : scorers_) bytes += s.name.capacity();
  return bytes;
}

}  // namespace chsim
