// SPDX-License-Identifier: Apache-2.0
#include "sim/base/json_schema.h"

#include <mutex>
#include <string>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>
#include <vector>

namespace chsim::sim {
namespace {

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

JsonSchema::JsonSchema(const nlohmann::json& schema, std::string name)
    : schema_(std::make_unique<valijson::Schema>()), name_(std::move(name)) {
  valijson::SchemaParser parser;
  valijson::adapters::NlohmannJsonAdapter adapter(schema);
  parser.populateSchema(adapter, *schema_);
}

JsonSchema::~JsonSchema() = default;

std::string JsonSchema::Validate(const nlohmann::json& doc) const {
  static std::mutex mu;  // keep valijson single-threaded; validation is rare
  std::lock_guard<std::mutex> lock(mu);
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(doc);
  if (validator.validate(*schema_, target, &results)) return "";
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
  return Pointer(best.context) + ": " + best.description + " (" + name_ + ")";
}

}  // namespace chsim::sim
