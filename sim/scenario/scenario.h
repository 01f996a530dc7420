// SPDX-License-Identifier: Apache-2.0
// Scenario: a versioned JSON file that describes a simulation sweep, parsed,
// checked against the rows of the format (ScenarioFields; one-line errors
// naming the JSON pointer of each problem) and expanded into resolved cases.
//
// The format is written once, as typed rows (scenario_fields.cc, and each
// workload's file); scenarios/schema.json, `chsim list --json` and README's
// limits table are made from them. In short: nodes (count + naming pattern +
// weights, or a server-list file; failure domains generated or from the
// file), algorithms (each parameter a value or a
// list; "all" for every registered algorithm), a key workload, an events
// timeline, trials, a master seed and the metrics wanted.
//
// Parameters, their bounds and their order come from the algorithm specs
// (chsim/algorithm.h); workload fields from the workload specs (workload.h).
// Sweep expansion order (outermost first): algorithm entries in file order;
// nodes.count; nodes.pattern; the entry's parameters in its spec's order;
// the workload's axes in its spec's order (shape, keys, exponent). Each case
// gets a stable id built from its values (not its position), and a seed
// Derive(master seed, Tag(id)), so adding a case leaves the others alone.
//
// Resolve once, then run: a case holds everything a run needs as objects
// (the algorithm spec and its checked parameters, the key hasher, the
// compiled node pattern, the workload, the parsed labels of named adds), so
// nothing is looked up by name while a case runs.
//
// Thread-safety: a Scenario is an immutable value after LoadScenario.
#ifndef CHSIM_SIM_SCENARIO_SCENARIO_H_
#define CHSIM_SIM_SCENARIO_SCENARIO_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/node.h"
#include "chsim/replica.h"
#include "sim/base/json_reader.h"
#include "sim/cache/policy.h"
#include "sim/run/metric_group.h"
#include "sim/scenario/domains.h"
#include "sim/scenario/node_pattern.h"
#include "sim/workload/workload.h"

namespace chsim::sim {

inline constexpr int kScenarioSchemaVersion = 1;

// Limits checked when a scenario is read.
inline constexpr uint64_t kMaxScenarioNodes = 1'000'000;  // nodes.count, event counts
inline constexpr uint64_t kMaxCases = 1'000'000;

struct WeightSpec {
  enum class Kind { kUniform, kExplicit, kRandomUniform, kChoice };
  Kind kind = Kind::kUniform;
  std::vector<uint32_t> values;  // kExplicit (one per node) or kChoice
  uint32_t min = 1, max = 1;     // kRandomUniform (inclusive)
};

// An algorithm with one value per parameter (after sweep expansion).
struct AlgorithmConfig {
  const AlgorithmSpec* spec = nullptr;
  Params params;                       // resolved: every parameter of the spec, checked
  const Hasher* key_hasher = nullptr;  // applied to key bytes
  Json shown;                          // the parameters as results report them
  std::string_view name() const noexcept { return spec->name; }
};

// Where an event happens on the request stream ("at"): before request
// `request`, or before request floor(fraction x stream length).
struct EventAt {
  bool by_fraction = false;
  uint64_t request = 0;
  double fraction = 0;
};

struct EventSpec {
  enum class Op { kAdd, kRemove, kFail, kReweight, kRestore };
  enum class Select { kNone, kNamed, kRandom, kLast };
  Op op = Op::kAdd;
  Select select = Select::kNone;
  uint32_t count = 0;                 // add / random / last; fail by domain: domains
  std::vector<std::string> nodes;     // named
  std::vector<Node> added;            // named add: the labels parsed as server-list lines
  double fraction = 0;                // fail (a share of the live nodes)
  std::optional<DomainLevel> domain;  // fail: whole domains at this level instead
  uint32_t weight = 1;                // add, reweight
  std::string pointer;                // "/events/2", for messages
  std::string label;                  // "remove random 1", for results
  std::optional<EventAt> at;          // placed on the request stream (cache metric)
};

// The "cache" settings: one cache per node, replayed over the request
// stream (replay.h). Capacity per node: `value` objects or bytes, or with
// `fraction` a share of the stream's distinct objects (bytes) split evenly
// over the initial nodes.
struct CacheCapacity {
  bool bytes = false;
  bool fraction = false;
  double value = 0;
};

struct CacheSettings {
  std::vector<CachePolicy> policies = {CachePolicy::kLru};  // a sweep axis
  bool policy_swept = false;
  CacheCapacity capacity;
  uint64_t window = 0;          // requests per window; 0: the default (replay.h)
  double recovery_epsilon = 0;  // the rows give its default
};

// The "replication" request (docs/replicas.md): each key's copies, chosen by
// a replica strategy (chsim/replica.h) over the case's algorithm, optionally
// spread over a failure domain of the nodes; and the failures the replicas
// metric's loss figures assume. "Replicas" are copies of a key; an
// algorithm's points per node are its own parameter.
struct ReplicationSettings {
  bool given = false;
  // A sweep axis each: the strategies (empty: the first registered one that
  // applies to each algorithm; "all": every one that applies) and factors.
  std::vector<const ReplicaStrategy*> strategies;
  bool strategy_swept = false;  // a list or "all": pairs that do not apply make no case
  std::vector<uint32_t> factors;
  bool factor_swept = false;
  // A sweep axis: the failure domain level copies spread over (nullopt:
  // "none"); empty when not given.
  std::vector<std::optional<DomainLevel>> domains;
  bool domain_swept = false;
  double failed = 0.01;           // share of the live nodes failing at once (loss figures)
  uint32_t failure_sets = 10000;  // Monte Carlo failure sets per step
};

enum class OnUnsupported { kError, kSkip, kRebuild };
// Which per-node rows a run writes (output.per_node). kAuto, the default,
// keeps result files small: trial 0 of the cases of at most
// kPerNodeAutoMaxNodes initial nodes, nothing for larger ones (at 10^5 nodes
// and 5 steps, first_trial would write ~200 MB). A case's result says which
// applied (PerNodeApplied).
enum class PerNode { kNone, kFirstTrial, kAll, kAuto };
inline constexpr uint32_t kPerNodeAutoMaxNodes = 1000;

struct CaseSpec {
  size_t index = 0;
  std::string id;
  uint64_t seed = 0;
  AlgorithmConfig algorithm;
  uint32_t nodes = 0;                                   // node count (file: the list's size)
  std::string pattern;                                  // naming pattern ("" for a node file)
  std::shared_ptr<const NodePattern> compiled_pattern;  // of `pattern`, or of the add default
  std::shared_ptr<const Workload> workload;
  // What throughput timing uses: the workload, or uniform "user:{n}" keys
  // when it has no indexed keys.
  std::shared_ptr<const Workload> throughput_workload;
  Json workload_shown;                           // {"type": ...}
  Json axes;                                     // swept values that are not algorithm parameters
  std::string pointer;                           // "/algorithms/1"
  CachePolicy cache_policy = CachePolicy::kLru;  // with the cache metric
  // With "replication": the case's strategy and copies per key (0: none).
  const ReplicaStrategy* replica_strategy = nullptr;
  uint32_t replicas = 0;
  std::optional<DomainLevel> replica_domain;  // the level its copies spread over
};

struct Scenario {
  std::string path;  // as given
  std::string name;
  std::string description;
  uint64_t seed = 0;
  uint32_t trials = 1;
  std::vector<uint32_t> counts;
  std::vector<std::string> patterns;
  uint32_t first_index = 1;
  WeightSpec weights;
  std::string node_file;  // resolved path, or ""
  std::vector<Node> file_nodes;
  bool file_weighted = false;
  Topology file_topology;  // the file's domain columns (empty: none)
  DomainSpec domains;      // generated domains ("hosts", "racks", "zones")
  std::vector<EventSpec> events;
  // The "metrics" entries' groups, each once, in registry order
  // (metric_group.h).
  std::vector<const MetricGroup*> groups;
  CacheSettings cache_settings;  // with the cache metric
  ReplicationSettings replication;
  double epsilon = 0.1;
  OnUnsupported on_unsupported = OnUnsupported::kError;
  PerNode per_node = PerNode::kAuto;
  bool transitions = false;
  uint32_t throughput_keys = 65536;
  uint32_t throughput_min_ms = 50;
  uint32_t throughput_repetitions = 3;
  // The "algorithms" entries, with "all" replaced by the entries it stands for.
  std::vector<Json> algorithm_entries;
  Json resolved;  // the scenario with every default filled in
  std::vector<CaseSpec> cases;

