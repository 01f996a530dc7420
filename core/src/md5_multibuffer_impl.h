// Internal: the one-block MD5 compression (RFC 1321, section 3.4) over many
// independent messages at once, written once over a generic lane type V (a
// GCC vector of W uint32 lanes, or plain uint32_t for W = 1) and K independent
// vector groups interleaved to hide the 4-5 cycle dependency chain of each MD5
// step. Each md5_multibuffer_<isa>.cc includes this file and is compiled with
// its ISA's flags (-mavx2, -mavx512f ...), so the same source yields AVX-512,
// AVX2, SSE2/NEON and scalar code; the dispatcher picks one at run time.
//
// ODR safety: everything here has internal linkage (an unnamed namespace) and
// this file includes no standard header with inline functions, so code built
// for one ISA can never be picked by the linker for another.
//
// Layout: `words` holds 16 message words per lane, lane-minor: word j of lane
// l is words[j * L + l], L = K * W (the caller pads and transposes). `out`
// receives the state after the block, lane-minor: out[r * L + l], r = a,b,c,d.
// With kOnlyA the last three steps are skipped: they do not change a, which is
// all a Ketama key lookup needs (digest bytes 0..3).
#ifndef CHSIM_MD5_MULTIBUFFER_IMPL_H_
#define CHSIM_MD5_MULTIBUFFER_IMPL_H_

#include <cstddef>
#include <cstdint>

