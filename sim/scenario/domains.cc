// SPDX-License-Identifier: Apache-2.0
#include "sim/scenario/domains.h"

#include <numeric>

namespace chsim::sim {
namespace {

// The units the domains of level l group: "nodes", or the plural of the
// nearest level below that is given.
std::string UnitsBelow(const DomainSpec& spec, size_t l) {
  for (size_t b = l; b-- > 0;) {
    if (spec.levels[b].given) return std::string(DomainLevelPlural(kAllDomainLevels[b]));
  }
  return "nodes";
}

// Domain of each of `units` units at one level.
std::vector<uint32_t> Assign(const DomainCount& c, uint32_t units, bool blocks) {
  std::vector<uint32_t> of(units);
  if (!c.sizes.empty()) {
    uint32_t u = 0;
    for (uint32_t d = 0; d < c.sizes.size(); ++d) {
      for (uint32_t j = 0; j < c.sizes[d]; ++j) of[u++] = d;
    }
    return of;
  }
  const uint32_t small = units / c.count, large_blocks = units % c.count;
  for (uint32_t u = 0; u < units; ++u) {
    if (!blocks) {
      of[u] = u % c.count;
    } else {
      // The first large_blocks blocks hold small + 1 units, the others small.
      const uint32_t in_large = large_blocks * (small + 1);
      of[u] = u < in_large ? u / (small + 1) : large_blocks + (u - in_large) / small;
    }
  }
  return of;
}

}  // namespace

std::string CheckDomains(const DomainSpec& spec, uint32_t nodes, DomainLevel* level) {
  uint32_t units = nodes;
  for (size_t l = 0; l < kDomainLevels; ++l) {
    const DomainCount& c = spec.levels[l];
    if (!c.given) continue;
    *level = kAllDomainLevels[l];
    const std::string plural(DomainLevelPlural(*level)), name(DomainLevelName(*level));
    const std::string below = UnitsBelow(spec, l);
    if (!c.sizes.empty()) {
      const uint64_t sum = std::accumulate(c.sizes.begin(), c.sizes.end(), uint64_t{0});
      if (sum != units) {
        return plural + ": found sizes summing to " + std::to_string(sum) + " for " +
               std::to_string(units) + " " + below + "; accepted: sizes that sum to the " + below +
               " (each in one " + name + ")";
      }
    } else if (c.count > units) {
      return plural + ": found " + std::to_string(c.count) + " " + plural + " for " +
             std::to_string(units) + " " + below + "; accepted: at most " + std::to_string(units) +
             " (no empty " + name + ")";
    }
    units = c.count;
  }
  return "";
}

Topology MakeDomains(const DomainSpec& spec, uint32_t nodes) {
  // unit[i]: node i's unit at the level below the one being assigned.
  std::vector<uint32_t> unit(nodes);
  std::iota(unit.begin(), unit.end(), 0u);
  uint32_t units = nodes;
  std::array<std::vector<uint32_t>, kDomainLevels> of;
  for (size_t l = 0; l < kDomainLevels; ++l) {
    const DomainCount& c = spec.levels[l];
    if (!c.given) continue;
    const std::vector<uint32_t> domain = Assign(c, units, spec.blocks);
    of[l].resize(nodes);
    for (uint32_t i = 0; i < nodes; ++i) of[l][i] = unit[i] = domain[unit[i]];
    units = c.count;
  }
  Topology t;
  for (uint32_t i = 0; i < nodes; ++i) {
    Topology::Path path;
    for (size_t l = 0; l < kDomainLevels; ++l) {
      if (spec.levels[l].given) {
        path[l] = std::string(DomainLevelName(kAllDomainLevels[l])) + std::to_string(of[l][i] + 1);
      }
    }
    t.Append(path);
  }
  return t;
}

}  // namespace chsim::sim
