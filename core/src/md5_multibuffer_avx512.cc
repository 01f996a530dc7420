// SPDX-License-Identifier: Apache-2.0
// Multi-buffer MD5 kernels for AVX-512: 16 lanes per 512-bit vector, 2 vectors
// interleaved (32 messages per call); rotates compile to vprold and the
// auxiliary functions to vpternlogd. Built with -mavx512f (core/CMakeLists.txt);
// called only when __builtin_cpu_supports("avx512f") (md5_multibuffer.cc).
#include "md5_multibuffer_impl.h"

namespace {
typedef uint32_t V16 __attribute__((vector_size(64)));
}  // namespace

CHSIM_MD5_DEFINE_KERNELS(Avx512, V16, 2, 16)
