// SPDX-License-Identifier: Apache-2.0
// `ketama`: a Ketama compatibility profile (chsim/profile.h: spymemcached,
// libmemcached, twemproxy, uhashring, ...) behind the Algorithm interface, so
// a simulation places keys exactly as that client would. Keys are hashed with
// the profile's key hasher (KeyHasher), located by its low 32 bits. Every
// Add/Remove rebuilds the ring over the live nodes in id order, as the peers
// do when their server list changes (NewProfileRing, ring.cc).
//
// Capabilities are those every profile keeps: profiles whose point counts
// depend on n (libmemcached's float formula) move keys between survivors on
// add/remove, so minimal disruption is not claimed.
#include "internal.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kKetamaSpec;

namespace {

Profile KetamaProfile(const Params& p) {
  return MakeProfile(p.Text("profile"), ProfileOptions{p.Text("hash_algorithm"), p.Text("hasher")});
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
};

void Admit(const Params& p, const TimelineStep& step) {
  AdmitRing(KetamaProfile(p), step.live, p.weighted_list);
}

std::string_view KeyHasher(const Params& p) { return KetamaProfile(p).key_hasher->name; }

double Memory(const Params&, uint64_t n) { return 10.0 * 160 * static_cast<double>(n) + 4.0 * n; }

}  // namespace

constinit const AlgorithmSpec kKetamaSpec{
    .name = "ketama",
    .summary =
        "a memcached client's Ketama ring (a compatibility profile), keys hashed as the "
        "client does",
    .paper = "Karger et al., STOC 1997; libketama (last.fm, 2007); the clients' sources",
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
          return NewProfileRing(kKetamaSpec, nodes, p, KetamaProfile(p), true, 0);
        },
};

}  // namespace chsim::algorithms_internal
