// SPDX-License-Identifier: Apache-2.0
#include "chsim/topology.h"

#include <stdexcept>

namespace chsim {
namespace {

constexpr auto& kNames = kDomainLevelNames;
constexpr std::string_view kPlurals[kDomainLevels] = {"hosts", "racks", "zones"};

std::string Quote(std::string_view s) { return "'" + std::string(s) + "'"; }

}  // namespace

std::string_view DomainLevelName(DomainLevel level) noexcept {
  return kNames[static_cast<size_t>(level)];
}

std::string_view DomainLevelPlural(DomainLevel level) noexcept {
  return kPlurals[static_cast<size_t>(level)];
}

std::optional<DomainLevel> FindDomainLevel(std::string_view name) noexcept {
  for (DomainLevel l : kAllDomainLevels) {
    if (DomainLevelName(l) == name) return l;
  }
  return std::nullopt;
}

std::string DomainLevelNames() {
  std::string out;
  for (std::string_view name : kNames) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

std::vector<DomainLevel> Topology::levels() const {
  std::vector<DomainLevel> out;
  for (DomainLevel l : kAllDomainLevels) {
    if (Has(l)) out.push_back(l);
  }
  return out;
}

std::string Topology::LevelNames() const {
  std::string out;
  for (DomainLevel l : levels()) out += (out.empty() ? "" : ", ") + std::string(DomainLevelName(l));
  return out.empty() ? "none" : out;
}

uint32_t Topology::Find(DomainLevel level, std::string_view name) const {
  const auto& ids = ids_[Index(level)];
  const auto it = ids.find(std::string(name));
  return it == ids.end() ? kNoDomain : it->second;
}

uint32_t Topology::Intern(size_t l, const std::string& name) {
  const auto [it, added] = ids_[l].emplace(name, static_cast<uint32_t>(names_[l].size()));
  if (added) {
    names_[l].push_back(name);
    parents_[l].emplace_back();
    parents_[l].back().fill(kNoDomain);
  }
  return it->second;
}

uint32_t Topology::Append(const Path& path) {
  const std::string node = "node " + std::to_string(size_);
  for (size_t l = 0; l < kDomainLevels; ++l) {
    const bool given = !path[l].empty();
    if (size_ > 0 && given != given_[l]) {
      throw std::invalid_argument(
          node +
          (given ? " gives a " + std::string(kNames[l]) + " but the nodes before do not"
                 : " has no " + std::string(kNames[l]) + " but the nodes before do") +
          "; accepted: the same levels (" + LevelNames() + ") for every node");
    }
  }
  // Nesting: a domain met before must sit in the same higher domains.
  for (size_t l = 0; l < kDomainLevels; ++l) {
    if (path[l].empty()) continue;
    const uint32_t d = Find(static_cast<DomainLevel>(l), path[l]);
    if (d == kNoDomain) continue;
    for (size_t u = l + 1; u < kDomainLevels; ++u) {
      if (path[u].empty()) continue;
      const uint32_t was = parents_[l][d][u];
      if (names_[u][was] == path[u]) continue;
      throw std::invalid_argument(std::string(kNames[l]) + " " + Quote(path[l]) + " lies in " +
                                  std::string(kNames[u]) + " " + Quote(names_[u][was]) +
                                  " and in " + std::string(kNames[u]) + " " + Quote(path[u]) +
                                  " (" + node + "); accepted: each " + std::string(kNames[l]) +
                                  " in one " + std::string(kNames[u]));
    }
  }
  std::array<uint32_t, kDomainLevels> ids;
  ids.fill(kNoDomain);
  for (size_t l = 0; l < kDomainLevels; ++l) {
    given_[l] = !path[l].empty();
    if (given_[l]) ids[l] = Intern(l, path[l]);
  }
  for (size_t l = 0; l < kDomainLevels; ++l) {
    if (!given_[l]) continue;
    of_[l].push_back(ids[l]);
    for (size_t u = l + 1; u < kDomainLevels; ++u) parents_[l][ids[l]][u] = ids[u];
  }
  return static_cast<uint32_t>(size_++);
}

std::vector<uint32_t> Topology::Members(DomainLevel level, uint32_t domain) const {
  std::vector<uint32_t> out;
  const auto of = Of(level);
  for (uint32_t id = 0; id < of.size(); ++id) {
    if (of[id] == domain) out.push_back(id);
  }
  return out;
}

Topology Topology::Select(std::span<const uint32_t> ids) const {
  Topology t = *this;
  t.size_ = ids.size();
  for (size_t l = 0; l < kDomainLevels; ++l) {
    if (!given_[l]) continue;
    t.of_[l].assign(ids.size(), kNoDomain);
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < size_) t.of_[l][i] = of_[l][ids[i]];
    }
  }
  return t;
}

}  // namespace chsim
