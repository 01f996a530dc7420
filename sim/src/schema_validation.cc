// Validation of scenario documents against scenarios/schema.json with
// valijson, the schema being embedded in the binary at build time.
#include <mutex>
#include <string>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include "chsim/sim/errors.h"
#include "chsim/sim/results.h"
#include "chsim/sim/scenario.h"
#include "chsim/sim/text_file.h"

namespace chsim::sim {
namespace {

constexpr char kSchemaText[] =
#include "scenario_schema.inc"
    ;

constexpr char kResultsSchemaText[] =
#include "results_schema.inc"
    ;

const valijson::Schema& Compile(const nlohmann::json& doc) {
  auto* s = new valijson::Schema;  // lives for the process; compiled once
  valijson::SchemaParser parser;
  valijson::adapters::NlohmannJsonAdapter adapter(doc);
  parser.populateSchema(adapter, *s);
  return *s;
}

const valijson::Schema& CompiledSchema() {
  static const valijson::Schema& schema = Compile(nlohmann::json::parse(ScenarioSchema().dump()));
  return schema;
}

const valijson::Schema& CompiledResultsSchema() {
  static const valijson::Schema& schema = Compile(nlohmann::json::parse(kResultsSchemaText));
  return schema;
}

// valijson's context ("<root>", "[nodes]", "[0]") as a JSON pointer.
std::string Pointer(const std::vector<std::string>& context) {
  std::string p;
  for (const std::string& c : context) {
    if (c == "<root>") continue;
    std::string token = c;
    if (token.size() >= 2 && token.front() == '[' && token.back() == ']') {
      token = token.substr(1, token.size() - 2);
    }
    p += "/" + token;
  }
  return p.empty() ? "/" : p;
}

}  // namespace

std::string_view ScenarioSchemaText() noexcept { return kSchemaText; }

namespace {

std::string Validate(const valijson::Schema& schema, const nlohmann::json& doc,
                     const char* schema_name) {
  static std::mutex mu;  // keep valijson single-threaded; validation is rare
  std::lock_guard<std::mutex> lock(mu);
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(doc);
  if (validator.validate(schema, target, &results)) return "";
  // Report the most specific error: the one with the deepest context.
  valijson::ValidationResults::Error error, best;
  size_t depth = 0;
  bool first = true;
  while (results.popError(error)) {
    if (first || error.context.size() > depth) {
      best = error;
      depth = error.context.size();
      first = false;
    }
  }
  return Pointer(best.context) + ": " + best.description + " (" + schema_name + ")";
}

}  // namespace

std::string ValidateAgainstSchema(const nlohmann::json& doc) {
  return Validate(CompiledSchema(), doc, "scenarios/schema.json");
}

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
  std::string error = Validate(CompiledResultsSchema(), doc, "results/schema.json");
  if (!error.empty()) throw UsageError(path + ": " + error);
}

void ValidateResultsFile(const std::string& path) {
  ValidateResultsText(ReadFileOrStdin(path), path);
}

}  // namespace chsim::sim
