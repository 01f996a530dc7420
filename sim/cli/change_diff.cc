// SPDX-License-Identifier: Apache-2.0
#include "sim/cli/change_diff.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <unordered_map>

#include "sim/base/rng.h"
#include "sim/cli/key_lines.h"
#include "sim/run/metrics.h"

namespace chsim::sim {
namespace {

// Counts units by (server before, server after), owners given as indexes
// into each side's list.
class Tally {
 public:
  Tally(const Placement& before, const Placement& after) {
    std::unordered_map<std::string_view, size_t> index;
    for (const Node& n : before.nodes) Server(n, index);
    for (const Node& n : before.nodes) d_.weight_old[index.at(n.label)] = n.weight;
    for (const Node& n : after.nodes) {
      const size_t i = Server(n, index);
      d_.weight_new[i] = n.weight;
      new_to_server_.push_back(i);
    }
  }

  void Add(uint32_t before, uint32_t after, HashCount count) {
    const size_t to = new_to_server_[after];
    d_.count_old[before] += count;
    d_.count_new[to] += count;
    if (before != to) moves_[uint64_t{before} << 32 | to] += count;
  }

  ChangeDiff Finish(DiffMethod method, HashCount total, int key_space_bits) &&;

 private:
  // The server index of a label, added when new. The map views the nodes'
  // labels, which outlive the tally.
  size_t Server(const Node& n, std::unordered_map<std::string_view, size_t>& ix) {
    auto [it, added] = ix.emplace(n.label, d_.servers.size());
    if (added) {
      d_.servers.push_back(n.label);
      for (auto* v : {&d_.weight_old, &d_.weight_new}) v->push_back(0);
      for (auto* v : {&d_.count_old, &d_.count_new}) v->push_back(0);
    }
    return it->second;
  }

