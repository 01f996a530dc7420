// SPDX-License-Identifier: Apache-2.0
// HashBatch (chsim/hasher.h): a hasher over a block of keys, the same values
// as key by key.
#include <algorithm>
#include <array>

#include "chsim/crc32.h"
#include "chsim/hasher.h"
#include "chsim/md5_batch.h"
#include "chsim/sha256_batch.h"
#include "haproxy_full_hash.h"
#include "hash64_short.h"

// XXH3 inlined from the header of the same libxxhash (XXH_INLINE_ALL): for
// short keys the call into the shared library costs as much as the hash
// (docs/design.md#hashing-cost has the figures). Same function, same answers.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace chsim {
namespace {

template <typename F>
void EachKey(std::span<const std::string_view> keys, std::span<uint64_t> out, F f) noexcept {
  for (size_t i = 0; i < keys.size(); ++i) out[i] = f(keys[i].data(), keys[i].size());
}

// h = h * M + byte over the bytes (sdbm: M = 65599 from 0; djb2: M = 33 from
// 5381), 8 bytes a step as h * M^8 + sum of byte_k * M^(7 - k), equal mod
// 2^32: the products are independent, so a step is one multiply deep where
// the byte-by-byte form is eight. The last r < 8 bytes likewise with M^r.
template <uint32_t M>
uint32_t Polynomial(uint32_t h, const void* data, size_t len) noexcept {
  static constexpr std::array<uint32_t, 9> kPow = [] {
    std::array<uint32_t, 9> a{1};
    for (size_t i = 1; i < a.size(); ++i) a[i] = a[i - 1] * M;
    return a;
  }();
  const auto* p = static_cast<const uint8_t*>(data);
  for (; len >= 8; p += 8, len -= 8) {
    h = h * kPow[8] + uint32_t{p[0]} * kPow[7] + uint32_t{p[1]} * kPow[6] +
        uint32_t{p[2]} * kPow[5] + uint32_t{p[3]} * kPow[4] + uint32_t{p[4]} * kPow[3] +
        uint32_t{p[5]} * kPow[2] + uint32_t{p[6]} * kPow[1] + uint32_t{p[7]};
  }
  h *= kPow[len];
  for (size_t k = 0; k < len; ++k) h += uint32_t{p[k]} * kPow[len - 1 - k];
  return h;
}

// out[i] = finish(CRC-32 of keys[i]), or with memcache_key of the key as PHP
// memcache sends it (at most 250 bytes, bytes <= 0x20 as '_').
template <typename Finish>
void Crc32Then(std::span<const std::string_view> keys, std::span<uint64_t> out, Finish finish,
               bool memcache_key = false) noexcept {
  constexpr size_t kStep = 256;
  std::array<uint32_t, kStep> c;
  for (size_t i = 0; i < keys.size(); i += kStep) {
    const size_t m = std::min(kStep, keys.size() - i);
    if (memcache_key)
      Crc32SpacesAsUnderscoreBatch(keys.subspan(i, m), 250, c);
    else
      Crc32Batch(keys.subspan(i, m), c);
    for (size_t j = 0; j < m; ++j) out[i + j] = finish(c[j]);
  }
}

// Murmur64A(key, seed) of each key: without branches on its length from
// kMinLen to kMaxLen bytes (hash64_short.h), the reference otherwise.
void Murmur64AKeys(std::span<const std::string_view> keys, std::span<uint64_t> out,
                   uint64_t seed) noexcept {
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto* p = reinterpret_cast<const uint8_t*>(keys[i].data());
    const size_t n = keys[i].size();
    out[i] = n >= hash64_short::kMinLen && n <= hash64_short::kMaxLen
                 ? hash64_short::Murmur64A(p, n, seed)
                 : Murmur64A(p, n, seed);
  }
}

