// SPDX-License-Identifier: Apache-2.0
// SHA-256 of four one-block messages with the x86 SHA extensions, built with
// -msha -msse4.1 and called only after a run-time CPU check
// (sha256_batch.cc). The round and message-schedule steps are those of
// Intel's "Intel SHA Extensions" white paper (Gulley et al., 2013), run for
// four messages side by side so that each sha256rnds2 has three independent
// others to overlap with.
#include <immintrin.h>

#include <cstdint>

namespace chsim::sha256mb {
namespace {

constexpr int kLanes = 4;

alignas(16) constexpr uint32_t kK[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

}  // namespace

// out[l] = word H7 of SHA-256's state after blocks[l] (64 bytes, padded) from
// the initial state: digest bytes 28..31, big-endian.
void NiLastWord4(const uint8_t (*blocks)[64], uint32_t* out) noexcept {
  // The state as the SHA extensions hold it: ABEF and CDGH (high lane first).
  const __m128i abef0 = _mm_set_epi32(0x6a09e667, static_cast<int>(0xbb67ae85), 0x510e527f,
                                      static_cast<int>(0x9b05688c));
  const __m128i cdgh0 =
      _mm_set_epi32(0x3c6ef372, static_cast<int>(0xa54ff53a), 0x1f83d9ab, 0x5be0cd19);
  const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bll, 0x0405060700010203ll);
  __m128i abef[kLanes], cdgh[kLanes], w[kLanes][4];
  for (int l = 0; l < kLanes; ++l) {
    abef[l] = abef0;
    cdgh[l] = cdgh0;
    for (int g = 0; g < 4; ++g) {
      const auto* p = reinterpret_cast<const __m128i*>(blocks[l] + 16 * g);
      w[l][g] = _mm_shuffle_epi8(_mm_loadu_si128(p), bswap);  // big-endian words
    }
  }
  // Unrolled whole, the ring-buffer indices of w are constants and w stays in
  // registers.
#pragma GCC unroll 16
  for (int g = 0; g < 16; ++g) {  // rounds 4g .. 4g + 3
    const __m128i k = _mm_load_si128(reinterpret_cast<const __m128i*>(kK + 4 * g));
    for (int l = 0; l < kLanes; ++l) {
      __m128i* wl = w[l];
      if (g >= 4) {  // W[4g..4g+3] from W[4g-16..4g-1]
        __m128i x = _mm_sha256msg1_epu32(wl[g & 3], wl[(g + 1) & 3]);
        x = _mm_add_epi32(x, _mm_alignr_epi8(wl[(g + 3) & 3], wl[(g + 2) & 3], 4));
        wl[g & 3] = _mm_sha256msg2_epu32(x, wl[(g + 3) & 3]);
      }
      const __m128i m = _mm_add_epi32(wl[g & 3], k);
      cdgh[l] = _mm_sha256rnds2_epu32(cdgh[l], abef[l], m);
      abef[l] = _mm_sha256rnds2_epu32(abef[l], cdgh[l], _mm_shuffle_epi32(m, 0x0e));
    }
  }
  for (int l = 0; l < kLanes; ++l) {
    out[l] = static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_add_epi32(cdgh[l], cdgh0)));  // H
  }
}

}  // namespace chsim::sha256mb
