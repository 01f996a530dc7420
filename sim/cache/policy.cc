// SPDX-License-Identifier: Apache-2.0
#include "sim/cache/policy.h"

#include <array>
#include <cstddef>

namespace chsim::sim {
namespace {

constexpr std::array<std::string_view, 4> kPolicyDocs = {
    "least recently used: a hit moves the object to the head, eviction takes the tail",
    "first in, first out: a hit changes nothing",
    "FIFO with a reference bit (second chance): a hit sets it, eviction reinserts once",
    "S3-FIFO (Yang et al., SOSP 2023): a small FIFO of new objects, a main FIFO with "
    "frequencies, a ghost FIFO of evicted ids"};

}  // namespace

std::span<const std::string_view> CachePolicyNames() noexcept { return kCachePolicyNames; }

std::string_view CachePolicyName(CachePolicy p) noexcept {
  return kCachePolicyNames[static_cast<size_t>(p)];
}

std::string_view CachePolicyDoc(CachePolicy p) noexcept {
  return kPolicyDocs[static_cast<size_t>(p)];
}

std::optional<CachePolicy> FindCachePolicy(std::string_view name) noexcept {
  for (size_t i = 0; i < std::size(kCachePolicyNames); ++i) {
    if (kCachePolicyNames[i] == name) return static_cast<CachePolicy>(i);
  }
  return std::nullopt;
}

}  // namespace chsim::sim
