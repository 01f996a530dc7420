// power's first stage for AVX2: 4 lanes per 256-bit vector (64-bit multiplies
// built from vpmuludq). Built with -mavx2 (core/CMakeLists.txt); called only
// when the CPU has AVX2 and CHSIM_SIMD allows it (power.cc).
#include "power_lanes.h"

namespace chsim::algorithms_internal {

void PowerFirstStageAvx2(const uint64_t* hashes, size_t count, uint32_t mask, uint64_t* k,
                         uint32_t* f) noexcept {
  typedef uint64_t V4 __attribute__((vector_size(32)));
  PowerFirstStageLanes<V4>(hashes, count, mask, k, f);
}

}  // namespace chsim::algorithms_internal
