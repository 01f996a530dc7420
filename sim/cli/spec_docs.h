// Documentation made from the specs, so that it cannot drift from them:
// README.md's algorithm table (`chsim list --markdown`; a test checks the
// README's copy equals it). scenarios/schema.json is made the same way
// (scenario.h: FormatScenarioSchema).
#ifndef CHSIM_SIM_CLI_SPEC_DOCS_H_
#define CHSIM_SIM_CLI_SPEC_DOCS_H_

#include <string>

namespace chsim::sim {

// One Markdown table row per registered algorithm: name, paper, year,
// parameters with defaults, weights, removal, minimal disruption, restore,
// memory.
std::string AlgorithmTableMarkdown();

}  // namespace chsim::sim

#endif  // CHSIM_SIM_CLI_SPEC_DOCS_H_
