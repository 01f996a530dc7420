// SPDX-License-Identifier: Apache-2.0
// rendezvous's equal-weight Locate for AVX2: 4 lanes per 256-bit vector
// (64-bit multiplies built from vpmuludq). Built with -mavx2
// (core/CMakeLists.txt); called only when the CPU has AVX2 and CHSIM_SIMD
// allows it (rendezvous.cc).
#include "rendezvous_lanes.h"

CHSIM_RENDEZVOUS_DEFINE_BEST(Avx2, 32)
