// SPDX-License-Identifier: Apache-2.0
// scenarios/schema.json, made whole from the rows of the scenario format
// (ScenarioFields, each workload's rows) and the algorithm specs, and the
// layout `chsim list --schema` prints it in. An output only: chsim reads
// scenarios with the rows; the schema serves editors and other languages.
#include <map>
#include <string>
#include <vector>

#include "sim/base/json_schema.h"
#include "sim/scenario/scenario.h"

namespace chsim::sim {
namespace {

using json = Json;  // ordered: the committed file's key order is kept

// Lists of allowed values, each once in "definitions" (hashers appear in
// most algorithms), named after the first parameter that uses it.
using ChoiceDefinitions = std::map<std::string, std::string>;  // enum (dumped) -> definition

json ParamValueSchema(const ParamSpec& p, json& definitions, ChoiceDefinitions& choices) {
  json v;
  switch (p.type) {
    case ParamType::kInteger:
      v = {{"type", "integer"},
           {"minimum", static_cast<uint64_t>(p.min)},
           {"maximum", static_cast<uint64_t>(p.max)}};
      if (p.auto_value) v = {{"oneOf", json::array({v, {{"const", "auto"}}})}};
      break;
    case ParamType::kNumber:
      v = {{"type", "number"},
           {p.min_exclusive ? "exclusiveMinimum" : "minimum", p.min},
           {"maximum", p.max}};
      break;
    case ParamType::kString:
      v = {{"type", "string"}};
      if (p.choices) {
        json names = json::array();
        for (std::string_view c : p.choices()) names.push_back(c);
        auto [it, inserted] = choices.try_emplace(names.dump(), std::string(p.name) + "_choices");
        if (inserted) definitions[it->second] = {{"enum", names}};
        v = {{"$ref", "#/definitions/" + it->second}};
      }
      break;
  }
  return v;
}

json ParamSchema(const ParamSpec& p, json& definitions, ChoiceDefinitions& choices) {
  json one = ParamValueSchema(p, definitions, choices);
  std::string doc(p.doc);
  if (p.rule) doc += " (" + std::string(p.rule_doc) + ")";
  if (p.auto_value) doc += "; \"auto\": " + std::string(p.auto_doc);
  if (!p.sweepable) {
    json out = {{"description", doc}};
    for (auto it = one.begin(); it != one.end(); ++it) out[it.key()] = it.value();
    return out;
  }
  return {{"description", doc + "; sweepable"},
          {"oneOf", json::array({one, {{"type", "array"}, {"minItems", 1}, {"items", one}}})}};
}

json AlgorithmSchema(const AlgorithmSpec& spec, json& definitions, ChoiceDefinitions& choices) {
  json props = {{"algorithm", {{"const", spec.name}}}};
  for (const ParamSpec& p : spec.params) {
    props[std::string(p.name)] = ParamSchema(p, definitions, choices);
  }
  return {{"description", std::string(spec.name) + ": " + std::string(spec.summary)},
          {"type", "object"},
          {"additionalProperties", false},
          {"required", {"algorithm"}},
          {"properties", props}};
}

// {"algorithm": "all", parameters...}: every registered algorithm (but those
// another entry names), each with the given parameters it declares. A name
// several algorithms declare alike has one schema, else any of theirs.
json AllEntrySchema(json& definitions, ChoiceDefinitions& choices) {
  std::map<std::string, std::vector<json>> forms;  // parameter -> its distinct schemas
  std::vector<std::string> order;
  for (const AlgorithmSpec* spec : AllAlgorithms()) {
    for (const ParamSpec& p : spec->params) {
      json one = ParamSchema(p, definitions, choices);
      one.erase("description");
      std::vector<json>& seen = forms[std::string(p.name)];
      if (seen.empty()) order.emplace_back(p.name);
      bool known = false;
      for (const json& s : seen) known = known || s == one;
      if (!known) seen.push_back(std::move(one));
    }
  }
  json props = {{"algorithm", {{"const", "all"}}}};
  for (const std::string& name : order) {
    const std::vector<json>& seen = forms[name];
    props[name] = seen.size() == 1 ? seen[0] : json{{"anyOf", seen}};
  }
  return {{"description",
           "all: every registered algorithm that no other entry names, in registry order, each "
           "with the parameters given here that it declares"},
          {"type", "object"},
          {"additionalProperties", false},
          {"required", {"algorithm"}},
          {"properties", props}};
}

json MakeSchema() {
  json definitions = json::object();
  json schema = {{"$schema", "http://json-schema.org/draft-07/schema#"},
                 {"$id", "https://chsim.invalid/scenarios/schema.json"},
                 {"title", "chsim scenario, format " + std::to_string(kScenarioSchemaVersion)}};
  const json top = ObjectSchema(ScenarioFields(), definitions);
  for (auto& [key, value] : top.items()) schema[key] = value;
  schema["definitions"] = definitions;
  return schema;
}

// JSON on one line with a space after ':' and ','.
std::string Flat(const json& v) {
  if (v.is_object()) {
    std::string out = "{";
    for (auto it = v.begin(); it != v.end(); ++it) {
      out += (it == v.begin() ? "" : ", ") + json(it.key()).dump() + ": " + Flat(it.value());
    }
    return out + "}";
  }
  if (v.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + Flat(v[i]);
    return out + "]";
  }
  return v.dump();
}

// A value on one line when it fits in 100 columns, else one member a line.
void Format(const json& v, size_t indent, std::string* out) {
  const std::string flat = Flat(v);
  if ((!v.is_object() && !v.is_array()) || indent + flat.size() <= 100) {
    *out += flat;
    return;
  }
  const std::string pad(indent + 2, ' ');
  *out += v.is_object() ? "{\n" : "[\n";
  size_t i = 0;
  for (auto it = v.begin(); it != v.end(); ++it, ++i) {
    *out += pad;
    if (v.is_object()) *out += json(it.key()).dump() + ": ";
    Format(it.value(), indent + 2, out);
    *out += i + 1 < v.size() ? ",\n" : "\n";
  }
  *out += std::string(indent, ' ') + (v.is_object() ? "}" : "]");
}

}  // namespace

json AlgorithmEntriesSchema(json& definitions) {
  ChoiceDefinitions choices;
  json entries = json::array();
  for (const AlgorithmSpec* spec : AllAlgorithms()) {
    entries.push_back(AlgorithmSchema(*spec, definitions, choices));
  }
  entries.push_back(AllEntrySchema(definitions, choices));
  definitions["algorithm"] = {{"oneOf", entries}};
  return {{"oneOf", json::array({{{"const", "all"}},
                                 {{"type", "array"},
                                  {"minItems", 1},
                                  {"items", {{"$ref", "#/definitions/algorithm"}}}}})}};
}

const json& ScenarioSchema() {
  static const json schema = MakeSchema();
  return schema;
}

std::string ValidateAgainstSchema(const nlohmann::json& doc) {
  static const JsonSchema* schema =  // lives for the process; compiled once
      new JsonSchema(nlohmann::json::parse(ScenarioSchema().dump()), "scenarios/schema.json");
  return schema->Validate(doc);
}

std::string FormatScenarioSchema() {
  std::string out;
  Format(ScenarioSchema(), 0, &out);
  return out + "\n";
}

}  // namespace chsim::sim
