// SPDX-License-Identifier: Apache-2.0
#include "chsim/profile.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace chsim {
namespace {

constexpr ProfileInfo kProfiles[] = {
    {"spymemcached",
     "spymemcached 2.12.3 KetamaNodeLocator: MD5 of host:port-i, 4 points/digest, 160 points, "
     "later server wins ties (--hash-algorithm for its other DefaultHashAlgorithms)"},
    {"spymemcached-libmemcached",
     "spymemcached 2.12.3 with KetamaNodeKeyFormatter.Format.LIBMEMCACHED: host-i (host:port-i "
     "if port != 11211), hosts as written (no DNS)"},
    {"libmemcached",
     "libmemcached 1.1 with MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED: host-i, float32 weighted point "
     "count (156 for some n), MD5 keys, earlier server wins ties"},
    {"libmemcached-spy",
     "libmemcached 1.1 CONSISTENT_KETAMA_SPY with the weighted flag: /host:port-i (matches "
     "spymemcached < 2.5, not 2.12.3)"},
    {"libmemcached-ketama",
     "libmemcached 1.1 CONSISTENT_KETAMA unweighted: 100 points, one per hash, placed and "
     "looked up with the key hash (one_at_a_time; --hasher md5)"},
    {"twemproxy",
     "twemproxy (nutcracker) 0.5 distribution ketama, hash md5: NAME-i, servers sorted by "
     "name, float32 weighted point count"},
    {"uhashring",
     "uhashring 2.1 HashRing(nodes, hash_fn='ketama'): label-i, integer point count, first "
     "point > hash"},
    {"nginx",
     "nginx 1.22 upstream `hash KEY consistent`: CRC-32 chain over host NUL port (the server "
     "text as written) and the previous point, 160 points per weight, key crc32, first point "
     ">= hash, equal points kept once"},
    {"nginx-hash",
     "nginx 1.22 upstream `hash KEY` (Cache::Memcached-compatible): (crc32(key) >> 16) & "
     "0x7fff modulo the total weight, walked down the weights in server order"},
    {"varnish",
     "Varnish 7.1 shard director: sha256_last32 of ident + decimal j, 67 (replicas) points per "
     "weight, ident = NAME else the label, first point >= hash, no wrap past the last point"},
    {"haproxy",
     "HAProxy 2.6 `hash-type consistent`: 16 points per weight at full_hash(id x 4096 + j) "
     "(ids: NAME, else numbered as HAProxy does), the nearest point, a tie to the lower; key "
     "hash --hasher sdbm_avalanche (default), sdbm, djb2[_avalanche], wt6[_avalanche], "
     "crc32[_avalanche]"},
    {"groupcache",
     "Go groupcache consistenthash (HTTPPool): crc32 of decimal i + peer (NAME, else the "
     "label), 50 points per peer (--points-per-weight: Replicas), no weights, first point >= "
     "hash, the later peer wins equal points"},
    {"pecl-memcache",
     "PHP memcache 8 (PECL) consistent strategy: crc32 of host:port-i, 160 points per weight, "
     "read at 1,024 buckets; key bucket = crc32(key as sent) % 1024 (--hasher memcache_fnv for "
     "memcache.hash_function=fnv)"},
    {"pymemcache",
     "pymemcache 3.5 HashClient: rendezvous, the highest murmur3_32 of host:port-KEY over the "
     "key's code points (low 8 bits each), ties to the greater host:port; no weights"},
    {"envoy-ring",
     "Envoy ring_hash: xxHash64 (--hasher envoy_murmur2: MURMUR_HASH_2) of KEY_i, KEY the "
     "NAME (hash_key or hostname) else host:port; points from the normalized weights and "
     "--min-ring-size (1024) / --max-ring-size (8M); key xxHash64, first point >= hash"},
    {"envoy-maglev",
     "Envoy maglev: a table of --maglev-table-size (65537, a prime) filled in Envoy's weighted "
     "order, "
     "offset and skip from xxHash64 seeds 0 and 1 of NAME else host:port; key xxHash64, "
     "table[hash % size]"},
    {"jedis",
     "Jedis Sharded: MurmurHash64A (seed 0x1234ABCD) of SHARD-i-NODE-n (NAME*n when named), "
     "160 points per weight in signed 64-bit order, a later shard wins equal points, first "
     "point >= hash"},
};

[[noreturn]] void Unknown(std::string_view what, std::string_view value, std::string valid) {
  throw std::invalid_argument("unknown " + std::string(what) + " '" + std::string(value) +
                              "' (valid: " + valid + ")");
}

std::string ProfileNames() {
  std::string s;
  for (const ProfileInfo& p : kProfiles) {
    if (!s.empty()) s += ", ";
    s += p.name;
  }
  return s;
}

struct SpyAlgorithm {
  std::string_view name;
  std::string_view hasher;
};
constexpr SpyAlgorithm kSpyAlgorithms[] = {
    {"KETAMA_HASH", "md5"},
    {"NATIVE_HASH", "java_string"},
    {"CRC_HASH", "crc_spy"},
    {"FNV1_64_HASH", "spy_fnv1_64"},
    {"FNV1A_64_HASH", "spy_fnv1a_64"},
    {"FNV1_32_HASH", "spy_fnv1_32"},
    {"FNV1A_32_HASH", "spy_fnv1a_32"},
};

constexpr std::string_view kSpyAlgorithmNames[] = {
    kSpyAlgorithms[0].name, kSpyAlgorithms[1].name, kSpyAlgorithms[2].name, kSpyAlgorithms[3].name,
    kSpyAlgorithms[4].name, kSpyAlgorithms[5].name, kSpyAlgorithms[6].name};
static_assert(std::size(kSpyAlgorithmNames) == std::size(kSpyAlgorithms));

void ApplySpyAlgorithm(Profile& p, const std::string& algorithm) {
  std::string_view alg = algorithm.empty() ? "KETAMA_HASH" : std::string_view(algorithm);
  for (const SpyAlgorithm& a : kSpyAlgorithms) {
    if (a.name != alg) continue;
    p.key_hasher = &GetHasher(a.hasher);
    p.point_hasher = p.key_hasher;
    // KETAMA_HASH takes 4 points per MD5 digest; every other algorithm hashes
    // each of the 160 point keys once (KetamaNodeLocator.setKetamaNodes).
    p.points_per_hash = a.name == "KETAMA_HASH" ? 4 : 1;
    return;
  }
  std::string valid;
  for (const SpyAlgorithm& a : kSpyAlgorithms)
    valid += (valid.empty() ? "" : ", ") + std::string(a.name);
  Unknown("spymemcached hash algorithm", alg, valid);
}

void RejectOption(std::string_view profile, std::string_view option, const std::string& value) {
  if (!value.empty()) {
    throw std::invalid_argument("profile '" + std::string(profile) + "' takes no " +
                                std::string(option) + " (got '" + value + "')");
  }
}

// nginx 1.22 ngx_http_upstream_hash_module.c: ngx_http_upstream_init_chash
// (the points) and ngx_http_upstream_get_chash_peer (the lookup).
void ApplyNginx(Profile& p, const ProfileOptions& opt) {
  RejectOption(p.name, "--hash-algorithm", opt.hash_algorithm);
  RejectOption(p.name, "--hasher", opt.hasher);
  p.key_format = PointKeyFormat::kLabel;
  p.point_rule = PointRule::kCrc32Chain;
  p.points_per_node = 160;  // npoints = weight * 160
  p.count = p.weighted_count = PointCount::kPerWeight;
  p.points_per_hash = 1;
  p.weighted_uses_md5 = false;
  p.key_hasher = p.point_hasher = &GetHasher("crc32");  // ngx_crc32_long(key)
  p.tie = TieRule::kEarlierWins;  // sorted stably on the point, the first of equal ones kept
  p.duplicates = DuplicatePoints::kDrop;
  p.knob = PointsKnob::kWeight;  // 160 per weight is fixed; weight=N scales it
}

// nginx 1.22 ngx_http_upstream_hash_module.c: ngx_http_upstream_get_hash_peer
// (the first try; retries only follow a failed or down server).
void ApplyNginxHash(Profile& p, const ProfileOptions& opt) {
  RejectOption(p.name, "--hash-algorithm", opt.hash_algorithm);
  RejectOption(p.name, "--hasher", opt.hasher);
  p.key_format = PointKeyFormat::kLabel;
  p.point_rule = PointRule::kWeightModulo;
  p.points_per_node = 1;  // the plan's count; the entries are the runs of the key space
  p.count = p.weighted_count = PointCount::kConstant;
  p.points_per_hash = 1;
  p.weighted_uses_md5 = false;
  p.key_hasher = p.point_hasher = &GetHasher("crc_spy");  // (crc32(key) >> 16) & 0x7fff
  p.hash_space_bits = 15;
  p.knob = PointsKnob::kNone;
}

// Varnish 7.1 vmod/vmod_directors_shard_cfg.c: shardcfg_hashcircle (the
// points, l.265-325) and shardcfg_apply_change (replicas * weight, l.586-598);
// vmod_directors_shard_dir.c: shard_lookup (l.93-122).
void ApplyVarnish(Profile& p, const ProfileOptions& opt) {
  RejectOption(p.name, "--hash-algorithm", opt.hash_algorithm);
  RejectOption(p.name, "--hasher", opt.hasher);
  p.key_format = PointKeyFormat::kLabel;  // unused: kIdentDecimal takes NAME, else the label
  p.point_rule = PointRule::kIdentDecimal;
  p.points_per_node = opt.replicas == 0 ? 67 : opt.replicas;  // reconfigure(INT replicas=67)
  p.count = p.weighted_count = PointCount::kPerWeight;        // (uint32_t)(replicas * weight)
  p.points_per_hash = 1;
  p.weighted_uses_md5 = false;
  // vd.key(STRING) and every point: VRT_HashStrands32 (cache_vrt.c).
  p.key_hasher = p.point_hasher = &GetHasher("sha256_last32");
  // qsort on the point alone; glibc's qsort sorts by merging (stable), so
  // equal points stay in backend order and a hash below them finds the first.
  // Every entry is kept, as in Varnish's array: the last one answers hashes
  // above the largest point.
  p.tie = TieRule::kEarlierWins;
  p.duplicates = DuplicatePoints::kKeep;
  p.past_last = PastLastPoint::kLastPoint;
  p.knob = PointsKnob::kReplicas;  // reconfigure(replicas=...)
}

// The settings every profile with one point per hash shares: `count` points
// per node (or per unit of weight), no MD5 x4.
void OnePointPerHash(Profile& p, PointCount count, uint32_t points) {
  p.count = p.weighted_count = count;
  p.points_per_node = points;
  p.points_per_hash = 1;
  p.weighted_uses_md5 = false;
}

constexpr std::string_view kHaproxyHashers[] = {
    "sdbm_avalanche", "sdbm",  "djb2",           "djb2_avalanche", "wt6",
    "wt6_avalanche",  "crc32", "crc32_avalanche"};

// HAProxy 2.6 src/lb_chash.c: chash_init_server_tree (16 nodes per unit of
// weight, BE_WEIGHT_SCALE; keys full_hash(puid * SRV_EWGHT_RANGE + node)) and
// chash_get_server_hash (the nearest node); src/backend.c gen_hash and
// src/cfgparse-listen.c `hash-type` (the key hash and its default).
void ApplyHaproxy(Profile& p, const ProfileOptions& opt) {
  RejectOption(p.name, "--hash-algorithm", opt.hash_algorithm);
  std::string_view h = opt.hasher.empty() ? kHaproxyHashers[0] : std::string_view(opt.hasher);
  if (std::find(std::begin(kHaproxyHashers), std::end(kHaproxyHashers), h) ==
      std::end(kHaproxyHashers)) {
    std::string valid;
    for (std::string_view v : kHaproxyHashers)
      valid += (valid.empty() ? "" : ", ") + std::string(v);
    Unknown("hasher for haproxy", h, valid);
  }
  p.key_format = PointKeyFormat::kLabel;  // unused: kServerIdMix hashes ids
  p.point_rule = PointRule::kServerIdMix;
  OnePointPerHash(p, PointCount::kPerWeight, 16);  // BE_WEIGHT_SCALE nodes per unit of weight
  p.key_hasher = &GetHasher(h);
  p.point_hasher = p.key_hasher;  // unused: the points are HaproxyFullHash of integers
  p.edge = LookupEdge::kNearest;
  p.tie = TieRule::kEarlierWins;  // never used: distinct ids give distinct points
  p.duplicates = DuplicatePoints::kDrop;
  p.max_weight = 256;            // server.c srv_parse_weight: "weight must be between 0 and 256"
  p.knob = PointsKnob::kWeight;  // 16 per weight is fixed; `weight N` scales it
}

// Go groupcache (Debian golang-github-golang-groupcache-dev) consistenthash/
// consistenthash.go: New (crc32.ChecksumIEEE unless HashFn is set), Add
// (hashMap[hash] = key: the later peer owns an equal point; every point stays
// in the sorted keys), Get (sort.Search for the first point >= hash, else
// point 0); http.go: defaultReplicas = 50, HTTPPool.Set adds the peers in
// order.
void ApplyGroupcache(Profile& p, const ProfileOptions& opt) {
  RejectOption(p.name, "--hash-algorithm", opt.hash_algorithm);
  const std::string_view h = opt.hasher.empty() ? "crc32" : std::string_view(opt.hasher);
  const Hasher* hasher = FindHasher(h);
  if (hasher == nullptr || hasher->bits != 32) {  // a Go consistenthash.Hash returns uint32
    std::string valid;
    for (const Hasher& x : AllHashers()) {
      if (x.bits == 32) valid += (valid.empty() ? "" : ", ") + std::string(x.name);
    }
    Unknown("hasher for groupcache (a 32-bit hash)", h, valid);
  }
  p.key_format = PointKeyFormat::kLabel;  // unused: kDecimalThenPeer takes NAME, else the label
  p.point_rule = PointRule::kDecimalThenPeer;
  OnePointPerHash(p, PointCount::kConstant, opt.replicas == 0 ? 50 : opt.replicas);
  p.key_hasher = p.point_hasher = hasher;
  p.tie = TieRule::kLaterWins;
  p.duplicates = DuplicatePoints::kKeepAsWinner;
  p.max_weight = 1;                // Map.Add takes peers only
  p.knob = PointsKnob::kReplicas;  // HTTPPoolOptions.Replicas
}

// PECL memcache 8 (php-memcache; websupport-sk/pecl-memcache)
// memcache_consistent_hash.c: mmc_consistent_add_server (weight x
// MMC_CONSISTENT_POINTS = 160 points, the hash of "host:port-" continued over
// the decimal i), mmc_consistent_populate_buckets (qsort, then bucket i =
// mmc_consistent_find(step x i): the first point >= it, else point 0) and
// mmc_consistent_find_server (buckets[hash(key) % 1024]; one server: that
// one). The point hash is the pool's: CRC-32 (memcache.hash_function's
// default) or FNV-1a 32.
void ApplyPeclMemcache(Profile& p, const ProfileOptions& opt) {
  RejectOption(p.name, "--hash-algorithm", opt.hash_algorithm);
  const std::string_view h = opt.hasher.empty() ? "memcache_crc32" : std::string_view(opt.hasher);
  if (h != "memcache_crc32" && h != "memcache_fnv") {
    Unknown("hasher for pecl-memcache", h, "memcache_crc32, memcache_fnv");
  }
  p.key_format = PointKeyFormat::kHostPort;  // sprintf("%s:%d-", mmc->host, mmc->tcp.port)
  p.point_rule = PointRule::kPointKeyHash;
  OnePointPerHash(p, PointCount::kPerWeight, 160);
  p.key_hasher = &GetHasher(h);
  p.point_hasher = &GetHasher(h == "memcache_crc32" ? "crc32" : "fnv1a_32");
  p.tie = TieRule::kEarlierWins;  // qsort (unstable): equal points are not ordered by the program
  p.duplicates = DuplicatePoints::kKeep;
  p.buckets = 1024;  // MMC_CONSISTENT_BUCKETS
  p.hash_space_bits = 10;
  p.knob = PointsKnob::kWeight;  // 160 per weight is fixed; the weight scales it
}

// pymemcache 3.5.2 (Debian python3-pymemcache) client/hash.py HashClient
// (node names '%s:%s' % (host, port), _get_client -> hasher.get_node(key))
// and client/rendezvous.py RendezvousHash.get_node (score murmur3_32 of
// "%s-%s" % (node, key), seed 0; the highest wins, ties to max(str)).
void ApplyPymemcache(Profile& p, const ProfileOptions& opt) {
  RejectOption(p.name, "--hash-algorithm", opt.hash_algorithm);
  RejectOption(p.name, "--hasher", opt.hasher);
  p.engine = Engine::kRendezvous;
  p.key_format = PointKeyFormat::kHostPort;
  OnePointPerHash(p, PointCount::kConstant, 1);
  // The simulator's stand-in key hash (ProfileMap::LocateHash): chsim locate
  // scores the key text itself.
  p.key_hasher = p.point_hasher = &GetHasher("xxh3");
  p.max_weight = 1;            // HashClient takes servers, no weights
  p.knob = PointsKnob::kNone;  // every server scores every key
}

bool IsPrime(uint64_t n) {
  if (n < 2) return false;
  for (uint64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

// One of Envoy's size settings: 0 for the default, else lo..hi.
uint64_t EnvoySize(std::string_view flag, uint64_t given, uint64_t fallback, uint64_t hi) {
  if (given == 0) return fallback;
  if (given > hi) {
    throw std::invalid_argument(std::string(flag) + " " + std::to_string(given) +
                                " is above what Envoy accepts (1.." + std::to_string(hi) + ")");
  }
  return given;
}

// Envoy ring_hash_lb.cc: RingHashLoadBalancer (the sizes and their check)
// and Ring::Ring (the points); thread_aware_lb_impl.cc normalizeHostWeights.
// The request hash is the header hash policy's xxHash64 of the key
// (source/common/http/hash_policy.cc).
void ApplyEnvoyRing(Profile& p, const ProfileOptions& opt) {
  RejectOption(p.name, "--hash-algorithm", opt.hash_algorithm);
  const std::string_view h = opt.hasher.empty() ? "xxh64" : std::string_view(opt.hasher);
  if (h != "xxh64" && h != "envoy_murmur2") {
    Unknown("hasher for envoy-ring (hash_function XX_HASH or MURMUR_HASH_2)", h,
            "xxh64, envoy_murmur2");
  }
  p.engine = Engine::kEnvoyRing;
  p.key_format = PointKeyFormat::kName;  // unused: the NAME, else the label ("addr:port")
  OnePointPerHash(p, PointCount::kConstant, 1);
  p.point_hasher = &GetHasher(h);
  p.key_hasher = &GetHasher("xxh64");
  p.min_ring_size = EnvoySize("--min-ring-size (minimum_ring_size)", opt.min_ring_size,
                              kEnvoyDefaultMinRingSize, kEnvoyMaxRingSize);
  p.max_ring_size = EnvoySize("--max-ring-size (maximum_ring_size)", opt.max_ring_size,
                              kEnvoyMaxRingSize, kEnvoyMaxRingSize);
  if (p.min_ring_size > p.max_ring_size) {  // the message of ring_hash_lb.cc
    throw std::invalid_argument("ring hash: minimum_ring_size (" + std::to_string(p.min_ring_size) +
                                ") > maximum_ring_size (" + std::to_string(p.max_ring_size) + ")");
  }
  p.max_weight = UINT32_MAX;  // load_balancing_weight: a uint32 >= 1
  p.knob = PointsKnob::kMinRingSize;
}

// Envoy maglev_lb.cc: MaglevLoadBalancer (the size, a prime), MaglevTable::
// constructMaglevTableInternal (hosts sorted by key, offset and skip) and
// OriginalMaglevTable::constructImplementationInternals (the fill order);
// the compact table fills the same entries.
void ApplyEnvoyMaglev(Profile& p, const ProfileOptions& opt) {
  RejectOption(p.name, "--hash-algorithm", opt.hash_algorithm);
  if (!opt.hasher.empty() && opt.hasher != "xxh64") {
    Unknown("hasher for envoy-maglev", opt.hasher, "xxh64");
  }
  p.engine = Engine::kEnvoyMaglev;
  p.key_format = PointKeyFormat::kName;
  OnePointPerHash(p, PointCount::kConstant, 1);
  p.key_hasher = p.point_hasher = &GetHasher("xxh64");
  p.table_size = EnvoySize("--maglev-table-size (table_size)", opt.table_size,
                           kEnvoyDefaultTableSize, kEnvoyMaxTableSize);
  if (!IsPrime(p.table_size)) {  // MaglevLoadBalancer's check
    throw std::invalid_argument("--maglev-table-size (table_size) " + std::to_string(p.table_size) +
                                " is not a prime; Envoy refuses it (accepted: a prime up to " +
                                std::to_string(kEnvoyMaxTableSize) + ", default 65537)");
  }
  p.max_weight = UINT32_MAX;
  p.knob = PointsKnob::kTableSize;
}

// Jedis 3.x util/Sharded.java (initialize: 160 x weight points, TreeMap.put;
// getShardInfo: tailMap(hash(key)), else firstKey) and util/MurmurHash.java
// (hash64A, seed 0x1234ABCD; keys as UTF-8 bytes, SafeEncoder).
void ApplyJedis(Profile& p, const ProfileOptions& opt) {
  RejectOption(p.name, "--hash-algorithm", opt.hash_algorithm);
  if (!opt.hasher.empty() && opt.hasher != "jedis_murmur") {
    Unknown("hasher for jedis", opt.hasher, "jedis_murmur");
  }
  p.engine = Engine::kJedis;
  p.key_format = PointKeyFormat::kName;
  OnePointPerHash(p, PointCount::kPerWeight, 160);
  p.key_hasher = p.point_hasher = &GetHasher("jedis_murmur");
  p.tie = TieRule::kLaterWins;  // TreeMap.put overwrites
  p.duplicates = DuplicatePoints::kDrop;
  p.max_weight = 13421772;  // 160 x weight stays a Java int
  p.knob = PointsKnob::kWeight;
}

}  // namespace

std::vector<uint32_t> HaproxyServerIds(std::span<const Node> nodes) {
  constexpr uint64_t kMaxId = 2147483647;  // puid is an int; srv_parse_id: "has to be > 0"
  std::vector<uint32_t> ids(nodes.size(), 0);
  std::vector<std::pair<uint32_t, size_t>> used;  // id, node
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string& name = nodes[i].name;
    if (name.empty()) continue;
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), v);
    if (ec != std::errc() || end != name.data() + name.size() || v == 0 || v > kMaxId) {
      throw std::invalid_argument("server '" + nodes[i].label + "': id '" + name +
                                  "' is not an HAProxy server id (accepted: an integer 1.." +
                                  std::to_string(kMaxId) + ")");
    }
    ids[i] = static_cast<uint32_t>(v);
    used.emplace_back(ids[i], i);
  }
  std::sort(used.begin(), used.end());
  for (size_t k = 1; k < used.size(); ++k) {
    if (used[k].first != used[k - 1].first) continue;
    throw std::invalid_argument("servers '" + nodes[used[k - 1].second].label + "' and '" +
                                nodes[used[k].second].label + "' have the same id " +
                                std::to_string(used[k].first) +
                                " (HAProxy refuses an id used twice)");
  }
  // check_config_validity: next_id = 1; for each server in config order, one
  // without an id takes get_next_id(next_id) (the first unused id >= it);
  // then next_id++ whether or not the server had an id.
  auto taken = [&](uint32_t id) {
    return std::binary_search(used.begin(), used.end(), std::pair<uint32_t, size_t>{id, 0},
                              [](const auto& a, const auto& b) { return a.first < b.first; });
  };
  uint32_t next = 1;
  for (size_t i = 0; i < nodes.size(); ++i, ++next) {
    if (ids[i] != 0) continue;
    while (taken(next)) ++next;
    ids[i] = next;
    used.insert(std::upper_bound(used.begin(), used.end(), std::pair<uint32_t, size_t>{next, 0},
                                 [](const auto& a, const auto& b) { return a.first < b.first; }),
                {next, i});
  }
  return ids;
}

