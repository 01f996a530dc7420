// SPDX-License-Identifier: Apache-2.0
// `ketama`: a compatibility profile (chsim/profile.h: spymemcached,
// libmemcached, twemproxy, uhashring, nginx, haproxy, groupcache, ...) behind
// the Algorithm interface, so a simulation places keys exactly as that client
// or proxy would. Keys are hashed with the profile's key hasher (KeyHasher),
// located by the low 32 bits on a 32-bit Ring; pymemcache's ProfileMap
// scores a stand-in key (profile_map.h). Every Add/Remove rebuilds the
// structure over the live nodes in id order, as the programs do when their
// server list changes (NewProfileRing, ring.cc; NewProfileMap,
// profile_map.cc).
//
// Capabilities are those every profile keeps: profiles whose point counts
// depend on n (libmemcached's float formula) move keys between survivors on
// add/remove, so minimal disruption is not claimed.
#include "chsim/profile_map.h"
#include "internal.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kKetamaSpec;

namespace {

Profile KetamaProfile(const Params& p) {
  ProfileOptions o;
  o.hash_algorithm = p.Text("hash_algorithm");
  o.hasher = p.Text("hasher");
  o.replicas = static_cast<uint32_t>(p.Integer("points_per_weight"));
  o.min_ring_size = p.Integer("min_ring_size");
  o.table_size = p.Integer("maglev_table_size");
  return MakeProfile(p.Text("profile"), o);
}

std::vector<std::string_view> HashAlgorithmNames() {
  std::span<const std::string_view> names = SpymemcachedHashAlgorithms();
  return {names.begin(), names.end()};
}

std::vector<std::string_view> ProfileNames() {
  std::vector<std::string_view> names;
  for (const ProfileInfo& p : AllProfiles()) names.push_back(p.name);
  return names;
}

constexpr ParamSpec kParams[] = {
    {.name = "profile",
     .type = ParamType::kString,
     .doc = "the client reproduced (chsim list: profiles)",
     .default_text = "spymemcached",
     .choices = ProfileNames,
     .sweepable = true,
     .bare = true},
    {.name = "hash_algorithm",
     .type = ParamType::kString,
     .doc = "spymemcached profiles: DefaultHashAlgorithm (default KETAMA_HASH)",
     .default_text = "",
     .choices = HashAlgorithmNames},
    {.name = "hasher",
     .type = ParamType::kString,
     .doc = "key hasher where the client lets you choose (libmemcached-ketama, twemproxy)",
     .default_text = "",
     .choices = HasherNames,
     .bare = true},
    {.name = "points_per_weight",
     .type = ParamType::kInteger,
     .doc = "varnish: points per unit of weight (reconfigure replicas, 0: 67); groupcache: "
            "points per peer (Replicas, 0: 50)",
     .default_number = 0,
     .min = 0,
     .max = 1 << 28,
     .symbol = "r"},
    {.name = "min_ring_size",
     .type = ParamType::kInteger,
     .doc = "envoy-ring: minimum_ring_size (0: Envoy's 1024)",
     .default_number = 0,
     .min = 0,
     .max = static_cast<double>(kEnvoyMaxRingSize)},
    {.name = "maglev_table_size",
     .type = ParamType::kInteger,
     .doc = "envoy-maglev: table_size, a prime (0: Envoy's 65537)",
     .default_number = 0,
     .min = 0,
     .max = static_cast<double>(kEnvoyMaxTableSize)},
};

void Admit(const Params& p, const TimelineStep& step) {
  const Profile profile = KetamaProfile(p);
  if (profile.engine == Engine::kRing) return AdmitRing(profile, step.live, p.weighted_list);
  CheckProfileMap(profile, step.live);
}

std::string_view KeyHasher(const Params& p) { return KetamaProfile(p).key_hasher->name; }

double Memory(const Params&, uint64_t n) { return 10.0 * 160 * static_cast<double>(n) + 4.0 * n; }

}  // namespace

constinit const AlgorithmSpec kKetamaSpec{
    .name = "ketama",
    .summary =
        "a memcached client's or a proxy's own ring or rendezvous (a compatibility profile), "
        "keys hashed as the program does",
    .paper =
        "Karger et al., STOC 1997; libketama (last.fm, 2007); the clients' and proxies' "
        "sources",
    .year = 2007,
    .capabilities = {.weights = true,
                     .arbitrary_removal = true,
                     .incremental = false,
                     .exact_shares = true,
                     .stateful = false,
                     .minimal_disruption = false,
                     .history_free = false},
    .views = {.ring = true},
    .params = kParams,
    .balance_bound = 1.35,
    .memory_bytes = Memory,
    .memory_doc = "8-12 bytes per point (about 160 per node), 4 per node",
    .key_hasher = KeyHasher,
    .admit = Admit,
    .make =
        [](std::span<const Node> nodes, const Params& p) {
          Profile profile = KetamaProfile(p);
          if (profile.engine != Engine::kRing) {
            return NewProfileMap(kKetamaSpec, nodes, p, std::move(profile));
          }
          return NewProfileRing(kKetamaSpec, nodes, p, std::move(profile), true, 0);
        },
};

}  // namespace chsim::algorithms_internal
