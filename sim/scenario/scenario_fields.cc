// SPDX-License-Identifier: Apache-2.0
// The rows of the scenario format (sim/base/fields.h): the top level, nodes,
// events, output and throughput. Each workload's rows are in its own file;
// algorithm entries are read from the algorithm specs. The reader
// (scenario.cc), scenarios/schema.json (scenario_schema.cc), `chsim list
// --json` and README's limits table are made from these rows.
#include <cstdint>
#include <vector>

#include "chsim/replica.h"
#include "sim/cache/policy.h"
#include "sim/run/metric_group.h"
#include "sim/scenario/node_pattern.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {
namespace {

constexpr uint64_t kMaxWeight = 0x7fffffff;

// A seed given as a string: its decimal digits must fit in 64 bits.
void CheckSeedDigits(const JsonReader& value, Json*) {
  const std::string s = value.value().get<std::string>();
  if (s.size() == 20 && s > "18446744073709551615") {
    value.Fail("an integer 0..2^64-1, or a string of its decimal digits");
  }
}

void CheckNodePattern(const JsonReader& value, Json*) {
  NodePattern::Compile(value.value().get<std::string>(), value.where());
}

constexpr char kSeedAccepted[] = "an integer 0..2^64-1, or a string of its decimal digits";
constexpr FieldSpec kSeedForms[] = {
    {.type = FieldType::kInteger, .max = UINT64_MAX, .accepted = kSeedAccepted},
    {.type = FieldType::kString,
     .pattern = "^[0-9]{1,20}$",
     .accepted = kSeedAccepted,
     .check = CheckSeedDigits},
};

constexpr FieldSpec kWeight{.type = FieldType::kInteger,
                            .doc = "a node's weight",
                            .min = 1,
                            .max = kMaxWeight,
                            .limit_doc = "the peers' weights are 32-bit signed integers"};
constexpr FieldSpec kWeightRangeFields[] = {
    {.name = "min",
     .type = FieldType::kInteger,
     .doc = "smallest weight",
     .required = true,
     .min = 1,
     .max = kMaxWeight},
    {.name = "max",
     .type = FieldType::kInteger,
     .doc = "largest weight",
     .required = true,
     .min = 1,
     .max = kMaxWeight},
};
constexpr ObjectSpec kWeightRange{.name = "weight_range",
                                  .doc = "each node's weight drawn uniformly in min..max",
                                  .fields = kWeightRangeFields};
constexpr FieldSpec kWeightChoiceFields[] = {
    {.name = "choice",
     .type = FieldType::kList,
     .doc = "weights to draw each node's from, uniformly",
     .required = true,
     .items = &kWeight,
     .min_items = 1,
     .accepted = "a non-empty list of weights"},
};
constexpr ObjectSpec kWeightChoice{.name = "weight_choice",
                                   .doc = "each node's weight drawn from a list",
                                   .fields = kWeightChoiceFields};
constexpr char kWeightsAccepted[] =
    "\"uniform\", a list of integer weights (one per node), {\"min\": A, \"max\": B} or "
    "{\"choice\": [w, ...]}";
constexpr std::string_view kUniform[] = {"uniform"};
constexpr FieldSpec kWeightForms[] = {
    {.type = FieldType::kEnum, .choices = kUniform, .accepted = kWeightsAccepted},
    {.type = FieldType::kList, .items = &kWeight, .min_items = 1, .accepted = kWeightsAccepted},
    {.type = FieldType::kObject, .object = &kWeightRange},
    {.type = FieldType::kObject, .object = &kWeightChoice},
};

// Failure domains (sim/scenario/domains.h): a count, or each domain's size.
constexpr FieldSpec kDomainSize{.type = FieldType::kInteger,
                                .doc = "one domain's size in units of the level below",
                                .min = 1,
                                .max = kMaxScenarioNodes};
constexpr char kDomainAccepted[] =
    "a count of domains, or a non-empty list of their sizes such as [4, 4, 1]";
constexpr FieldSpec kDomainForms[] = {
    {.type = FieldType::kInteger, .min = 1, .max = kMaxScenarioNodes, .accepted = kDomainAccepted},
    {.type = FieldType::kList, .items = &kDomainSize, .min_items = 1, .accepted = kDomainAccepted},
};
constexpr FieldSpec DomainField(std::string_view name, std::string_view doc,
                                std::string_view example) {
  return {.name = name,
          .type = FieldType::kOneOf,
          .doc = doc,
          .alternatives = kDomainForms,
          .example_json = example,
          .accepted = kDomainAccepted};
}
constexpr FieldSpec kHosts = DomainField(
    "hosts",
    "failure domains: hosts (machines running several nodes), a count spreading the nodes by "
    "\"assign\", or each host's size in nodes",
    "10");
constexpr FieldSpec kRacks = DomainField(
    "racks",
    "failure domains: racks, a count spreading the nodes (or hosts) by \"assign\", or each "
    "rack's size in nodes (or hosts), such as [4, 4, 1]",
    "3");
constexpr FieldSpec kZones = DomainField(
    "zones",
    "failure domains: zones (datacenters), a count spreading the racks (or hosts, or nodes) by "
    "\"assign\", or each zone's size in those units",
    "2");
constexpr std::string_view kAssignChoices[] = {"round_robin", "blocks"};
constexpr FieldSpec kAssign{
    .name = "assign",
    .type = FieldType::kEnum,
    .doc =
        "how a domain count spreads its units: round_robin (unit u in domain u mod C) or "
        "blocks (contiguous, as equal as can be)",
    .choices = kAssignChoices,
    .default_json = "\"round_robin\""};

constexpr FieldSpec kNodeCountFields[] = {
    {.name = "count",
     .type = FieldType::kInteger,
     .doc = "how many nodes",
     .required = true,
     .sweepable = true,
     .min = 1,
     .max = kMaxScenarioNodes,
     .example_json = "100",
     .limit_doc = "also the most nodes an event adds"},
    {.name = "pattern",
     .type = FieldType::kString,
     .doc = "node labels: {i} arithmetic (+ - * / %, left to right) and {hex:N} placeholders",
     .sweepable = true,
     .min_length = 1,
     .pattern = "^[^\\s]+$",
     .default_json = "\"10.{i/65536%256}.{i/256%256}.{i%256}:11211\"",
     .example_json = "\"cache-{i}.example.com:11211\"",
     .accepted = kNodePatternAccepted,
     .check = CheckNodePattern},
    {.name = "first_index",
     .type = FieldType::kInteger,
     .doc = "the {i} of the first node",
     .max = 1u << 30,
     .default_json = "1"},
    {.name = "weights",
     .type = FieldType::kOneOf,
     .doc = "node weights",
     .alternatives = kWeightForms,
     .default_json = "\"uniform\"",
     .example_json = "{\"min\": 1, \"max\": 4}",
     .accepted = kWeightsAccepted},
    kHosts,
    kRacks,
    kZones,
    kAssign,
};
constexpr ObjectSpec kNodeCount{
    .name = "nodes", .doc = "nodes named by a pattern", .fields = kNodeCountFields};
constexpr FieldSpec kNodeFileFields[] = {
    {.name = "file",
     .type = FieldType::kString,
     .doc = "a server-list file (relative to the scenario's folder): HOST[:PORT] [WEIGHT [NAME]] "
            "[host=H] [rack=R] [zone=Z]; or a proxy's configuration FILE[:BLOCK], its kind by the "
            "extension (.conf nginx, .cfg haproxy, .vcl varnish, .yaml/.yml/.json envoy; "
            "docs/proxies.md)",
     .required = true,
     .min_length = 1,
     .example_json = "\"servers.txt\"",
     .accepted = "a server-list file path, or a proxy configuration FILE[:BLOCK]"},
    kHosts,
    kRacks,
    kZones,
    kAssign,
};
constexpr ObjectSpec kNodeFile{
    .name = "node_file", .doc = "nodes listed in a server-list file", .fields = kNodeFileFields};
constexpr FieldSpec kNodeForms[] = {
    {.type = FieldType::kObject, .object = &kNodeCount},
    {.type = FieldType::kObject, .object = &kNodeFile},
};

// --- events ------------------------------------------------------------------

constexpr FieldSpec kLabel{.type = FieldType::kString,
                           .doc = "a node label as the server list writes it",
                           .min_length = 1,
                           .accepted = "a node label"};
constexpr FieldSpec kLabels{.name = "nodes",
                            .type = FieldType::kList,
                            .doc = "the nodes, by label",
                            .items = &kLabel,
                            .min_items = 1,
                            .accepted = "a non-empty list of node labels"};
constexpr FieldSpec EventCountField(std::string_view name, std::string_view doc) {
  return {
      .name = name, .type = FieldType::kInteger, .doc = doc, .min = 1, .max = kMaxScenarioNodes};
}
constexpr FieldSpec EventWeightField(bool required, std::string_view doc) {
  return {.name = "weight",
          .type = FieldType::kInteger,
          .doc = doc,
          .required = required,
          .min = 1,
          .max = kMaxWeight,
          .default_json = required ? "" : "1"};
}

// "at": where an event happens on the request stream (the cache metric).
constexpr FieldSpec kAtFields[] = {
    {.name = "request",
     .type = FieldType::kInteger,
     .doc = "the event comes before request N (0-based) of the stream",
     .max = kMaxKeys,
     .example_json = "2000000"},
    {.name = "fraction",
     .type = FieldType::kNumber,
     .doc = "the event comes before request floor(F x the stream's length)",
     .number_min = 0,
     .number_max = 1,
     .max_exclusive = true,
     .example_json = "0.5"},
};
constexpr std::string_view kAtOne[] = {"request", "fraction"};
constexpr ObjectSpec kAt{.name = "event_at",
                         .doc = "a place on the request stream: a request index or a fraction",
                         .fields = kAtFields,
                         .exactly_one = kAtOne};
constexpr FieldSpec kAtField{.name = "at",
                             .type = FieldType::kObject,
                             .doc =
                                 "where the event happens on the request stream the cache "
                                 "metric replays (every event has one, or none does)",
                             .object = &kAt,
                             .example_json = "{\"fraction\": 0.5}"};

constexpr FieldSpec kAddFields[] = {
    EventCountField("count", "nodes to add, named by the pattern after the last one"),
    kLabels,
    EventWeightField(false, "the added nodes' weight"),
    kAtField,
};
constexpr std::string_view kAddOne[] = {"count", "nodes"};
constexpr ObjectSpec kAdd{.doc = "add nodes: a count named by the pattern, or labels",
                          .fields = kAddFields,
                          .exactly_one = kAddOne,
                          .tag_value = "add"};
constexpr FieldSpec kRemoveFields[] = {
    kLabels,
    EventCountField("random", "live nodes to remove, drawn at random"),
    EventCountField("last", "the most recently added live nodes to remove"),
    kAtField,
};
constexpr std::string_view kRemoveOne[] = {"nodes", "random", "last"};
constexpr ObjectSpec kRemove{.doc = "remove nodes: by label, at random, or the last added",
                             .fields = kRemoveFields,
                             .exactly_one = kRemoveOne,
                             .tag_value = "remove"};
constexpr FieldSpec kFailFields[] = {
    {.name = "fraction",
     .type = FieldType::kNumber,
     .doc = "share of live nodes that fail, 0 < f < 1",
     .number_min = 0,
     .number_max = 1,
     .min_exclusive = true,
     .max_exclusive = true,
     .example_json = "0.1"},
    {.name = "domain",
     .type = FieldType::kEnum,
     .doc = "every live node of whole failure domains at this level fails (the nodes' topology)",
     .choices = kDomainLevelNames,
     .example_json = "\"rack\""},
    EventCountField("count",
                    "with domain: how many domains fail, drawn at random among those "
                    "with a live node (default 1)"),
    kAtField,
};
constexpr std::string_view kFailOne[] = {"fraction", "domain"};
constexpr ObjectSpec kFail{
    .doc =
        "a share of the live nodes, or whole failure domains, fail at random (restore brings "
        "them back)",
    .fields = kFailFields,
    .exactly_one = kFailOne,
    .tag_value = "fail"};
constexpr FieldSpec kReweightFields[] = {
    kLabels,
    EventCountField("random", "live nodes to reweight, drawn at random"),
    EventWeightField(true, "the new weight"),
    kAtField,
};
constexpr std::string_view kReweightOne[] = {"nodes", "random"};
constexpr ObjectSpec kReweight{.doc = "give nodes a new weight: by label or at random",
                               .fields = kReweightFields,
                               .exactly_one = kReweightOne,
                               .tag_value = "reweight"};
constexpr FieldSpec kRestoreFields[] = {kAtField};
constexpr ObjectSpec kRestore{
    .doc = "bring back every failed node", .fields = kRestoreFields, .tag_value = "restore"};

constexpr const ObjectSpec* kEventVariants[] = {&kAdd, &kRemove, &kFail, &kReweight, &kRestore};
std::span<const ObjectSpec* const> EventVariants() { return kEventVariants; }

constexpr FieldSpec kEvent{.type = FieldType::kVariant,
                           .doc = "one event of the timeline",
                           .tag = "op",
                           .variants = EventVariants,
                           .accepted = "an object with an \"op\""};

// --- options -----------------------------------------------------------------

// The groups' names come from their registry (sim/run/metric_groups.cc).
constexpr FieldSpec kMetricGroup{.type = FieldType::kEnum, .choices_of = MetricGroupNames};
constexpr std::string_view kOnUnsupported[] = {"error", "skip", "rebuild"};
constexpr std::string_view kPerNode[] = {"none", "first_trial", "all", "auto"};

constexpr FieldSpec kOutputFields[] = {
    {.name = "per_node",
     .type = FieldType::kEnum,
     .doc = "which trials write per-node loads (the per_node table); auto: the first trial of "
            "cases of at most 1000 nodes, none for larger ones",
     .choices = kPerNode,
     .default_json = "\"auto\""},
    {.name = "transitions",
     .type = FieldType::kBoolean,
     .doc = "write the remap transition matrix (old node x new node) of each step",
     .default_json = "false"},
};
constexpr ObjectSpec kOutput{
    .name = "output", .doc = "what a result file holds beyond the rows", .fields = kOutputFields};
constexpr FieldSpec kThroughputFields[] = {
    {.name = "keys",
     .type = FieldType::kInteger,
     .doc = "keys timed per lookup measurement",
     .min = 16,
     .max = 1u << 24,
     .default_json = "65536"},
    {.name = "min_time_ms",
     .type = FieldType::kInteger,
     .doc = "least time of one timing run",
     .min = 1,
     .max = 60000,
     .default_json = "50"},
    {.name = "repetitions",
     .type = FieldType::kInteger,
     .doc = "timing runs; the median is reported",
     .min = 1,
     .max = 100,
     .default_json = "3"},
};
constexpr ObjectSpec kThroughput{
    .name = "throughput", .doc = "lookup timing", .fields = kThroughputFields};

// --- cache (docs/cache.md) ---------------------------------------------------

constexpr FieldSpec kCapacityFields[] = {
    {.name = "objects",
     .type = FieldType::kInteger,
     .doc = "objects each node's cache holds",
     .min = 1,
     .max = uint64_t{1} << 50,
     .example_json = "10000"},
    {.name = "bytes",
     .type = FieldType::kInteger,
     .doc = "bytes each node's cache holds (requests need sizes)",
     .min = 1,
     .max = uint64_t{1} << 50,
     .example_json = "1073741824"},
    {.name = "objects_fraction",
     .type = FieldType::kNumber,
     .doc = "the caches together hold this share of the stream's distinct objects, split evenly "
            "over the initial nodes",
     .number_min = 0,
     .number_max = 1000,
     .min_exclusive = true,
     .example_json = "0.1"},
    {.name = "bytes_fraction",
     .type = FieldType::kNumber,
     .doc = "the same share of the stream's distinct bytes",
     .number_min = 0,
     .number_max = 1000,
     .min_exclusive = true,
     .example_json = "0.1"},
};
constexpr std::string_view kCapacityOne[] = {"objects", "bytes", "objects_fraction",
                                             "bytes_fraction"};
constexpr ObjectSpec kCapacity{.name = "cache_capacity",
                               .doc = "each node's cache size",
                               .fields = kCapacityFields,
                               .exactly_one = kCapacityOne};
constexpr std::string_view kAuto[] = {"auto"};
constexpr FieldSpec kWindowForms[] = {
    {.type = FieldType::kInteger, .min = 1, .max = kMaxKeys},
    {.type = FieldType::kEnum, .choices = kAuto},
};
constexpr FieldSpec kCacheFields[] = {
    {.name = "policy",
     .type = FieldType::kEnum,
     .doc = "the eviction policy of every node's cache (chsim list)",
     .sweepable = true,
     .choices = kCachePolicyNames,
     .default_json = "\"lru\"",
     .example_json = "[\"lru\", \"s3fifo\"]"},
    {.name = "capacity",
     .type = FieldType::kObject,
     .doc = "each node's cache size",
     .required = true,
     .object = &kCapacity,
     .example_json = "{\"objects\": 10000}"},
    {.name = "window",
     .type = FieldType::kOneOf,
     .doc = "requests per window of the windowed miss ratio; \"auto\": max(100, stream length / "
            "500)",
     .alternatives = kWindowForms,
     .default_json = "\"auto\"",
     .accepted = "a number of requests 1..10^12, or \"auto\""},
    {.name = "recovery_epsilon",
     .type = FieldType::kNumber,
     .doc = "recovered: the windowed miss ratio stays within this of the twin's",
     .number_min = 0,
     .number_max = 1,
     .min_exclusive = true,
     .default_json = "0.01"},
};
constexpr ObjectSpec kCache{.name = "cache",
                            .doc = "one cache per node, replayed over the request stream",
                            .fields = kCacheFields};

// --- replication (docs/replicas.md) -------------------------------------------

// The replica strategies' names, from their registry (core/src/replicas/),
// and "all".
std::span<const std::string_view> ReplicaStrategyChoices() noexcept {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const ReplicaStrategy* s : AllReplicaStrategies()) out.push_back(s->name);
    out.push_back("all");
    return out;
  }();
  return names;
}

