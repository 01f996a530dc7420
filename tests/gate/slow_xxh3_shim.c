// SPDX-License-Identifier: Apache-2.0
/* A stand-in for a library update that makes a library slower: preloaded
 * (LD_PRELOAD) by gate_selftest.py, it interposes libxxhash's XXH3_64bits,
 * spends about 200 extra instructions per call, then returns the real hash.
 * The gate must pass with the same figure for chsim's own code. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t (*xxh3_fn)(const void*, size_t);

uint64_t XXH3_64bits(const void* data, size_t len) {
  static xxh3_fn real;
  if (!real) real = (xxh3_fn)dlsym(RTLD_NEXT, "XXH3_64bits");
  volatile uint64_t spin = 0;
  for (int i = 0; i < 50; ++i) spin += (uint64_t)i;
  return real(data, len) + (spin - spin);
}
