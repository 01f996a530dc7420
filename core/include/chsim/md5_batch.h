// SPDX-License-Identifier: Apache-2.0
// MD5 of many short keys at once: a multi-buffer SIMD MD5 (each vector lane
// hashes its own message; one 64-byte block per message), chosen at run time
// among AVX-512 (32 messages per call), AVX2 (16) and a portable kernel built
// with the compiler's baseline vectors (8; SSE2 on x86-64, NEON on arm64,
// plain scalar code elsewhere): the widest the CPU has, at most the level the
// environment variable CHSIM_SIMD names (chsim/simd.h). Keys of 56 bytes or more need more than one
// block and go through OpenSSL's MD5(), which stays the reference.
//
// Why: one MD5 of a short key is a 64-step dependency chain; lanes run
// independent chains side by side, several times the throughput
// (docs/design.md#hashing-cost has the figures). A Ketama lookup needs only
// digest bytes 0..3.
//
// Results equal OpenSSL's MD5 bit for bit on every length (tests/core/
// md5_batch_test.cc: lengths 0..1000, millions of random inputs, every ISA the
// CPU has). Thread-safe and allocation-free, except SetMd5BatchIsa, which must
// not race with other calls. Stable: the results are MD5's.
#ifndef CHSIM_MD5_BATCH_H_
#define CHSIM_MD5_BATCH_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace chsim {

// Longest key hashed in one block (55 bytes + 0x80 + 8 length bytes = 64).
inline constexpr size_t kMd5OneBlockMaxLen = 55;

// out[i] = digest bytes 0..3 of MD5(keys[i]) as a little-endian uint32 (what
// HashMd5 returns: libketama's key hash). REQUIRES: out.size() >= keys.size().
void Md5BatchLe32(std::span<const std::string_view> keys, std::span<uint32_t> out) noexcept;

// digests[i] = MD5(keys[i]). REQUIRES: digests.size() >= keys.size().
void Md5BatchDigests(std::span<const std::string_view> keys,
                     std::span<std::array<uint8_t, 16>> digests) noexcept;

// One key, scalar: an own one-block MD5 when len <= kMd5OneBlockMaxLen (about
// 15-25% faster than OpenSSL's MD5(): no context, no buffering), else
// OpenSSL. Equals HashMd5.
uint32_t Md5Le32(const void* data, size_t len) noexcept;

// The kernel in use: "avx512", "avx2" or "portable".
const char* Md5BatchIsa() noexcept;

// Forces a kernel (tests, benchmarks). Returns false and
// changes nothing when the name is unknown or the CPU lacks the ISA.
bool SetMd5BatchIsa(std::string_view isa) noexcept;

}  // namespace chsim

#endif  // CHSIM_MD5_BATCH_H_
