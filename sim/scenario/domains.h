// SPDX-License-Identifier: Apache-2.0
// Generated failure domains: the "hosts", "racks" and "zones" of a scenario's
// "nodes" section, made into a Topology (chsim/topology.h) over the initial
// nodes in list order.
//
// Each level given groups the units of the level below it (the nodes for the
// lowest level given, else the domains of the level below): a count C spreads
// the U units over C domains, round-robin (unit u in domain u mod C) or in
// blocks (contiguous, the first U mod C blocks one larger) as "assign" says;
// a list of sizes [4, 4, 1] makes the domains contiguous blocks of those
// sizes, which must sum to U. Domains are named "host1", "rack1", "zone1", ...
// in id order. Nesting holds by construction.
//
// Thread-safety: values; the functions are reentrant.
#ifndef CHSIM_SIM_SCENARIO_DOMAINS_H_
#define CHSIM_SIM_SCENARIO_DOMAINS_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "chsim/topology.h"

namespace chsim::sim {

struct DomainCount {
  bool given = false;
  uint32_t count = 0;           // domains at this level
  std::vector<uint32_t> sizes;  // each domain's size in units (empty: by count)
};

struct DomainSpec {
  std::array<DomainCount, kDomainLevels> levels;  // by DomainLevel
  bool blocks = false;                            // "assign": "blocks"

  bool any() const noexcept { return levels[0].given || levels[1].given || levels[2].given; }
};

// "" when the spec can place `nodes` nodes; else why not, naming the level
// ("racks: found sizes summing to 9 for 10 nodes; accepted: sizes that sum
// to the nodes (every node in one rack)"). `level` gets the level at fault.
std::string CheckDomains(const DomainSpec& spec, uint32_t nodes, DomainLevel* level);

// The topology of `nodes` nodes. REQUIRES: CheckDomains(spec, nodes) == "".
Topology MakeDomains(const DomainSpec& spec, uint32_t nodes);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_SCENARIO_DOMAINS_H_
