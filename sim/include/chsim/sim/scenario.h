// Scenario: a versioned JSON file that describes a simulation sweep, parsed,
// validated (against scenarios/schema.json and by a typed reader that names
// the JSON pointer of each problem), and expanded into cases.
//
// The file format is documented in scenarios/schema.json and README.md. In
// short: nodes (count + naming pattern + weights, or a server-list file),
// algorithms (each parameter a value or a list), a key workload, an events
// timeline, trials, a master seed and the metrics wanted.
//
// Sweep expansion order (outermost first): algorithm entries in file order;
// nodes.count; nodes.pattern; the entry's parameters in the order of
// kSweepParameterOrder; workload.shape; workload.keys; workload.exponent.
// Each case gets a stable id built from its values (not its position), and a
// seed Derive(master seed, Tag(id)), so adding a case leaves the others alone.
//
// Thread-safety: a Scenario is an immutable value after LoadScenario.
#ifndef CHSIM_SIM_SCENARIO_H_
#define CHSIM_SIM_SCENARIO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "chsim/algorithm.h"
#include "chsim/node.h"

namespace chsim::sim {

using Json = nlohmann::ordered_json;

inline constexpr int kScenarioSchemaVersion = 1;

// Parameters that may be swept, in expansion order (outermost first).
inline constexpr std::string_view kSweepParameterOrder[] = {
    "profile", "hash_algorithm", "hasher",         "key_hasher", "points_per_node",
    "table_size", "probes",      "balance_factor", "capacity"};

struct WeightSpec {
  enum class Kind { kUniform, kExplicit, kRandomUniform, kChoice };
  Kind kind = Kind::kUniform;
  std::vector<uint32_t> values;  // kExplicit (one per node) or kChoice
  uint32_t min = 1, max = 1;     // kRandomUniform (inclusive)
};

// An algorithm with one value per parameter (after sweep expansion).
struct AlgorithmConfig {
  std::string name;     // registry name, or "ketama" (a compatibility profile)
  AlgorithmParams params;
  bool table_size_auto = false;  // maglev: smallest prime >= max(65537, 100 n)
  std::string profile;           // ketama
  std::string hash_algorithm;    // ketama (spymemcached)
  std::string key_hasher;        // hasher applied to key bytes (resolved)
  Json shown;                    // the parameters as results report them
};

struct WorkloadConfig {
  enum class Type { kUniform, kSequential, kZipf, kFile };
  Type type = Type::kUniform;
  uint64_t keys = 0;      // distinct keys (uniform/sequential), Zipf population
  uint64_t requests = 0;  // Zipf: requests drawn (each is one unit of load)
  double exponent = 1.0;  // Zipf s
  std::string shape;      // key shape (key_shape.h)
  uint64_t start = 0, step = 1;  // sequential: key number = start + i * step
  std::string path;       // file (resolved relative to the scenario file)
  bool weighted = false;  // file: last token of each line is a request count
  Json shown;
};

struct EventSpec {
  enum class Op { kAdd, kRemove, kFail, kReweight, kRestore };
  enum class Select { kNone, kNamed, kRandom, kLast };
  Op op = Op::kAdd;
  Select select = Select::kNone;
  uint32_t count = 0;               // add / random / last
  std::vector<std::string> nodes;   // named
  double fraction = 0;              // fail
  uint32_t weight = 1;              // add, reweight
  std::string pointer;              // "/events/2", for messages
  std::string label;                // "remove random 1", for results
};

enum class OnUnsupported { kError, kSkip, kRebuild };
enum class PerNode { kNone, kFirstTrial, kAll };

struct CaseSpec {
  size_t index = 0;
  std::string id;
  uint64_t seed = 0;
  AlgorithmConfig algorithm;
  uint32_t nodes = 0;       // node count (file: the list's size)
  std::string pattern;      // naming pattern ("" for a node file)
  WorkloadConfig workload;
  Json axes;                // swept values that are not algorithm parameters
  std::string pointer;      // "/algorithms/1"
};

struct Scenario {
  std::string path;          // as given
  std::string name;
  std::string description;
  uint64_t seed = 0;
  uint32_t trials = 1;
  std::vector<uint32_t> counts;
  std::vector<std::string> patterns;
  uint32_t first_index = 1;
  WeightSpec weights;
  std::string node_file;     // resolved path, or ""
  std::vector<Node> file_nodes;
  bool file_weighted = false;
  std::vector<EventSpec> events;
  bool balance = true, remap = true, throughput = false;
  double epsilon = 0.1;
  OnUnsupported on_unsupported = OnUnsupported::kError;
  PerNode per_node = PerNode::kFirstTrial;
  bool transitions = false;
  uint32_t throughput_keys = 65536;
  uint32_t throughput_min_ms = 50;
  uint32_t throughput_repetitions = 3;
  Json resolved;             // the scenario with every default filled in
  std::vector<CaseSpec> cases;
};

// Reads, validates and expands a scenario file. `seed_override` replaces the
// master seed. Throws UsageError "FILE: /json/pointer: found X; accepted: Y".
Scenario LoadScenario(const std::string& path, std::optional<uint64_t> seed_override = {});

// The same from text (tests); `path` names the text in messages and anchors
// relative file paths.
Scenario ParseScenario(std::string_view text, const std::string& path,
                       std::optional<uint64_t> seed_override = {});

// scenarios/schema.json, embedded at build time.
std::string_view ScenarioSchemaText() noexcept;

// Validates `doc` against the embedded schema with valijson. Returns "" when
// valid, else "/pointer: what is wrong".
std::string ValidateAgainstSchema(const nlohmann::json& doc);

// The default key hasher of an algorithm config (ring/multi_probe: their
// point hasher; ketama: the profile's; others: xxh3).
std::string DefaultKeyHasher(const std::string& algorithm, const std::string& hasher);

// Smallest prime >= max(65537, 100 * n): maglev's "auto" table size.
uint64_t AutoMaglevTableSize(uint64_t n);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_SCENARIO_H_
