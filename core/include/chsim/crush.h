// SPDX-License-Identifier: Apache-2.0
// CRUSH: Ceph's placement function (Weil, Brandt, Miller & Maltzahn, "CRUSH:
// Controlled, Scalable, Decentralized Placement of Replicated Data", SC 2006),
// as Ceph 16.2 (Pacific) computes it, so that chsim places inputs exactly as
// `crushtool --test` does. Written from the paper and from the behaviour of
// Ceph's src/crush/hash.c, mapper.c and crush_ln_table.h (facts, not code):
//  - rjenkins1 hashes of 2 and 3 words (Jenkins' 96-bit mix, seed 1315423911);
//  - straw2 buckets: each item draws ln(u)/w, u = hash32_3(x, item, r) & 0xffff,
//    ln a 64-bit fixed-point log (Ln), w the 16.16 weight, the quotient
//    truncated toward zero; the first maximum wins (paper section 3.4.4 has the
//    straw bucket; straw2 is Ceph's exact exponential race);
//  - rules of take, choose/chooseleaf firstn/indep and emit, with the retry
//    rules of section 3.2.2: firstn retries r' = r + f and can come out short;
//    indep retries r' = r + f * n per position and leaves a hole (kItemNone)
//    where a position finds nothing;
//  - devices rejected by their reweight (16.16; below 0x10000 a device is in
//    when hash32_2(x, device) & 0xffff < reweight).
// Only straw2 buckets and the rjenkins1 hash are modelled; a map naming
// anything else is refused by its reader (chsim/crush_text.h).
//
// The ln tables: Ceph's Ln reads two tables. chsim computes its own from
// their defining rules (docs/design.md, "CRUSH"): every entry of the first and
// 214 of the 256 entries of the second equal Ceph's; a map run with other
// tables (LnTables) gives Ceph's answers wherever no draw reads a differing
// entry.
//
// Thread-safety: a Map is a value; DoRule and the draws are pure functions of
// their arguments, noexcept and allocation-free.
#ifndef CHSIM_CRUSH_H_
#define CHSIM_CRUSH_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace chsim {
namespace crush {

// 16.16 fixed point: weight 1.0.
inline constexpr uint32_t kWeightOne = 0x10000;
// A position indep could not fill (Ceph's CRUSH_ITEM_NONE), as crushtool
// prints it.
inline constexpr int32_t kItemNone = 0x7fffffff;
// The most items a DoRule result holds here (its scratch lives on the stack).
inline constexpr uint32_t kMaxResult = 256;

// rjenkins1 (Ceph's crush_hash32_2 / crush_hash32_3). Item ids, negative for
// buckets, enter as their 32-bit two's complement.
uint32_t Hash32_2(uint32_t a, uint32_t b) noexcept;
uint32_t Hash32_3(uint32_t a, uint32_t b, uint32_t c) noexcept;

// The two tables Ln reads: rh_lh[2k] ~ 2^55 / (128 + k) and rh_lh[2k + 1] ~
// 2^48 log2(1 + k/128) for k = 0..128; ll[k] ~ 2^48 log2(1 + k/2^15).
struct LnTables {
  std::array<int64_t, 258> rh_lh;
  std::array<int64_t, 256> ll;
};
// chsim's tables, computed once from their rules (crush_ln.cc).
const LnTables& GeneratedLnTables() noexcept;
// Ceph's crush_ln: about 2^44 log2(u + 1) for u in 0..0xffff, from a
// normalisation, one 128-entry reciprocal and log step and one 256-entry log
// correction. REQUIRES: u <= 0xffff.
uint64_t Ln(uint32_t u, const LnTables& tables) noexcept;
// A straw2 draw: (Ln(hash32_3(x, item, r) & 0xffff) - 2^48) / weight,
// truncated toward zero (div64_s64). REQUIRES: weight > 0.
int64_t Straw2Draw(uint32_t x, int32_t item, uint32_t r, uint32_t weight,
                   const LnTables& tables) noexcept;
// The item of the highest draw over parallel items and 16.16 weights (a weight
// 0 never wins unless every weight is 0; ties go to the first). REQUIRES:
// !items.empty(), weights.size() == items.size().
int32_t Straw2Choose(std::span<const int32_t> items, std::span<const uint32_t> weights, uint32_t x,
                     uint32_t r, const LnTables& tables) noexcept;

struct Bucket {
  int32_t id = 0;  // < 0; 0 marks an unused slot of Map::buckets
  int32_t type = 0;
  std::string name;
  std::vector<int32_t> items;     // devices (>= 0) and buckets (< 0)
  std::vector<uint32_t> weights;  // 16.16, parallel to items
};

enum class StepOp : uint8_t {
  kTake,          // arg1: the bucket or device
  kChooseFirstN,  // arg1: how many (<= 0: result size + arg1), arg2: type
  kChooseIndep,
  kChooseLeafFirstN,
  kChooseLeafIndep,
  kEmit,
  kSetChooseTries,  // arg1
  kSetChooseLeafTries,
  kSetChooseLocalTries,
  kSetChooseLocalFallbackTries,
  kSetChooseLeafVaryR,
  kSetChooseLeafStable,
};

struct Step {
  StepOp op = StepOp::kEmit;
  int32_t arg1 = 0;
  int32_t arg2 = 0;
};

struct Rule {
  int32_t id = 0;
  std::string name;
  bool erasure = false;  // type erasure (else replicated)
  int32_t min_size = 1;
  int32_t max_size = 10;
  std::vector<Step> steps;
};

// The tunables a map states; the defaults are the modern ("optimal") ones.
struct Tunables {
  uint32_t choose_local_tries = 0;
  uint32_t choose_local_fallback_tries = 0;  // must stay 0: not modelled
  uint32_t choose_total_tries = 50;          // retries: 51 tries
  uint32_t chooseleaf_descend_once = 1;
  uint32_t chooseleaf_vary_r = 1;
  uint32_t chooseleaf_stable = 1;
  uint32_t straw_calc_version = 1;  // kept for the text form; straw only
  uint32_t allowed_bucket_algs = 54;
};

// A CRUSH map: devices, types, buckets (indexed by -1 - id) and rules.
// Invariants (the reader and the builders keep them): every bucket item is a
// device id < max_devices() or the id of a bucket present here; the hierarchy
// has no cycle.
struct Map {
  Tunables tunables;
  std::vector<std::string> devices;  // name per device id; "" when unused
  std::vector<std::pair<int32_t, std::string>> types;
  std::vector<Bucket> buckets;  // buckets[-1 - id]; id 0: unused slot
  std::vector<Rule> rules;
  const LnTables* ln = &GeneratedLnTables();

