// SPDX-License-Identifier: Apache-2.0
#include "sim/scenario/case_id.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "chsim/algorithm.h"

namespace chsim::sim {
namespace {

std::string Text(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

[[noreturn]] void Bad(std::string_view id, const std::string& what) {
  throw std::invalid_argument("case id '" + std::string(id) + "': " + what +
                              "; accepted: ALGORITHM(NAME=VALUE,...)/AXIS=VALUE/...");
}

// A parameter's value from its text, typed by its spec.
Json ParamJson(std::string_view id, const ParamSpec& p, const std::string& text) {
  if (p.type == ParamType::kString) return text;
  Json v = Json::parse(text, nullptr, false);
  if (v.is_discarded() || !v.is_number()) Bad(id, std::string(p.name) + " is not a number");
  if (p.type == ParamType::kInteger && !v.is_number_unsigned()) {
    Bad(id, std::string(p.name) + " is not a non-negative integer");
  }
  return v;
}

// Splits "/a=1/b=x" into its axes: "/" starts a new axis only before NAME=.
std::vector<std::pair<std::string, Json>> Axes(std::string_view id, std::string_view rest) {
  std::vector<std::pair<std::string, Json>> axes;
  auto starts_axis = [&](size_t at) {
    if (rest[at] != '/') return false;
    const size_t eq = rest.find('=', at);
    if (eq == std::string_view::npos || eq == at + 1) return false;
    return std::all_of(rest.begin() + at + 1, rest.begin() + eq, [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    });
  };
  size_t at = 0;
  while (at < rest.size()) {
    if (!starts_axis(at))
      Bad(id, "found '" + std::string(rest.substr(at)) + "' after the parameters");
    size_t next = at + 1;
    while (next < rest.size() && !starts_axis(next)) ++next;
    const std::string_view axis = rest.substr(at + 1, next - at - 1);
    const size_t eq = axis.find('=');
    std::string key(axis.substr(0, eq));
    const std::string text(axis.substr(eq + 1));
    if (key == "n") key = "nodes.count";
    Json v = Json::parse(text, nullptr, false);
    axes.emplace_back(key, v.is_discarded() || !v.is_number() ? Json(text) : v);
    at = next;
  }
  return axes;
}

}  // namespace

std::string FormatCaseId(const CaseIdParts& parts) {
  std::string id = parts.algorithm;
  for (size_t k = 0; k < parts.params.size(); ++k) {
    id += k == 0 ? '(' : ',';
    id += parts.params[k].first + "=" + Text(parts.params[k].second);
  }
  if (!parts.params.empty()) id += ')';
  for (const auto& [key, value] : parts.axes) {
    id += "/" + (key == "nodes.count" ? std::string("n") : key) + "=" + Text(value);
  }
  return id;
}

CaseIdParts ParseCaseId(std::string_view id) {
  CaseIdParts parts;
  const size_t end = id.find_first_of("(/");
  parts.algorithm = std::string(id.substr(0, end));
  const AlgorithmSpec* spec = FindAlgorithm(parts.algorithm);
  if (spec == nullptr) Bad(id, "unknown algorithm '" + parts.algorithm + "'");
  std::string_view rest = end == std::string_view::npos ? std::string_view() : id.substr(end);
  if (!rest.empty() && rest[0] == '(') {
    const size_t close = rest.find(')');
    if (close == std::string_view::npos) Bad(id, "no ')' after the parameters");
    std::string_view list = rest.substr(1, close - 1);
    while (!list.empty()) {
      const size_t comma = std::min(list.find(','), list.size());
      const std::string_view item = list.substr(0, comma);
      const size_t eq = item.find('=');
      if (eq == std::string_view::npos)
        Bad(id, "found '" + std::string(item) + "', not NAME=VALUE");
      const std::string name(item.substr(0, eq));
      const ParamSpec* p = spec->FindParam(name);
      if (p == nullptr) Bad(id, parts.algorithm + " has no parameter '" + name + "'");
      parts.params.emplace_back(name, ParamJson(id, *p, std::string(item.substr(eq + 1))));
      list = comma < list.size() ? list.substr(comma + 1) : std::string_view();
    }
    rest = rest.substr(close + 1);
  }
  parts.axes = Axes(id, rest);
  return parts;
}

std::string CaseLabel(const CaseIdParts& parts, std::span<const std::string> drop) {
  const AlgorithmSpec* spec = FindAlgorithm(parts.algorithm);
  std::string label;
  for (const auto& [name, value] : parts.params) {
    if (std::find(drop.begin(), drop.end(), name) != drop.end()) continue;
    const ParamSpec* p = spec ? spec->FindParam(name) : nullptr;
    label += label.empty() ? "" : ", ";
    if (p && p->bare) {
      label += Text(value);
    } else {
      label += (p && !p->symbol.empty() ? std::string(p->symbol) : name) + "=" + Text(value);
    }
  }
  return label.empty() ? parts.algorithm : parts.algorithm + "(" + label + ")";
}

}  // namespace chsim::sim
