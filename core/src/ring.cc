#include "chsim/ring.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <numeric>
#include <stdexcept>
#include <string>

#include "chsim/md5.h"

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

}  // namespace

Ring Ring::Build(const Profile& profile, std::span<const Node> nodes, bool weighted) {
  if (nodes.empty()) throw std::invalid_argument("a ring needs at least one node");
  if (nodes.size() > kMaxNodes) {
    throw std::invalid_argument("a ring takes at most " + std::to_string(kMaxNodes) + " nodes (got " +
                                std::to_string(nodes.size()) + ")");
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
  std::vector<uint64_t> entries;
  entries.reserve(total_points);
  const bool later_wins = profile.tie == TieRule::kLaterWins;
  std::string key;
  for (size_t r = 0; r < nodes.size(); ++r) {
    const uint32_t rank = later_wins ? static_cast<uint32_t>(nodes.size() - 1 - r)
                                     : static_cast<uint32_t>(r);
    key = PointKeyPrefix(profile, nodes[order[r]]);
    key.push_back('-');
    const size_t prefix_len = key.size();
    auto emit = [&](uint32_t point) { entries.push_back(uint64_t{point} << 32 | rank); };
    char digits[16];
    const uint32_t want = counts[r];
    uint32_t emitted = 0;
    for (uint32_t i = 0; emitted < want; ++i) {
      auto [end, ec] = std::to_chars(digits, digits + sizeof digits, i);
      (void)ec;
      key.resize(prefix_len);
      key.append(digits, end);
      if (md5x4) {
        uint8_t d[16];
        Md5(key.data(), key.size(), d);
        for (int j = 0; j < 4 && emitted < want; ++j, ++emitted) emit(Md5Slice(d, j));
      } else {
        emit(static_cast<uint32_t>((*profile.point_hasher)(key)));
        ++emitted;
      }
    }
  }
  std::sort(entries.begin(), entries.end());

  Ring ring;
  ring.num_nodes_ = nodes.size();
  ring.key_hasher_ = profile.key_hasher;
  ring.edge_greater_ = profile.edge == LookupEdge::kGreater;
  auto owner_of = [&](uint64_t e) {
    uint32_t rank = static_cast<uint32_t>(e);
    uint32_t r = later_wins ? static_cast<uint32_t>(nodes.size() - 1 - rank) : rank;
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
  for (size_t i = 0; i < keys.size(); ++i) out[i] = Locate(keys[i]);
}

size_t Ring::MemoryBytes() const noexcept {
  return sizeof(Ring) + points_.capacity() * sizeof(uint32_t) +
         owners_.capacity() * sizeof(uint32_t) + index_.capacity() * sizeof(uint32_t);
}

}  // namespace chsim
