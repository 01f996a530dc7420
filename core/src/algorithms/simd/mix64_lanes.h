// SPDX-License-Identifier: Apache-2.0
// Internal: chsim/splitmix.h's Mix64 over every lane of a GCC vector of
// uint64_t (or over one uint64_t), for the kernels built once per ISA
// (power_lanes.h, rendezvous_lanes.h). Internal linkage and no standard
// header with inline functions, as md5_multibuffer_impl.h: code built for
// one ISA can never be picked by the linker for another.
#ifndef CHSIM_CORE_SRC_ALGORITHMS_SIMD_MIX64_LANES_H_
#define CHSIM_CORE_SRC_ALGORITHMS_SIMD_MIX64_LANES_H_

namespace {

// Mix64(x) in every lane (Steele, Lea & Flood's SplitMix64 finalizer).
template <typename V>
inline V Mix64Lanes(V x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

#endif  // CHSIM_CORE_SRC_ALGORITHMS_SIMD_MIX64_LANES_H_
