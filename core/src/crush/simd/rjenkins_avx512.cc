// SPDX-License-Identifier: Apache-2.0
// hash32_3 over many items for AVX-512: 16 lanes per 512-bit vector. Built with -mavx512f
// (core/CMakeLists.txt); called only when the CPU has it and CHSIM_SIMD
// allows it (crush/hash.cc).
#include "../rjenkins.h"

CHSIM_CRUSH_DEFINE_HASH_LANES(Avx512, 64)
