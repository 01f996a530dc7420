// SPDX-License-Identifier: Apache-2.0
// CRC-32 (IEEE 802.3, reflected, zlib's crc32()) of short keys without zlib's
// byte-at-a-time loop: slicing-by-8 (eight 256-entry tables, one 8-byte word
// per step; Kounavis & Berry, "A Systematic Approach to Building High
// Performance Software-Based CRC Generators", ISCC 2005), and the last 1..7
// bytes folded as one word too, so a key of n bytes takes ceil(n / 8) steps
// with no per-byte loop.
//
// Why: zlib 1.2.13 hashes inputs under 47 bytes one byte per table lookup,
// a dependency chain of a load and a shift per byte; the ring profiles that
// hash keys with CRC-32 (nginx, nginx-hash, groupcache, pecl-memcache) spend
// most of a lookup there. zlib stays the reference: tests/core/crc32_test.cc
// compares both on every length 0..300 and random bytes.
//
// Pure, thread-safe, allocation-free. Stable: the results are CRC-32's.
#ifndef CHSIM_CRC32_H_
#define CHSIM_CRC32_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace chsim {

// Equals zlib's crc32(0, data, len).
uint32_t Crc32(const void* data, size_t len) noexcept;

// CRC-32 of the bytes with each byte <= 0x20 (compared unsigned) read as '_'
// (0x5f): PHP memcache's key as it sends it (HashMemcacheCrc32 truncates to
// 250 bytes first).
uint32_t Crc32SpacesAsUnderscore(const void* data, size_t len) noexcept;

// out[i] = Crc32(keys[i]), and = Crc32SpacesAsUnderscore of at most the first
// max_len bytes of keys[i]: the same loops inline, no call per key.
// REQUIRES: out.size() >= keys.size().
void Crc32Batch(std::span<const std::string_view> keys, std::span<uint32_t> out) noexcept;
void Crc32SpacesAsUnderscoreBatch(std::span<const std::string_view> keys, size_t max_len,
                                  std::span<uint32_t> out) noexcept;

}  // namespace chsim

#endif  // CHSIM_CRC32_H_
