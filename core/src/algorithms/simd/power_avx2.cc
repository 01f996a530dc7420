// SPDX-License-Identifier: Apache-2.0
// power's first stage for AVX2: 4 lanes per 256-bit vector (64-bit multiplies
// built from vpmuludq). Built with -mavx2 (core/CMakeLists.txt); called only
// when the CPU has AVX2 and CHSIM_SIMD allows it (power.cc).
#include "power_lanes.h"

CHSIM_POWER_DEFINE_FIRST_STAGE(Avx2, 32)