void CheckWeight(const Profile& p, uint32_t weight, std::string_view who) {
  if (p.max_weight == 0 || weight <= p.max_weight) return;
  if (p.max_weight == 1) {
    throw std::invalid_argument(
        (who.empty() ? std::string() : "server '" + std::string(who) + "': ") + "weight " +
        std::to_string(weight) + " given, but " + p.name + " takes no weights (accepted: 1)");
  }
  throw std::invalid_argument(
      (who.empty() ? std::string() : "server '" + std::string(who) + "': ") +
      std::string(p.weight_word) + " " + std::to_string(weight) + " is above what " + p.name +
      " accepts (1.." + std::to_string(p.max_weight) + ")");
}

std::span<const std::string_view> SpymemcachedHashAlgorithms() noexcept {
  return kSpyAlgorithmNames;
}

std::span<const ProfileInfo> AllProfiles() noexcept { return kProfiles; }

// The memcached clients' profiles (MakeProfile: the proxies').
static Profile ClientProfile(std::string_view name, const ProfileOptions& opt) {
  Profile p;
  p.name = std::string(name);
  const Hasher& md5 = GetHasher("md5");
  p.key_hasher = &md5;
  p.point_hasher = &md5;
  if (name == "spymemcached" || name == "spymemcached-libmemcached") {
    RejectOption(name, "--hasher", opt.hasher);
    p.key_format =
        name == "spymemcached" ? PointKeyFormat::kHostPort : PointKeyFormat::kHostOrHostPort;
    p.points_per_node = 160;  // DefaultKetamaNodeLocatorConfiguration.getNodeRepetitions()
    p.count = PointCount::kConstant;
    p.weighted_count = PointCount::kWeightedFloat;
    p.weighted_uses_md5 = true;
    p.tie = TieRule::kLaterWins;  // TreeMap.put overwrites
    p.duplicates = DuplicatePoints::kDrop;
    ApplySpyAlgorithm(p, opt.hash_algorithm);
  } else if (name == "libmemcached" || name == "libmemcached-spy") {
    RejectOption(name, "--hash-algorithm", opt.hash_algorithm);
    RejectOption(name, "--hasher", opt.hasher);
    p.key_format =
        name == "libmemcached" ? PointKeyFormat::kHostOrHostPort : PointKeyFormat::kSlashHostPort;
    p.points_per_node = 160;  // MEMCACHED_POINTS_PER_SERVER_KETAMA
    p.count = p.weighted_count = PointCount::kWeightedFloat;
    p.tie = TieRule::kEarlierWins;  // qsort on (value, server index)
    p.duplicates = DuplicatePoints::kKeep;
  } else if (name == "libmemcached-ketama") {
    RejectOption(name, "--hash-algorithm", opt.hash_algorithm);
    std::string_view h = opt.hasher.empty() ? "one_at_a_time" : std::string_view(opt.hasher);
    if (h != "one_at_a_time" && h != "md5") {
      Unknown("hasher for libmemcached-ketama", h, "one_at_a_time, md5");
    }
    p.key_format = PointKeyFormat::kHostOrHostPort;
    p.points_per_node = 100;  // MEMCACHED_POINTS_PER_SERVER
    p.count = PointCount::kConstant;
    p.points_per_hash = 1;
    // MEMCACHED_HASH_DEFAULT is libhashkit's one-at-a-time, which reads bytes
    // as signed char; update_continuum hashes the point keys with the key hash.
    p.key_hasher = p.point_hasher = &GetHasher(
        h == "md5" ? std::string_view("md5") : std::string_view("hashkit_one_at_a_time"));
    // A weight above 1 switches libmemcached to its weighted MD5 ring
    // (160-base float formula, 4 points per digest); keys keep their hash.
    p.weighted_only_above_one = true;
    p.weighted_count = PointCount::kWeightedFloat;
    p.weighted_points_per_node = 160;  // MEMCACHED_POINTS_PER_SERVER_KETAMA
    p.weighted_uses_md5 = true;
    p.tie = TieRule::kEarlierWins;
    p.duplicates = DuplicatePoints::kKeep;
  } else if (name == "twemproxy") {
    RejectOption(name, "--hash-algorithm", opt.hash_algorithm);
    if (!opt.hasher.empty() && opt.hasher != "md5") {
      Unknown("hasher for twemproxy", opt.hasher, "md5");
    }
    p.key_format = PointKeyFormat::kName;
    p.points_per_node = 160;  // KETAMA_POINTS_PER_SERVER
    p.count = p.weighted_count = PointCount::kWeightedFloat;
    p.tie = TieRule::kEarlierWins;  // stable qsort after the sort by name
    p.duplicates = DuplicatePoints::kKeep;
    p.order = NodeOrder::kByNameLengthThenBytes;
  } else if (name == "uhashring") {
    RejectOption(name, "--hash-algorithm", opt.hash_algorithm);
    RejectOption(name, "--hasher", opt.hasher);
    p.key_format = PointKeyFormat::kLabel;
    p.points_per_node = 160;  // vnodes 40 x replicas 4
    p.count = p.weighted_count = PointCount::kWeightedInteger;
    p.tie = TieRule::kLaterWins;                    // _ring dict overwrite
    p.duplicates = DuplicatePoints::kKeepAsWinner;  // insort keeps the point in _keys
    p.edge = LookupEdge::kGreater;                  // bisect_right
  } else {
    Unknown("profile", name, ProfileNames());
  }
  for (const ProfileInfo& info : kProfiles) {
    if (info.name == name) p.description = std::string(info.description);
  }
  return p;
}

