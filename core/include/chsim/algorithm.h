// SPDX-License-Identifier: Apache-2.0
// Algorithm: one consistent-hashing scheme behind a common interface, so the
// simulator and the benchmarks can compare Ketama rings with jump, rendezvous,
// maglev, multi-probe, bounded loads, anchor, memento and modulo; and
// AlgorithmSpec: everything chsim knows about an algorithm, in one registry
// row (name, summary, paper, capabilities, parameters, admission check,
// factory). The scenario reader, the schema, `chsim list`, `chsim locate`, the
// benchmarks and the result files all read these specs.
//
// Node identity: Locate returns a node id. The nodes given at construction get
// ids 0..n-1 in list order; each Add gets the next unused id (n, n+1, ...); ids
// are never reused, so results stay comparable across add/remove events.
//
// Refusals: asking for an unsupported operation throws Unsupported, a bad
// argument std::invalid_argument; never a silent wrong answer. A refused Add or
// Remove changes nothing. Every refusal an instance can make is predicted,
// without building it, by the spec's admission check plus the node rules core
// applies to every algorithm (MakeShadow), so a timeline can be planned before
// anything runs.
//
// Thread-safety: const methods may run concurrently; Add/Remove/Assign need
// exclusive access. Locate/LocateBatch are noexcept and allocation-free.
#ifndef CHSIM_ALGORITHM_H_
#define CHSIM_ALGORITHM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "chsim/node.h"
#include "chsim/params.h"

namespace chsim {

// Thrown when an algorithm is asked for something it does not support.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Capabilities {
  bool weights = false;  // honours node weights (else a weight other than 1 is Unsupported)
  // Remove(any live id). Otherwise only the most recently added live node can
  // be removed (last in, first out; jump).
  bool arbitrary_removal = false;
  bool incremental = false;   // Add/Remove without a full rebuild
  bool exact_shares = false;  // StructuralShares() is exact
  bool stateful = false;      // answers depend on arrival order (use Assign)
  // Adding a node moves keys only to it; removing one moves only its keys.
  bool minimal_disruption = false;
  // Answers depend only on the live nodes' labels and weights (up to ties
  // between hash values), not on the order of adds and removes: nodes that
  // fail and are restored (Add with the same Node) in any order get every key
  // back. False for jump, anchor and memento, whose Add restores the most
  // recently removed bucket (Lamping & Veach; Mendelson et al. ADDBUCKET;
  // Coluzzi et al.): restored in reverse removal order every key comes back; in
  // any other order the restored node takes over the key space of the bucket
  // removed last, so keys come back only to the nodes whose own bucket they got.
  // Also false for maglev and modulo (answers depend on node order).
  bool history_free = false;
  // A consistent range hash: buckets 0..n-1 are a function of the key's hash
  // and n alone, with no table or ring to build (lifo_buckets.h: jump, power,
  // flip, jumpback, binomial); the live nodes are an id map over the buckets.
  bool range_hash = false;
};

struct AlgorithmSpec;
struct RingView;        // chsim/ring.h
struct RendezvousView;  // chsim/rendezvous.h
struct CrushView;       // chsim/crush.h

// What an instance exposes of its structure, for the replica strategies that
// walk it (chsim/replica.h). A spec declares it; each instance of that spec
// then fills the view (Algorithm::ViewRing, ViewRendezvous).
struct StructureViews {
  // Locate answers the owner of the first point of a ring at or after the
  // key's position, and ViewRing gives that ring in order.
  bool ring = false;
  // Locate answers the highest rendezvous score (chsim/rendezvous.h), and
  // ViewRendezvous gives the seeds and weights it scores.
  bool rendezvous = false;
  // Locate starts from a bucket in [0, N) of a consistent range hash, and
  // ViewBuckets gives the bucket -> node map (BucketView): the range hashes
  // (capabilities.range_hash) and the bucket schemes that route around
  // removed buckets (anchor, memento, dx).
  bool buckets = false;
  // Locate answers a CRUSH straw2 choice over the live nodes as devices
  // (chsim/crush.h), and ViewCrush gives their ids and 16.16 weights.
  bool crush = false;
};

