// SPDX-License-Identifier: Apache-2.0
// rendezvous's equal-weight Locate for AVX-512: 8 lanes per 512-bit vector,
// 64-bit multiplies in one vpmullq (AVX512DQ). Built with -mavx512f
// -mavx512dq (core/CMakeLists.txt); called only when the CPU has both and
// CHSIM_SIMD allows AVX-512 (rendezvous.cc).
#include "rendezvous_lanes.h"

CHSIM_RENDEZVOUS_DEFINE_BEST(Avx512, 64)
