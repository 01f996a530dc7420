// SPDX-License-Identifier: Apache-2.0
// Documentation and data made from the specs and rows, so that they cannot
// drift from them:
//   - README.md's algorithm table and limits table, docs/workloads.md's
//     workload list and results/README.md's metric table (`chsim list
//     --markdown TABLE`; tests check the committed copies equal them);
// scenarios/schema.json is made the same way (scenario.h: FormatScenarioSchema).
#ifndef CHSIM_SIM_CLI_SPEC_DOCS_H_
#define CHSIM_SIM_CLI_SPEC_DOCS_H_

#include <string>

#include "chsim/algorithm.h"
#include "sim/base/json_reader.h"

namespace chsim::sim {

// The spec's parameters with their defaults, in order ("none" when it has
// none): "`hasher` (xxh3), `key_hasher`" in Markdown, else "hasher=xxh3,
// key_hasher" (README's column and chsim list's parameters line).
std::string ParameterList(const AlgorithmSpec& spec, bool markdown);

// Whether nodes that fail and are restored get every key back: "any order",
// "reverse order only" (last failed, first restored) or "no" (README's
// column and chsim list's capability line both say it from here).
const char* RestoreOrder(const Capabilities& c);

// One Markdown table row per registered algorithm: name, paper, year,
// parameters with defaults, weights, removal, minimal disruption, restore,
// memory.
std::string AlgorithmTableMarkdown();
// One Markdown list item per workload type: name, what a unit is, doc, and
// its fields (required ones first marked, defaults shown).
std::string WorkloadListMarkdown();
// One Markdown table row per metric of the catalog: name, unit,
// deterministic, meaning (results/README.md's metric table).
std::string MetricTableMarkdown();
// One Markdown table row per scenario row that is one of chsim's limits
// (FieldSpec::limit_doc): the JSON pointer, the bound, why.
std::string LimitsTableMarkdown();

}  // namespace chsim::sim

#endif  // CHSIM_SIM_CLI_SPEC_DOCS_H_