// A bucket-based instance's buckets (Algorithm::ViewBuckets), for the
// replica strategies that draw buckets themselves (choosek).
struct BucketView {
  static constexpr uint32_t kNoNode = UINT32_MAX;
  // Bucket b's node id for b in [0, ids.size()), kNoNode on a bucket that
  // does not work (removed, or never used).
  std::span<const uint32_t> ids;
  // The instance's own range hash: a bucket in [0, n) for (key hash, n),
  // consistent in n (a key moves only to bucket n when n grows by one), or
  // null when the instance has none of its own (anchor, memento, dx), and a
  // strategy then uses jump (chsim/algorithms/jump.h).
  uint32_t (*range)(const void* context, uint64_t key_hash, uint32_t n) noexcept = nullptr;
  const void* context = nullptr;
};

class Algorithm {
 public:
  virtual ~Algorithm() = default;

  virtual std::string_view name() const noexcept = 0;
  // The spec's capabilities, narrowed where this instance cannot keep one
  // (a weighted ring is not minimally disruptive).
  virtual Capabilities capabilities() const noexcept = 0;

  // Node id for a 64-bit key hash. REQUIRES: num_nodes() > 0.
  virtual uint32_t Locate(uint64_t key_hash) const noexcept = 0;
  // out[i] = Locate(hashes[i]). REQUIRES: out.size() >= hashes.size().
  virtual void LocateBatch(std::span<const uint64_t> hashes,
                           std::span<uint32_t> out) const noexcept {
    for (size_t i = 0; i < hashes.size(); ++i) out[i] = Locate(hashes[i]);
  }
  // For an algorithm that places a key by its bytes, not by one hash of them
  // (the ketama algorithm's pymemcache profile: rendezvous over "node-KEY"):
  // out[i] = the node id of keys[i], true. Every other algorithm answers
  // false (callers hash the keys with the key hasher and call LocateBatch,
  // which such an algorithm answers for a stand-in key: see ProfileMap).
  // REQUIRES: out.size() >= keys.size().
  virtual bool LocateKeys(std::span<const std::string_view> /*keys*/,
                          std::span<uint32_t> /*out*/) const noexcept {
    return false;
  }
  // For stateful algorithms (bounded loads): place one more key and return its
  // node. Default: Locate.
  virtual uint32_t Assign(uint64_t key_hash) { return Locate(key_hash); }
  // Forget all assignments (stateful algorithms only).
  virtual void ResetAssignments() {}

  // Live nodes.
  virtual size_t num_nodes() const noexcept = 0;
  // Live node ids, ascending.
  virtual std::vector<uint32_t> live_ids() const = 0;

  // Returns the new node's id. Throws Unsupported (a capacity reached, weights
  // on an unweighted algorithm) or std::invalid_argument (a live label, weight
  // 0, a size limit); nothing changes then.
  virtual uint32_t Add(const Node& node) = 0;
  // Throws Unsupported (a middle node of jump, the last live node) or
  // std::invalid_argument (unknown or dead id); nothing changes then.
  virtual void Remove(uint32_t id) = 0;

  virtual size_t MemoryBytes() const noexcept = 0;
  // Exact share of the key space per node id (size = ids ever issued; dead ids
  // 0), when capabilities().exact_shares.
  virtual std::optional<std::vector<double>> StructuralShares() const { return std::nullopt; }
  // Points per node v of a Karger ring whose equal nodes' shares follow the
  // Gamma(v)/sum model (the simulator's theory.* columns); 0 for anything else,
  // weighted rings included.
  virtual double RingPointsPerNode() const noexcept { return 0; }

  // The structure Locate reads, for specs whose StructureViews declare it
  // (ViewBuckets: buckets):
  // fills *view and returns true (else false, *view untouched). The view
  // points into the instance and holds until its next Add or Remove.
  virtual bool ViewRing(RingView* /*view*/) const noexcept { return false; }
  virtual bool ViewRendezvous(RendezvousView* /*view*/) const noexcept { return false; }
  virtual bool ViewBuckets(BucketView* /*view*/) const noexcept { return false; }
  virtual bool ViewCrush(CrushView* /*view*/) const noexcept { return false; }
};

// One step of an instance's life, as an admission check sees it: no instance,
// only the node lists.
struct TimelineStep {
  enum class Op { kBuild, kAdd, kRemove };
  Op op = Op::kBuild;
  size_t built = 0;            // nodes the instance was built over
  std::span<const Node> live;  // the live nodes after this step (kBuild: the build list)
};

