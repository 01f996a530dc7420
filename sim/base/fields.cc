// SPDX-License-Identifier: Apache-2.0
#include "sim/base/fields.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <vector>

#include "sim/base/errors.h"

namespace chsim::sim {
namespace {

// A bound as messages and the schema show it: integers without a fraction.
std::string FormatBound(double v) {
  if (v == std::floor(v) && std::fabs(v) < 9.1e15) return std::to_string(static_cast<long long>(v));
  return Json(v).dump();
}

std::vector<std::string> Names(std::span<const FieldSpec> fields, std::string_view tag) {
  std::vector<std::string> names;
  if (!tag.empty()) names.emplace_back(tag);
  for (const FieldSpec& f : fields) names.emplace_back(f.name);
  return names;
}

std::string Quoted(std::span<const std::string_view> keys) {
  std::string out;
  for (std::string_view k : keys) out += (out.empty() ? "\"" : ", \"") + std::string(k) + "\"";
  return out;
}

std::span<const std::string_view> ChoiceSpan(const FieldSpec& f) {
  return f.choices_of ? f.choices_of() : f.choices;
}

std::vector<std::string> Choices(const FieldSpec& f) {
  const std::span<const std::string_view> c = ChoiceSpan(f);
  return std::vector<std::string>(c.begin(), c.end());
}

bool IsKind(const Json& v, FieldType type) {
  switch (type) {
    case FieldType::kInteger:
      return v.is_number_integer();
    case FieldType::kNumber:
      return v.is_number();
    case FieldType::kString:
    case FieldType::kEnum:
      return v.is_string();
    case FieldType::kBoolean:
      return v.is_boolean();
    case FieldType::kObject:
    case FieldType::kVariant:
      return v.is_object();
    case FieldType::kList:
      return v.is_array();
    case FieldType::kOneOf:
    case FieldType::kExternal:
      return false;
  }
  return false;
}

bool HasRequired(const Json& v, const FieldSpec& alternative) {
  if (alternative.type != FieldType::kObject) return true;
  for (const FieldSpec& f : alternative.object->fields) {
    if (f.required && !v.contains(std::string(f.name))) return false;
  }
  return true;
}

// kOneOf: the alternative for the value's JSON kind; among objects, the first
// whose required keys are all present (else the first object).
const FieldSpec* PickAlternative(const Json& v, const FieldSpec& f) {
  const FieldSpec* first = nullptr;
  for (const FieldSpec& a : f.alternatives) {
    if (!IsKind(v, a.type)) continue;
    if (first == nullptr) first = &a;
    if (HasRequired(v, a)) return &a;
  }
  return first;
}

Json ReadObjectWith(const JsonReader& r, const ObjectSpec& spec, std::string_view tag);

Json ReadList(const JsonReader& r, const FieldSpec& f) {
  if (!r.value().is_array() || r.value().size() < f.min_items) r.Fail(f.Accepted());
  Json out = Json::array();
  for (size_t i = 0; i < r.value().size(); ++i) {
    Json item = ReadField(r.At(i), *f.items);
    if (f.unique && std::find(out.begin(), out.end(), item) != out.end()) {
      r.At(i).Fail(f.items->Accepted() + ", each at most once");
    }
    out.push_back(std::move(item));
  }
  return out;
}

Json ReadVariant(const JsonReader& r, const FieldSpec& f) {
  if (!r.value().is_object()) r.Fail(f.Accepted());
  std::vector<std::string> names;
  for (const ObjectSpec* v : f.variants()) names.emplace_back(v->tag_value);
  const std::string tag(f.tag);
  r.Require(tag, JoinNames(names));
  const std::string chosen = r.At(tag).Enum(names);
  for (const ObjectSpec* v : f.variants()) {
    if (v->tag_value == chosen) return ReadObjectWith(r, *v, tag);
  }
  r.Fail(f.Accepted());
}

Json ReadString(const JsonReader& r, const FieldSpec& f) {
  const std::string accepted = f.Accepted();
  std::string v = r.String(accepted);
  if (v.size() < f.min_length) r.Fail(accepted);
  if (!f.pattern.empty() &&
      !std::regex_search(v, std::regex(std::string(f.pattern), std::regex::ECMAScript))) {
    r.Fail(accepted);
  }
  return v;
}

Json ReadInteger(const JsonReader& r, const FieldSpec& f) {
  const Json& v = r.value();
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0)) {
    r.Fail(f.Accepted());
  }
  const uint64_t u = v.get<uint64_t>();
  if (u < f.min || u > f.max) r.Fail(f.Accepted());
  return u;
}

