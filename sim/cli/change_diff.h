// SPDX-License-Identifier: Apache-2.0
// What a change of server list moves (`chsim diff`): the placement over an
// old list and the placement over a new list, each built from scratch as a
// program reloading its configuration builds it, compared over one key
// space.
//
// Servers are matched across the two lists by label: a server is the same
// server before and after when its label is (a rename is a removal and an
// add). A unit (a key, or a value of the key-hash space) *moves* when the
// labels of its server before and after differ. Three ways to count units:
//   exact    every value of the key-hash space (2^32, or 2^15 for nginx-hash;
//            2^64 for the 64-bit rings and maglev tables of ProfileMap)
//            through two rings' arcs, overlaid: the ring's own lookup at the
//            start of each run of values whose owner is the same in both;
//            two maglev tables residue by residue of lcm(M1, M2) (entry
//            h % M), when that period is at most kMaxTablePeriod;
//   keys     the lines of a key file, each hashed as the placement hashes keys;
//   sampled  uniform 64-bit key hashes from a seed, for algorithms with no
//            ring to overlay.
// *Minimal* is the least any mapping must move to go from the shares before
// to the shares after: sum over servers of max(0, share before - share
// after), a removed server's share after being 0 (the same sum as
// sum max(0, after - before): both shares sum to 1; MinimalMoves). No
// mapping that ends with the new shares keeps more than min(before, after)
// of a server's units, so moved >= minimal always.
// *Minimal ideal* is the same sum over the weight shares: what a perfectly
// balanced scheme moves for this change.
//
// Thread-safety: the functions are reentrant; each call owns its placements.
#ifndef CHSIM_SIM_CLI_CHANGE_DIFF_H_
#define CHSIM_SIM_CLI_CHANGE_DIFF_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/node.h"
#include "chsim/profile_map.h"
#include "chsim/ring.h"

namespace chsim::sim {

// One side of a diff over `nodes`: a peer profile's 32-bit ring or its
// ProfileMap (owners: list positions), or an algorithm (node ids = list
// positions) with its key hasher.
struct Placement {
  std::span<const Node> nodes;
  const Ring* ring = nullptr;          // set for a 32-bit ring profile
  const ProfileMap* map = nullptr;     // set for a ProfileMap profile
  Algorithm* algorithm = nullptr;      // set for an algorithm (Assign: stateful ones)
  const Hasher* key_hasher = nullptr;  // the algorithm's
};

enum class DiffMethod { kExact, kKeys, kSampled };
std::string_view DiffMethodName(DiffMethod m) noexcept;  // "exact", "keys", "sampled"

// Counts are 128-bit: the 64-bit key-hash space has 2^64 values. They fit
// 64 bits whenever key_space_bits < 64.
struct DiffMove {
  size_t from = 0, to = 0;  // indexes into ChangeDiff::servers
  HashCount count = 0;
};

struct ChangeDiff {
  DiffMethod method = DiffMethod::kExact;
  int key_space_bits = 0;  // exact: log2 of the space counted (15, 32, 64); else 0
  HashCount total = 0;     // units counted: hash values, key lines or sampled hashes
  // Every label of either list: the old list's in order, then the labels only
  // the new list has, in its order.
  std::vector<std::string> servers;
  std::vector<uint32_t> weight_old, weight_new;  // 0: not in that list
  std::vector<HashCount> count_old, count_new;   // units on the server before / after
  // Units that moved, by (from, to), from != to; by count descending, then
  // from and to ascending.
  std::vector<DiffMove> moves;
  HashCount moved = 0;
  HashCount moved_between_survivors = 0;  // from and to both in both lists
  double minimal = 0;                     // a fraction of total (see above)
  double minimal_ideal = 0;               // the same over the weight shares
};

// Whether a placement has a ring whose arcs DiffExact can overlay: a profile
// (a 32-bit ring, or a ProfileMap with KeyHashCounts), or an algorithm that
// exposes its ring (StructureViews::ring) and is not stateful.
bool HasExactArcs(const Placement& p);

// The longest period lcm(M1, M2) of two maglev tables' pairs of entries
// (h % M1, h % M2) that DiffExact enumerates: every table of one size (Envoy's
// largest is 5,000,011), and two sizes whose product is at most 2^24.
inline constexpr uint64_t kMaxTablePeriod = uint64_t{1} << 24;

// Whether DiffExact can overlay these two: both HasExactArcs, both 32-bit
// rings or both ProfileMaps of one engine, and two maglev tables only when
// their period is at most kMaxTablePeriod (a longer one is enumerated by
// nothing short of its length: the answer is then sampled).
bool CanDiffExact(const Placement& before, const Placement& after);

// Exact over the key-hash space. REQUIRES: CanDiffExact, and the two sides'
// key hashes equal (the same profile or algorithm).
ChangeDiff DiffExact(const Placement& before, const Placement& after);

// A count as decimal digits (counts of the 64-bit space reach 2^64).
std::string CountText(HashCount n);

// The lines of a key file ("-": stdin), each a unit. Throws UsageError for an
// unreadable file (KeyLineReader's messages).
ChangeDiff DiffKeys(const Placement& before, const Placement& after, const std::string& path);

// `samples` uniform 64-bit key hashes, SplitMix64 from `seed`. REQUIRES: both
// placements algorithms or ProfileMaps; samples >= 1.
ChangeDiff DiffSampled(const Placement& before, const Placement& after, uint64_t samples,
                       uint64_t seed);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_CLI_CHANGE_DIFF_H_
