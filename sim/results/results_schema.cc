// SPDX-License-Identifier: Apache-2.0
// Validation of result files against their schemas, embedded in the binary at
// build time: results/schema.json for `chsim run` and `chsim merge` files,
// results/tune-schema.json for `chsim tune --json` files and
// results/diff-schema.json for `chsim diff --json` documents, told apart by
// "kind".
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
constexpr char kTuneSchemaText[] =
#include "results_tune_schema.inc"
    ;
constexpr char kDiffSchemaText[] =
#include "results_diff_schema.inc"
    ;

// The schema for the document's "kind"; throws UsageError naming the kinds
// accepted when it has none of them.
const JsonSchema& SchemaForKind(const nlohmann::json& doc, const std::string& path) {
  static const JsonSchema* results =  // live for the process; compiled once
      new JsonSchema(nlohmann::json::parse(kResultsSchemaText), "results/schema.json");
  static const JsonSchema* tune =
      new JsonSchema(nlohmann::json::parse(kTuneSchemaText), "results/tune-schema.json");
  const nlohmann::json* kind = doc.is_object() && doc.contains("kind") ? &doc["kind"] : nullptr;
  if (kind != nullptr && *kind == "chsim-results") return *results;
  static const JsonSchema* diff =
      new JsonSchema(nlohmann::json::parse(kDiffSchemaText), "results/diff-schema.json");
  if (kind != nullptr && *kind == "tune") return *tune;
  if (kind != nullptr && *kind == "diff") return *diff;
  std::string found = kind != nullptr   ? kind->dump()
                      : doc.is_object() ? std::string("nothing")
                                        : std::string("a JSON ") + doc.type_name();
  throw UsageError(path + ": /kind: found " + found +
                   "; accepted: \"chsim-results\" (chsim run, chsim merge), \"tune\" "
                   "(chsim tune --json) or \"diff\" (chsim diff --json)");
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
  std::string error = SchemaForKind(doc, path).Validate(doc);
  if (!error.empty()) throw UsageError(path + ": " + error);
}

void ValidateResultsFile(const std::string& path) {
  ValidateResultsText(ReadFileOrStdin(path), path);
}

}  // namespace chsim::sim