// What an algorithm is, in one registry row (core/src/algorithms/registry.cc).
struct AlgorithmSpec {
  std::string_view name = {};     // registry name: scenarios, --algorithm, results
  std::string_view summary = {};  // one line
  std::string_view paper = {};    // citation: authors, title, venue ("" for none)
  int year = 0;                   // year of the paper (0 for none)
  Capabilities capabilities = {};
  StructureViews views = {};               // what replica strategies can walk
  std::span<const ParamSpec> params = {};  // in sweep and case-id order
  // The integer parameter that trades balance for cost, which `chsim tune`
  // searches (ring points per node, a maglev table size, multi-probe probes);
  // "" when there is none. Its range, rule and default are the tune's.
  std::string_view tuned_param = {};
  // A first guess of the tuned parameter for max/mean <= target over `nodes`
  // equal nodes, from the algorithm's own balance model (null: start at the
  // default).
  double (*tune_guess)(uint64_t nodes, double target) = nullptr;

  // Largest node share / expected share (expected: the weight share) that
  // the algorithm keeps with its default parameters over 100 nodes; 1 for
  // schemes whose shares are equal up to sampling, c for bounded loads. The
  // conformance kit checks it within sampling error, with weights too when
  // capabilities.weights.
  double balance_bound = 1;
  // MemoryBytes() an instance over `nodes` equal nodes uses, as documented
  // (the kit checks it within a factor of 2 at several n).
  double (*memory_bytes)(const Params& params, uint64_t nodes) = nullptr;
  std::string_view memory_doc = {};  // the same in words, e.g. "8-12 bytes per point"
  // The work of one Locate over `nodes` live nodes, in units of one O(1)
  // lookup (a jump hash's), for the simulator's progress estimate only; null:
  // 1. Algorithms whose lookup grows with the nodes declare it.
  double (*lookup_work)(const Params& params, uint64_t nodes) = nullptr;

  // The registry name of the hasher that turns keys into the 64-bit hashes
  // Locate takes (a function of the parameters; e.g. a ring's point hasher).
  std::string_view (*key_hasher)(const Params& params) = nullptr;
  // Refuses, exactly as the instance would at `step`, what depends on the
  // parameters and the node counts: sizes and feasibility (a table smaller
  // than the nodes, a capacity reached, a ring over its point limit, a profile
  // option). Throws std::invalid_argument or Unsupported with the message the
  // instance gives; null when there is nothing to refuse. It reads the nodes'
  // count and weights, never their labels (the simulator asks it before
  // naming the nodes). Node rules common to
  // every algorithm (labels, weight 0, weights when unsupported, removal order,
  // the last node) are core's and need no code here.
  void (*admit)(const Params& params, const TimelineStep& step) = nullptr;
  // Builds over `nodes` with resolved parameters. REQUIRES: Admit passed.
  std::unique_ptr<Algorithm> (*make)(std::span<const Node> nodes, const Params& params) = nullptr;

  // The parameter called `name`, or nullptr.
  const ParamSpec* FindParam(std::string_view name) const noexcept;
  // `given` checked (every name declared, every value accepted by its
  // ParamSpec) and completed with the defaults, in spec order. Throws
  // std::invalid_argument with the spec's message.
  Params Resolve(const Params& given) const;
  // Resolve, the node rules and Admit at build, then make. Throws
  // std::invalid_argument or Unsupported.
  std::unique_ptr<Algorithm> Make(std::span<const Node> nodes, const Params& given = {}) const;
  // An instance that keeps only the node bookkeeping: construction, Add and
  // Remove accept and refuse exactly what Make's instance would (same
  // exception, same message, same ids), in O(live nodes) per step, without
  // building the structure. Locate answers 0.
  std::unique_ptr<Algorithm> MakeShadow(std::span<const Node> nodes,
                                        const Params& given = {}) const;
  // key_hasher(resolved), "xxh3" when the spec has no key_hasher function.
  std::string_view KeyHasher(const Params& resolved) const;
};

// Every registered algorithm, in registry order.
std::span<const AlgorithmSpec* const> AllAlgorithms() noexcept;
// nullptr when no algorithm has that name.
const AlgorithmSpec* FindAlgorithm(std::string_view name) noexcept;
// Like FindAlgorithm, but throws std::invalid_argument naming the valid ones.
const AlgorithmSpec& GetAlgorithm(std::string_view name);

// GetAlgorithm(name).Make(nodes, params). REQUIRES: !nodes.empty().
std::unique_ptr<Algorithm> MakeAlgorithm(std::string_view name, std::span<const Node> nodes,
                                         const Params& params = {});

}  // namespace chsim

#endif  // CHSIM_ALGORITHM_H_