constexpr std::string_view kReplicationDomains[] = {"none", "host", "rack", "zone"};
constexpr FieldSpec kReplicationFields[] = {
    {.name = "factor",
     .type = FieldType::kInteger,
     .doc = "copies of each key (replicas, not points per node), on distinct nodes",
     .required = true,
     .sweepable = true,
     .min = 1,
     .max = kMaxReplicas,
     .example_json = "3"},
    {.name = "strategy",
     .type = FieldType::kEnum,
     .doc = "how the copies are chosen (chsim list); \"all\": every strategy that applies to the "
            "algorithm; absent: the first that applies",
     .sweepable = true,
     .choices_of = ReplicaStrategyChoices,
     .example_json = "[\"walk\", \"salted\"]"},
    {.name = "domain",
     .type = FieldType::kEnum,
     .doc = "the failure domain level (of the nodes' topology) whose members should hold at "
            "most one copy of a key; \"none\": spread over nodes only (the default)",
     .sweepable = true,
     .choices = kReplicationDomains},
    {.name = "failed",
     .type = FieldType::kNumber,
     .doc = "the replicas metric's loss figures: share of the live nodes that fail at once "
            "(at least one node)",
     .number_min = 0,
     .number_max = 1,
     .min_exclusive = true,
     .max_exclusive = true,
     .default_json = "0.01"},
    {.name = "failure_sets",
     .type = FieldType::kInteger,
     .doc = "the replicas metric's loss figures: random failure sets drawn per step",
     .min = 1,
     .max = 10'000'000,
     .default_json = "10000"},
};
constexpr ObjectSpec kReplication{.name = "replication",
                                  .doc = "copies of each key: how many, how chosen, where",
                                  .fields = kReplicationFields};

