// SPDX-License-Identifier: Apache-2.0
// Consistent hashing with bounded loads (Mirrokni, Thorup & Zadimoghaddam,
// SODA 2018): the capacity rule chsim's `bounded_load` algorithm applies.
//
// With m keys placed (the new one included) on n nodes and balance factor
// c > 1, no node may hold more than ceil(c * m / n) keys; a key walks the ring
// clockwise from its hash until it finds a node below that capacity. Since
// capacity only grows with m, max load <= BoundedLoadCapacity(c, m, n) holds
// after every placement.
#ifndef CHSIM_ALGORITHMS_BOUNDED_LOAD_H_
#define CHSIM_ALGORITHMS_BOUNDED_LOAD_H_

#include <cmath>
#include <cstdint>

namespace chsim {

// ceil(c * m / n), at least ceil(m / n). REQUIRES: n >= 1, c > 1.
inline uint64_t BoundedLoadCapacity(double c, uint64_t m, uint64_t n) noexcept {
  const uint64_t floor_cap = (m + n - 1) / n;
  const double cap = std::ceil(c * static_cast<double>(m) / static_cast<double>(n));
  const uint64_t v = static_cast<uint64_t>(cap);
  return v > floor_cap ? v : floor_cap;
}

}  // namespace chsim

#endif  // CHSIM_ALGORITHMS_BOUNDED_LOAD_H_
