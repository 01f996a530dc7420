// SPDX-License-Identifier: Apache-2.0
// LocateEach: the batched lookup of a `final` algorithm class, with every
// per-key call bound statically (T::Locate), so the compiler inlines the
// lookup into the loop: one virtual call per batch instead of one per key.
// An algorithm's LocateBatch override is then one line:
//   void LocateBatch(std::span<const uint64_t> h, std::span<uint32_t> out)
//       const noexcept override { LocateEach(*this, h, out); }
// (bench/lookup_benchmark.cc's interface/* rows measure what this saves.)
#ifndef CHSIM_CORE_SRC_ALGORITHMS_DEVIRTUALIZE_H_
#define CHSIM_CORE_SRC_ALGORITHMS_DEVIRTUALIZE_H_

#include <cstddef>
#include <cstdint>
#include <span>

namespace chsim::algorithms_internal {

// out[i] = a.T::Locate(hashes[i]). REQUIRES: out.size() >= hashes.size().
template <class T>
inline void LocateEach(const T& a, std::span<const uint64_t> hashes,
                       std::span<uint32_t> out) noexcept {
  const uint64_t* h = hashes.data();
  uint32_t* o = out.data();
  for (size_t i = 0; i < hashes.size(); ++i) o[i] = a.T::Locate(h[i]);
}

}  // namespace chsim::algorithms_internal

#endif  // CHSIM_CORE_SRC_ALGORITHMS_DEVIRTUALIZE_H_
