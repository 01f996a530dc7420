// SPDX-License-Identifier: Apache-2.0
// Internal to core: xxHash64 and MurmurHash64A of a key of 8 to 31 bytes
// without a branch on its length, for HashBatch (chsim/hasher.h).
//
// Why: both hashes walk a key in 8-byte words, then a 4-byte word
// (xxHash64), then single bytes, so a key's length decides how many steps
// run; over keys of mixed lengths the predictor misses those loop exits, and
// each miss costs more than the hash. Here every step runs for every key,
// and a step the key does not have reads bytes of the key it already has
// and leaves the state as it was (a conditional move, not a branch): the
// same value, at a fixed cost per key, and keys overlap freely in the
// out-of-order window.
//
// Every read is inside the key (no over-read), hence the 8-byte minimum.
// Values equal the reference functions (hasher.cc: libxxhash's XXH64 and
// Appleby's MurmurHash64A) for every length taken; tests/core/
// hash_batch_test.cc and profile_map_search_test.cc compare them on lengths
// 0..300.
#ifndef CHSIM_CORE_SRC_HASH64_SHORT_H_
#define CHSIM_CORE_SRC_HASH64_SHORT_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace chsim::hash64_short {

// The key lengths the functions below take.
inline constexpr size_t kMinLen = 8, kMaxLen = 31;

inline uint64_t Le64(const uint8_t* p) noexcept {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

inline uint32_t Le32(const uint8_t* p) noexcept {
  uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}

// The offset of a read of `width` bytes at `off`, moved back inside the key
// when the step does not exist for it (its result is then not taken).
// REQUIRES: len >= width.
inline size_t Clamp(size_t off, size_t width, size_t len) noexcept {
  return std::min(off, len - width);
}

// XXH64(p, len, 0) for kMinLen <= len <= kMaxLen: XXH64_finalize's steps
// (xxhash.h, Collet; the 0.8 format) after h = seed + PRIME64_5 + len.
inline uint64_t Xxh64(const uint8_t* p, size_t len) noexcept {
  constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull, kP2 = 0xC2B2AE3D27D4EB4Full;
  constexpr uint64_t kP3 = 0x165667B19E3779F9ull, kP4 = 0x85EBCA77C2B2AE63ull;
  constexpr uint64_t kP5 = 0x27D4EB2F165667C5ull;
  uint64_t h = kP5 + len;
  const size_t words = len / 8;
  for (size_t j = 0; j < 3; ++j) {  // 8-byte words: XXH64_round(0, word)
    const uint64_t k = std::rotl(Le64(p + Clamp(8 * j, 8, len)) * kP2, 31) * kP1;
    const uint64_t next = std::rotl(h ^ k, 27) * kP1 + kP4;
    h = j < words ? next : h;
  }
  const bool half = (len & 4) != 0;  // a 4-byte word
  const uint64_t w = Le32(p + Clamp(8 * words, 4, len));
  const uint64_t after_half = std::rotl(h ^ w * kP1, 23) * kP2 + kP3;
  h = half ? after_half : h;
  const size_t rest = len & 3, first = len - rest;
  for (size_t j = 0; j < 3; ++j) {  // single bytes
    const uint64_t b = p[Clamp(first + j, 1, len)];
    const uint64_t next = std::rotl(h ^ b * kP5, 11) * kP1;
    h = j < rest ? next : h;
  }
  h = (h ^ h >> 33) * kP2;  // XXH64_avalanche
  h = (h ^ h >> 29) * kP3;
  return h ^ h >> 32;
}

// MurmurHash64A(p, len, seed) (Appleby, SMHasher MurmurHash2.cpp) for
// kMinLen <= len <= kMaxLen: the tail is the last 8 bytes of the key shifted down
// to its last len % 8.
inline uint64_t Murmur64A(const uint8_t* p, size_t len, uint64_t seed) noexcept {
  constexpr uint64_t kM = 0xc6a4a7935bd1e995ull;
  constexpr int kR = 47;
  uint64_t h = seed ^ (len * kM);
  const size_t words = len / 8;
  for (size_t j = 0; j < 3; ++j) {
    uint64_t k = Le64(p + Clamp(8 * j, 8, len)) * kM;
    k = (k ^ k >> kR) * kM;
    const uint64_t next = (h ^ k) * kM;
    h = j < words ? next : h;
  }
  const size_t rest = len & 7;
  // (x >> 1) >> (63 - 8 x rest): no shift by 64 when rest = 0 (unused then).
  const uint64_t t = (Le64(p + len - 8) >> 1) >> (63 - 8 * rest);
  const uint64_t with_tail = (h ^ t) * kM;
  h = rest != 0 ? with_tail : h;
  h = (h ^ h >> kR) * kM;
  return h ^ h >> kR;
}

}  // namespace chsim::hash64_short

#endif  // CHSIM_CORE_SRC_HASH64_SHORT_H_
