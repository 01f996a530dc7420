// SPDX-License-Identifier: Apache-2.0
// CHSIM_SIMD: the cap on core's run-time SIMD dispatch (chsim/simd.h).
#include "chsim/simd.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace chsim {
namespace {

struct Choice {
  SimdLevel level = SimdLevel::kPortable;
  char error[256] = {};
};

SimdLevel Widest() noexcept {
  for (SimdLevel l : {SimdLevel::kAvx512, SimdLevel::kAvx2}) {
    if (CpuHasSimdLevel(l)) return l;
  }
  return SimdLevel::kPortable;
}

Choice Decide() noexcept {
  Choice c;
  const char* want = std::getenv(kSimdEnvVar);
  if (want == nullptr || *want == '\0' || std::strcmp(want, "auto") == 0) {
    c.level = Widest();
    return c;
  }
  for (SimdLevel l : {SimdLevel::kPortable, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
    if (std::strcmp(want, SimdLevelName(l)) != 0) continue;
    if (CpuHasSimdLevel(l)) {
      c.level = l;
    } else {
      std::snprintf(c.error, sizeof c.error,
                    "%s=%s: this CPU cannot run %s code (its widest level is %s); accepted: "
                    "auto, or a level up to %s",
                    kSimdEnvVar, want, want, SimdLevelName(Widest()), SimdLevelName(Widest()));
    }
    return c;
  }
  std::snprintf(c.error, sizeof c.error,
                "%s='%.64s': unknown SIMD level; accepted: auto, portable, avx2, avx512",
                kSimdEnvVar, want);
  return c;
}

const Choice& TheChoice() noexcept {
  static const Choice choice = Decide();
  return choice;
}

}  // namespace

const char* SimdLevelName(SimdLevel level) noexcept {
  switch (level) {
    case SimdLevel::kAvx512:
      return "avx512";
    case SimdLevel::kAvx2:
      return "avx2";
    case SimdLevel::kPortable:
      break;
  }
  return "portable";
}

bool CpuHasSimdLevel(SimdLevel level) noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (level == SimdLevel::kAvx512) return __builtin_cpu_supports("avx512f");
  if (level == SimdLevel::kAvx2) return __builtin_cpu_supports("avx2");
#endif
  return level == SimdLevel::kPortable;
}

SimdLevel MaxSimdLevel() noexcept { return TheChoice().level; }

const char* SimdOverrideError() noexcept {
  const Choice& c = TheChoice();
  return c.error[0] != '\0' ? c.error : nullptr;
}

}  // namespace chsim
