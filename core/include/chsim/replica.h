// SPDX-License-Identifier: Apache-2.0
// Replica selection: k distinct nodes per key, the copies a store keeps of it,
// chosen over an Algorithm instance. "Replicas" here always means copies of a
// key; an algorithm's points per node (vnodes) are its own parameter.
//
// ReplicaStrategy: everything chsim knows about one way of choosing copies, in
// one registry row (core/src/replicas/registry.cc), as AlgorithmSpec is for
// algorithms: name, summary, paper and section, parameters, which algorithms
// it applies to (a predicate on the algorithm's spec, by what the spec
// exposes, never by name), whether it places copies by failure domain and how,
// whether it is minimal and whether it may answer short, its admission check
// and its factory. Each strategy is one file in core/src/replicas/.
//
// ReplicaSelector: the data plane. Select writes up to k distinct live node
// ids for a key hash into the caller's buffer, in replica order (the first is
// the primary), and returns how many it wrote. It is noexcept and
// allocation-free. A strategy may answer short (fewer than k) where its spec
// says short_results: a draw with rejection that gives up after a bound (the
// salted baseline here; CRUSH's firstn later).
//
// Failure domains: the nodes' topology (chsim/topology.h: host, rack, zone,
// indexed by the algorithm's node ids) and the level the copies are spread
// over. A strategy whose spec has a domain_rule uses them as that rule says
// (and may read every level: nts reads zones as datacenters, CRUSH walks the
// hierarchy); the others refuse a level (Admit), so that no caller believes
// copies were spread that were not.
//
// Lifetime: a selector reads its algorithm instance's structure (its ring, its
// seeds) and the topology in place. Both must outlive it, and after any Add
// or Remove on the instance the selector must be made again.
//
// Thread-safety: specs are constants; Select is const and may run
// concurrently.
#ifndef CHSIM_REPLICA_H_
#define CHSIM_REPLICA_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/params.h"
#include "chsim/topology.h"

namespace chsim {

// The most copies a selector places per key (its scratch space lives on the
// stack, so that Select allocates nothing).
inline constexpr uint32_t kMaxReplicas = 256;

class ReplicaSelector {
 public:
  explicit ReplicaSelector(uint32_t k) noexcept : k_(k) {}
  virtual ~ReplicaSelector() = default;

  // Copies asked per key.
  uint32_t k() const noexcept { return k_; }
  // Writes up to k() distinct live node ids for the key hash (the hash the
  // algorithm's Locate takes) to out[0..], in replica order, and returns how
  // many it wrote: k() unless the spec allows short results.
  // REQUIRES: out.size() >= k().
  virtual uint32_t Select(uint64_t key_hash, std::span<uint32_t> out) const noexcept = 0;
  // For each hash i: Select into out[i * k() ...], its count in counts[i].
  // REQUIRES: out.size() >= hashes.size() * k(), counts.size() >= hashes.size().
  virtual void SelectBatch(std::span<const uint64_t> hashes, std::span<uint32_t> out,
                           std::span<uint32_t> counts) const noexcept {
    for (size_t i = 0; i < hashes.size(); ++i) {
      counts[i] = Select(hashes[i], out.subspan(i * k_, k_));
    }
  }

 private:
  uint32_t k_;
};

// A file a strategy reads, as its caller read it (core reads no files): its
// name for messages and its text. Empty text: none given.
struct ReplicaFile {
  std::string_view name = {};
  std::string_view text = {};
};

// What a selector is made over: the algorithm instance, the copies per key,
// and optionally the nodes' topology (by the instance's node ids; null: none)
// and the level whose domains the copies are spread over (nullopt: none).
// `map`: a CRUSH map in crushtool's text form, for the strategies that read
// one (crush); the others refuse it.
struct ReplicaInput {
  const Algorithm* algorithm = nullptr;
  uint32_t k = 1;
  const Topology* topology = nullptr;
  std::optional<DomainLevel> domain = std::nullopt;
  ReplicaFile map = {};

  // The domain id per node id at the level asked; empty when none is asked.
  std::span<const uint32_t> Domains() const noexcept {
    return topology != nullptr && domain ? topology->Of(*domain) : std::span<const uint32_t>{};
  }
};

// What a replica strategy is, in one registry row.
struct ReplicaStrategy {
  std::string_view name = {};     // registry name: --strategy, scenarios, results
  std::string_view summary = {};  // one line
  std::string_view paper = {};    // citation with the section that defines the rule
  int year = 0;
  // The algorithms it applies to, in words, and as a predicate on their specs.
  std::string_view applies_doc = {};
  bool (*applies)(const AlgorithmSpec& algorithm) noexcept = nullptr;
  // What it does with failure domains, in words, including when they run out
  // (fewer distinct domains than copies); "" when it does not place by domain
  // (and refuses domains).
  std::string_view domain_rule = {};
  // Without domains, over an instance whose capabilities() say
  // minimal_disruption: removing node X changes the replica set of exactly
  // the keys that had a copy on X (tests/replicas/ checks it).
  bool minimal = false;
  // Select may place fewer than k copies.
  bool short_results = false;
  // Without a domain level, the first copy is always the algorithm's Locate
  // answer for the key.
  bool first_is_locate = false;
  // Places copies by a CRUSH map given in ReplicaInput::map (else Admit
  // refuses one).
  bool reads_map = false;
  std::span<const ParamSpec> params = {};
  // Refuses what depends on the parameters and the request (beyond the rules
  // every strategy shares, which Admit checks); null when nothing.
  void (*admit)(const Params& params, const ReplicaInput& input) = nullptr;
  // REQUIRES: Admit passed; `params` resolved.
  std::unique_ptr<ReplicaSelector> (*make)(const ReplicaInput& input,
                                           const Params& params) = nullptr;

  bool AppliesTo(const AlgorithmSpec& algorithm) const noexcept { return applies(algorithm); }
  bool UsesDomains() const noexcept { return !domain_rule.empty(); }
  // `given` checked against params and completed with the defaults. Throws
  // std::invalid_argument with the parameter's message.
  Params Resolve(const Params& given) const;
  // The rules every strategy shares, then the spec's admit. Throws
  // std::invalid_argument for a bad request: k of 0, above kMaxReplicas or
  // above the live nodes; a domain level for a strategy without a domain
  // rule, a level the topology does not give, or a topology without a domain
  // for some live id. Throws Unsupported when
  // the strategy does not apply to the algorithm, naming the ones that do.
  void Admit(const AlgorithmSpec& algorithm, const ReplicaInput& input,
             const Params& resolved) const;
  // Resolve, Admit, make.
  std::unique_ptr<ReplicaSelector> Make(const ReplicaInput& input, const Params& given = {}) const;
};

// Every registered strategy, in registry order.
std::span<const ReplicaStrategy* const> AllReplicaStrategies() noexcept;
// nullptr when no strategy has that name.
const ReplicaStrategy* FindReplicaStrategy(std::string_view name) noexcept;
// Like FindReplicaStrategy, but throws std::invalid_argument naming the valid
// ones.
const ReplicaStrategy& GetReplicaStrategy(std::string_view name);
// The strategies that apply to `algorithm`, in registry order.
std::vector<const ReplicaStrategy*> ReplicaStrategiesFor(const AlgorithmSpec& algorithm);
// The algorithms `strategy` applies to, in registry order.
std::vector<const AlgorithmSpec*> AlgorithmsFor(const ReplicaStrategy& strategy);

}  // namespace chsim

#endif  // CHSIM_REPLICA_H_
