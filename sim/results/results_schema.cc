// SPDX-License-Identifier: Apache-2.0
// Validation of result files against results/schema.json, embedded in the
// binary at build time.
#include <string>

#include "sim/base/errors.h"
#include "sim/base/json_schema.h"
#include "sim/base/text_file.h"
#include "sim/results/results.h"

namespace chsim::sim {
namespace {

constexpr char kResultsSchemaText[] =
#include "results_schema.inc"
    ;

const JsonSchema& CompiledResultsSchema() {
  static const JsonSchema* schema =  // lives for the process; compiled once
      new JsonSchema(nlohmann::json::parse(kResultsSchemaText), "results/schema.json");
  return *schema;
}

}  // namespace

void ValidateResultsText(const std::string& text, const std::string& path) {
  nlohmann::json doc;
  try {
    // Depth-limited: a result file is a few levels deep, and a 10^5-deep
    // array would overflow the stack of the recursive schema check.
    doc = nlohmann::json::parse(text,
                                [&path](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
                                  if (depth > 64) {
                                    throw UsageError(path +
                                                     ": JSON nested more than 64 levels "
                                                     "deep; accepted: a chsim result file");
                                  }
                                  return true;
                                });
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e400
    throw UsageError(path + ": not valid JSON: " + e.what());
  }
  std::string error = CompiledResultsSchema().Validate(doc);
  if (!error.empty()) throw UsageError(path + ": " + error);
}

void ValidateResultsFile(const std::string& path) {
  ValidateResultsText(ReadFileOrStdin(path), path);
}

}  // namespace chsim::sim
