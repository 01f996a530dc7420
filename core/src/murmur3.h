// SPDX-License-Identifier: Apache-2.0
// MurmurHash3 x86_32 (Austin Appleby, public domain, 2011) in two steps, so
// that a hash of prefix + text can start from the prefix's state: the block
// loop, and the tail and finalizer (fmix32). Internal to core/src; c1, c2 and
// the constants are Appleby's.
#ifndef CHSIM_CORE_SRC_MURMUR3_H_
#define CHSIM_CORE_SRC_MURMUR3_H_

#include <bit>
#include <cstddef>
#include <cstdint>

namespace chsim::murmur3 {

inline constexpr uint32_t kC1 = 0xcc9e2d51, kC2 = 0x1b873593;

// The state after the whole 4-byte blocks of p[0, n), from state h.
inline uint32_t Blocks(uint32_t h, const uint8_t* p, size_t n) noexcept {
  for (; n >= 4; p += 4, n -= 4) {
    uint32_t k = uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
    k = std::rotl(k * kC1, 15) * kC2;
    h = std::rotl(h ^ k, 13) * 5 + 0xe6546b64;
  }
  return h;
}

// The hash of everything: from state h, the blocks and tail of p[0, n), then
// the finalizer over `len`, the whole length hashed.
inline uint32_t Finish(uint32_t h, const uint8_t* p, size_t n, size_t len) noexcept {
  h = Blocks(h, p, n);
  p += n / 4 * 4;
  uint32_t k = 0;
  switch (n & 3) {
    case 3:
      k ^= uint32_t{p[2]} << 16;
      [[fallthrough]];
    case 2:
      k ^= uint32_t{p[1]} << 8;
      [[fallthrough]];
    case 1:
      k ^= p[0];
      h ^= std::rotl(k * kC1, 15) * kC2;
  }
  h ^= static_cast<uint32_t>(len);
  h = (h ^ (h >> 16)) * 0x85ebca6b;
  h = (h ^ (h >> 13)) * 0xc2b2ae35;
  return h ^ (h >> 16);
}

}  // namespace chsim::murmur3

#endif  // CHSIM_CORE_SRC_MURMUR3_H_