// A faster route to the value of a hasher whose reference function (the
// registry's, hasher.cc) runs byte by byte; false when there is none.
bool HashBatchFast(HashFn fn, std::span<const std::string_view> keys,
                   std::span<uint64_t> out) noexcept {
  using U = uint64_t;
  if (fn == &HashCrc32) {
    Crc32Then(keys, out, [](uint32_t c) -> U { return c; });
  } else if (fn == &HashCrcSpy) {
    Crc32Then(keys, out, [](uint32_t c) -> U { return (c >> 16) & 0x7fff; });
  } else if (fn == &HashCrc32Avalanche) {
    Crc32Then(keys, out, [](uint32_t c) -> U { return haproxy::FullHash(c); });
  } else if (fn == &HashMemcacheCrc32) {
    Crc32Then(
        keys, out, [](uint32_t c) -> U { return c % 1024; }, /*memcache_key=*/true);
  } else if (fn == &HashSdbm) {
    EachKey(keys, out, [](const void* d, size_t n) -> U { return Polynomial<65599>(0, d, n); });
  } else if (fn == &HashSdbmAvalanche) {
    EachKey(keys, out, [](const void* d, size_t n) -> U {
      return haproxy::FullHash(Polynomial<65599>(0, d, n));
    });
  } else if (fn == &HashDjb2) {
    EachKey(keys, out, [](const void* d, size_t n) -> U { return Polynomial<33>(5381, d, n); });
  } else if (fn == &HashDjb2Avalanche) {
    EachKey(keys, out, [](const void* d, size_t n) -> U {
      return haproxy::FullHash(Polynomial<33>(5381, d, n));
    });
  } else {
    return false;
  }
  return true;
}

}  // namespace

void HashBatch(const Hasher& hasher, std::span<const std::string_view> keys,
               std::span<uint64_t> out) noexcept {
  constexpr size_t kStep = 256;  // scratch on the stack: 1 KiB (md5) / 4 KiB (md5_64)
  if (hasher.fn == &HashMd5) {
    std::array<uint32_t, kStep> h;
    for (size_t i = 0; i < keys.size(); i += kStep) {
      const size_t m = std::min(kStep, keys.size() - i);
      Md5BatchLe32(keys.subspan(i, m), h);
      for (size_t j = 0; j < m; ++j) out[i + j] = h[j];
    }
    return;
  }
  if (hasher.fn == &HashMd5_64) {
    std::array<std::array<uint8_t, 16>, kStep> d;
    for (size_t i = 0; i < keys.size(); i += kStep) {
      const size_t m = std::min(kStep, keys.size() - i);
      Md5BatchDigests(keys.subspan(i, m), d);
      for (size_t j = 0; j < m; ++j) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; --b) v = v << 8 | d[j][b];  // bytes 0..7, little-endian
        out[i + j] = v;
      }
    }
    return;
  }
  if (hasher.fn == &HashSha256Last32) {
    std::array<uint32_t, kStep> h;
    for (size_t i = 0; i < keys.size(); i += kStep) {
      const size_t m = std::min(kStep, keys.size() - i);
      Sha256BatchLast32(keys.subspan(i, m), h);
      for (size_t j = 0; j < m; ++j) out[i + j] = h[j];
    }
    return;
  }
  if (hasher.fn == &HashXxh3) {
    for (size_t i = 0; i < keys.size(); ++i) out[i] = XXH3_64bits(keys[i].data(), keys[i].size());
    return;
  }
  if (hasher.fn == &HashXxh64) {
    EachKey(keys, out, [](const void* d, size_t n) -> uint64_t {
      const auto* p = static_cast<const uint8_t*>(d);
      return n >= hash64_short::kMinLen && n <= hash64_short::kMaxLen ? hash64_short::Xxh64(p, n)
                                                                      : XXH64(d, n, 0);
    });
    return;
  }
  if (hasher.fn == &HashJedisMurmur) return Murmur64AKeys(keys, out, 0x1234ABCD);
  if (hasher.fn == &HashEnvoyMurmur2) return Murmur64AKeys(keys, out, 0xc70f6907);
  const HashFn fn = hasher.fn;
  if (HashBatchFast(fn, keys, out)) return;
  for (size_t i = 0; i < keys.size(); ++i) out[i] = fn(keys[i].data(), keys[i].size());
}

}  // namespace chsim
