// SPDX-License-Identifier: Apache-2.0
// Deployment: one trial's cluster as the simulator sees it: every node ever
// present (global ids in order of first appearance, stable across events, a
// restored node keeps its id), which are live, and the algorithm that maps
// keys to them. Applies the scenario's events, asking the algorithm's
// capabilities first and falling back as the scenario says:
//   error    an unsupported operation is a usage error (exit 2)
//   skip     the case stops (CaseSkipped) and the results say why
//   rebuild  the algorithm is rebuilt over the surviving nodes in global-id
//            order (what a deployment of jump must do to drop a middle node),
//            once per event: the event's other targets leave first; the
//            survivors are renumbered inside the algorithm, and the
//            remapping metrics then show the cost; a rebuild that fails
//            skips the case
//
// Algorithms that rebuild on every change (capabilities.incremental false:
// rings, maglev) take an event that adds or removes k > 1 nodes as one build
// over the resulting live list in the algorithm's own order, the list its
// k-th Add or Remove would rebuild from, so the structure is the one k calls
// would leave (a fail of 10% of 10^5 ring nodes is one ring build, not 10^4).
// If that build refuses, the event goes node by node for the exact refusal.
//
// A shadow deployment (Build::kShadow) runs the same code over the
// algorithm's shadow (AlgorithmSpec::MakeShadow): the same node names, random
// choices, refusals and messages, without building anything. The plan
// (plan.h) replays every case that way before a run.
//
// Failure domains (chsim/topology.h): the initial nodes carry the
// scenario's (a server file's columns, or generated: InitialTopology); a node
// added later joins the domain of the lowest level given that holds the
// fewest live nodes (ties: the lower id), with that domain's parents, as an
// operator fills the emptiest rack; a restored node keeps its domains. A
// domain failure fails every live node of `count` domains drawn at random
// among those with a live node.
//
// Trials: trial t names its nodes with the pattern's i shifted by t blocks
// of (nodes + nodes the events add); random parts ({hex:N} names, random
// weights, random removals, keys) derive from (master seed, trial), not from
// the case: every case of a scenario sees the same nodes, keys and choices in
// trial t (common random numbers), so differences between cases are the
// algorithms', not luck's. A node-list file gives every trial the same nodes.
//
// Thread-safety: Locate/LocateBatch are const and may run concurrently;
// Apply, Assign and ResetAssignments need exclusive access.
#ifndef CHSIM_SIM_RUN_DEPLOYMENT_H_
#define CHSIM_SIM_RUN_DEPLOYMENT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/node.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {

// Thrown when a case stops because of an unsupported operation under
// "on_unsupported": "skip".
class CaseSkipped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Seeds of trial t, shared by every case of the scenario.
struct TrialSeeds {
  uint64_t trial;    // Derive(master, t)
  uint64_t nodes;    // {hex:N} parts of node names
  uint64_t weights;  // random weights
  uint64_t keys;     // the workload
  uint64_t events;   // random event choices (step s: Derive(events, s))
};
TrialSeeds SeedsForTrial(uint64_t master_seed, uint32_t trial) noexcept;

// The initial node list of a case in trial t, and its weights alone.
std::vector<Node> InitialNodes(const Scenario& s, const CaseSpec& c, uint32_t trial);
std::vector<uint32_t> InitialWeights(const Scenario& s, const CaseSpec& c, uint32_t trial);
// The initial nodes' failure domains (the same in every trial): the file's
// columns, or the generated ones; empty when the scenario gives none.
Topology InitialTopology(const Scenario& s, const CaseSpec& c);

// The algorithm's admission check on the initial node count and weights,
// before any label is made (admission never reads labels): refuses sizes (a
// table smaller than the nodes, a ring over its point limit) as
// BuildCaseAlgorithm would, without rendering a million names first.
void AdmitCaseSize(const Scenario& s, const CaseSpec& c, std::span<const uint32_t> weights);

enum class Build { kReal, kShadow };

// The case's algorithm over `nodes` (the trial's initial nodes): throws
// UsageError for what the algorithm refuses (std::invalid_argument, or
// Unsupported under "error") and CaseSkipped for Unsupported under "skip" or
// "rebuild". The one way a run builds a case's algorithm at its start.
std::unique_ptr<Algorithm> BuildCaseAlgorithm(const Scenario& s, const CaseSpec& c,
                                              std::span<const Node> nodes, Build build);

// Thread CPU time of the algorithm's Add and Remove calls, summed over one
// event (Deployment::TimeResizes). A build that replaces k calls (above)
// counts as one call: it is the rebuild the event's last call would do.
// Refused calls and on_unsupported rebuilds are not counted.
struct ResizeTimes {
  double clock_ns = 0;  // subtracted from each call: the cost of the two clock reads
  double add_ns = 0, remove_ns = 0;
  uint32_t adds = 0, removes = 0;
};

class Deployment {
 public:
  // Throws what BuildCaseAlgorithm throws.
  Deployment(const Scenario& s, const CaseSpec& c, uint32_t trial, Build build = Build::kReal);

  uint32_t Locate(uint64_t key_hash) const noexcept { return to_global_[alg_->Locate(key_hash)]; }
  // out[i] = Locate(hashes[i]); `out` doubles as scratch.
  void LocateBatch(std::span<const uint64_t> hashes, std::span<uint32_t> out) const noexcept {
    alg_->LocateBatch(hashes, out);
    if (ids_are_global_) return;
    for (size_t i = 0; i < hashes.size(); ++i) out[i] = to_global_[out[i]];
  }
  uint32_t Assign(uint64_t key_hash) { return to_global_[alg_->Assign(key_hash)]; }
  void ResetAssignments() { alg_->ResetAssignments(); }
  bool stateful() const noexcept { return alg_->capabilities().stateful; }

