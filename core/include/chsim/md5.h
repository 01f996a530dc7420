// SPDX-License-Identifier: Apache-2.0
// MD5 (RFC 1321) of a byte string, through OpenSSL's one-shot MD5(): the
// cheapest OpenSSL API (an EVP call with an implicit fetch costs 3-6x more for
// short keys; docs/design.md#hashing-cost). Thread-safe, allocation-free.
#ifndef CHSIM_MD5_H_
#define CHSIM_MD5_H_

#include <cstddef>
#include <cstdint>

namespace chsim {

void Md5(const void* data, size_t len, uint8_t digest[16]) noexcept;

// Little-endian uint32 at digest bytes 4j..4j+3 (libketama's point slicing).
// REQUIRES: 0 <= j < 4.
inline uint32_t Md5Slice(const uint8_t digest[16], int j) noexcept {
  const uint8_t* p = digest + 4 * j;
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace chsim

#endif  // CHSIM_MD5_H_
