// Documentation and data made from the specs and rows, so that they cannot
// drift from them:
//   - README.md's algorithm table, workload list and limits table (`chsim list
//     --markdown TABLE`; a test checks README's copies equal them);
//   - the machine-readable catalog (`chsim list --json`) that notebooks,
//     tests and other programs read instead of keeping their own lists.
// scenarios/schema.json is made the same way (scenario.h: FormatScenarioSchema).
#ifndef CHSIM_SIM_CLI_SPEC_DOCS_H_
#define CHSIM_SIM_CLI_SPEC_DOCS_H_

#include <string>

#include "sim/base/json_reader.h"

namespace chsim::sim {

// One Markdown table row per registered algorithm: name, paper, year,
// parameters with defaults, weights, removal, minimal disruption, restore,
// memory.
std::string AlgorithmTableMarkdown();
// One Markdown list item per workload type: name, what a unit is, doc, and
// its fields (required ones first marked, defaults shown).
std::string WorkloadListMarkdown();
// One Markdown table row per scenario row that is one of chsim's limits
// (FieldSpec::limit_doc): the JSON pointer, the bound, why.
std::string LimitsTableMarkdown();

// The catalog, format `kCatalogVersion` (documented in docs/extending.md,
// "The catalog"):
//   {"catalog_version", "chsim": version,
//    "algorithms": [{name, summary, paper, year, capabilities{...}, memory,
//                    balance_bound, default_key_hasher, parameters[...]}],
//    "workloads": [{name, doc, unit, fields[...]}],
//    "metrics": [{name, group, unit, deterministic, meaning}],
//    "metric_groups": [...], "profiles": [{name, description}],
//    "hashers": [{name, description, bits}],
//    "scenario": the rows of the scenario format (fields.h: ObjectCatalog)}
inline constexpr int kCatalogVersion = 1;
Json CatalogJson();

}  // namespace chsim::sim

#endif  // CHSIM_SIM_CLI_SPEC_DOCS_H_