// The load balancers' and proxies' profiles: each sets every rule from
// the options it takes (refusing the others).
struct ProxyProfile {
  std::string_view name;
  void (*apply)(Profile& p, const ProfileOptions& opt);
  bool takes_replicas;  // ProfileOptions::replicas
};
constexpr ProxyProfile kProxyProfiles[] = {
    {"nginx", ApplyNginx, false},
    {"nginx-hash", ApplyNginxHash, false},
    {"varnish", ApplyVarnish, true},
    {"haproxy", ApplyHaproxy, false},
    {"groupcache", ApplyGroupcache, true},
    {"pecl-memcache", ApplyPeclMemcache, false},
    {"pymemcache", ApplyPymemcache, false},
    {"envoy-ring", ApplyEnvoyRing, false},
    {"envoy-maglev", ApplyEnvoyMaglev, false},
    {"jedis", ApplyJedis, false},
};

Profile MakeProfile(std::string_view name, const ProfileOptions& opt) {
  const ProxyProfile* proxy = nullptr;
  std::string with_replicas;
  for (const ProxyProfile& x : kProxyProfiles) {
    if (x.name == name) proxy = &x;
    if (x.takes_replicas)
      with_replicas += (with_replicas.empty() ? "" : ", ") + std::string(x.name);
  }
  if (opt.replicas != 0 && (proxy == nullptr || !proxy->takes_replicas)) {
    throw std::invalid_argument("profile '" + std::string(name) +
                                "' takes no --points-per-weight (got " +
                                std::to_string(opt.replicas) + "; " + with_replicas + " do)");
  }
  const bool ring = name == "envoy-ring", maglev = name == "envoy-maglev";
  if ((opt.min_ring_size != 0 || opt.max_ring_size != 0) && !ring) {
    throw std::invalid_argument("profile '" + std::string(name) +
                                "' takes no --min-ring-size or --max-ring-size (envoy-ring does)");
  }
  if (opt.table_size != 0 && !maglev) {
    throw std::invalid_argument("profile '" + std::string(name) +
                                "' takes no --maglev-table-size (envoy-maglev does)");
  }
  if (proxy == nullptr) return ClientProfile(name, opt);
  Profile p;
  p.name = std::string(name);
  proxy->apply(p, opt);
  for (const ProfileInfo& info : kProfiles) {
    if (info.name == name) p.description = std::string(info.description);
  }
  return p;
}