Json ReadOne(const JsonReader& r, const FieldSpec& f) {
  switch (f.type) {
    case FieldType::kInteger:
      return ReadInteger(r, f);
    case FieldType::kNumber: {
      const double v = r.Number(f.number_min, f.number_max, f.min_exclusive, f.Accepted());
      if (f.max_exclusive && v >= f.number_max) r.Fail(f.Accepted());
      return v;
    }
    case FieldType::kString:
      return ReadString(r, f);
    case FieldType::kBoolean:
      return r.Bool();
    case FieldType::kEnum:
      if (!f.accepted.empty() && !r.value().is_string()) r.Fail(f.Accepted());
      return r.Enum(Choices(f));
    case FieldType::kObject:
      if (!f.accepted.empty() && !r.value().is_object()) r.Fail(f.Accepted());
      return ReadObject(r, *f.object);
    case FieldType::kList:
      return ReadList(r, f);
    case FieldType::kOneOf: {
      const FieldSpec* a = PickAlternative(r.value(), f);
      if (a == nullptr) r.Fail(f.Accepted());
      return ReadField(r, *a);
    }
    case FieldType::kVariant:
      return ReadVariant(r, f);
    case FieldType::kExternal:
      return r.value();
  }
  r.Fail(f.Accepted());
}

Json ReadChecked(const JsonReader& r, const FieldSpec& f) {
  Json v = ReadOne(r, f);
  if (f.check) f.check(r, &v);
  return v;
}

// Row `f`'s default, checked by the row as a value given at `r`/NAME would
// be. A default the row refuses is the row's defect, not the input's: the
// message says so rather than blame a key the input does not have.
Json ReadDefault(const JsonReader& r, const FieldSpec& f) {
  const Json value = Json::parse(f.default_json);
  try {
    return ReadField(JsonReader(r.file(), &value, r.pointer() + "/" + std::string(f.name)), f);
  } catch (const UsageError&) {
    r.FailMessage("the default of \"" + std::string(f.name) + "\", " + value.dump() +
                  ", is refused by its own row (accepted: " + f.Accepted() +
                  "); a defect of the spec that declares the row: give it a default_json it "
                  "accepts");
  }
}

// An object of `spec`'s rows; `tag` (a variant's tag key, checked by the
// caller) is allowed too and leads the result.
Json ReadObjectWith(const JsonReader& r, const ObjectSpec& spec, std::string_view tag) {
  r.Object(Names(spec.fields, tag));
  if (!spec.exactly_one.empty()) {
    size_t given = 0;
    for (std::string_view k : spec.exactly_one) given += r.Has(std::string(k));
    if (given != 1) {
      r.FailMessage("found " + std::to_string(given) + " of " + Quoted(spec.exactly_one) +
                    "; accepted: exactly one of them");
    }
  }
  Json out = Json::object();
  if (!tag.empty()) out[std::string(tag)] = r.At(std::string(tag)).value();
  for (const FieldSpec& f : spec.fields) {
    const std::string key(f.name);
    if (r.Has(key)) {
      out[key] = ReadField(r.At(key), f);
    } else if (f.required) {
      r.Require(key, std::string(f.doc));
    } else if (!f.default_json.empty()) {
      out[key] = ReadDefault(r, f);
    }
  }
  return out;
}

}  // namespace

