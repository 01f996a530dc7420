// SPDX-License-Identifier: Apache-2.0
// HAProxy 2.6 include/haproxy/intops.h __full_hash, inline for core/src's
// loops (HashBatch's avalanche hashers); HaproxyFullHash (chsim/hasher.h)
// is the same function out of line. Internal to core/src.
#ifndef CHSIM_CORE_SRC_HAPROXY_FULL_HASH_H_
#define CHSIM_CORE_SRC_HAPROXY_FULL_HASH_H_

#include <cstdint>

namespace chsim::haproxy {

// Bob Jenkins' 32-bit integer hash, then a multiplication by 3221225473.
inline uint32_t FullHash(uint32_t a) noexcept {
  a = (a + 0x7ed55d16) + (a << 12);
  a = (a ^ 0xc761c23c) ^ (a >> 19);
  a = (a + 0x165667b1) + (a << 5);
  a = (a + 0xd3a2646c) ^ (a << 9);
  a = (a + 0xfd7046c5) + (a << 3);
  a = (a ^ 0xb55a4f09) ^ (a >> 16);
  return a * 3221225473u;
}

}  // namespace chsim::haproxy

#endif  // CHSIM_CORE_SRC_HAPROXY_FULL_HASH_H_
