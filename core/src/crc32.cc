// SPDX-License-Identifier: Apache-2.0
// Slicing-by-8 CRC-32 (chsim/crc32.h).
#include "chsim/crc32.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

namespace chsim {
namespace {

// table[j][b]: the CRC register after byte b followed by j zero bytes, from a
// zero register (table[0] is zlib's crc_table[0]).
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    t[0][b] = c;
  }
  for (size_t j = 1; j < 8; ++j) {
    for (size_t b = 0; b < 256; ++b) t[j][b] = (t[j - 1][b] >> 8) ^ t[0][t[j - 1][b] & 0xff];
  }
  return t;
}

alignas(64) constexpr Tables kTables = MakeTables();

// Eight bytes as a little-endian word (byte 0 lowest).
inline uint64_t Load64(const uint8_t* p) noexcept {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) {
    uint64_t r = 0;
    for (int i = 0; i < 8; ++i) r |= uint64_t{p[i]} << (8 * i);
    v = r;
  }
  return v;
}

inline uint64_t Load32(const uint8_t* p) noexcept {
  return uint64_t{p[0]} | uint64_t{p[1]} << 8 | uint64_t{p[2]} << 16 | uint64_t{p[3]} << 24;
}

// The register after the 8 bytes of x (register already xored in): byte k of
// x is followed by 7 - k more bytes.
inline uint32_t Fold(uint64_t x) noexcept {
  return kTables[7][x & 0xff] ^ kTables[6][(x >> 8) & 0xff] ^ kTables[5][(x >> 16) & 0xff] ^
         kTables[4][(x >> 24) & 0xff] ^ kTables[3][(x >> 32) & 0xff] ^
         kTables[2][(x >> 40) & 0xff] ^ kTables[1][(x >> 48) & 0xff] ^ kTables[0][x >> 56];
}

// The last r (1..7) bytes of a key of len bytes, little-endian in the low r
// bytes of the word, without reading outside the key.
inline uint64_t LoadTail(const uint8_t* p, size_t len, size_t r) noexcept {
  if (len >= 8) return Load64(p + len - 8) >> (64 - 8 * r);                 // len == r + 8k here
  if (len >= 4) return Load32(p) | Load32(p + len - 4) << (8 * (len - 4));  // overlap agrees
  return uint64_t{p[0]} | uint64_t{p[len / 2]} << (8 * (len / 2)) |
         uint64_t{p[len - 1]} << (8 * (len - 1));
}

// Each byte <= 0x20 (unsigned) becomes 0x5f, byte-parallel: the high bit of
// (b & 0x7f) + 0x5f is set iff b & 0x7f > 0x20 (no carry leaves a byte). Most
// keys have no such byte: they leave after the test.
inline uint64_t SpacesAsUnderscore(uint64_t w) noexcept {
  constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full, kHigh = 0x8080808080808080ull;
  constexpr uint64_t kUnderscores = 0x5f5f5f5f5f5f5f5full;
  const uint64_t above = (((w & kLow7) + kUnderscores) | w) & kHigh;  // b > 0x20
  if (above == kHigh) [[likely]]
    return w;
  const uint64_t low = above ^ kHigh;              // 0x80 where b <= 0x20
  const uint64_t mask = (low - (low >> 7)) | low;  // 0xff there
  return w ^ ((w ^ kUnderscores) & mask);
}

// CRC-32 of the bytes after map(word) of each 8-byte word (map acts on each
// byte alone and may turn a zero byte into another: the tail is masked after).
template <typename Map>
inline uint32_t Crc32Words(const uint8_t* p, size_t len, Map map) noexcept {
  uint32_t crc = 0xffffffffu;
  const size_t words = len / 8;
  for (size_t i = 0; i < words; ++i) crc = Fold(map(Load64(p + 8 * i)) ^ crc);
  const size_t r = len % 8;
  if (r != 0) {
    // r bytes after crc: the word with those bytes on top and zeros below
    // (zero bytes leave a zero register at zero), and what of crc the r bytes
    // do not shift out.
    const uint64_t tail = map(LoadTail(p, len, r)) & ((uint64_t{1} << (8 * r)) - 1);
    crc = Fold((tail ^ crc) << (64 - 8 * r)) ^ static_cast<uint32_t>(uint64_t{crc} >> (8 * r));
  }
  return ~crc;
}

}  // namespace

uint32_t Crc32(const void* data, size_t len) noexcept {
  return Crc32Words(static_cast<const uint8_t*>(data), len, [](uint64_t w) { return w; });
}

uint32_t Crc32SpacesAsUnderscore(const void* data, size_t len) noexcept {
  return Crc32Words(static_cast<const uint8_t*>(data), len, SpacesAsUnderscore);
}

void Crc32Batch(std::span<const std::string_view> keys, std::span<uint32_t> out) noexcept {
  for (size_t i = 0; i < keys.size(); ++i) {
    out[i] = Crc32Words(reinterpret_cast<const uint8_t*>(keys[i].data()), keys[i].size(),
                        [](uint64_t w) { return w; });
  }
}

void Crc32SpacesAsUnderscoreBatch(std::span<const std::string_view> keys, size_t max_len,
                                  std::span<uint32_t> out) noexcept {
  for (size_t i = 0; i < keys.size(); ++i) {
    out[i] = Crc32Words(reinterpret_cast<const uint8_t*>(keys[i].data()),
                        std::min(keys[i].size(), max_len), SpacesAsUnderscore);
  }
}

}  // namespace chsim
