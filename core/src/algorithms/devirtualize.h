// SPDX-License-Identifier: Apache-2.0
// LocateEach: the batched lookup of a `final` algorithm class, with every
// per-key call bound statically (T::Locate), so the compiler inlines the
// lookup into the loop: one virtual call per batch instead of one per key.
// An algorithm's LocateBatch override is then one line:
//   void LocateBatch(std::span<const uint64_t> h, std::span<uint32_t> out)
//       const noexcept override { LocateEach(*this, h, out); }
// (bench/lookup_benchmark.cc's interface/* rows measure what this saves.)
//
// LocateInGroups: the same for a lookup written in two halves, Start (the
// arithmetic up to its first memory read, which it prefetches) and Finish
// (the reads and what depends on them), run a group of keys at a time: the
// group's reads are in flight together instead of one after the other, and
// a mispredicted branch in one key's Finish no longer discards the next
// keys' arithmetic. Locate is then Finish(Start(h)).
#ifndef CHSIM_CORE_SRC_ALGORITHMS_DEVIRTUALIZE_H_
#define CHSIM_CORE_SRC_ALGORITHMS_DEVIRTUALIZE_H_

#include <algorithm>
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

// out[i] = a.T::Finish(a.T::Start(hashes[i])), the Starts of up to kGroup keys
// before their Finishes. REQUIRES: out.size() >= hashes.size().
template <class T, size_t kGroup = 16>
inline void LocateInGroups(const T& a, std::span<const uint64_t> hashes,
                           std::span<uint32_t> out) noexcept {
  decltype(a.T::Start(uint64_t{})) started[kGroup];
  const uint64_t* h = hashes.data();
  uint32_t* o = out.data();
  for (size_t i = 0; i < hashes.size(); i += kGroup) {
    const size_t m = std::min(kGroup, hashes.size() - i);
    for (size_t j = 0; j < m; ++j) started[j] = a.T::Start(h[i + j]);
    for (size_t j = 0; j < m; ++j) o[i + j] = a.T::Finish(started[j]);
  }
}

}  // namespace chsim::algorithms_internal

#endif  // CHSIM_CORE_SRC_ALGORITHMS_DEVIRTUALIZE_H_
