// SPDX-License-Identifier: Apache-2.0
// Multi-buffer MD5 kernels for AVX2: 8 lanes per 256-bit vector, 2 vectors
// interleaved (16 messages per call; 3 spill on the 16 ymm registers). Built
// with -mavx2 (core/CMakeLists.txt); called only when
// __builtin_cpu_supports("avx2") (md5_multibuffer.cc).
#include "md5_multibuffer_impl.h"

namespace {
typedef uint32_t V8 __attribute__((vector_size(32)));
}  // namespace

CHSIM_MD5_DEFINE_KERNELS(Avx2, V8, 2, 8)