Profile ResearchProfile(const Hasher& hasher, uint32_t points_per_node) {
  Profile p;
  p.name = "ring";
  p.description = "research ring: " + std::string(hasher.name) + ", " +
                  std::to_string(points_per_node) + " points per node";
  p.key_format = PointKeyFormat::kLabel;
  p.points_per_node = points_per_node;
  p.count = PointCount::kConstant;
  p.weighted_count = PointCount::kWeightedFloat;
  p.points_per_hash = hasher.name == "md5" ? 4 : 1;
  p.weighted_uses_md5 = false;
  p.point_hasher = p.key_hasher = &hasher;
  return p;
}

uint32_t PointsForNode(const Profile& p, bool weighted_list, uint32_t weight, uint64_t total_weight,
                       size_t n) noexcept {
  PointCount rule = weighted_list ? p.weighted_count : p.count;
  const uint32_t base = rule != PointCount::kConstant && p.weighted_points_per_node != 0
                            ? p.weighted_points_per_node
                            : p.points_per_node;
  switch (rule) {
    case PointCount::kConstant:
      return p.points_per_node;
    case PointCount::kWeightedFloat: {
      // libmemcached hosts.cc, twemproxy nc_ketama.c and spymemcached
      // KetamaNodeLocator all compute, in float32 (left to right):
      //   floor((float)(pct * 160 / 4 * (float)n + 1e-10)) * 4,  pct = (float)w / (float)W
      // The 1e-10 vanishes when the sum is rounded back to float. Float32
      // rounding makes equal weights give 156 points for n = 25, 47, 50, ...
      float pct = static_cast<float>(weight) / static_cast<float>(total_weight);
      float v = pct * static_cast<float>(base);
      v = v / 4.0f;
      v = v * static_cast<float>(n);
      float rounded = static_cast<float>(static_cast<double>(v) + 1e-10);
      return static_cast<uint32_t>(std::floor(rounded)) * 4;
    }
    case PointCount::kPerWeight:
      return static_cast<uint32_t>(
          std::min<uint64_t>(uint64_t{base} * weight, std::numeric_limits<uint32_t>::max()));
    case PointCount::kWeightedInteger:
      // uhashring ring_ketama.py: (vnodes * len(nodes) * weight) // weight_sum iterations of 4.
      return static_cast<uint32_t>((uint64_t{base / 4} * n * weight) / total_weight) * 4;
  }
  return p.points_per_node;
}

