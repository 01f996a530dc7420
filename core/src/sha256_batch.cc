// SPDX-License-Identifier: Apache-2.0
// Batched Varnish key hash (chsim/sha256_batch.h): pads keys of up to 55
// bytes into one block each, four at a time, for the SHA-NI kernel chosen at
// start-up; longer keys, and every key without SHA-NI, go to OpenSSL
// (HashSha256Last32).
#include "chsim/sha256_batch.h"

#include <array>
#include <atomic>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "chsim/hasher.h"
#include "chsim/simd.h"

namespace chsim {
namespace sha256mb {
#if defined(__x86_64__) || defined(__i386__)
#define CHSIM_SHA256MB_X86 1
void NiLastWord4(const uint8_t (*blocks)[64], uint32_t* out) noexcept;
#endif
}  // namespace sha256mb

namespace {

// SHA-NI is CPUID leaf 7, EBX bit 29 (Intel SDM vol. 2A, CPUID); read directly, since
// __builtin_cpu_supports("sha") is GCC's only (clang 14 has no "sha" feature string).
bool CpuHasShaNi() noexcept {
#ifdef CHSIM_SHA256MB_X86
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  __builtin_cpu_init();
  return (ebx & (1u << 29)) != 0 && __builtin_cpu_supports("sse4.1") &&
         MaxSimdLevel() != SimdLevel::kPortable;
#else
  return false;
#endif
}

std::atomic<bool>& UseNi() noexcept {
  static std::atomic<bool> use{CpuHasShaNi()};
  return use;
}

#ifdef CHSIM_SHA256MB_X86
constexpr size_t kLanes = 4;

uint32_t Le32OfHWord(uint32_t h7) noexcept {  // digest bytes 28..31 (h7 big-endian), read LE
  return __builtin_bswap32(h7);
}

// The key padded as SHA-256 pads a one-block message.
void Pad(std::string_view key, uint8_t* block) noexcept {
  std::memset(block, 0, 64);
  std::memcpy(block, key.data(), key.size());
  block[key.size()] = 0x80;
  const uint64_t bits = uint64_t{key.size()} * 8;
  for (int b = 0; b < 8; ++b) block[63 - b] = static_cast<uint8_t>(bits >> (8 * b));
}

void NiBatch(std::span<const std::string_view> keys, std::span<uint32_t> out) noexcept {
  alignas(16) uint8_t blocks[kLanes][64];
  size_t lane_key[kLanes];
  size_t filled = 0;
  auto flush = [&] {
    uint32_t h[kLanes];
    sha256mb::NiLastWord4(blocks, h);
    for (size_t l = 0; l < filled; ++l) out[lane_key[l]] = Le32OfHWord(h[l]);
    filled = 0;
  };
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].size() > kSha256OneBlockMaxLen) {
      out[i] = static_cast<uint32_t>(HashSha256Last32(keys[i].data(), keys[i].size()));
      continue;
    }
    Pad(keys[i], blocks[filled]);
    lane_key[filled++] = i;
    if (filled == kLanes) flush();
  }
  if (filled == 0) return;
  for (size_t l = filled; l < kLanes; ++l) std::memset(blocks[l], 0, 64);  // idle lanes
  flush();
}
#endif

}  // namespace

void Sha256BatchLast32(std::span<const std::string_view> keys, std::span<uint32_t> out) noexcept {
#ifdef CHSIM_SHA256MB_X86
  if (UseNi().load(std::memory_order_relaxed)) {
    NiBatch(keys, out);
    return;
  }
#endif
  for (size_t i = 0; i < keys.size(); ++i) {
    out[i] = static_cast<uint32_t>(HashSha256Last32(keys[i].data(), keys[i].size()));
  }
}

const char* Sha256BatchIsa() noexcept {
  return UseNi().load(std::memory_order_relaxed) ? "sha-ni" : "openssl";
}

bool SetSha256BatchIsa(std::string_view isa) noexcept {
  if (isa == "openssl") {
    UseNi().store(false);
    return true;
  }
  if (isa == "sha-ni" && CpuHasShaNi()) {
    UseNi().store(true);
    return true;
  }
  return false;
}

}  // namespace chsim
