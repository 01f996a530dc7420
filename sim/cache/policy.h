// SPDX-License-Identifier: Apache-2.0
// The cache policies by name, and what a request does to a cache: the small
// vocabulary that scenarios, request streams and results share. What each
// policy does, and the cache that runs them, is NodeCache (cache.h).
//
// Thread-safety: constants and pure functions.
#ifndef CHSIM_SIM_CACHE_POLICY_H_
#define CHSIM_SIM_CACHE_POLICY_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace chsim::sim {

enum class CachePolicy : uint8_t { kLru, kFifo, kClock, kS3Fifo };

// What a request does to the cache of its node: a read goes through it (a
// miss inserts the object); a write or a delete drops the object.
enum class RequestOp : uint8_t { kRead, kWrite, kDelete };

// The policies' names, in CachePolicy's order (the scenario rows use it).
inline constexpr std::string_view kCachePolicyNames[] = {"lru", "fifo", "clock", "s3fifo"};
std::span<const std::string_view> CachePolicyNames() noexcept;
std::string_view CachePolicyName(CachePolicy p) noexcept;
// One line: what the policy does (chsim list).
std::string_view CachePolicyDoc(CachePolicy p) noexcept;
std::optional<CachePolicy> FindCachePolicy(std::string_view name) noexcept;

}  // namespace chsim::sim

#endif  // CHSIM_SIM_CACHE_POLICY_H_
