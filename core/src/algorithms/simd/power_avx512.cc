// power's first stage for AVX-512: 8 lanes per 512-bit vector, 64-bit
// multiplies in one vpmullq (AVX512DQ). Built with -mavx512f -mavx512dq
// (core/CMakeLists.txt); called only when the CPU has both and CHSIM_SIMD
// allows AVX-512 (power.cc).
#include "power_lanes.h"

namespace chsim::algorithms_internal {

void PowerFirstStageAvx512(const uint64_t* hashes, size_t count, uint32_t mask, uint64_t* k,
                           uint32_t* f) noexcept {
  typedef uint64_t V8 __attribute__((vector_size(64)));
  PowerFirstStageLanes<V8>(hashes, count, mask, k, f);
}

}  // namespace chsim::algorithms_internal
