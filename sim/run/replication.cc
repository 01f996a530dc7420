// SPDX-License-Identifier: Apache-2.0
#include "sim/run/replication.h"

#include <algorithm>
#include <stdexcept>

#include "sim/base/errors.h"

namespace chsim::sim {
namespace {

// "the initial nodes", "step 2 (remove random 8)".
std::string StepName(const Scenario& s, uint32_t step) {
  if (step == 0) return "the initial nodes";
  return "step " + std::to_string(step) + " (" + s.events[step - 1].label + ")";
}

uint32_t Distinct(std::span<const uint32_t> domains, const Deployment& d) {
  std::vector<uint32_t> seen;
  for (size_t id = 0; id < d.live().size(); ++id) {
    if (d.live()[id]) seen.push_back(domains[id]);
  }
  std::sort(seen.begin(), seen.end());
  return static_cast<uint32_t>(std::unique(seen.begin(), seen.end()) - seen.begin());
}

// The checks the strategy does not make: live nodes, and live domains for a
// strategy that cannot answer short.
void CheckStep(const Scenario& s, const CaseSpec& c, const Deployment& d,
               std::span<const uint32_t> domains, uint32_t step) {
  const std::string k = std::to_string(c.replicas);
  const std::string head = s.path + ": /replication/factor: found " + k + " copies per key (" +
                           c.id + "), but " + StepName(s, step) + " has ";
  if (c.replicas > d.num_live()) {
    throw UsageError(head + std::to_string(d.num_live()) +
                     " live nodes; accepted: at most the live nodes at every step");
  }
  if (!c.replica_domain || c.replica_strategy->short_results) return;
  const uint32_t live = Distinct(domains, d);
  const std::string plural(DomainLevelPlural(*c.replica_domain));
  if (c.replicas > live) {
    throw UsageError(head + std::to_string(live) + " live " + plural + " and strategy " +
                     std::string(c.replica_strategy->name) +
                     " cannot answer short; accepted: at most the live " + plural +
                     " at every step");
  }
}

}  // namespace

std::optional<DomainLevel> MeasuredLevel(const Scenario& s, const CaseSpec& c) {
  if (c.replica_domain) return c.replica_domain;
  for (DomainLevel l : {DomainLevel::kRack, DomainLevel::kZone, DomainLevel::kHost}) {
    if (s.HasDomains(l)) return l;
  }
  return std::nullopt;
}

CaseReplicas::CaseReplicas(const Scenario& s, const CaseSpec& c, const Deployment& d, uint32_t step,
                           Build build)
    : k_(c.replicas), to_global_(d.global_ids()) {
  const std::optional<DomainLevel> level = c.replica_domain;
  if (const std::optional<DomainLevel> measured = MeasuredLevel(s, c)) {
    const std::span<const uint32_t> of = d.topology().Of(*measured);
    domains_.assign(of.begin(), of.end());
  }
  if (level) alg_topology_ = d.AlgorithmTopology();  // the reader refused a level not carried
  CheckStep(s, c, d, domains_, step);
  const ReplicaStrategy& strategy = *c.replica_strategy;
  const ReplicaInput input{.algorithm = &d.algorithm(),
                           .k = k_,
                           .topology = level ? &alg_topology_ : nullptr,
                           .domain = level};
  try {
    if (build == Build::kShadow) {
      strategy.Admit(*c.algorithm.spec, input, strategy.Resolve({}));
    } else {
      selector_ = strategy.Make(input);
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(s.path + ": /replication: " + c.id + ": " + StepName(s, step) + ": " +
                     e.what());
  } catch (const Unsupported& e) {
    throw UsageError(s.path + ": /replication/strategy: " + e.what());
  }
}

}  // namespace chsim::sim
