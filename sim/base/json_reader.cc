// SPDX-License-Identifier: Apache-2.0
#include "sim/base/json_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/base/errors.h"

namespace chsim::sim {
namespace {

std::string EscapePointerToken(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t prev = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cur = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
      prev = cur;
    }
  }
  return row[b.size()];
}

// What At() views where the document has no such member: a null that Has()
// and every typed read see as absent, never a read past the container.
const Json& Missing() {
  static const Json kMissing;
  return kMissing;
}

}  // namespace

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string ShowJson(const Json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::string OneLine(std::string_view message) {
  std::string out;
  for (unsigned char c : message) {
    if (out.size() >= 1000) return out + "...";
    if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string JsonReader::where() const {
  return *file_ + ": " + (pointer_.empty() ? "/" : pointer_);
}

void JsonReader::Fail(const std::string& accepted) const {
  throw UsageError(where() + ": found " + ShowJson(*value_) + "; accepted: " + accepted);
}

void JsonReader::FailMessage(const std::string& message) const {
  throw UsageError(where() + ": " + message);
}

void JsonReader::Object(const std::vector<std::string>& allowed) const {
  if (!value_->is_object()) Fail("an object with keys " + JoinNames(allowed));
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
    std::string hint;
    for (const std::string& a : allowed) {
      if (EditDistance(a, it.key()) <= 2) hint = " (did you mean '" + a + "'?)";
    }
    throw UsageError(*file_ + ": " + pointer_ + "/" + EscapePointerToken(it.key()) +
                     ": unknown key '" + it.key() + "'" + hint +
                     "; accepted keys here: " + JoinNames(allowed));
  }
}

JsonReader JsonReader::At(const std::string& key) const {
  const Json* member = &Missing();
  if (value_->is_object()) {
    const auto it = value_->find(key);
    if (it != value_->end()) member = &*it;
  }
  return JsonReader(*file_, member, pointer_ + "/" + EscapePointerToken(key));
}

JsonReader JsonReader::At(size_t i) const {
  const Json* element = &Missing();
  if (value_->is_array() && i < value_->size()) element = &(*value_)[i];
  return JsonReader(*file_, element, pointer_ + "/" + std::to_string(i));
}

void JsonReader::Require(const std::string& key, const std::string& what) const {
  if (!Has(key)) throw UsageError(where() + ": missing required key '" + key + "' (" + what + ")");
}

uint64_t JsonReader::Uint(uint64_t min, uint64_t max) const {
  std::string accepted = "an integer " + std::to_string(min) + ".." + std::to_string(max);
  if (!value_->is_number_integer()) Fail(accepted);
  if (value_->is_number_unsigned()) {
    uint64_t v = value_->get<uint64_t>();
    if (v < min || v > max) Fail(accepted);
    return v;
  }
  int64_t v = value_->get<int64_t>();
  if (v < 0 || static_cast<uint64_t>(v) < min || static_cast<uint64_t>(v) > max) Fail(accepted);
  return static_cast<uint64_t>(v);
}

double JsonReader::Number(double min, double max, bool min_exclusive,
                          const std::string& accepted) const {
  if (!value_->is_number()) Fail(accepted);
  double v = value_->get<double>();
  if (!(min_exclusive ? v > min : v >= min) || !(v <= max) || !std::isfinite(v)) Fail(accepted);
  return v;
}

std::string JsonReader::String(const std::string& accepted) const {
  if (!value_->is_string()) Fail(accepted);
  return value_->get<std::string>();
}

std::string JsonReader::Enum(const std::vector<std::string>& names) const {
  std::string accepted = "one of " + JoinNames(names);
  if (!value_->is_string()) Fail(accepted);
  std::string v = value_->get<std::string>();
  if (std::find(names.begin(), names.end(), v) == names.end()) Fail(accepted);
  return v;
}

bool JsonReader::Bool() const {
  if (!value_->is_boolean()) Fail("true or false");
  return value_->get<bool>();
}

Json JsonReader::Param(const ParamSpec& spec) const {
  const std::string accepted = spec.Accepted();
  switch (spec.type) {
    case ParamType::kInteger: {
      if (spec.auto_value && value_->is_string() && value_->get<std::string>() == "auto") {
        return "auto";
      }
      if (!value_->is_number_unsigned()) Fail(accepted);
      const uint64_t v = value_->get<uint64_t>();
      const double d = static_cast<double>(v);
      if (d < spec.min || d > spec.max || (spec.rule && !spec.rule(v))) Fail(accepted);
      return v;
    }
    case ParamType::kNumber:
      return Number(spec.min, spec.max, spec.min_exclusive, accepted);
    case ParamType::kString: {
      const std::string v = String(accepted);
      if (spec.choices) {
        const std::vector<std::string_view> choices = spec.choices();
        if (std::find(choices.begin(), choices.end(), v) == choices.end()) Fail(accepted);
      }
      return v;
    }
  }
  Fail(accepted);
}

ParamValue ParamFromJson(const ParamSpec& spec, const Json& v) {
  switch (spec.type) {
    case ParamType::kInteger:
      return v.get<uint64_t>();
    case ParamType::kNumber:
      return v.get<double>();
    case ParamType::kString:
      break;
  }
  return v.get<std::string>();
}

}  // namespace chsim::sim