namespace {

template <typename V>
inline V Rotl(V x, int s) {
  return (x << s) | (x >> (32 - s));
}

// The four auxiliary functions, in the forms that need fewest operations:
// F = (b & c) | (~b & d) = d ^ (b & (c ^ d)); G = (b & d) | (c & ~d) = c ^ (d & (b ^ c)).
template <typename V>
inline V F(V b, V c, V d) {
  return d ^ (b & (c ^ d));
}
template <typename V>
inline V G(V b, V c, V d) {
  return c ^ (d & (b ^ c));
}
template <typename V>
inline V H(V b, V c, V d) {
  return b ^ c ^ d;
}
template <typename V>
inline V I(V b, V c, V d) {
  return c ^ (b | ~d);
}

template <typename V, int K, int W, bool kOnlyA>
inline void Md5Lanes(const uint32_t* __restrict words, uint32_t* __restrict out) {
  constexpr int L = K * W;
  V a[K], b[K], c[K], d[K];
  for (int k = 0; k < K; ++k) {
    a[k] = V{} + 0x67452301u;
    b[k] = V{} + 0xefcdab89u;
    c[k] = V{} + 0x98badcfeu;
    d[k] = V{} + 0x10325476u;
  }
  auto m = [&](int j, int k) -> V {
    V v;
    __builtin_memcpy(&v, words + j * L + k * W, sizeof(V));
    return v;
  };
  // One MD5 step on every group: a = b + rotl(a + f(b, c, d) + M[j] + t, s).
#define CHSIM_MD5_STEP(fn, A, B, C, D, j, t, s)                                \
  _Pragma("GCC unroll 8") for (int k = 0; k < K; ++k) {                        \
    A[k] = A[k] + fn(B[k], C[k], D[k]) + (m(j, k) + static_cast<uint32_t>(t)); \
    A[k] = Rotl(A[k], s) + B[k];                                               \
  }
  // Round 1: M[i], shifts 7 12 17 22; t[i] = floor(2^32 |sin(i + 1)|).
  CHSIM_MD5_STEP(F, a, b, c, d, 0, 0xd76aa478, 7)
  CHSIM_MD5_STEP(F, d, a, b, c, 1, 0xe8c7b756, 12)
  CHSIM_MD5_STEP(F, c, d, a, b, 2, 0x242070db, 17)
  CHSIM_MD5_STEP(F, b, c, d, a, 3, 0xc1bdceee, 22)
  CHSIM_MD5_STEP(F, a, b, c, d, 4, 0xf57c0faf, 7)
  CHSIM_MD5_STEP(F, d, a, b, c, 5, 0x4787c62a, 12)
  CHSIM_MD5_STEP(F, c, d, a, b, 6, 0xa8304613, 17)
  CHSIM_MD5_STEP(F, b, c, d, a, 7, 0xfd469501, 22)
  CHSIM_MD5_STEP(F, a, b, c, d, 8, 0x698098d8, 7)
  CHSIM_MD5_STEP(F, d, a, b, c, 9, 0x8b44f7af, 12)
  CHSIM_MD5_STEP(F, c, d, a, b, 10, 0xffff5bb1, 17)
  CHSIM_MD5_STEP(F, b, c, d, a, 11, 0x895cd7be, 22)
  CHSIM_MD5_STEP(F, a, b, c, d, 12, 0x6b901122, 7)
  CHSIM_MD5_STEP(F, d, a, b, c, 13, 0xfd987193, 12)
  CHSIM_MD5_STEP(F, c, d, a, b, 14, 0xa679438e, 17)
  CHSIM_MD5_STEP(F, b, c, d, a, 15, 0x49b40821, 22)
  // Round 2: M[(5i + 1) mod 16], shifts 5 9 14 20.
  CHSIM_MD5_STEP(G, a, b, c, d, 1, 0xf61e2562, 5)
  CHSIM_MD5_STEP(G, d, a, b, c, 6, 0xc040b340, 9)
  CHSIM_MD5_STEP(G, c, d, a, b, 11, 0x265e5a51, 14)
  CHSIM_MD5_STEP(G, b, c, d, a, 0, 0xe9b6c7aa, 20)
  CHSIM_MD5_STEP(G, a, b, c, d, 5, 0xd62f105d, 5)
  CHSIM_MD5_STEP(G, d, a, b, c, 10, 0x02441453, 9)
  CHSIM_MD5_STEP(G, c, d, a, b, 15, 0xd8a1e681, 14)
  CHSIM_MD5_STEP(G, b, c, d, a, 4, 0xe7d3fbc8, 20)
  CHSIM_MD5_STEP(G, a, b, c, d, 9, 0x21e1cde6, 5)
  CHSIM_MD5_STEP(G, d, a, b, c, 14, 0xc33707d6, 9)
  CHSIM_MD5_STEP(G, c, d, a, b, 3, 0xf4d50d87, 14)
  CHSIM_MD5_STEP(G, b, c, d, a, 8, 0x455a14ed, 20)
  CHSIM_MD5_STEP(G, a, b, c, d, 13, 0xa9e3e905, 5)
  CHSIM_MD5_STEP(G, d, a, b, c, 2, 0xfcefa3f8, 9)
  CHSIM_MD5_STEP(G, c, d, a, b, 7, 0x676f02d9, 14)
  CHSIM_MD5_STEP(G, b, c, d, a, 12, 0x8d2a4c8a, 20)
  // Round 3: M[(3i + 5) mod 16], shifts 4 11 16 23.
  CHSIM_MD5_STEP(H, a, b, c, d, 5, 0xfffa3942, 4)
  CHSIM_MD5_STEP(H, d, a, b, c, 8, 0x8771f681, 11)
  CHSIM_MD5_STEP(H, c, d, a, b, 11, 0x6d9d6122, 16)
  CHSIM_MD5_STEP(H, b, c, d, a, 14, 0xfde5380c, 23)
  CHSIM_MD5_STEP(H, a, b, c, d, 1, 0xa4beea44, 4)
  CHSIM_MD5_STEP(H, d, a, b, c, 4, 0x4bdecfa9, 11)
  CHSIM_MD5_STEP(H, c, d, a, b, 7, 0xf6bb4b60, 16)
  CHSIM_MD5_STEP(H, b, c, d, a, 10, 0xbebfbc70, 23)
  CHSIM_MD5_STEP(H, a, b, c, d, 13, 0x289b7ec6, 4)
  CHSIM_MD5_STEP(H, d, a, b, c, 0, 0xeaa127fa, 11)
  CHSIM_MD5_STEP(H, c, d, a, b, 3, 0xd4ef3085, 16)
  CHSIM_MD5_STEP(H, b, c, d, a, 6, 0x04881d05, 23)
  CHSIM_MD5_STEP(H, a, b, c, d, 9, 0xd9d4d039, 4)
  CHSIM_MD5_STEP(H, d, a, b, c, 12, 0xe6db99e5, 11)
  CHSIM_MD5_STEP(H, c, d, a, b, 15, 0x1fa27cf8, 16)
  CHSIM_MD5_STEP(H, b, c, d, a, 2, 0xc4ac5665, 23)
  // Round 4: M[7i mod 16], shifts 6 10 15 21.
  CHSIM_MD5_STEP(I, a, b, c, d, 0, 0xf4292244, 6)
  CHSIM_MD5_STEP(I, d, a, b, c, 7, 0x432aff97, 10)
  CHSIM_MD5_STEP(I, c, d, a, b, 14, 0xab9423a7, 15)
  CHSIM_MD5_STEP(I, b, c, d, a, 5, 0xfc93a039, 21)
  CHSIM_MD5_STEP(I, a, b, c, d, 12, 0x655b59c3, 6)
  CHSIM_MD5_STEP(I, d, a, b, c, 3, 0x8f0ccc92, 10)
  CHSIM_MD5_STEP(I, c, d, a, b, 10, 0xffeff47d, 15)
  CHSIM_MD5_STEP(I, b, c, d, a, 1, 0x85845dd1, 21)
  CHSIM_MD5_STEP(I, a, b, c, d, 8, 0x6fa87e4f, 6)
  CHSIM_MD5_STEP(I, d, a, b, c, 15, 0xfe2ce6e0, 10)
  CHSIM_MD5_STEP(I, c, d, a, b, 6, 0xa3014314, 15)
  CHSIM_MD5_STEP(I, b, c, d, a, 13, 0x4e0811a1, 21)
  CHSIM_MD5_STEP(I, a, b, c, d, 4, 0xf7537e82, 6)
  if constexpr (!kOnlyA) {
    CHSIM_MD5_STEP(I, d, a, b, c, 11, 0xbd3af235, 10)
    CHSIM_MD5_STEP(I, c, d, a, b, 2, 0x2ad7d2bb, 15)
    CHSIM_MD5_STEP(I, b, c, d, a, 9, 0xeb86d391, 21)
  }
#undef CHSIM_MD5_STEP
  for (int k = 0; k < K; ++k) {
    a[k] = a[k] + 0x67452301u;
    __builtin_memcpy(out + 0 * L + k * W, &a[k], sizeof(V));
    if constexpr (!kOnlyA) {
      b[k] = b[k] + 0xefcdab89u;
      c[k] = c[k] + 0x98badcfeu;
      d[k] = d[k] + 0x10325476u;
      __builtin_memcpy(out + 1 * L + k * W, &b[k], sizeof(V));
      __builtin_memcpy(out + 2 * L + k * W, &c[k], sizeof(V));
      __builtin_memcpy(out + 3 * L + k * W, &d[k], sizeof(V));
    }
  }
}

}  // namespace

// Defines the two exported kernels of one ISA file: NAME_a (state word a only)
// and NAME_abcd (whole state), each over exactly K * W lanes.
#define CHSIM_MD5_DEFINE_KERNELS(NAME, V, K, W)                     \
  namespace chsim::md5mb {                                          \
  void NAME##_a(const uint32_t* words, uint32_t* out) noexcept {    \
    Md5Lanes<V, K, W, true>(words, out);                            \
  }                                                                 \
  void NAME##_abcd(const uint32_t* words, uint32_t* out) noexcept { \
    Md5Lanes<V, K, W, false>(words, out);                           \
  }                                                                 \
  }

#endif  // CHSIM_MD5_MULTIBUFFER_IMPL_H_