HostPort NginxHostPort(std::string_view s) noexcept {
  if (s.size() >= 5) {
    std::string_view head = s.substr(0, 5);
    bool unix_prefix = true;
    for (size_t i = 0; i < 5; ++i) {
      const char c = static_cast<char>(head[i] | 0x20);  // ngx_strncasecmp
      unix_prefix = unix_prefix && c == "unix:"[i];
    }
    if (unix_prefix) return {s.substr(5), {}};
  }
  for (size_t j = 0; j < s.size(); ++j) {
    const char c = s[s.size() - j - 1];
    if (c == ':') return {s.substr(0, s.size() - j - 1), s.substr(s.size() - j)};
    if (c < '0' || c > '9') break;
  }
  return {s, {}};
}

std::string PointKeyPrefix(const Profile& p, const Node& node) {
  auto host_or_host_port = [&] {
    return node.port == kDefaultPort ? node.host : node.host + ":" + std::to_string(node.port);
  };
  switch (p.key_format) {
    case PointKeyFormat::kHostPort:
      return node.host + ":" + std::to_string(node.port);
    case PointKeyFormat::kHostOrHostPort:
      return host_or_host_port();
    case PointKeyFormat::kSlashHostPort:
      return "/" + node.host + ":" + std::to_string(node.port);
    case PointKeyFormat::kName:
      return node.name.empty() ? host_or_host_port() : node.name;
    case PointKeyFormat::kLabel:
      return node.label;
  }
  return node.label;
}

}  // namespace chsim
