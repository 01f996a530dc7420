// SPDX-License-Identifier: Apache-2.0
// The metric group registry: one row per group. Each row names the spec the
// group's own file defines; nothing else in chsim lists metric groups.
#include <vector>

#include "sim/run/metric_group.h"

namespace chsim::sim {

extern const MetricGroup kBalanceGroup, kRemapGroup, kThroughputGroup, kCacheGroup, kReplicasGroup;

namespace {

constexpr const MetricGroup* kRegistry[] = {
    &kBalanceGroup, &kRemapGroup, &kThroughputGroup, &kCacheGroup, &kReplicasGroup,
};

}  // namespace

std::span<const MetricGroup* const> AllMetricGroups() noexcept { return kRegistry; }

const MetricGroup* FindMetricGroup(std::string_view name) noexcept {
  for (const MetricGroup* g : kRegistry) {
    if (g->name == name) return g;
  }
  return nullptr;
}

std::span<const std::string_view> MetricGroupNames() noexcept {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const MetricGroup* g : kRegistry) out.push_back(g->name);
    return out;
  }();
  return names;
}

std::span<const MetricSpec> AllMetrics() noexcept {
  static const std::vector<MetricSpec> all = [] {
    std::vector<MetricSpec> out(std::begin(kStepRows), std::end(kStepRows));
    for (const MetricGroup* g : kRegistry) out.insert(out.end(), g->rows.begin(), g->rows.end());
    return out;
  }();
  return all;
}

const MetricSpec* FindMetric(std::string_view name) noexcept {
  for (const MetricSpec& m : AllMetrics()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace chsim::sim
