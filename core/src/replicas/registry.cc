// SPDX-License-Identifier: Apache-2.0
// The replica strategy registry: one row per strategy. Each row names the
// spec the strategy's own file defines; nothing else in chsim lists them.
#include <string>

#include "internal.h"

namespace chsim {
namespace replicas_internal {
extern const ReplicaStrategy kWalkStrategy, kNtsStrategy, kTopKStrategy, kChooseKStrategy,
    kSaltedStrategy, kRandomStrategy, kCopysetStrategy, kMinCopysetsStrategy,
    kCrushStrategy;
}  // namespace replicas_internal

namespace {

using namespace replicas_internal;

constexpr const ReplicaStrategy* kRegistry[] = {
    &kWalkStrategy,   &kNtsStrategy,    &kTopKStrategy,    &kChooseKStrategy,
    &kSaltedStrategy, &kRandomStrategy, &kCopysetStrategy, &kMinCopysetsStrategy,
    &kCrushStrategy,
};

std::string Names(const std::vector<const ReplicaStrategy*>& strategies) {
  std::string names;
  for (const ReplicaStrategy* s : strategies)
    names += (names.empty() ? "" : ", ") + std::string(s->name);
  return names.empty() ? "none" : names;
}

// The rules every strategy shares on the request itself.
void AdmitRequest(const ReplicaStrategy& s, const ReplicaInput& in) {
  const size_t live = in.algorithm->num_nodes();
  const std::string k = std::to_string(in.k);
  if (in.k == 0) throw std::invalid_argument("replicas: need at least 1 copy per key (found 0)");
  if (in.k > kMaxReplicas) {
    throw std::invalid_argument("replicas: at most " + std::to_string(kMaxReplicas) +
                                " copies per key (found " + k + ")");
  }
  if (in.k > live) {
    throw std::invalid_argument("replicas: " + k + " copies per key need " + k +
                                " distinct nodes; " + std::to_string(live) + " live");
  }
  if (!in.map.text.empty() && !s.reads_map) {
    std::vector<const ReplicaStrategy*> with;
    for (const ReplicaStrategy* r : kRegistry) {
      if (r->reads_map) with.push_back(r);
    }
    throw std::invalid_argument("strategy " + std::string(s.name) +
                                " reads no CRUSH map; strategies that do: " + Names(with));
  }
  if (!in.domain) return;
  const std::string level(DomainLevelName(*in.domain));
  if (!s.UsesDomains()) {
    std::vector<const ReplicaStrategy*> with;
    for (const ReplicaStrategy* r : kRegistry) {
      if (r->UsesDomains()) with.push_back(r);
    }
    throw std::invalid_argument(
        "strategy " + std::string(s.name) +
        " does not place copies by failure domain; strategies that do: " + Names(with));
  }
  if (in.topology == nullptr || !in.topology->Has(*in.domain)) {
    throw std::invalid_argument(
        "replicas: copies spread over " + level + "s, but the nodes carry no " + level +
        "; levels they carry: " + (in.topology ? in.topology->LevelNames() : "none"));
  }
  const std::span<const uint32_t> domains = in.Domains();
  for (uint32_t id : in.algorithm->live_ids()) {
    if (id >= domains.size() || domains[id] == kNoDomain) {
      throw std::invalid_argument("replicas: no " + level + " for node id " + std::to_string(id) +
                                  " (the topology describes " +
                                  std::to_string(in.topology->size()) + " nodes)");
    }
  }
}

}  // namespace

std::span<const ReplicaStrategy* const> AllReplicaStrategies() noexcept { return kRegistry; }

const ReplicaStrategy* FindReplicaStrategy(std::string_view name) noexcept {
  for (const ReplicaStrategy* s : kRegistry) {
    if (s->name == name) return s;
  }
  return nullptr;
}

const ReplicaStrategy& GetReplicaStrategy(std::string_view name) {
  if (const ReplicaStrategy* s = FindReplicaStrategy(name)) return *s;
  throw std::invalid_argument("unknown replica strategy '" + std::string(name) +
                              "'; valid: " + Names({std::begin(kRegistry), std::end(kRegistry)}));
}

std::vector<const ReplicaStrategy*> ReplicaStrategiesFor(const AlgorithmSpec& algorithm) {
  std::vector<const ReplicaStrategy*> out;
  for (const ReplicaStrategy* s : kRegistry) {
    if (s->AppliesTo(algorithm)) out.push_back(s);
  }
  return out;
}

std::vector<const AlgorithmSpec*> AlgorithmsFor(const ReplicaStrategy& strategy) {
  std::vector<const AlgorithmSpec*> out;
  for (const AlgorithmSpec* a : AllAlgorithms()) {
    if (strategy.AppliesTo(*a)) out.push_back(a);
  }
  return out;
}

Params ReplicaStrategy::Resolve(const Params& given) const {
  for (const auto& entry : given.values()) {
    const std::string& param = entry.first;
    const auto p = std::find_if(params.begin(), params.end(),
                                [&](const ParamSpec& ps) { return ps.name == param; });
    if (p == params.end()) {
      std::string names;
      for (const ParamSpec& ps : params)
        names += (names.empty() ? "" : ", ") + std::string(ps.name);
      throw std::invalid_argument("strategy " + std::string(name) + " has no parameter '" + param +
                                  "'; its parameters: " + (names.empty() ? "none" : names));
    }
    p->Check(name, entry.second);
  }
  Params resolved;
  for (const ParamSpec& p : params) {
    const ParamValue* v = given.Find(p.name);
    resolved.Set(p.name, v ? *v : p.Default());
  }
  return resolved;
}

void ReplicaStrategy::Admit(const AlgorithmSpec& algorithm, const ReplicaInput& input,
                            const Params& resolved) const {
  if (!AppliesTo(algorithm)) {
    throw Unsupported("strategy " + std::string(name) + " does not apply to algorithm " +
                      std::string(algorithm.name) + " (it needs " + std::string(applies_doc) +
                      "); strategies for " + std::string(algorithm.name) + ": " +
                      Names(ReplicaStrategiesFor(algorithm)));
  }
  AdmitRequest(*this, input);
  if (admit) admit(resolved, input);
}

std::unique_ptr<ReplicaSelector> ReplicaStrategy::Make(const ReplicaInput& input,
                                                       const Params& given) const {
  const Params p = Resolve(given);
  Admit(GetAlgorithm(input.algorithm->name()), input, p);
  return make(input, p);
}

}  // namespace chsim
