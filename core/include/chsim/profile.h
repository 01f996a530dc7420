// SPDX-License-Identifier: Apache-2.0
// Profile: every rule that decides how a Ketama ring is built and searched, so
// that one ring type can reproduce each real memcached client key for key.
//
// The named profiles (`spymemcached`, `spymemcached-libmemcached`,
// `libmemcached`, `libmemcached-spy`, `libmemcached-ketama`, `twemproxy`,
// `uhashring`) each match one peer exactly; tests/compat proves it against the
// installed peers. The rules are in docs/design.md#peers (read from the peers'
// bytecode and sources, then observed). `ResearchProfile` builds a ring
// with any hasher and any points per node.
//
// Stability: a named profile's ring layout never changes across versions.
// Profiles are plain values; copying and sharing them across threads is safe.
#ifndef CHSIM_PROFILE_H_
#define CHSIM_PROFILE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chsim/hasher.h"
#include "chsim/node.h"

namespace chsim {

// The string hashed for point i of a node.
enum class PointKeyFormat {
  kHostPort,        // "host:port-i"; spymemcached's default (port kept even if 11211)
  kHostOrHostPort,  // "host-i" if port == 11211 else "host:port-i"; libmemcached
  kSlashHostPort,   // "/host:port-i"; libmemcached KETAMA_SPY (pre-2.5 spymemcached)
  kName,            // "NAME-i", NAME = explicit name, else host / host:port as above; twemproxy
  kLabel,           // "label-i", the node as written; uhashring, nginx (the server text)
};

// How many points a node gets.
enum class PointCount {
  kConstant,         // points_per_node for every node
  kWeightedFloat,    // floor((float)(w/W * base/4 * n)) * 4, float32 as the C and Java peers
  kWeightedInteger,  // (base/4 * n * w) // W iterations of 4 points; uhashring
  kPerWeight,        // points_per_node * w; nginx (160 per unit of weight)
};

// How a node's points are made.
enum class PointRule {
  // Hash the point keys "PREFIX-i" (PointKeyFormat) with point_hasher, or
  // take 4 points per MD5 digest (points_per_hash); the Ketama clients.
  kPointKeyHash,
  // nginx ngx_http_upstream_init_chash: the label (the `server` text as
  // written) split into host and port (NginxHostPort); point j is the CRC-32
  // of host, NUL, port, then the 4 little-endian bytes of point j-1 (0 for
  // j = 0).
  kCrc32Chain,
  // nginx `hash KEY` without `consistent` (ngx_http_upstream_get_hash_peer):
  // not points but the whole key space, which is 2^hash_space_bits values v
  // of the key hasher: v % (total weight), walked down the nodes' weights in
  // list order, picks the node. One entry per run of v with the same node,
  // at the run's last v.
  kWeightModulo,
  // Varnish's shard director (vmod_directors_shard_cfg.c,
  // shardcfg_hashcircle): point j of a node is VRT_HashStrands32 of its ident
  // followed by the decimal j, with no separator: point_hasher (sha256_last32)
  // of ident + "j". The ident is the node's NAME when given (add_backend's
  // ident=), else its label (the VCL backend name).
  kIdentDecimal,
  // HAProxy 2.6 `hash-type consistent` (lb_chash.c, chash_init_server_tree
  // and chash_queue_dequeue_srv): point j of a server is
  // HaproxyFullHash(id * 4096 + j) (SRV_EWGHT_RANGE = 4096, 32-bit
  // arithmetic), j < 16 x weight; id = HaproxyServerIds. Only the ids are
  // hashed: names and addresses never are.
  kServerIdMix,
  // Go groupcache consistenthash.Map.Add: point i of a peer is point_hasher
  // of the decimal i followed by the peer string (strconv.Itoa(i) + key), the
  // peer string being the node's NAME when given (a peer URL such as
  // http://10.0.0.1:8080), else its label.
  kDecimalThenPeer,
};

// What a profile builds over a node list: a Ring (32-bit points, every rule
// above) or a ProfileMap (chsim/profile_map.h), which scores each key itself.
enum class Engine {
  kRing,
  // pymemcache's RendezvousHash: the highest murmur3_32 of "host:port-KEY".
  kRendezvous,
  // Envoy ring_hash (ring_hash_lb.cc): 64-bit points of "KEY_i", the counts
  // from the normalized weights and the ring sizes; first point >= hash, wrap.
  kEnvoyRing,
  // Envoy maglev (maglev_lb.cc): a lookup table of a prime size, table[hash %
  // size], filled in Envoy's weighted order.
  kEnvoyMaglev,
  // Jedis Sharded (util/Sharded.java): 64-bit points of "SHARD-i-NODE-n" (or
  // "NAME*n") in a TreeMap<Long>, so in signed order; first point >= hash,
  // else the first point.
  kJedis,
};

// Which of two nodes that produce the same 32-bit point owns it.
enum class TieRule {
  kLaterWins,    // later in (profile-ordered) node list; spymemcached TreeMap.put, uhashring dict
  kEarlierWins,  // earlier; libmemcached's qsort on (value, index), twemproxy's stable sort
};

// What happens to the losing point.
enum class DuplicatePoints {
  kDrop,          // removed from the ring (spymemcached)
  kKeep,          // kept after the winner, unreachable (libmemcached, twemproxy)
  kKeepAsWinner,  // kept, but owned by the winner (uhashring: list keeps it, dict overwrote)
};

enum class LookupEdge {
  kGreaterEqual,  // first point >= hash (spymemcached, libmemcached, twemproxy)
  kGreater,       // first point > hash (uhashring's bisect_right)
  // The nearest point either way round the circle, a tie to the lower one
  // (HAProxy chash_get_server_hash: dp <= dn takes prev). Built as a ring
  // searched with >=: after each point p comes an entry at the last hash
  // nearer to p than to the next point, owned by p's server.
  kNearest,
};

// Where a hash above the last point goes.
enum class PastLastPoint {
  kWrap,       // to the first point (every Ketama client, nginx)
  kLastPoint,  // to the last point: Varnish's shard_lookup does not wrap
};

// What the program's operators set to give its ring more points: the unit in
// which `chsim tune` answers (docs/design.md#tune).
enum class PointsKnob {
  kPointsPerNode,  // the points per node themselves (the research ring)
  kWeight,         // a multiple of every weight: points per unit of weight are fixed (nginx)
  kReplicas,       // the points per unit of weight, a setting (Varnish's replicas)
  kMinRingSize,    // Envoy ring_hash's minimum_ring_size
  kTableSize,      // Envoy maglev's table_size (a prime)
  kNone,           // no points to add (nginx-hash: a modulo over the key space)
};

enum class NodeOrder {
  kAsGiven,
  kByNameLengthThenBytes,  // twemproxy sorts servers: shorter name first, then bytes
};

struct Profile {
  std::string name;
  std::string description;
  PointKeyFormat key_format = PointKeyFormat::kHostPort;
  PointRule point_rule = PointRule::kPointKeyHash;
  // Size of the space key hashes fall in, for the exact shares: 32, or the
  // key hasher's width where the rule maps all of it (kWeightModulo: 15).
  int hash_space_bits = 32;
  uint32_t points_per_node = 160;  // constant, or the base of the weighted formulas
  // Base of the weighted formulas when it differs from points_per_node (0 = same).
  uint32_t weighted_points_per_node = 0;
  PointCount count = PointCount::kConstant;
  // Used instead of `count` when the node list is weighted (spymemcached's
  // weighted constructor). Equal to `count` for profiles without that switch.
  PointCount weighted_count = PointCount::kConstant;
  // 4: each MD5 digest of a point key gives 4 points (little-endian uint32 at
  // bytes 0, 4, 8, 12; libketama). 1: one point per key, point_hasher's low 32 bits.
  int points_per_hash = 4;
  // Weighted rings always place points with MD5 x4, whatever point_hasher says
  // (spymemcached's weighted path, libmemcached, twemproxy).
  bool weighted_uses_md5 = true;
  const Hasher* point_hasher = nullptr;  // used when points_per_hash == 1
  const Hasher* key_hasher = nullptr;    // hashes lookup keys; low 32 bits are used
  TieRule tie = TieRule::kLaterWins;
  DuplicatePoints duplicates = DuplicatePoints::kDrop;
  LookupEdge edge = LookupEdge::kGreaterEqual;
  NodeOrder order = NodeOrder::kAsGiven;
  // When a node list counts as weighted (and takes weighted_count): when it
  // spells weights at all (spymemcached's weights map, even all 1), or only
  // when some weight is above 1 (libmemcached's server_push sets its weighted
  // flag then, and ignores weights of 1).
  bool weighted_only_above_one = false;
  PastLastPoint past_last = PastLastPoint::kWrap;
  // When not 0, the ring is read only at `buckets` places: bucket i goes to
  // the owner of the first point >= i x floor((2^32 - 1) / buckets), with the
  // wrap, and the key hasher gives the bucket (hash_space_bits = log2 of
  // buckets). PECL memcache's consistent strategy (1024; memcache_consistent_
  // hash.c, mmc_consistent_populate_buckets).
  uint32_t buckets = 0;
  // The largest weight the program accepts (0: any the list allows); a
  // larger one is refused by Ring::Build and by validation (CheckWeights).
  uint32_t max_weight = 0;
  // The program's own word for its weights, in refusals ("weight").
  std::string_view weight_word = "weight";
  PointsKnob knob = PointsKnob::kPointsPerNode;
  // Ring, or ProfileMap for a program that builds no 32-bit ring.
  Engine engine = Engine::kRing;
  // Envoy's settings (kEnvoyRing: minimum_ring_size and maximum_ring_size;
  // kEnvoyMaglev: table_size), resolved from ProfileOptions.
  uint64_t min_ring_size = 0;
  uint64_t max_ring_size = 0;
  uint64_t table_size = 0;
};

// Envoy's limits: ring_hash_lb.h DefaultMinRingSize and DefaultMaxRingSize
// (the protos' lte), maglev_lb.h DefaultTableSize and the proto's lte.
inline constexpr uint64_t kEnvoyDefaultMinRingSize = 1024;
inline constexpr uint64_t kEnvoyMaxRingSize = 8388608;
inline constexpr uint64_t kEnvoyDefaultTableSize = 65537;
inline constexpr uint64_t kEnvoyMaxTableSize = 5000011;

// Options that select a peer's variant.
struct ProfileOptions {
  // spymemcached's DefaultHashAlgorithm name: KETAMA_HASH (default), NATIVE_HASH,
  // CRC_HASH, FNV1_64_HASH, FNV1A_64_HASH, FNV1_32_HASH, FNV1A_32_HASH.
  std::string hash_algorithm;
  // Key hasher override (registry name), where the peer lets the user choose:
  // libmemcached-ketama (MEMCACHED_BEHAVIOR_HASH), twemproxy (`hash:`),
  // haproxy (`hash-type consistent FUNCTION [avalanche]`: sdbm, djb2, wt6 or
  // crc32, with _avalanche appended for the modifier; default
  // sdbm_avalanche, what `hash-type consistent` alone selects).
  std::string hasher;
  // varnish: reconfigure(replicas=...), the points per unit of weight (0:
  // Varnish's default, 67); groupcache: HTTPPoolOptions.Replicas, the points
  // per peer (0: its defaultReplicas, 50). Refused by the other profiles.
  uint32_t replicas = 0;
  // envoy-ring: minimum_ring_size and maximum_ring_size (0: Envoy's defaults,
  // 1024 and 8,388,608; each 1..8,388,608, minimum <= maximum).
  // envoy-maglev: table_size (0: 65537; a prime up to 5,000,011). Refused by
  // the other profiles.
  uint64_t min_ring_size = 0;
  uint64_t max_ring_size = 0;
  uint64_t table_size = 0;
};

struct ProfileInfo {
  std::string_view name;
  std::string_view description;
};

// The named compatibility profiles, in a fixed order.
std::span<const ProfileInfo> AllProfiles() noexcept;

// spymemcached's DefaultHashAlgorithm names ProfileOptions::hash_algorithm
// accepts (spymemcached profiles only).
std::span<const std::string_view> SpymemcachedHashAlgorithms() noexcept;

// Throws std::invalid_argument for an unknown name (listing the valid ones) or
// an option the profile does not accept.
Profile MakeProfile(std::string_view name, const ProfileOptions& options = {});

// A ring for research: `points_per_node` points per node (weighted lists get
// the float formula), one point per hash of "label-i" with `hasher`, unless the
// hasher is md5 and `points_per_node` % 4 == 0, where each digest gives 4
// points as in libketama. Ties: later wins, loser dropped; edge >=.
// REQUIRES: points_per_node >= 1.
Profile ResearchProfile(const Hasher& hasher, uint32_t points_per_node);

// Points a node of weight `weight` gets out of `total_weight`, among `n` nodes,
// under the profile's rule for a list that is (or is not) weighted.
uint32_t PointsForNode(const Profile& p, bool weighted_list, uint32_t weight, uint64_t total_weight,
                       size_t n) noexcept;

// nginx's split of a `server` text (ngx_http_upstream_hash_module.c,
// ngx_http_upstream_init_chash): after a "unix:" prefix the rest is the host
// and there is no port; else the digits after the last ':' are the port (when
// only digits follow it), and with no such ':' the whole text is the host.
struct HostPort {
  std::string_view host;
  std::string_view port;
};
HostPort NginxHostPort(std::string_view server) noexcept;

// HAProxy's server ids (cfgparse.c, check_config_validity): a node's NAME,
// when given, is its `id` (a decimal 1..2^31-1); the others are numbered in
// list order: a counter starts at 1 and moves past every server, and a server
// without an id takes the first id at or above it that no server uses.
// Throws std::invalid_argument for a NAME that is not such an id, an id used
// twice, or two ids whose points would coincide (id x 4096 wraps at 2^32).
std::vector<uint32_t> HaproxyServerIds(std::span<const Node> nodes);

// Refuses (std::invalid_argument, one line) a weight above the profile's
// max_weight. `who` names the node in the message ("" to leave it out).
void CheckWeight(const Profile& p, uint32_t weight, std::string_view who);

// The point-key prefix of a node ("host:port", "host", "/host:port", NAME or
// label); point i hashes prefix + "-" + i.
std::string PointKeyPrefix(const Profile& p, const Node& node);

}  // namespace chsim

#endif  // CHSIM_PROFILE_H_
