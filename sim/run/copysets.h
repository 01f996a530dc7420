// SPDX-License-Identifier: Apache-2.0
// Copysets, and what failures cost them. A key's copyset is the set of nodes
// that hold its copies ("a distinct set of nodes that contain all copies of a
// given chunk": Cidon et al., "Copysets: Reducing the Frequency of Data Loss
// in Cloud Storage", USENIX ATC 2013, section 2); a key is lost when every
// node of its copyset fails, and loses its quorum when fewer than
// floor(R/2) + 1 of its R copies survive.
//
// CopysetTable counts the keys of each distinct copyset once, so that every
// figure below costs memory and time by copysets, not by keys. The loss
// figures for F of the N live nodes failing at once:
//   - the paper's formula (section 3): P = 1 - (1 - M / C(N,R))^C(F,R), M the
//     distinct copysets of R nodes (CopysetsLossProbability);
//   - the exact expected share of keys that lose every copy,
//     sum over copysets c of keys(c) C(N-|c|, F-|c|) / C(N,F) / keys, the same
//     for every placement with R distinct copies (what the paper's argument
//     turns on: placement changes how often data is lost, not how much);
//   - failure sets, either every one of the C(N,F) (when there are at most
//     `sets` of them: the figures are then exact) or `sets` drawn at random
//     (seeded Monte Carlo), each counting the keys that lose every copy and
//     those that lose a quorum, exactly, from the table: by looking up the
//     m-subsets of the failed nodes (m >= the copies whose loss costs a
//     quorum; inclusion-exclusion turns the subset sums into the keys with at
//     least that many copies lost) or by scanning the copysets, whichever
//     costs fewer steps.
// Failing one whole domain, and each node's scatter width (the distinct other
// nodes that hold copies of its keys, section 2), come from the table too.
//
// Determinism: every count is an integer sum, whatever order the table holds
// its entries in (which depends on the order of Add calls); failure set i is
// drawn from Derive(seed, i). Same table, seed and sets: the same figures on
// any thread count.
//
// Thread-safety: a table is a value; the functions are reentrant and run
// `threads` workers themselves.
#ifndef CHSIM_SIM_RUN_COPYSETS_H_
#define CHSIM_SIM_RUN_COPYSETS_H_

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace chsim::sim {

class CopysetTable {
 public:
  // Adds `keys` keys whose copies are on `ids`: ascending, distinct, non-empty
  // (nothing when keys is 0).
  void Add(std::span<const uint32_t> ids, uint64_t keys);
  // Adds every copyset of `other`.
  void Merge(const CopysetTable& other);
  // The keys of copyset `ids` (ascending), 0 when none.
  uint64_t Find(std::span<const uint32_t> ids) const noexcept;
  // The hash Find and Add place `ids` by (a filter in front of Find may use it).
  static uint64_t Hash(std::span<const uint32_t> ids) noexcept;
  // Distinct copysets.
  size_t size() const noexcept { return used_; }
  uint64_t keys() const noexcept { return keys_; }
  // f(ids, keys) for every copyset, in the table's order (not a stable one).
  void ForEach(const std::function<void(std::span<const uint32_t>, uint64_t)>& f) const;
  size_t MemoryBytes() const noexcept;

 private:
  // A copyset of at most kPackedIds ids below 2^kPackedBits is packed into
  // its slot's key (bit 63 set, its size in bits 61-62); any other is kept in
  // the arena as [size, ids...] and its key is that offset.
  static constexpr uint32_t kPackedIds = 3, kPackedBits = 20;
  struct Slot {
    uint64_t key = 0;
    uint64_t keys = 0;  // 0: empty
  };
  static bool Packable(std::span<const uint32_t> ids) noexcept;
  static uint64_t Pack(std::span<const uint32_t> ids) noexcept;
  // The ids of a slot, unpacked into `scratch` when packed.
  std::span<const uint32_t> Ids(const Slot& s, uint32_t* scratch) const noexcept;
  uint64_t HashOf(const Slot& s) const noexcept;
  size_t Probe(std::span<const uint32_t> ids, uint64_t packed, uint64_t hash) const noexcept;
  void Grow();

  std::vector<Slot> slots_;
  std::vector<uint32_t> arena_;
  size_t used_ = 0;
  uint64_t keys_ = 0;
};

// ln C(n, k); -inf when k > n.
double LogChoose(double n, double k) noexcept;

// The Copysets paper's loss probability: F of N nodes fail at random, M
// distinct copysets of R nodes: 1 - (1 - M / C(N,R))^C(F,R); 0 when F < R.
double CopysetsLossProbability(double nodes, double failed, double copies,
                               double copysets) noexcept;

// Lynch & Snyder's expected distinct replica neighbours of a node ("Cassandra
// Availability with Virtual Nodes", Netflix, 2018): a ring of `points` random
// tokens per node, `copies` copies walked clockwise, `peers` eligible peers
// (n - 1; 2n/3 with three equal racks): peers (1 - (1 - 1/peers)^(2 points
// (copies - 1))).
double ExpectedReplicaNeighbours(double peers, double points, double copies) noexcept;

// The copies whose loss costs a key of `copies` copies its majority quorum
// (floor(copies/2) + 1 copies must stay live): copies - floor(copies/2).
uint32_t QuorumLossAt(uint32_t copies) noexcept;

struct LossRequest {
  std::span<const uint32_t> live;  // the live node ids, ascending
  uint32_t copies = 1;             // R: copies asked per key
  uint32_t failed = 1;             // F: nodes failing at once, <= live.size()
  uint64_t sets = 10000;           // failure sets drawn (all of them when C(N,F) <= sets)
  uint64_t seed = 0;
  unsigned threads = 1;
  // Called with the failure sets done so far (progress); may be empty.
  std::function<void(uint64_t)> progress;
  // How each failure set is counted; every method gives the same figures.
  // kAuto takes the cheapest by a cost estimate; tests name one to compare.
  //   kScan     every copyset against the failed nodes;
  //   kSubsets  each subset of the failed nodes looked up in the copyset
  //             table (quorum by inclusion-exclusion over subset sizes);
  //   kNodes    the copysets of each failed node, each counted once, from
  //             its lowest failed member.
  enum class Method : uint8_t { kAuto, kScan, kSubsets, kNodes };
  Method method = Method::kAuto;
};

struct LossFigures {
  uint64_t keys = 0;
  uint64_t copysets = 0;               // distinct copysets
  uint64_t full_copysets = 0;          // of R nodes (the formula's M)
  double formula = 0;                  // CopysetsLossProbability
  double keys_expected = 0;            // exact expected share of keys losing every copy
  bool exhaustive = false;             // every failure set evaluated: the figures are exact
  uint64_t sets = 0;                   // failure sets evaluated
  uint64_t sets_with_loss = 0;         // ... in which some key lost every copy
  uint64_t sets_with_quorum_loss = 0;  // ... in which some key lost its quorum
  uint64_t keys_lost = 0;              // keys that lost every copy, summed over sets
  uint64_t keys_quorum_lost = 0;       // keys that lost their quorum, summed over sets
};

// REQUIRES: every id of the table is in request.live; 1 <= failed <= live.
LossFigures EvaluateLoss(const CopysetTable& table, const LossRequest& request);

struct DomainLossFigures {
  uint32_t domains = 0;  // live domains
  uint64_t keys = 0;
  uint64_t max_keys_lost = 0;      // keys losing every copy, worst domain
  uint64_t sum_keys_lost = 0;      // ... summed over the domains
  uint32_t domains_with_loss = 0;  // domains whose failure loses some key
  uint64_t max_quorum_lost = 0;
  uint64_t sum_quorum_lost = 0;
  uint32_t domains_with_quorum_loss = 0;
};

// One whole domain failing, for each live domain: `domain_of[id]` for every
// id of `live`; `copies` as LossRequest's.
DomainLossFigures EvaluateDomainLoss(const CopysetTable& table, std::span<const uint32_t> live,
                                     std::span<const uint32_t> domain_of, uint32_t copies);

struct ScatterWidthFigures {
  double mean = 0;
  uint32_t min = 0, max = 0;
};

// Each live node's scatter width: the distinct other nodes it shares a
// copyset with (0 for a node holding no copy).
ScatterWidthFigures ScatterWidths(const CopysetTable& table, std::span<const uint32_t> live);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RUN_COPYSETS_H_