std::string FieldSpec::Accepted() const {
  if (!accepted.empty()) return std::string(accepted);
  switch (type) {
    case FieldType::kInteger:
      return "an integer " + std::to_string(min) + ".." + std::to_string(max);
    case FieldType::kNumber:
      return std::string(min_exclusive ? "a number > " : "a number >= ") + FormatBound(number_min) +
             (max_exclusive ? " and < " : " and <= ") + FormatBound(number_max);
    case FieldType::kString:
      return min_length > 0 ? "a non-empty string" : "a string";
    case FieldType::kBoolean:
      return "true or false";
    case FieldType::kEnum:
      return "one of " + JoinNames(Choices(*this));
    case FieldType::kObject:
      return "an object with keys " + JoinNames(Names(object->fields, ""));
    case FieldType::kList:
      return std::string(min_items > 0 ? "a non-empty list of " : "a list of ") +
             (items->type == FieldType::kEnum && items->accepted.empty()
                  ? JoinNames(Choices(*items))
                  : items->Accepted());
    case FieldType::kOneOf: {
      std::string out;
      for (size_t i = 0; i < alternatives.size(); ++i) {
        out += i == 0 ? "" : i + 1 == alternatives.size() ? " or " : ", ";
        out += alternatives[i].Accepted();
      }
      return out;
    }
    case FieldType::kVariant:
      return "an object with a \"" + std::string(tag) + "\"";
    case FieldType::kExternal:
      break;
  }
  return "";
}

const FieldSpec* ObjectSpec::Find(std::string_view key) const noexcept {
  for (const FieldSpec& f : fields) {
    if (f.name == key) return &f;
  }
  return nullptr;
}

Json ReadField(const JsonReader& r, const FieldSpec& f) {
  if (!f.sweepable) return ReadChecked(r, f);
  Json out = Json::array();
  for (Json& v : r.List([&f](const JsonReader& one) { return ReadChecked(one, f); })) {
    out.push_back(std::move(v));
  }
  return out;
}

Json ReadObject(const JsonReader& r, const ObjectSpec& spec, std::string_view tag) {
  return ReadObjectWith(r, spec, tag);
}

const FieldSpec& FieldValues::Row(std::string_view name) const {
  for (const FieldSpec& f : rows_) {
    if (f.name == name) return f;
  }
  throw FieldError(std::string(name), owner_ + " reads \"" + std::string(name) +
                                          "\", which none of its rows declares");
}

bool FieldValues::Has(std::string_view name) const {
  Row(name);
  return values_.contains(std::string(name));
}

const Json& FieldValues::Present(std::string_view name, std::initializer_list<FieldType> types,
                                 const char* as) const {
  const FieldSpec& row = Row(name);
  const std::string key(name);
  if (as != nullptr && std::find(types.begin(), types.end(), row.type) == types.end()) {
    throw FieldError(
        key, owner_ + " reads \"" + key + "\" as " + as + ", but its row is " + row.Accepted());
  }
  if (!values_.contains(key)) {
    throw FieldError(key, owner_ + " reads \"" + key +
                              "\", which was not given and whose row has no default: read it "
                              "only when Has(\"" +
                              key + "\"), or give the row a default_json");
  }
  return values_.at(key);
}

uint64_t FieldValues::Integer(std::string_view name) const {
  return Present(name, {FieldType::kInteger}, "an integer").get<uint64_t>();
}
double FieldValues::Number(std::string_view name) const {
  return Present(name, {FieldType::kNumber}, "a number").get<double>();
}
std::string FieldValues::String(std::string_view name) const {
  return Present(name, {FieldType::kString, FieldType::kEnum}, "a string").get<std::string>();
}
bool FieldValues::Boolean(std::string_view name) const {
  return Present(name, {FieldType::kBoolean}, "true or false").get<bool>();
}
const Json& FieldValues::Value(std::string_view name) const { return Present(name, {}, nullptr); }

