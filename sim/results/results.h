// SPDX-License-Identifier: Apache-2.0
// Results: what a run produced, its JSON form (documented field by field in
// results/README.md and checked by results/schema.json), atomic writing, and
// merging shard files.
//
// Layout of a result document (format kResultsSchemaVersion):
//   schema_version, kind, scenario (resolved), scenario_file, shard,
//   provenance, algorithms[] (the catalog entry of every algorithm the
//   scenario names), cases[], rows[] (tidy: one metric value per row), summary[]
//   (mean and 95% CI across trials), nodes[] (per-node long table),
//   transitions[] (remap transition matrix entries, when asked), and with
//   the cache metric cache_nodes[] (per node and step) and cache_windows[]
//   (the windowed miss ratios of the run and its twin).
// Rows are ordered by case index, trial, step, then metric in the order the
// runner emits them; the same scenario and seed give the same deterministic
// rows byte for byte on any thread count.
//
// Thread-safety: values; functions are reentrant.
#ifndef CHSIM_SIM_RESULTS_RESULTS_H_
#define CHSIM_SIM_RESULTS_RESULTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/run/metrics.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {

inline constexpr int kResultsSchemaVersion = 1;

struct MetricRow {
  uint32_t trial;
  uint32_t step;
  MetricRef metric;  // its catalog entry
  double value;      // NaN is written as null
};

struct NodeRow {
  uint32_t trial, step, node;
  uint32_t weight;             // the node's weight at this step (a reweight changes it)
  double load;                 // units on the node (sampled), NaN without sampling
  double expected;             // units * weight share
  double share;                // exact structural share, NaN without
  double moved_in, moved_out;  // units moved in / out in this step (step >= 1)
};

struct TransitionRow {
  uint32_t trial, step, from, to;
  double units;
};

// One node's cache over one step of the replay (replay.h).
struct CacheNodeRow {
  uint32_t trial, step, node;
  uint64_t requests, reads, misses, miss_bytes, read_bytes;
  uint64_t objects, stored_bytes;  // in its cache at the step's end
};

// One window of the replay: requests [start, start + requests) of step
// `step`, the misses of the run and of its twin.
struct CacheWindowRow {
  uint32_t trial, step;
  uint64_t start, requests, reads, misses, twin_misses;
};

struct CaseResult {
  std::string status = "not_run";  // ok, skipped, not_run
  std::string message;
  std::vector<std::string> step_events;          // step 0: "initial"
  std::vector<std::vector<std::string>> labels;  // per trial: global id -> label
  std::vector<MetricRow> rows;
  std::vector<NodeRow> nodes;
  std::vector<TransitionRow> transitions;
  std::vector<CacheNodeRow> cache_nodes;
  std::vector<CacheWindowRow> cache_windows;
};

struct Shard {
  uint32_t index = 0, count = 1;
};

// Capabilities as the catalog writes them: weights, removal ("any" or
// "last_added"), incremental, exact_shares, stateful, minimal_disruption,
// history_free.
Json CapabilitiesJson(const Capabilities& capabilities);

// The `algorithms` block: for each spec, its name, summary, paper, year,
// capabilities (removal: "any" or "last_added") and parameters with docs.
Json AlgorithmCatalog(const std::vector<const AlgorithmSpec*>& specs);

// Builds the result document.
Json BuildResults(const Scenario& s, const std::vector<const CaseSpec*>& cases,
                  const std::vector<const CaseResult*>& results, const Shard& shard,
                  const Json& provenance);

// Writes `text` to `path` through a temporary file in the same directory and
// a rename, so the file appears whole or not at all. Makes the missing
// folders of `path` first. Throws RuntimeError.
void WriteFileAtomically(const std::string& path, std::string_view text);

// The temporary name WriteFileAtomically uses for `path` (for cleanup).
std::string TemporaryPathFor(const std::string& path);

// Merges shard result files ("-" = stdin) of one scenario into one document
// whose rows, summary, nodes and cases equal those of a single run. Every
// input is checked against results/schema.json first. Throws UsageError when
// an input is not a valid result file, the files are not shards of the same
// scenario, or a shard is missing/twice.
Json MergeResults(const std::vector<std::string>& paths);

// Which shards of one run a set of result files holds, without merging them
// (chsim merge --missing): what a resumed sweep must rerun.
//
// The reference run is the shard count and resolved scenario given in
// ShardReference; what is not given is taken from the files: the (scenario,
// count) that most valid files share, the earliest on a tie. A file is
//   ok         a part of the reference run, the first for its index;
//   duplicate  a part of the reference run whose index an earlier file holds;
//   foreign    a whole result file of another run (scenario, seed or count);
//   invalid    not a whole result file (unreadable, not JSON, schema errors).
// `missing` are the indices 0..count-1 no ok file holds; Complete() is true
// exactly when MergeResults of the same paths would succeed.
struct ShardFile {
  std::string file;
  std::optional<uint32_t> index;  // the file's /shard/index, when readable
  std::string status;             // ok, duplicate, foreign, invalid
  std::string reason;             // why it is not ok, one line naming the field
};

struct ShardListing {
  std::optional<uint32_t> count;    // unknown with no valid file and no given count
  std::vector<uint32_t> missing;    // ascending
  std::vector<uint32_t> duplicate;  // ascending, each once
  std::vector<ShardFile> files;     // in input order
  bool Complete() const;
};

struct ShardReference {
  std::optional<uint32_t> count;
  const Json* scenario = nullptr;  // resolved scenario (Scenario::resolved), or none
  std::string scenario_source;     // names it in reasons, e.g. "--scenario sweep.json"
};

ShardListing ListShards(const std::vector<std::string>& paths, const ShardReference& reference);

// The machine-readable form: {"count", "complete", "missing", "rerun",
// "duplicate", "foreign", "invalid", "files": [{"file", "index", "status",
// "reason"}]}; "rerun" is `missing` as ranges ("2,5-7", "" when none), the
// syntax of sbatch --array.
Json ShardListingJson(const ShardListing& listing);

// Ascending indices as ranges: {2, 5, 6, 7} -> "2,5-7".
std::string IndexRanges(const std::vector<uint32_t>& ascending);

// Validates a result file ("-" = stdin) against the schema of its "kind"
// (embedded at build time): results/schema.json for "chsim-results",
// results/tune-schema.json for "tune". Throws UsageError "FILE: /pointer:
// problem".
void ValidateResultsFile(const std::string& path);
// Validates result-file text read from `path` as ValidateResultsFile does
// (depth-limited parse, then the kind's schema). Throws UsageError naming
// `path`.
void ValidateResultsText(const std::string& text, const std::string& path);

// The serialized form used for files: ordered keys, 1-space indent for the
// top level, one array element per line.
std::string SerializeResults(const Json& doc);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RESULTS_RESULTS_H_
