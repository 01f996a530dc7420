// SPDX-License-Identifier: Apache-2.0
#include "sim/cli/change_diff.h"

#include <algorithm>
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

  void Add(uint32_t before, uint32_t after, uint64_t count) {
    const size_t to = new_to_server_[after];
    d_.count_old[before] += count;
    d_.count_new[to] += count;
    if (before != to) moves_[uint64_t{before} << 32 | to] += count;
  }

  ChangeDiff Finish(DiffMethod method, uint64_t total) &&;

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
  std::unordered_map<uint64_t, uint64_t> moves_;
};

std::vector<double> Fractions(std::span<const uint64_t> v) {
  double total = 0;
  for (uint64_t x : v) total += static_cast<double>(x);
  std::vector<double> out(v.size(), 0.0);
  if (total > 0)
    for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<double>(v[i]) / total;
  return out;
}

ChangeDiff Tally::Finish(DiffMethod method, uint64_t total) && {
  d_.method = method;
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
  d_.minimal = MinimalMoves(Fractions(d_.count_old), Fractions(d_.count_new));
  d_.minimal_ideal = MinimalMoves(Fractions(w_old), Fractions(w_new));
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
  if (!p.algorithm->capabilities().stateful) return p.algorithm->LocateBatch(hashes, owners);
  for (size_t i = 0; i < hashes.size(); ++i) owners[i] = p.algorithm->Assign(hashes[i]);
}

// Owners of a block of keys, in file order.
void LocateKeys(const Placement& p, std::span<const std::string_view> keys,
                std::span<uint64_t> hashes, std::span<uint32_t> owners) {
  if (p.ring != nullptr) return p.ring->LocateBatch(keys, owners);
  HashBatch(*p.key_hasher, keys, hashes);
  LocateHashes(p, hashes.first(keys.size()), owners);
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
  if (p.ring != nullptr) return true;
  RingView view;
  return !p.algorithm->capabilities().stateful && p.algorithm->ViewRing(&view);
}

ChangeDiff DiffExact(const Placement& before, const Placement& after) {
  const Arcs a = ArcsOf(before), b = ArcsOf(after);
  const uint32_t mask = a.ring->space_mask();
  // Runs start at 0, at every point and just after it: between two starts
  // neither ring's owner changes, whether its edge is >= or >, and past the
  // last point (wrap or not) too.
  std::vector<uint32_t> starts{0};
  starts.reserve(2 * (a.ring->size() + b.ring->size()) + 1);
  for (const Arcs* r : {&a, &b}) {
    for (uint32_t point : r->ring->points()) {
      if (point > mask) continue;
      starts.push_back(point);
      if (point < mask) starts.push_back(point + 1);
    }
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  Tally tally(before, after);
  for (size_t i = 0; i < starts.size(); ++i) {
    const uint64_t end = i + 1 < starts.size() ? starts[i + 1] : uint64_t{mask} + 1;
    tally.Add(a.Id(a.ring->LocateHash(starts[i])), b.Id(b.ring->LocateHash(starts[i])),
              end - starts[i]);
  }
  return std::move(tally).Finish(DiffMethod::kExact, uint64_t{mask} + 1);
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
  return std::move(tally).Finish(DiffMethod::kKeys, total);
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
  return std::move(tally).Finish(DiffMethod::kSampled, samples);
}

}  // namespace chsim::sim
