// SPDX-License-Identifier: Apache-2.0
// The ketama algorithm's instance for a profile whose engine is a ProfileMap
// (chsim/profile_map.h: pymemcache's rendezvous hashing, Envoy's ring_hash
// and maglev, Jedis): Add/Remove rebuild it over the live nodes in id order,
// as ProfileRing does for the 32-bit rings. Locate maps the 64-bit key hash
// (rendezvous: a stand-in key); LocateKeys maps the keys themselves.
#include "chsim/profile_map.h"

#include "internal.h"

namespace chsim::algorithms_internal {
namespace {

class ProfileMapAlgorithm final : public AlgorithmBase {
 public:
  ProfileMapAlgorithm(const AlgorithmSpec& spec, std::span<const Node> nodes, const Params& p,
                      Profile profile)
      : AlgorithmBase(spec, nodes, p), profile_(std::move(profile)) {
    Rebuild();
  }

  Capabilities capabilities() const noexcept override {
    Capabilities c = AlgorithmBase::capabilities();
    // A rendezvous score depends on the key and one server only: no closed
    // form for the shares, and a key moves only to or from a changed server.
    // The rings' arcs and the table's entries give exact shares.
    // Envoy's point counts and table follow the normalized weights, and
    // Jedis numbers its shards by position: keys move between survivors.
    c.exact_shares = profile_.engine != Engine::kRendezvous;
    c.minimal_disruption = profile_.engine == Engine::kRendezvous;
    c.history_free = true;
    return c;
  }
  uint32_t Locate(uint64_t key_hash) const noexcept override {
    return ids_[map_.LocateHash(key_hash)];
  }
  void LocateBatch(std::span<const uint64_t> hashes,
                   std::span<uint32_t> out) const noexcept override {
    for (size_t i = 0; i < hashes.size(); ++i) out[i] = ids_[map_.LocateHash(hashes[i])];
  }
  bool LocateKeys(std::span<const std::string_view> keys,
                  std::span<uint32_t> out) const noexcept override {
    map_.LocateBatch(keys, out);
    for (size_t i = 0; i < keys.size(); ++i) out[i] = ids_[out[i]];
    return true;
  }
  size_t MemoryBytes() const noexcept override { return map_.MemoryBytes() + IdBytes(); }
  // Each node's share of the 2^64 key hashes (ProfileMap::KeyHashCounts).
  std::optional<std::vector<double>> StructuralShares() const override {
    std::vector<HashCount> counts(map_.num_nodes(), 0);
    if (!map_.KeyHashCounts(counts)) return std::nullopt;
    std::vector<double> shares(next_id_, 0.0);
    for (size_t i = 0; i < counts.size(); ++i) {
      shares[ids_[i]] = static_cast<double>(counts[i]) / 0x1p64;
    }
    return shares;
  }
  // Envoy's ring and Jedis's: random points, each owning the hashes up to it
  // (Karger's ring, the theory's model), at equal weights.
  double RingPointsPerNode() const noexcept override {
    const bool ring = profile_.engine == Engine::kEnvoyRing || profile_.engine == Engine::kJedis;
    if (!ring || HasWeights(nodes_) || map_.num_nodes() == 0) return 0;
    return static_cast<double>(map_.points().size()) / static_cast<double>(map_.num_nodes());
  }

 private:
  void OnAdd(const Node&, uint32_t) override { Rebuild(); }
  void OnRemove(size_t, uint32_t) override { Rebuild(); }
  void Rebuild() { map_ = ProfileMap::Build(profile_, nodes_); }  // the old map stays on a throw

  Profile profile_;
  ProfileMap map_;
};

}  // namespace

std::unique_ptr<Algorithm> NewProfileMap(const AlgorithmSpec& spec, std::span<const Node> nodes,
                                         const Params& params, Profile profile) {
  return std::make_unique<ProfileMapAlgorithm>(spec, nodes, params, std::move(profile));
}

}  // namespace chsim::algorithms_internal