  // Whether the nodes carry domains at `level` (from the file or generated).
  bool HasDomains(DomainLevel level) const noexcept {
    return file_topology.Has(level) || domains.levels[static_cast<size_t>(level)].given;
  }
  // Whether the node list spells weights out (a weights spec, or a weighted file).
  bool weighted() const noexcept {
    return file_weighted || weights.kind != WeightSpec::Kind::kUniform;
  }
  // Whether a selected group needs the pass (e.g. &GroupPasses::key_pass).
  bool Needs(bool GroupPasses::*pass) const noexcept {
    for (const MetricGroup* g : groups) {
      if (g->needs.*pass) return true;
    }
    return false;
  }
  // Whether the "metrics" entry `group` is selected.
  bool Selects(std::string_view group) const noexcept {
    for (const MetricGroup* g : groups) {
      if (g->name == group) return true;
    }
    return false;
  }
  // Every algorithm the cases use, in order of first use.
  std::vector<const AlgorithmSpec*> algorithms() const;
};

// The per-node rows a case of `nodes` initial nodes gets under `mode`: kAuto
// resolved to kFirstTrial or kNone; any other mode as given.
PerNode PerNodeApplied(PerNode mode, uint32_t nodes) noexcept;
// "none", "first_trial", "all" or "auto", as scenarios and results spell it.
const char* PerNodeName(PerNode mode) noexcept;

// Reads, checks (against ScenarioFields) and expands a scenario file. `seed_override` replaces the
// master seed. Throws UsageError "FILE: /json/pointer: found X; accepted: Y".
// A loaded scenario may still be refused by its plan (plan.h).
Scenario LoadScenario(const std::string& path, std::optional<uint64_t> seed_override = {});

// The same from text (tests); `path` names the text in messages and anchors
// relative file paths.
Scenario ParseScenario(std::string_view text, const std::string& path,
                       std::optional<uint64_t> seed_override = {});

// The rows of the scenario format (sim/base/fields.h): the top level, nodes,
// events, output, throughput, and each workload's (through WorkloadVariants).
// The reader checks a scenario against them, once.
const ObjectSpec& ScenarioFields() noexcept;

// scenarios/schema.json, made from the rows and the algorithm specs (an
// output for editors and other languages; chsim itself reads with the rows).
const Json& ScenarioSchema();
// The schema of "algorithms" (a list of entries, or "all"), from the
// algorithm specs; the named parts go into `definitions`.
Json AlgorithmEntriesSchema(Json& definitions);
// ScenarioSchema() in the committed file's layout: `chsim list --schema`
// prints it; a test checks the committed file equals it.
std::string FormatScenarioSchema();

// Validates `doc` against ScenarioSchema() with valijson (tests: whatever the
// reader accepts, the schema accepts). Returns "" when valid, else
// "/pointer: what is wrong (scenarios/schema.json)".
std::string ValidateAgainstSchema(const nlohmann::json& doc);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_SCENARIO_SCENARIO_H_
