// SPDX-License-Identifier: Apache-2.0
// The SIMD level that core's run-time dispatchers may use, and its override.
//
// Each dispatcher in core (md5_batch.h's MD5; sha256_batch.h's SHA-NI, off at
// "portable") picks at start-up the widest instruction set that the CPU has
// among those it was built with. The environment variable CHSIM_SIMD caps that
// choice, so that instruction counts and timings compare between machines with
// and without AVX-512 (scripts/bench-gate sets it for every workload it counts):
//
//   CHSIM_SIMD=portable   the compiler's baseline vectors only (SSE2 on x86-64)
//   CHSIM_SIMD=avx2       AVX2 at most
//   CHSIM_SIMD=avx512     AVX-512F at most
//   unset, empty, "auto"  the widest the CPU has
//
// A level the CPU lacks, or an unknown value, is refused: SimdOverrideError()
// says why in one line, the dispatchers then take the portable path (never a
// wider one than asked), and chsim's programs (the CLI, the benchmarks, the
// gate's workloads) print the message and exit 2 before any work.
//
// The environment is read once, at the first call; thread-safe after that.
#ifndef CHSIM_SIMD_H_
#define CHSIM_SIMD_H_

#include <cstdint>

namespace chsim {

enum class SimdLevel : uint8_t { kPortable = 0, kAvx2 = 1, kAvx512 = 2 };

inline constexpr char kSimdEnvVar[] = "CHSIM_SIMD";

// "portable", "avx2" or "avx512".
const char* SimdLevelName(SimdLevel level) noexcept;

// Whether this CPU can run code of `level` (portable: always).
bool CpuHasSimdLevel(SimdLevel level) noexcept;

// The widest level a dispatcher may use: the CPU's widest, capped by
// CHSIM_SIMD; kPortable when CHSIM_SIMD is refused.
SimdLevel MaxSimdLevel() noexcept;

// Of a dispatcher's kernels, the one of the widest level MaxSimdLevel()
// allows (a null kernel: none for that level, try the next narrower);
// `avx512_dq`: the AVX-512 kernel also needs AVX512DQ (vpmullq).
template <class Fn>
Fn PickSimd(Fn portable, Fn avx2, Fn avx512, bool avx512_dq = false) noexcept {
  const SimdLevel level = MaxSimdLevel();
#if defined(__x86_64__) && defined(__GNUC__)
  if (avx512_dq && !__builtin_cpu_supports("avx512dq")) avx512 = nullptr;
#endif
  if (level >= SimdLevel::kAvx512 && avx512 != nullptr) return avx512;
  if (level >= SimdLevel::kAvx2 && avx2 != nullptr) return avx2;
  return portable;
}

// nullptr when CHSIM_SIMD is unset or valid; else one line naming the value,
// what is wrong and what is accepted.
const char* SimdOverrideError() noexcept;

}  // namespace chsim

#endif  // CHSIM_SIMD_H_
