// SPDX-License-Identifier: Apache-2.0
// Fields: the typed description of a JSON input format, one row per key, as
// ParamSpec (chsim/params.h) describes an algorithm's parameters. A FieldSpec
// gives a key's name, type, bounds, default, doc line, an example, and whether
// a sweep may vary it; an ObjectSpec groups the rows of one JSON object.
//
// The scenario format is written once, as these rows (sim/scenario/
// scenario_fields.cc for the top level, nodes, events, output and throughput;
// each workload's file for its own parameters), and everything else is made
// from them:
//   - the readers: ReadField / ReadObject check a value against its row and
//     return it with defaults filled in, with one-line errors naming the file,
//     the JSON pointer, what was found and what is accepted;
//   - scenarios/schema.json: FieldSchema / ObjectSchema (JSON Schema draft 7);
//   - `chsim list --json`: FieldCatalog / ObjectCatalog;
//   - README's limits table.
//
// Thread-safety: rows are immutable constants; the functions are reentrant.
#ifndef CHSIM_SIM_BASE_FIELDS_H_
#define CHSIM_SIM_BASE_FIELDS_H_

#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "sim/base/json_reader.h"

namespace chsim::sim {

enum class FieldType {
  kInteger,   // a JSON integer in [min, max]
  kNumber,    // a finite JSON number within [number_min, number_max] (ends exclusive on request)
  kString,    // a JSON string of at least min_length bytes matching `pattern` when given
  kBoolean,   // true or false
  kEnum,      // one of `choices`
  kObject,    // an object of the rows of `object`
  kList,      // a list (at least min_items) of `items`, unique when `unique`
  kOneOf,     // one of `alternatives`, chosen by the value's JSON kind (see ReadField)
  kVariant,   // an object whose `tag` key names one of `variants()` (e.g. events by "op")
  kExternal,  // checked by a reader of its own (algorithm entries: the algorithm specs);
              // ReadField returns it as given, `external_schema` makes its schema
};

struct ObjectSpec;

struct FieldSpec {
  std::string_view name = {};  // the key ("" for list items and alternatives)
  FieldType type = FieldType::kInteger;
  std::string_view doc = {};  // one line: README, the schema's descriptions, chsim list --json
  bool required = false;
  // A value or a non-empty list of values: a sweep axis (ReadField returns a list).
  bool sweepable = false;

  uint64_t min = 0, max = 0;              // kInteger, both ends inclusive
  double number_min = 0, number_max = 0;  // kNumber
  bool min_exclusive = false, max_exclusive = false;
  size_t min_length = 0;          // kString
  std::string_view pattern = {};  // kString: an ECMA-262 regex the whole value matches
  std::span<const std::string_view> choices = {};  // kEnum
  // kEnum whose choices a registry holds (used instead of `choices`).
  std::span<const std::string_view> (*choices_of)() noexcept = nullptr;
  const ObjectSpec* object = nullptr;            // kObject
  const FieldSpec* items = nullptr;              // kList
  size_t min_items = 0;                          // kList
  bool unique = false;                           // kList
  std::span<const FieldSpec> alternatives = {};  // kOneOf
  std::string_view tag = {};                     // kVariant: the key naming the variant
  std::span<const ObjectSpec* const> (*variants)() = nullptr;  // kVariant
  Json (*external_schema)(Json& definitions) = nullptr;        // kExternal

  // The value when the key is absent, as JSON text ("" = none: stays absent).
  std::string_view default_json = {};
  // A value a user might write, as JSON text: README, chsim list --json, tests.
  std::string_view example_json = {};
  // What messages say is accepted; "" = made from the type and bounds.
  std::string_view accepted = {};
  // A check beyond type and bounds (e.g. compiling a key shape, resolving a
  // path): throws UsageError through `value`, and may rewrite the checked
  // value. Called on each value of a sweep.
  void (*check)(const JsonReader& value, Json* checked) = nullptr;
  // Why the bound is what it is, when it is one of chsim's limits (README's
  // limits table lists every row that says so).
  std::string_view limit_doc = {};