FieldValues FieldValues::Object(std::string_view name) const {
  const Json& v = Present(name, {FieldType::kObject}, "an object");
  return FieldValues(owner_, Row(name).object->fields, v);
}

namespace {

const char* TypeName(FieldType t) {
  switch (t) {
    case FieldType::kInteger:
      return "integer";
    case FieldType::kNumber:
      return "number";
    case FieldType::kString:
      return "string";
    case FieldType::kBoolean:
      return "boolean";
    case FieldType::kEnum:
      return "enum";
    case FieldType::kObject:
      return "object";
    case FieldType::kList:
      return "list";
    case FieldType::kOneOf:
      return "one_of";
    case FieldType::kVariant:
      return "variant";
    case FieldType::kExternal:
      break;
  }
  return "external";
}

Json NumberBound(double v) {
  if (v == std::floor(v) && std::fabs(v) < 9.1e15) return static_cast<int64_t>(v);
  return v;
}

// The schema of one value of `f` (a sweep wraps it).
Json ValueSchema(const FieldSpec& f, Json& definitions) {
  switch (f.type) {
    case FieldType::kInteger:
      if (f.min == f.max) return {{"const", f.min}};
      // Schema readers hold bounds in signed 64 bits (valijson reads 2^64-1
      // as -1): a larger maximum is left to the reader.
      if (f.max > uint64_t{INT64_MAX}) return {{"type", "integer"}, {"minimum", f.min}};
      return {{"type", "integer"}, {"minimum", f.min}, {"maximum", f.max}};
    case FieldType::kNumber:
      return {{"type", "number"},
              {f.min_exclusive ? "exclusiveMinimum" : "minimum", NumberBound(f.number_min)},
              {f.max_exclusive ? "exclusiveMaximum" : "maximum", NumberBound(f.number_max)}};
    case FieldType::kString: {
      Json v = {{"type", "string"}};
      if (f.min_length > 0) v["minLength"] = f.min_length;
      if (!f.pattern.empty()) v["pattern"] = f.pattern;
      return v;
    }
    case FieldType::kBoolean:
      return {{"type", "boolean"}};
    case FieldType::kEnum:
      if (ChoiceSpan(f).size() == 1) return {{"const", ChoiceSpan(f)[0]}};
      return {{"enum", Choices(f)}};
    case FieldType::kObject:
      return ObjectSchema(*f.object, definitions);
    case FieldType::kList: {
      Json v = {{"type", "array"}};
      if (f.min_items > 0) v["minItems"] = f.min_items;
      if (f.unique) v["uniqueItems"] = true;
      v["items"] = FieldSchema(*f.items, definitions);
      return v;
    }
    case FieldType::kOneOf: {
      Json any = Json::array();
      for (const FieldSpec& a : f.alternatives) any.push_back(FieldSchema(a, definitions));
      return {{"oneOf", any}};
    }
    case FieldType::kVariant: {
      Json any = Json::array();
      for (const ObjectSpec* v : f.variants()) {
        Json one = ObjectSchema(*v, definitions);  // a variant's schema is inline
        Json props = {{std::string(f.tag), {{"const", v->tag_value}}}};
        for (auto& [k, p] : one["properties"].items()) props[k] = p;
        one["properties"] = props;
        Json required = {f.tag};
        for (const Json& k : one.value("required", Json::array())) required.push_back(k);
        one["required"] = required;
        any.push_back(one);
      }
      return {{"oneOf", any}};
    }
    case FieldType::kExternal:
      return f.external_schema(definitions);
  }
  return Json::object();
}

}  // namespace