  ChangeDiff d_;
  std::vector<size_t> new_to_server_;
  std::unordered_map<uint64_t, HashCount> moves_;
};

template <class Count>
std::vector<double> Fractions(std::span<const Count> v) {
  double total = 0;
  for (Count x : v) total += static_cast<double>(x);
  std::vector<double> out(v.size(), 0.0);
  if (total > 0)
    for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<double>(v[i]) / total;
  return out;
}

ChangeDiff Tally::Finish(DiffMethod method, HashCount total, int key_space_bits) && {
  d_.method = method;
  d_.key_space_bits = key_space_bits;
  d_.total = total;
  for (const auto& [key, count] : moves_) {
    const DiffMove m{static_cast<size_t>(key >> 32), static_cast<size_t>(key & 0xffffffffu), count};
    d_.moved += count;
    const bool survivors = d_.weight_old[m.from] > 0 && d_.weight_new[m.from] > 0 &&
                           d_.weight_old[m.to] > 0 && d_.weight_new[m.to] > 0;
    if (survivors) d_.moved_between_survivors += count;
    d_.moves.push_back(m);
  }
  std::sort(d_.moves.begin(), d_.moves.end(), [](const DiffMove& a, const DiffMove& b) {
    if (a.count != b.count) return a.count > b.count;
    return a.from != b.from ? a.from < b.from : a.to < b.to;
  });
  const std::vector<uint64_t> w_old(d_.weight_old.begin(), d_.weight_old.end());
  const std::vector<uint64_t> w_new(d_.weight_new.begin(), d_.weight_new.end());
  d_.minimal = MinimalMoves(Fractions<HashCount>(d_.count_old), Fractions<HashCount>(d_.count_new));
  d_.minimal_ideal = MinimalMoves(Fractions<uint64_t>(w_old), Fractions<uint64_t>(w_new));
  return std::move(d_);
}

// A ring and the node id of each of its owners (empty: the owner is the id).
struct Arcs {
  const Ring* ring = nullptr;
  std::span<const uint32_t> ids;
  uint32_t Id(uint32_t owner) const { return ids.empty() ? owner : ids[owner]; }
};

Arcs ArcsOf(const Placement& p) {
  if (p.ring != nullptr) return {p.ring, {}};
  RingView view;
  p.algorithm->ViewRing(&view);
  return {view.ring, view.owner_ids};
}

// Owners of 64-bit key hashes, assigned in order when the algorithm is stateful.
void LocateHashes(const Placement& p, std::span<const uint64_t> hashes,
                  std::span<uint32_t> owners) {
  if (p.map != nullptr) {
    for (size_t i = 0; i < hashes.size(); ++i) owners[i] = p.map->LocateHash(hashes[i]);
    return;
  }
  if (!p.algorithm->capabilities().stateful) return p.algorithm->LocateBatch(hashes, owners);
  for (size_t i = 0; i < hashes.size(); ++i) owners[i] = p.algorithm->Assign(hashes[i]);
}

// Owners of a block of keys, in file order.
void LocateKeys(const Placement& p, std::span<const std::string_view> keys,
                std::span<uint64_t> hashes, std::span<uint32_t> owners) {
  if (p.ring != nullptr) return p.ring->LocateBatch(keys, owners);
  if (p.map != nullptr) return p.map->LocateBatch(keys, owners);
  HashBatch(*p.key_hasher, keys, hashes);
  LocateHashes(p, hashes.first(keys.size()), owners);
}

constexpr HashCount kSpace64 = HashCount{1} << 64;
constexpr uint64_t kSignBit = uint64_t{1} << 63;

// The starts of the runs of the key-hash space [0, mask] in which neither
// ring's owner changes: 0, every point of either ring and the value just
// after it, whether the ring's edge is >= or >, and past its last point (wrap
// or not). Sorted, each once.
template <class PointsA, class PointsB>
std::vector<uint64_t> RunStarts(const PointsA& a, const PointsB& b, uint64_t mask) {
  std::vector<uint64_t> starts{0};
  starts.reserve(2 * (a.size() + b.size()) + 1);
  auto add = [&](uint64_t point) {
    if (point > mask) return;
    starts.push_back(point);
    if (point < mask) starts.push_back(point + 1);
  };
  for (uint64_t p : a) add(p);
  for (uint64_t p : b) add(p);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  return starts;
}

// Each run asked of each side's own lookup once, at its start.
template <class OwnerA, class OwnerB>
void TallyRuns(const std::vector<uint64_t>& starts, uint64_t mask, OwnerA owner_a, OwnerB owner_b,
               Tally& tally) {
  for (size_t i = 0; i < starts.size(); ++i) {
    const HashCount end = i + 1 < starts.size() ? starts[i + 1] : HashCount{mask} + 1;
    tally.Add(owner_a(starts[i]), owner_b(starts[i]), end - starts[i]);
  }
}

// Two maglev tables of M1 and M2 entries: hash h is on entry h % M1 before
// and h % M2 after, and both follow from h % L, L = lcm(M1, M2) (the Chinese
// remainder theorem). So residue e of L pairs entry e % M1 with e % M2, and
// holds the 2^64 / L hashes h = e (mod L), one more for e < 2^64 % L.
// REQUIRES: L <= kMaxTablePeriod.
void TallyTables(std::span<const uint32_t> a, std::span<const uint32_t> b, Tally& tally) {
  const uint64_t period = std::lcm(uint64_t{a.size()}, uint64_t{b.size()});
  const HashCount each = kSpace64 / period, extra = kSpace64 % period;
  for (uint64_t e = 0; e < period; ++e)
    tally.Add(a[e % a.size()], b[e % b.size()], each + (e < extra ? 1 : 0));
}

}  // namespace

std::string_view DiffMethodName(DiffMethod m) noexcept {
  switch (m) {
    case DiffMethod::kExact:
      return "exact";
    case DiffMethod::kKeys:
      return "keys";
    case DiffMethod::kSampled:
      return "sampled";
  }
  return "";
}

bool HasExactArcs(const Placement& p) {
  if (p.map != nullptr) return p.map->engine() != Engine::kRendezvous;
  if (p.ring != nullptr) return true;
  RingView view;
  return !p.algorithm->capabilities().stateful && p.algorithm->ViewRing(&view);
}

ChangeDiff DiffExact(const Placement& before, const Placement& after) {
  Tally tally(before, after);
  if (before.map != nullptr && before.map->engine() == Engine::kEnvoyMaglev) {
    TallyTables(before.map->table(), after.map->table(), tally);
    return std::move(tally).Finish(DiffMethod::kExact, kSpace64, 64);
  }
  if (before.map != nullptr) {
    // Jedis searches its points with the sign bit flipped (ProfileMap): the
    // runs are cut and counted in that order, each looked up as its hash.
    const uint64_t flip = before.map->engine() == Engine::kJedis ? kSignBit : 0;
    const ProfileMap &a = *before.map, &b = *after.map;
    TallyRuns(
        RunStarts(a.points(), b.points(), ~uint64_t{0}), ~uint64_t{0},
        [&](uint64_t s) { return a.LocateHash(s ^ flip); },
        [&](uint64_t s) { return b.LocateHash(s ^ flip); }, tally);
    return std::move(tally).Finish(DiffMethod::kExact, kSpace64, 64);
  }
  const Arcs a = ArcsOf(before), b = ArcsOf(after);
  const uint32_t mask = a.ring->space_mask();
  TallyRuns(
      RunStarts(a.ring->points(), b.ring->points(), mask), mask,
      [&](uint64_t s) { return a.Id(a.ring->LocateHash(static_cast<uint32_t>(s))); },
      [&](uint64_t s) { return b.Id(b.ring->LocateHash(static_cast<uint32_t>(s))); }, tally);
  return std::move(tally).Finish(DiffMethod::kExact, uint64_t{mask} + 1, std::bit_width(mask));
}

std::string CountText(HashCount n) {
  std::string digits;
  do {
    digits += static_cast<char>('0' + static_cast<int>(n % 10));
    n /= 10;
  } while (n != 0);
  return {digits.rbegin(), digits.rend()};
}

bool CanDiffExact(const Placement& before, const Placement& after) {
  if (!HasExactArcs(before) || !HasExactArcs(after)) return false;
  if ((before.map == nullptr) != (after.map == nullptr)) return false;
  if (before.map == nullptr) return true;
  if (before.map->engine() != after.map->engine()) return false;
  if (before.map->engine() != Engine::kEnvoyMaglev) return true;
  const uint64_t m1 = before.map->table().size(), m2 = after.map->table().size();
  return std::lcm(m1, m2) <= kMaxTablePeriod;
}

ChangeDiff DiffKeys(const Placement& before, const Placement& after, const std::string& path) {
  KeyLineReader reader(path);
  Tally tally(before, after);
  std::vector<uint64_t> hashes(kLocateBlockKeys);
  std::vector<uint32_t> old_owner(kLocateBlockKeys), new_owner(kLocateBlockKeys);
  uint64_t total = 0;
  for (;;) {
    const std::span<const std::string_view> keys = reader.Next(kLocateBlockKeys);
    if (keys.empty()) break;
    LocateKeys(before, keys, hashes, old_owner);
    LocateKeys(after, keys, hashes, new_owner);
    for (size_t i = 0; i < keys.size(); ++i) tally.Add(old_owner[i], new_owner[i], 1);
    total += keys.size();
  }
  return std::move(tally).Finish(DiffMethod::kKeys, total, 0);
}

ChangeDiff DiffSampled(const Placement& before, const Placement& after, uint64_t samples,
                       uint64_t seed) {
  SplitMix64 rng(seed);
  Tally tally(before, after);
  std::vector<uint64_t> hashes(kLocateBlockKeys);
  std::vector<uint32_t> old_owner(kLocateBlockKeys), new_owner(kLocateBlockKeys);
  for (uint64_t done = 0; done < samples;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kLocateBlockKeys, samples - done));
    for (size_t i = 0; i < n; ++i) hashes[i] = rng.Next();
    LocateHashes(before, {hashes.data(), n}, old_owner);
    LocateHashes(after, {hashes.data(), n}, new_owner);
    for (size_t i = 0; i < n; ++i) tally.Add(old_owner[i], new_owner[i], 1);
    done += n;
  }
  return std::move(tally).Finish(DiffMethod::kSampled, samples, 0);
}

}  // namespace chsim::sim