  // What is accepted, for messages: `accepted`, or e.g. "an integer 1..10000",
  // "a number > 0 and <= 20", "one of a, b", "true or false".
  std::string Accepted() const;
};

struct ObjectSpec {
  std::string_view name = {};  // its definition in the schema, e.g. "event_add"
  std::string_view doc = {};
  std::span<const FieldSpec> fields = {};
  // Keys of which exactly one must be present (empty: no such rule).
  std::span<const std::string_view> exactly_one = {};
  // kVariant objects: the tag's value that selects this one (e.g. "add").
  std::string_view tag_value = {};

  const FieldSpec* Find(std::string_view key) const noexcept;
};

// Checks `value` against `field` and returns it: integers as unsigned,
// numbers as doubles, objects with their defaults filled in (ReadObject). A
// sweepable field returns a list (one element when a single value was given).
// Throws UsageError "FILE: /pointer: found X; accepted: Y".
Json ReadField(const JsonReader& value, const FieldSpec& field);
// Checks an object against `spec`: no unknown key (the nearest known one is
// suggested), the required keys, the exactly-one rule, each present field;
// returns the checked fields in row order, absent ones with a default filled
// in. `tag` names one more allowed key (a variant's, checked by the caller),
// copied first into the result.
Json ReadObject(const JsonReader& object, const ObjectSpec& spec, std::string_view tag = {});

// A read of a value that its rows do not give: thrown by FieldValues, with
// the row's name. A defect of the code reading the values, not of the input.
class FieldError : public std::logic_error {
 public:
  FieldError(std::string field, const std::string& message)
      : std::logic_error(message), field_(std::move(field)) {}
  const std::string& field() const noexcept { return field_; }

 private:
  std::string field_;
};

// The values ReadObject returned for `rows` (one value per sweep axis), read
// only through those rows. A row's value is present when it was given or its
// row has a default (the reader filled it in); only an optional row without
// a default may be absent, and only Has() asks whether it is. Reading an
// absent value, a name no row declares, or a value as another type than its
// row's throws FieldError naming `owner` and the row, so a factory that reads
// an optional row without asking Has() fails on its first build from the
// required rows alone.
// Holds references: valid while `rows` and `values` are.
class FieldValues {
 public:
  // `owner` names the reader in messages, e.g. "workload \"uniform\"".
  FieldValues(std::string owner, std::span<const FieldSpec> rows, const Json& values)
      : owner_(std::move(owner)), rows_(rows), values_(values) {}

  // Whether row `name` has a value. Throws FieldError when no row is `name`.
  bool Has(std::string_view name) const;
  uint64_t Integer(std::string_view name) const;    // a kInteger row
  double Number(std::string_view name) const;       // a kNumber row
  std::string String(std::string_view name) const;  // a kString or kEnum row
  bool Boolean(std::string_view name) const;        // a kBoolean row
  // Any row's value as the reader checked it (objects, lists, alternatives).
  const Json& Value(std::string_view name) const;
  // A kObject row's value, read through its object's rows.
  FieldValues Object(std::string_view name) const;

 private:
  const FieldSpec& Row(std::string_view name) const;
  // The present value of row `name`, whose type is one of `types`.
  const Json& Present(std::string_view name, std::initializer_list<FieldType> types,
                      const char* as) const;

  std::string owner_;
  std::span<const FieldSpec> rows_;
  const Json& values_;
};

// JSON Schema (draft 7) of a row and of an object; `definitions` collects the
// named objects (ObjectSpec::name) a schema refers to with "$ref".
Json FieldSchema(const FieldSpec& field, Json& definitions);
Json ObjectSchema(const ObjectSpec& spec, Json& definitions);

// The rows as data, for `chsim list --json`: name, type, doc, required,
// sweepable, bounds, choices, default, example, nested objects.
Json FieldCatalog(const FieldSpec& field);
Json ObjectCatalog(const ObjectSpec& spec);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_BASE_FIELDS_H_
