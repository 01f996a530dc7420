// SPDX-License-Identifier: Apache-2.0
// Hasher: a named function from key bytes to a 64-bit value (32-bit hashes are
// zero-extended), and the registry of every hasher chsim offers.
//
// Each hasher is pure, thread-safe and allocation-free. Its output for given
// bytes is stable across versions and platforms: the compatibility profiles and
// the golden files depend on it. Every hasher has known-answer tests against a
// published vector or its reference library (tests/core/hasher_test.cc and
// tests/compat/golden/hashers.tsv, generated from libhashkit, zlib, libxxhash,
// OpenSSL and spymemcached).
#ifndef CHSIM_HASHER_H_
#define CHSIM_HASHER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace chsim {

using HashFn = uint64_t (*)(const void* data, size_t len) noexcept;

struct Hasher {
  std::string_view name;         // registry key, e.g. "md5"
  std::string_view description;  // one line, for `chsim list`
  HashFn fn;
  int bits;  // significant bits of the output: 10, 15, 32 or 64

  uint64_t operator()(std::string_view key) const noexcept { return fn(key.data(), key.size()); }
  uint64_t operator()(const void* data, size_t len) const noexcept { return fn(data, len); }
};

// Every registered hasher, in a fixed order.
std::span<const Hasher> AllHashers() noexcept;

// Returns nullptr when no hasher has that name.
const Hasher* FindHasher(std::string_view name) noexcept;

// Like FindHasher, but throws std::invalid_argument naming the valid hashers.
const Hasher& GetHasher(std::string_view name);

// out[i] = hasher(keys[i]) for every i: the same values, faster for blocks of
// keys: md5 and md5_64 by multi-buffer SIMD MD5 under 56 bytes (md5_batch.h), xxh3 inline, the
// CRC-32 hashers by slicing-by-8 (crc32.h), sdbm and djb2 (and their avalanche) 8 bytes a step,
// xxh64, jedis_murmur and envoy_murmur2 without branches on the length of 8-31-byte keys;
// the others key by key. REQUIRES: out.size() >= keys.size().
void HashBatch(const Hasher& hasher, std::span<const std::string_view> keys,
               std::span<uint64_t> out) noexcept;

// Individual hash functions, usable without the registry.
uint64_t HashMd5(const void* data, size_t len) noexcept;     // LE32 of MD5 bytes 0..3
uint64_t HashMd5_64(const void* data, size_t len) noexcept;  // LE64 of MD5 bytes 0..7
uint64_t HashCrc32(const void* data, size_t len) noexcept;   // zlib crc32
uint64_t HashCrcSpy(const void* data, size_t len) noexcept;  // (crc32 >> 16) & 0x7fff
uint64_t HashFnv1_32(const void* data, size_t len) noexcept;
uint64_t HashFnv1a_32(const void* data, size_t len) noexcept;
uint64_t HashFnv1_64(const void* data, size_t len) noexcept;
uint64_t HashFnv1a_64(const void* data, size_t len) noexcept;
uint64_t HashOneAtATime(const void* data, size_t len) noexcept;  // Jenkins, bytes unsigned
// libhashkit's hashkit_one_at_a_time: bytes read through `char` (signed on
// x86), so bytes >= 0x80 enter sign-extended; differs from Jenkins on them.
uint64_t HashHashkitOneAtATime(const void* data, size_t len) noexcept;
uint64_t HashMurmur3_32(const void* data, size_t len) noexcept;  // seed 0
uint64_t HashXxh32(const void* data, size_t len) noexcept;       // seed 0
uint64_t HashXxh64(const void* data, size_t len) noexcept;       // seed 0
uint64_t HashXxh3(const void* data, size_t len) noexcept;        // XXH3_64bits
// MurmurHash64A from `seed` (Appleby, SMHasher MurmurHash2.cpp, public
// domain): the 64-bit MurmurHash2 of Jedis (MurmurHash.hash64A) and of Envoy
// (MurmurHash::murmurHash2, the algorithm of libstdc++'s _Hash_bytes).
uint64_t Murmur64A(const void* data, size_t len, uint64_t seed) noexcept;
// Jedis Hashing.MURMUR_HASH: Murmur64A with seed 0x1234ABCD.
uint64_t HashJedisMurmur(const void* data, size_t len) noexcept;
// Envoy's MurmurHash::murmurHash2 with STD_HASH_SEED 0xc70f6907 (ring_hash's
// hash_function MURMUR_HASH_2).
uint64_t HashEnvoyMurmur2(const void* data, size_t len) noexcept;
// Java's String.hashCode() of the key decoded from UTF-8, as unsigned 32 bits.
uint64_t HashJavaString(const void* data, size_t len) noexcept;
// spymemcached's FNV variants: over the UTF-16 code units of the key decoded
// from UTF-8, in 64-bit arithmetic, truncated to the low 32 bits.
uint64_t HashSpyFnv1_32(const void* data, size_t len) noexcept;
uint64_t HashSpyFnv1a_32(const void* data, size_t len) noexcept;
uint64_t HashSpyFnv1_64(const void* data, size_t len) noexcept;
uint64_t HashSpyFnv1a_64(const void* data, size_t len) noexcept;
// SHA-256, digest bytes 28..31 as a little-endian uint32: Varnish's
// VRT_HashStrands32 (the shard director's key and ring point hash).
uint64_t HashSha256Last32(const void* data, size_t len) noexcept;
// Ceph's ceph_str_hash_rjenkins (Jenkins' lookup2 over the bytes): the hash
// of an object's name before Ceph maps it to a placement group
// (chsim/crush.h).
uint64_t HashCephRjenkins(const void* data, size_t len) noexcept;
// HAProxy 2.6's key hashes (src/hash.c): sdbm, djb2 and wt6 over bytes, and
// each of them or CRC-32 followed by its avalanche, HaproxyFullHash.
uint64_t HashSdbm(const void* data, size_t len) noexcept;
uint64_t HashDjb2(const void* data, size_t len) noexcept;
uint64_t HashWt6(const void* data, size_t len) noexcept;
uint64_t HashSdbmAvalanche(const void* data, size_t len) noexcept;
uint64_t HashDjb2Avalanche(const void* data, size_t len) noexcept;
uint64_t HashWt6Avalanche(const void* data, size_t len) noexcept;
uint64_t HashCrc32Avalanche(const void* data, size_t len) noexcept;
// PHP memcache's (PECL memcache 8) bucket of a key under its consistent
// strategy: the key as it sends it (at most 250 bytes, bytes <= 0x20 as '_')
// hashed with CRC-32 (memcache.hash_function=crc32, its default) or FNV-1a
// 32 over bytes read as signed char (fnv), mod 1024.
uint64_t HashMemcacheCrc32(const void* data, size_t len) noexcept;
uint64_t HashMemcacheFnv(const void* data, size_t len) noexcept;
// HAProxy's full_hash (include/haproxy/intops.h): a bijection of 32-bit
// integers; the avalanche modifier and the consistent ring's points.
uint32_t HaproxyFullHash(uint32_t a) noexcept;

}  // namespace chsim

#endif  // CHSIM_HASHER_H_
