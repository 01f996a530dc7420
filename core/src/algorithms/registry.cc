// SPDX-License-Identifier: Apache-2.0
// The algorithm registry: one row per algorithm. Each row names the spec the
// algorithm's own file defines; nothing else in chsim lists algorithms.
#include <string>

#include "internal.h"

namespace chsim {
namespace algorithms_internal {
extern const AlgorithmSpec kRingSpec, kKetamaSpec, kJumpSpec, kRendezvousSpec, kMaglevSpec,
    kMultiProbeSpec, kBoundedLoadSpec, kAnchorSpec, kMementoSpec, kDxSpec, kPowerSpec, kFlipSpec,
    kJumpBackSpec, kBinomialSpec, kModuloSpec, kJumpBackAnchorSpec, kStraw2Spec;
}  // namespace algorithms_internal

namespace {

using namespace algorithms_internal;

constexpr const AlgorithmSpec* kRegistry[] = {
    &kRingSpec,     &kKetamaSpec,     &kJumpSpec,        &kRendezvousSpec,
    &kMaglevSpec,   &kMultiProbeSpec, &kBoundedLoadSpec, &kAnchorSpec,
    &kMementoSpec,  &kDxSpec,         &kPowerSpec,       &kFlipSpec,
    &kJumpBackSpec, &kBinomialSpec,   &kModuloSpec,      &kJumpBackAnchorSpec,
    &kStraw2Spec,
};

std::string ParamNames(const AlgorithmSpec& spec) {
  std::string names;
  for (const ParamSpec& p : spec.params) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names.empty() ? "none" : names;
}

}  // namespace

std::span<const AlgorithmSpec* const> AllAlgorithms() noexcept { return kRegistry; }

const AlgorithmSpec* FindAlgorithm(std::string_view name) noexcept {
  for (const AlgorithmSpec* spec : kRegistry) {
    if (spec->name == name) return spec;
  }
  return nullptr;
}

const AlgorithmSpec& GetAlgorithm(std::string_view name) {
  if (const AlgorithmSpec* spec = FindAlgorithm(name)) return *spec;
  std::string valid;
  for (const AlgorithmSpec* spec : kRegistry) {
    valid += (valid.empty() ? "" : ", ") + std::string(spec->name);
  }
  throw std::invalid_argument("unknown algorithm '" + std::string(name) + "'; valid: " + valid);
}

std::unique_ptr<Algorithm> MakeAlgorithm(std::string_view name, std::span<const Node> nodes,
                                         const Params& params) {
  return GetAlgorithm(name).Make(nodes, params);
}

const ParamSpec* AlgorithmSpec::FindParam(std::string_view param) const noexcept {
  for (const ParamSpec& p : params) {
    if (p.name == param) return &p;
  }
  return nullptr;
}

Params AlgorithmSpec::Resolve(const Params& given) const {
  for (const auto& [param, value] : given.values()) {
    const ParamSpec* p = FindParam(param);
    if (p == nullptr) {
      throw std::invalid_argument(std::string(name) + " has no parameter '" + param +
                                  "'; its parameters: " + ParamNames(*this));
    }
    p->Check(name, value);
  }
  Params resolved;
  for (const ParamSpec& p : params) {
    const ParamValue* v = given.Find(p.name);
    resolved.Set(p.name, v ? *v : p.Default());
  }
  resolved.weighted_list = given.weighted_list;
  return resolved;
}

std::unique_ptr<Algorithm> AlgorithmSpec::Make(std::span<const Node> nodes,
                                               const Params& given) const {
  const Params p = Resolve(given);
  AlgorithmBase::AdmitBuild(*this, nodes, p);
  return make(nodes, p);
}

std::unique_ptr<Algorithm> AlgorithmSpec::MakeShadow(std::span<const Node> nodes,
                                                     const Params& given) const {
  const Params p = Resolve(given);
  AlgorithmBase::AdmitBuild(*this, nodes, p);
  return NewShadow(*this, nodes, p);
}

std::string_view AlgorithmSpec::KeyHasher(const Params& resolved) const {
  return key_hasher ? key_hasher(resolved) : std::string_view("xxh3");
}

}  // namespace chsim