  // Applies event `e` (step number `step`, 1-based).
  void Apply(const EventSpec& e, uint32_t step);

  // Every node ever present, by global id.
  const std::vector<Node>& nodes() const noexcept { return nodes_; }
  // Their failure domains, by global id (empty when the scenario gives none).
  const Topology& topology() const noexcept { return topology_; }
  // The same by the algorithm's node ids (ReplicaInput's): ids of removed
  // nodes carry no domain.
  Topology AlgorithmTopology() const { return topology_.Select(to_global_); }
  const std::vector<bool>& live() const noexcept { return live_; }
  size_t num_live() const noexcept;
  // Structural shares by global id (0 for dead nodes), when the algorithm has them.
  std::optional<std::vector<double>> StructuralShares() const;
  // Points per node of a ring (for the theory columns), 0 if not a ring or weighted.
  double ring_points_per_node() const noexcept { return ring_points_; }
  bool weighted() const noexcept { return weighted_; }
  // Whether an event fell back to a rebuild.
  bool rebuilt() const noexcept { return rebuilt_; }
  const Algorithm& algorithm() const noexcept { return *alg_; }
  // The global id of each algorithm id (ids the algorithm no longer uses
  // keep a stale entry): what a replica selector's ids map through.
  std::span<const uint32_t> global_ids() const noexcept { return to_global_; }
  // Adds the algorithm's Add and Remove call times to `*times` from now on
  // (null: stop). Timing changes nothing else.
  void TimeResizes(ResizeTimes* times) noexcept { times_ = times; }
  const Hasher& key_hasher() const noexcept { return *case_->algorithm.key_hasher; }

 private:
  void Rebuild(const std::string& why);
  void NoteIds() noexcept;  // sets ids_are_global_ from to_global_
  void Unsupported(const std::string& why, const EventSpec& e);
  // Removes / adds the nodes in order (the bulk build or node by node).
  void RemoveNodes(const std::vector<uint32_t>& globals, const EventSpec& e);
  void AddNodes(const std::vector<uint32_t>& globals, const EventSpec& e);
  void AddNode(uint32_t global, const EventSpec& e);
  // Bookkeeping of a node leaving / joining the live set (live_, the live
  // count, the add order); MarkRemoved also drops its algorithm id.
  void LeaveLive(uint32_t global);
  void EnterLive(uint32_t global);
  void MarkRemoved(uint32_t global);
  // Live global ids in the algorithm's id order.
  std::vector<uint32_t> AlgorithmOrder() const;
  // One build over `globals` (in that order) replacing the algorithm; false,
  // changing nothing, if it throws.
  bool BuildOver(const std::vector<uint32_t>& globals, bool add);
  // Calls `call` (an Add when `add`, else a Remove), timed when asked.
  template <typename F>
  void Timed(bool add, F&& call);
  // The global id of node.label, a new one for a label never seen (its
  // domains from `fill`: PathForNewNode).
  uint32_t GlobalFor(const Node& node, std::vector<uint32_t>& fill);
  // Drops order_'s stale entries (amortized O(1) per removal).
  void CompactOrder();
  std::vector<uint32_t> LiveIds() const;
  // The targets of remove / fail / reweight.
  std::vector<uint32_t> PickRandom(size_t k, uint32_t step, const std::string& where,
                                   const EventSpec& e) const;
  std::vector<uint32_t> PickNamed(const EventSpec& e, const std::string& where) const;
  std::vector<uint32_t> PickLast(const EventSpec& e, const std::string& where) const;
  void ApplyAdd(const EventSpec& e, const std::string& where);
  void ApplyFail(const EventSpec& e, uint32_t step, const std::string& where);
  // The live nodes of `e.count` domains at `e.domain`, drawn at random.
  std::vector<uint32_t> PickDomains(const EventSpec& e, uint32_t step,
                                    const std::string& where) const;
  // Live nodes per domain of the lowest level given (empty: no topology).
  std::vector<uint32_t> LowestDomainFill() const;
  // The domains of a node never seen before: the lowest-level domain of
  // `fill` with the fewest nodes (its count then incremented), its parents.
  Topology::Path PathForNewNode(std::vector<uint32_t>& fill) const;

  const Scenario* scenario_;
  const CaseSpec* case_;
  TrialSeeds seeds_;
  std::vector<Node> nodes_;
  Topology topology_;  // by global id
  std::vector<bool> live_;
  // Global ids in the order added (for "last"); entry i is current when
  // order_pos_[order_[i]] == i, else stale (removed, or re-added later).
  std::vector<uint32_t> order_;
  std::vector<uint32_t> order_pos_;  // global id -> its current entry (UINT32_MAX if dead)
  size_t live_count_ = 0;
  std::unordered_map<std::string, uint32_t> by_label_;  // label -> global id
  std::vector<uint32_t> failed_;                        // failed global ids, in failure order
  std::vector<uint32_t> to_global_;                     // algorithm id -> global id
  bool ids_are_global_ = true;    // every live algorithm id is its global id (NoteIds)
  std::vector<uint32_t> to_alg_;  // global id -> algorithm id (UINT32_MAX if dead)
  std::unique_ptr<Algorithm> alg_;
  Build build_;
  uint64_t next_index_ = 0;  // pattern index of the next added node
  double ring_points_ = 0;
  bool weighted_ = false;
  bool built_weighted_ = false;  // params.weighted_list of the algorithm's build
  bool rebuilt_ = false;
  ResizeTimes* times_ = nullptr;
};

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RUN_DEPLOYMENT_H_
