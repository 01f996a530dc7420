// SPDX-License-Identifier: Apache-2.0
// JsonReader: one value of a JSON document together with its JSON pointer, for
// typed reads whose errors name the file, the pointer, what was found and what
// is accepted ("FILE: /algorithms/0/probes: found 2000; accepted: an integer
// 1..1024"). The scenario reader and every workload's reader use it.
//
// Thread-safety: a view of a document the caller keeps alive; reads are const.
#ifndef CHSIM_SIM_BASE_JSON_READER_H_
#define CHSIM_SIM_BASE_JSON_READER_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "chsim/params.h"

namespace chsim::sim {

using Json = nlohmann::ordered_json;

class JsonReader {
 public:
  JsonReader(const std::string& file, const Json* value, std::string pointer)
      : file_(&file), value_(value), pointer_(std::move(pointer)) {}

  const Json& value() const { return *value_; }
  const std::string& file() const { return *file_; }
  const std::string& pointer() const { return pointer_; }
  // "FILE: /pointer" ("FILE: /" at the root).
  std::string where() const;

  // Throw UsageError "FILE: /pointer: found VALUE; accepted: ACCEPTED" and
  // "FILE: /pointer: MESSAGE".
  [[noreturn]] void Fail(const std::string& accepted) const;
  [[noreturn]] void FailMessage(const std::string& message) const;

  // Requires an object whose keys are all in `allowed` (an unknown key is
  // named, with the nearest allowed one when it looks like a typo).
  void Object(const std::vector<std::string>& allowed) const;
  bool Has(const std::string& key) const { return value_->contains(key); }
  // The member `key` / element `i`; a reader of null where there is none.
  JsonReader At(const std::string& key) const;
  JsonReader At(size_t i) const;
  // Throws "missing required key 'KEY' (WHAT)" unless the object has `key`.
  void Require(const std::string& key, const std::string& what) const;

  uint64_t Uint(uint64_t min, uint64_t max) const;
  double Number(double min, double max, bool min_exclusive, const std::string& accepted) const;
  std::string String(const std::string& accepted) const;
  std::string Enum(const std::vector<std::string>& names) const;
  bool Bool() const;
  // One value of a parameter, checked against its spec (ParamSpec::Accepted
  // in the message). An integer parameter with an auto_value accepts "auto",
  // returned as the string "auto" for the caller to resolve per case.
  Json Param(const ParamSpec& spec) const;

  // A value or a non-empty list of values (a sweep axis), each read by `one`.
  template <typename F>
  auto List(F&& one) const -> std::vector<decltype(one(*this))> {
    std::vector<decltype(one(*this))> out;
    if (value_->is_array()) {
      if (value_->empty()) Fail("a value or a non-empty list of values");
      for (size_t i = 0; i < value_->size(); ++i) out.push_back(one(At(i)));
    } else {
      out.push_back(one(*this));
    }
    return out;
  }

 private:
  const std::string* file_;
  const Json* value_;
  std::string pointer_;
};

// "a, b, c".
std::string JoinNames(const std::vector<std::string>& names);
// A JSON value as messages show it (cut at 60 bytes).
std::string ShowJson(const Json& v);
// A message on one line: control bytes as \xNN, cut at 1000 bytes.
std::string OneLine(std::string_view message);
// The value of a parameter from its JSON form (after JsonReader::Param).
ParamValue ParamFromJson(const ParamSpec& spec, const Json& v);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_BASE_JSON_READER_H_