Json FieldSchema(const FieldSpec& f, Json& definitions) {
  Json one = ValueSchema(f, definitions);
  Json out = Json::object();
  if (!f.doc.empty()) out["description"] = std::string(f.doc) + (f.sweepable ? "; sweepable" : "");
  if (!f.default_json.empty()) out["default"] = Json::parse(f.default_json);
  if (f.sweepable) {
    out["oneOf"] = {one, {{"type", "array"}, {"minItems", 1}, {"items", one}}};
    return out;
  }
  for (auto& [k, v] : one.items()) out[k] = v;
  return out;
}

Json ObjectSchema(const ObjectSpec& spec, Json& definitions) {
  Json props = Json::object();
  Json required = Json::array();
  for (const FieldSpec& f : spec.fields) {
    props[std::string(f.name)] = FieldSchema(f, definitions);
    if (f.required) required.push_back(f.name);
  }
  Json out = Json::object();
  if (!spec.doc.empty()) out["description"] = spec.doc;
  out["type"] = "object";
  out["additionalProperties"] = false;
  if (!required.empty()) out["required"] = required;
  out["properties"] = props;
  if (!spec.exactly_one.empty()) {
    Json one = Json::array();
    for (std::string_view k : spec.exactly_one) one.push_back({{"required", {k}}});
    out["oneOf"] = one;
  }
  if (spec.name.empty() || !spec.tag_value.empty()) return out;
  definitions[std::string(spec.name)] = out;
  return {{"$ref", "#/definitions/" + std::string(spec.name)}};
}

Json FieldCatalog(const FieldSpec& f) {
  Json out = {{"name", f.name}, {"type", TypeName(f.type)}, {"doc", f.doc}};
  if (f.required) out["required"] = true;
  if (f.sweepable) out["sweepable"] = true;
  switch (f.type) {
    case FieldType::kInteger:
      out["minimum"] = f.min;
      out["maximum"] = f.max;
      break;
    case FieldType::kNumber:
      out[f.min_exclusive ? "exclusive_minimum" : "minimum"] = NumberBound(f.number_min);
      out[f.max_exclusive ? "exclusive_maximum" : "maximum"] = NumberBound(f.number_max);
      break;
    case FieldType::kString:
      if (f.min_length > 0) out["min_length"] = f.min_length;
      if (!f.pattern.empty()) out["pattern"] = f.pattern;
      break;
    case FieldType::kEnum:
      out["choices"] = Choices(f);
      break;
    case FieldType::kObject:
      out["object"] = ObjectCatalog(*f.object);
      break;
    case FieldType::kList:
      if (f.min_items > 0) out["min_items"] = f.min_items;
      if (f.unique) out["unique"] = true;
      out["items"] = FieldCatalog(*f.items);
      break;
    case FieldType::kOneOf:
      out["alternatives"] = Json::array();
      for (const FieldSpec& a : f.alternatives) out["alternatives"].push_back(FieldCatalog(a));
      break;
    case FieldType::kVariant:
      out["tag"] = f.tag;
      out["variants"] = Json::array();
      for (const ObjectSpec* v : f.variants()) out["variants"].push_back(ObjectCatalog(*v));
      break;
    case FieldType::kBoolean:
    case FieldType::kExternal:
      break;
  }
  out["accepted"] = f.Accepted();
  if (!f.default_json.empty()) out["default"] = Json::parse(f.default_json);
  if (!f.example_json.empty()) out["example"] = Json::parse(f.example_json);
  if (!f.limit_doc.empty()) out["limit"] = f.limit_doc;
  return out;
}

Json ObjectCatalog(const ObjectSpec& spec) {
  Json out = Json::object();
  if (!spec.tag_value.empty()) out["tag_value"] = spec.tag_value;
  if (!spec.name.empty()) out["name"] = spec.name;
  out["doc"] = spec.doc;
  out["fields"] = Json::array();
  for (const FieldSpec& f : spec.fields) out["fields"].push_back(FieldCatalog(f));
  if (!spec.exactly_one.empty())
    out["exactly_one"] =
        Json(std::vector<std::string>(spec.exactly_one.begin(), spec.exactly_one.end()));
  return out;
}

}  // namespace chsim::sim
