// SPDX-License-Identifier: Apache-2.0
// The hashes of CRUSH and of Ceph's object -> PG step (chsim/crush.h), from
// Bob Jenkins' 96-bit mix ("Hash functions", Dr. Dobb's Journal 1997, the
// lookup2 `mix`, rjenkins.h), in the arrangements Ceph's src/crush/hash.c (rjenkins1
// hash32_2 and hash32_3: seed 1315423911, constants 231232 and 1232) and
// src/common/ceph_hash.cc (ceph_str_hash_rjenkins: lookup2 over the bytes) use.
#include <cstring>

#include "chsim/crush.h"
#include "chsim/simd.h"
#include "draw.h"

namespace chsim::crush {
namespace {

uint32_t Le32(const unsigned char* p) noexcept {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace

uint32_t Hash32_2(uint32_t a, uint32_t b) noexcept {
  uint32_t h = kRjenkinsSeed ^ a ^ b, x = kRjenkinsX, y = kRjenkinsY;
  RjenkinsMix(a, b, h);
  RjenkinsMix(x, a, h);
  RjenkinsMix(b, y, h);
  return h;
}

uint32_t Hash32_3(uint32_t a, uint32_t b, uint32_t c) noexcept {
  return internal::Hash32_3(a, b, c);
}

uint32_t StrHashRjenkins(std::string_view name) noexcept {
  const auto* k = reinterpret_cast<const unsigned char*>(name.data());
  size_t len = name.size();
  uint32_t a = 0x9e3779b9u, b = a, c = 0;
  for (; len >= 12; k += 12, len -= 12) {
    a += Le32(k), b += Le32(k + 4), c += Le32(k + 8);
    RjenkinsMix(a, b, c);
  }
  // The tail: bytes 0..3 into a, 4..7 into b, 8..10 into c above its low
  // byte, which holds the length.
  unsigned char tail[12] = {};
  std::memcpy(tail, k, len);
  c += static_cast<uint32_t>(name.size());
  a += Le32(tail), b += Le32(tail + 4), c += Le32(tail + 8) << 8;
  RjenkinsMix(a, b, c);
  return c;
}

namespace internal {

void Hash32_3LanesAvx2(uint32_t, const int32_t*, size_t, uint32_t, uint32_t*) noexcept;
void Hash32_3LanesAvx512(uint32_t, const int32_t*, size_t, uint32_t, uint32_t*) noexcept;

}  // namespace internal

}  // namespace chsim::crush

CHSIM_CRUSH_DEFINE_HASH_LANES(Portable, 16)

namespace chsim::crush {

internal::Hash32_3LanesFn internal::Hash32_3LanesForCpu() noexcept {
#if defined(__x86_64__)
  static const Hash32_3LanesFn chosen =
      PickSimd<Hash32_3LanesFn>(Hash32_3LanesPortable, Hash32_3LanesAvx2, Hash32_3LanesAvx512);
  return chosen;
#else
  return Hash32_3LanesPortable;
#endif
}

uint32_t StableModMask(uint32_t b) noexcept {
  uint32_t bits = 0;
  for (uint32_t v = b - 1; v != 0; v >>= 1) ++bits;
  return bits == 32 ? UINT32_MAX : (uint32_t{1} << bits) - 1;
}

uint32_t StableMod(uint32_t x, uint32_t b, uint32_t mask) noexcept {
  return (x & mask) < b ? x & mask : x & (mask >> 1);
}

uint32_t PlacementSeed(uint32_t ps, uint32_t pg_num, uint32_t pool) noexcept {
  return Hash32_2(StableMod(ps, pg_num, StableModMask(pg_num)), pool);
}

}  // namespace chsim::crush
