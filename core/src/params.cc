// SPDX-License-Identifier: Apache-2.0
#include "chsim/params.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace chsim {
namespace {

// A bound as written in messages: integers without a fraction.
std::string FormatBound(double v) {
  if (v == std::floor(v) && std::fabs(v) < 9.1e15) {
    return std::to_string(static_cast<long long>(v));
  }
  std::string s = std::to_string(v);
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  return s;
}

std::string JoinChoices(const std::vector<std::string_view>& choices) {
  std::string out;
  for (std::string_view c : choices) {
    if (!out.empty()) out += ", ";
    out += c;
  }
  return out;
}

const char* TypeWord(const ParamValue& v) {
  if (std::holds_alternative<uint64_t>(v)) return "an integer";
  if (std::holds_alternative<double>(v)) return "a number";
  return "a string";
}

}  // namespace

std::string ParamSpec::Accepted() const {
  switch (type) {
    case ParamType::kInteger: {
      std::string s = rule ? std::string(rule_doc) : "an integer";
      s += ' ';
      s += FormatBound(min);
      s += "..";
      s += FormatBound(max);
      if (auto_value) s += " or \"auto\"";
      return s;
    }
    case ParamType::kNumber: {
      std::string s = min_exclusive ? "a number > " : "a number >= ";
      s += FormatBound(min);
      s += " and <= ";
      s += FormatBound(max);
      return s;
    }
    case ParamType::kString:
      return choices ? "one of " + JoinChoices(choices()) : "a string";
  }
  return "";
}

ParamValue ParamSpec::Default() const {
  switch (type) {
    case ParamType::kInteger:
      return static_cast<uint64_t>(default_number);
    case ParamType::kNumber:
      return default_number;
    case ParamType::kString:
      break;
  }
  return std::string(default_text);
}

void ParamSpec::Check(std::string_view algorithm, const ParamValue& value) const {
  bool ok = false;
  switch (type) {
    case ParamType::kInteger:
      if (const uint64_t* v = std::get_if<uint64_t>(&value)) {
        const double d = static_cast<double>(*v);
        ok = d >= min && d <= max && (rule == nullptr || rule(*v));
      }
      break;
    case ParamType::kNumber:
      if (const double* v = std::get_if<double>(&value)) {
        ok = std::isfinite(*v) && (min_exclusive ? *v > min : *v >= min) && *v <= max;
      }
      break;
    case ParamType::kString:
      if (const std::string* v = std::get_if<std::string>(&value)) {
        ok = choices == nullptr || (v->empty() && default_text.empty());
        if (!ok) {
          for (std::string_view c : choices()) ok = ok || c == *v;
        }
      }
      break;
  }
  if (!ok) {
    const bool same_type = value.index() == Default().index();
    Refuse(algorithm, same_type ? FormatParamValue(value) : TypeWord(value));
  }
}

void ParamSpec::Refuse(std::string_view algorithm, std::string_view found) const {
  throw std::invalid_argument(std::string(algorithm) + ": " + std::string(name) + " must be " +
                              Accepted() + " (found " + std::string(found) + ")");
}

ParamValue ParamSpec::Parse(std::string_view text, uint64_t nodes) const {
  const std::string t(text);
  auto fail = [&]() -> ParamValue {
    throw std::invalid_argument("found '" + t + "'; accepted: " + Accepted());
  };
  switch (type) {
    case ParamType::kInteger: {
      if (auto_value && t == "auto") return auto_value(nodes);
      if (t.empty() || t.size() > 20 || t.find_first_not_of("0123456789") != std::string::npos) {
        return fail();
      }
      try {
        return static_cast<uint64_t>(std::stoull(t));
      } catch (const std::out_of_range&) {
        return fail();
      }
    }
    case ParamType::kNumber: {
      size_t used = 0;
      double v = 0;
      try {
        v = std::stod(t, &used);
      } catch (const std::logic_error&) {
        return fail();
      }
      if (used != t.size()) return fail();
      return v;
    }
    case ParamType::kString:
      break;
  }
  return t;
}

std::string FormatParamValue(const ParamValue& value) {
  if (const uint64_t* v = std::get_if<uint64_t>(&value)) return std::to_string(*v);
  if (const double* v = std::get_if<double>(&value)) {
    char buf[32];
    for (int precision = 1; precision <= 17; ++precision) {
      std::snprintf(buf, sizeof buf, "%.*g", precision, *v);
      if (std::strtod(buf, nullptr) == *v) break;
    }
    std::string s = buf;
    if (std::isfinite(*v) && s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
  }
  return std::get<std::string>(value);
}

Params::Params(std::initializer_list<std::pair<std::string, ParamValue>> values) {
  for (const auto& [name, value] : values) Set(name, value);
}

Params& Params::Set(std::string_view name, ParamValue value) {
  for (auto& [n, v] : values_) {
    if (n == name) {
      v = std::move(value);
      return *this;
    }
  }
  values_.emplace_back(std::string(name), std::move(value));
  return *this;
}

const ParamValue* Params::Find(std::string_view name) const noexcept {
  for (const auto& [n, v] : values_) {
    if (n == name) return &v;
  }
  return nullptr;
}

namespace {

template <typename T>
const T& Get(const Params& p, std::string_view name, const char* type) {
  const ParamValue* v = p.Find(name);
  const T* t = v ? std::get_if<T>(v) : nullptr;
  if (t == nullptr) {
    throw std::logic_error("parameter '" + std::string(name) + "' is not set as " + type +
                           "; is it declared in the algorithm's spec?");
  }
  return *t;
}

}  // namespace

uint64_t Params::Integer(std::string_view name) const {
  return Get<uint64_t>(*this, name, "an integer");
}
double Params::Number(std::string_view name) const { return Get<double>(*this, name, "a number"); }
const std::string& Params::Text(std::string_view name) const {
  return Get<std::string>(*this, name, "a string");
}

bool IsPrime(uint64_t m) noexcept {
  if (m < 2) return false;
  if (m % 2 == 0) return m == 2;
  for (uint64_t d = 3; d * d <= m; d += 2) {
    if (m % d == 0) return false;
  }
  return true;
}

}  // namespace chsim
