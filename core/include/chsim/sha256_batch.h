// SPDX-License-Identifier: Apache-2.0
// Varnish's key hash (HashSha256Last32: SHA-256, digest bytes 28..31 as a
// little-endian uint32) of many short keys at once. Keys of up to 55 bytes
// (one SHA-256 block) go four at a time through a kernel built on the x86 SHA
// extensions (SHA-NI: sha256rnds2, sha256msg1/2), their four dependency chains
// interleaved; longer keys, and CPUs without SHA-NI, take OpenSSL's SHA-256,
// which stays the reference. The SHA-NI kernel is used when the CPU has
// SHA-NI and SSE4.1 and CHSIM_SIMD (chsim/simd.h) does not cap the level at
// "portable".
//
// Why: one SHA-256 block is a chain of 64 rounds, two per sha256rnds2, each
// waiting for the last; OpenSSL hashes one message at a time, and its context
// set-up, padding and clean-up cost nearly as much again for a short key.
//
// Results equal OpenSSL's on every length (tests/core/sha256_batch_test.cc:
// lengths 0..300 of random bytes on each kernel the CPU has). Thread-safe and
// allocation-free, except SetSha256BatchIsa, which must not race with other
// calls. Stable: the results are SHA-256's.
#ifndef CHSIM_SHA256_BATCH_H_
#define CHSIM_SHA256_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace chsim {

// Longest key hashed in one block (55 bytes + 0x80 + 8 length bytes = 64).
inline constexpr size_t kSha256OneBlockMaxLen = 55;

// out[i] = HashSha256Last32(keys[i]). REQUIRES: out.size() >= keys.size().
void Sha256BatchLast32(std::span<const std::string_view> keys, std::span<uint32_t> out) noexcept;

// The kernel in use: "sha-ni" or "openssl".
const char* Sha256BatchIsa() noexcept;

// Forces a kernel (tests, benchmarks). Returns false and changes nothing when
// the name is unknown or the CPU lacks the instructions.
bool SetSha256BatchIsa(std::string_view isa) noexcept;

}  // namespace chsim

#endif  // CHSIM_SHA256_BATCH_H_