constexpr FieldSpec kScenarioRows[] = {
    {.name = "$schema",
     .type = FieldType::kString,
     .doc = "the schema this file follows (editors)"},
    {.name = "schema_version",
     .type = FieldType::kInteger,
     .doc = "the scenario format version, 1",
     .required = true,
     .min = kScenarioSchemaVersion,
     .max = kScenarioSchemaVersion,
     .accepted = "1 (this chsim reads scenario format 1)"},
    {.name = "name",
     .type = FieldType::kString,
     .doc = "a short name for the scenario",
     .required = true,
     .pattern = "^[A-Za-z0-9._-]{1,100}$",
     .example_json = "\"remap-events\"",
     .accepted = "1..100 letters, digits, '.', '_' or '-'"},
    {.name = "description", .type = FieldType::kString, .doc = "what the scenario shows"},
    {.name = "seed",
     .type = FieldType::kOneOf,
     .doc = "master seed; every case, trial, key and random event derives from it",
     .alternatives = kSeedForms,
     .default_json = "1",
     .accepted = kSeedAccepted},
    {.name = "trials",
     .type = FieldType::kInteger,
     .doc = "independent repetitions of each case (new node names and keys)",
     .min = 1,
     .max = 10000,
     .default_json = "1",
     .limit_doc = "each trial repeats every case"},
    {.name = "nodes",
     .type = FieldType::kOneOf,
     .doc = "count and naming pattern, or a server-list file",
     .required = true,
     .alternatives = kNodeForms,
     .example_json = "{\"count\": [10, 100]}"},
    {.name = "algorithms",
     .type = FieldType::kExternal,
     .doc = "a list of {\"algorithm\": name, parameters...}, or \"all\"",
     .required = true,
     .external_schema = AlgorithmEntriesSchema},
    {.name = "workload",
     .type = FieldType::kVariant,
     .doc = "the keys (or requests) placed: a \"type\" and its fields",
     .tag = "type",
     .variants = WorkloadVariants,
     .default_json = "{\"type\": \"uniform\", \"keys\": 100000, \"shape\": \"user:{n}\"}",
     .accepted = "an object with a \"type\""},
    {.name = "events",
     .type = FieldType::kList,
     .doc = "the timeline; metrics are measured after each event",
     .items = &kEvent,
     .default_json = "[]",
     .accepted = "a list of events"},
    {.name = "metrics",
     .type = FieldType::kList,
     .doc = "metric groups to measure",
     .items = &kMetricGroup,
     .min_items = 1,
     .unique = true,
     .default_json = "[\"balance\", \"remap\"]"},
    {.name = "epsilon",
     .type = FieldType::kNumber,
     .doc = "over_eps_share counts nodes whose load exceeds 1 + epsilon times expected",
     .number_min = 0,
     .number_max = 10,
     .min_exclusive = true,
     .default_json = "0.1"},
    {.name = "on_unsupported",
     .type = FieldType::kEnum,
     .doc = "an event an algorithm cannot do: refuse the scenario, skip the case, or rebuild",
     .choices = kOnUnsupported,
     .default_json = "\"error\""},
    {.name = "output",
     .type = FieldType::kObject,
     .doc = "extra tables",
     .object = &kOutput,
     .default_json = "{}"},
    {.name = "throughput",
     .type = FieldType::kObject,
     .doc = "lookup timing",
     .object = &kThroughput,
     .default_json = "{}"},
    {.name = "cache",
     .type = FieldType::kObject,
     .doc = "the caches the cache metric replays (required with it)",
     .object = &kCache},
    {.name = "replication",
     .type = FieldType::kObject,
     .doc = "each key's copies (required with the replicas metric; throughput then times them)",
     .object = &kReplication,
     .example_json = "{\"factor\": 3, \"strategy\": [\"walk\", \"salted\"]}"},
};

constexpr ObjectSpec kScenarioObject{
    .doc =
        "A simulation sweep for `chsim run`. Any field marked 'sweepable' may be a list; lists "
        "expand to a cartesian product (README.md, 'chsim run'). Unknown keys are errors.",
    .fields = kScenarioRows};

}  // namespace

const ObjectSpec& ScenarioFields() noexcept { return kScenarioObject; }

}  // namespace chsim::sim
