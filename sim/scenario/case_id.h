// SPDX-License-Identifier: Apache-2.0
// Case ids: a scenario case's stable name, made from its values (not its
// position): the algorithm, the parameters its scenario entry gives (in the
// spec's order), then the case's axes ("n" for nodes.count, then the swept
// nodes.pattern and workload.* values):
//
//   ring(hasher=md5,points_per_node=40)/n=10/workload.exponent=0.9
//
// Strings are written bare, other values as JSON. Results, shard merging and
// seeds (Derive(master seed, Tag(id))) key on it. ParseCaseId reads it back
// for the registry's algorithms; a value holding "," or ")" (a parameter) or
// "/NAME=" (an axis) would be ambiguous, and none of chsim's values does. An
// axis value that reads as JSON (a number) is taken as one.
//
// CaseLabel is the short name figures give a case: the algorithm and the
// parameters its id names, each as its spec says (ParamSpec::symbol, bare).
//
// Thread-safety: pure functions.
#ifndef CHSIM_SIM_SCENARIO_CASE_ID_H_
#define CHSIM_SIM_SCENARIO_CASE_ID_H_

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/base/json_reader.h"

namespace chsim::sim {

struct CaseIdParts {
  std::string algorithm;
  std::vector<std::pair<std::string, Json>> params;  // the ones the entry gives, spec order
  std::vector<std::pair<std::string, Json>> axes;    // "nodes.count", "workload.keys", ...
};

std::string FormatCaseId(const CaseIdParts& parts);

// Throws std::invalid_argument naming what is wrong: not of the form above,
// an unknown algorithm, a parameter it does not have.
CaseIdParts ParseCaseId(std::string_view id);

// "ring(md5, v=40)": the parameters of the id but those in `drop`, each as
// "SYMBOL=value", the value alone (bare), or "name=value".
std::string CaseLabel(const CaseIdParts& parts, std::span<const std::string> drop = {});

}  // namespace chsim::sim

#endif  // CHSIM_SIM_SCENARIO_CASE_ID_H_
