// SPDX-License-Identifier: Apache-2.0
// power's first stage for AVX-512: 8 lanes per 512-bit vector, 64-bit
// multiplies in one vpmullq (AVX512DQ). Built with -mavx512f -mavx512dq
// (core/CMakeLists.txt); called only when the CPU has both and CHSIM_SIMD
// allows AVX-512 (power.cc).
#include "power_lanes.h"

CHSIM_POWER_DEFINE_FIRST_STAGE(Avx512, 64)
