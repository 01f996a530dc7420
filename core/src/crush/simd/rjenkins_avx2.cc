// SPDX-License-Identifier: Apache-2.0
// hash32_3 over many items for AVX2: 8 lanes per 256-bit vector. Built with -mavx2
// (core/CMakeLists.txt); called only when the CPU has it and CHSIM_SIMD
// allows it (crush/hash.cc).
#include "../rjenkins.h"

CHSIM_CRUSH_DEFINE_HASH_LANES(Avx2, 32)