  int32_t max_devices() const noexcept { return static_cast<int32_t>(devices.size()); }
  // The bucket with this id (< 0), or nullptr.
  const Bucket* FindBucket(int32_t id) const noexcept;
  // The rule with this id, or nullptr.
  const Rule* FindRule(int32_t id) const noexcept;
  // A type's id by name, or -1.
  int32_t TypeId(std::string_view name) const noexcept;
  // A bucket's or device's id by name; false when none has it.
  bool ItemId(std::string_view name, int32_t* id) const noexcept;
  // Whether a bucket lists the device (crushtool --test gives the others
  // reweight 0).
  std::vector<bool> DevicesInBuckets() const;
  // The reweights crushtool --test uses: 0x10000 for every device some
  // bucket holds, 0 for the others.
  std::vector<uint32_t> DefaultReweights() const;
};

// Runs `rule` for input x with `result.size()` as Ceph's result_max (the
// pool size; firstn 0 asks for that many), `reweights[device]` 16.16 (a
// device past its end is out). Writes the result, holes as kItemNone for
// indep rules, and returns its length: short when firstn found fewer.
// REQUIRES: result.size() <= kMaxResult.
uint32_t DoRule(const Map& map, const Rule& rule, uint32_t x, std::span<int32_t> result,
                std::span<const uint32_t> reweights) noexcept;

// Ceph's object -> placement group -> placement seed step
// (src/common/ceph_hash.cc, src/osd/osd_types.cc):
//  - the object name's hash: Jenkins' 1997 lookup2 over its bytes
//    (ceph_str_hash_rjenkins, golden-ratio start, length added to c);
//  - the PG: stable_mod(hash, pg_num), which keeps the PGs of a pg_num
//    that is not a power of two nested in those of the next power of two;
//  - the seed CRUSH receives (pools flagged hashpspool, every pool since
//    Luminous): hash32_2(stable_mod(pg, pgp_num), pool).
uint32_t StrHashRjenkins(std::string_view name) noexcept;
// (1 << bits(b - 1)) - 1. REQUIRES: b >= 1.
uint32_t StableModMask(uint32_t b) noexcept;
uint32_t StableMod(uint32_t x, uint32_t b, uint32_t mask) noexcept;
// The placement seed of PG `ps` of pool `pool` with pgp_num = pg_num = b.
uint32_t PlacementSeed(uint32_t ps, uint32_t pg_num, uint32_t pool) noexcept;

// A failure-domain level of a built hierarchy: its type name ("host") and
// each device's domain id at it (domain_of[device]).
struct Level {
  std::string_view name;
  std::span<const uint32_t> domain_of;
};

// A map over `devices` (ids and 16.16 weights) with one straw2 bucket per
// domain of each level (levels lowest first; a domain must lie within one
// domain of the next level), under one root bucket "default"; bucket
// weights are the sums of their items. Types: osd 0, the levels 1.., root
// last. Modern tunables. Rule 0 takes the root and places one copy per
// domain of levels[failure_level] (chooseleaf firstn 0, or indep 0 when
// `indep`), or one per device without levels (choose firstn|indep 0 type
// osd). Throws std::invalid_argument when the weights overflow 32 bits.
Map BuildMap(std::span<const int32_t> ids, std::span<const uint32_t> weights,
             std::span<const Level> levels, size_t failure_level, bool indep);

}  // namespace crush

// An algorithm instance's live nodes as CRUSH devices (Algorithm::ViewCrush):
// parallel spans in ascending node id. A node's device id is its node id,
// unless it was added again after a removal: it then keeps its first device
// id, as a Ceph OSD keeps its id.
struct CrushView {
  std::span<const uint32_t> ids;      // node ids
  std::span<const int32_t> devices;   // CRUSH device ids
  std::span<const uint32_t> weights;  // 16.16
};

}  // namespace chsim

#endif  // CHSIM_CRUSH_H_
