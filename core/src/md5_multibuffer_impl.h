// SPDX-License-Identifier: Apache-2.0
// Internal: the one-block MD5 compression (RFC 1321, section 3.4) over many
// independent messages at once, written once over a generic lane type V (a
// GCC vector of W uint32 lanes, or plain uint32_t for W = 1) and K independent
// vector groups interleaved to hide the dependency chain of each MD5 step.
// Each md5_multibuffer_<isa>.cc includes this file and is compiled with its
// ISA's flags (-mavx2, -mavx512f ...), so the same source yields AVX-512,
// AVX2, SSE2/NEON and scalar code; the dispatcher picks one at run time.
//
// ODR safety: everything here has internal linkage (an unnamed namespace) and
// this file includes no standard header with inline functions, so code built
// for one ISA can never be picked by the linker for another.
//
// Layout: `rows` holds each lane's padded block as 16 consecutive words,
// lane-major (word j of lane l is rows[16 * l + j]): what the caller writes
// with plain stores. The kernel transposes W x W tiles in vector registers
// (Transpose below) into the lane-minor order the vector steps read. `out`
// receives the state after the block, lane-minor: out[r * L + l], r = a,b,c,d,
// L = K * W. With kOnlyA the last three steps are skipped: they do not change
// a, which is all a Ketama key lookup needs (digest bytes 0..3).
// REQUIRES: rows 64-byte aligned; each row a padded ONE-block message (word 15,
// the high half of the bit length, is 0; the kernel does not read it).
#ifndef CHSIM_MD5_MULTIBUFFER_IMPL_H_
#define CHSIM_MD5_MULTIBUFFER_IMPL_H_

#include <cstddef>
#include <cstdint>

namespace {

template <typename V>
inline V Rotl(V x, int s) {
  return (x << s) | (x >> (32 - s));
}

// The four auxiliary functions, each added to x = a + M[j] + t (computed
// before b is known) so that the fewest operations wait for b, the state word
// the previous step produced. Critical path of a step = these + rotate + add:
//   F = (b & c) | (~b & d) = d ^ (b & (c ^ d))        b -> and, xor, add
//   G = (b & d) | (c & ~d) = (b & d) + (c & ~d)       b -> and, add (disjoint bits)
//   H = b ^ c ^ d          = b ^ (c ^ d)              b -> xor, add
//   I = c ^ (b | ~d)       = ~(c ^ (~b & d))          b -> andn, xor, sub
// and since x + ~y = (x - 1) - y, the step adds t - 1 and subtracts
// c ^ (~b & d): one operation fewer than computing ~d (SIMD has no NOT).
// No more operations than the textbook forms; 2 cycles shorter per G step and
// 1 per H step on the scalar (latency) path. With AVX-512's vpternlogd (any
// 3-input bit function in one instruction) the textbook G is one operation
// against three, and the wide kernels are throughput-bound: kTernary picks it.
//
// Where the CPU has a 3-input logic instruction (the AVX-512 kernel's flags).
#ifdef __AVX512F__
constexpr bool kTernaryLogic = true;
#else
constexpr bool kTernaryLogic = false;
#endif

template <bool kTernary, typename V>
inline V AddF(V x, V b, V c, V d) {
  return x + (d ^ (b & (c ^ d)));
}
template <bool kTernary, typename V>
inline V AddG(V x, V b, V c, V d) {
  if constexpr (kTernary) return x + (c ^ (d & (b ^ c)));  // one vpternlogd
  return (x + (c & ~d)) + (b & d);
}
template <bool kTernary, typename V>
inline V AddH(V x, V b, V c, V d) {
  return x + (b ^ (c ^ d));
}
template <bool kTernary, typename V>
inline V AddI(V x, V b, V c, V d) {  // REQUIRES: x holds t - 1 in place of t
  return x - (c ^ (~b & d));
}
// What each function's step adds to t (AddI's x + ~y = (x - 1) - y).
constexpr uint32_t kTAdjustF = 0, kTAdjustG = 0, kTAdjustH = 0, kTAdjustI = 0xffffffffu;

// Two vectors' low halves interleaved, {a0 b0 a1 b1 ... a(W/2-1) b(W/2-1)}, or
// with kHi their high halves, {a(W/2) b(W/2) ...}. Applying both log2(W) times
// to rows i and i + W/2 of a W x W tile transposes it (the perfect shuffle
// has order log2 W).
template <int W, bool kHi, typename V>
inline V Interleave(V a, V b) {
  constexpr int h = kHi ? W / 2 : 0;
  if constexpr (W == 2) return __builtin_shufflevector(a, b, h, h + 2);
  if constexpr (W == 4) return __builtin_shufflevector(a, b, h, h + 4, h + 1, h + 5);
  if constexpr (W == 8)
    return __builtin_shufflevector(a, b, h, h + 8, h + 1, h + 9, h + 2, h + 10, h + 3, h + 11);
  if constexpr (W == 16)
    return __builtin_shufflevector(a, b, h, h + 16, h + 1, h + 17, h + 2, h + 18, h + 3, h + 19,
                                   h + 4, h + 20, h + 5, h + 21, h + 6, h + 22, h + 7, h + 23);
}

// r[i] = W consecutive words of lane i on entry; word i of lanes 0..W-1 on exit.
template <typename V, int W>
inline void Transpose(V* r) {
  if constexpr (W == 8) {
    // The 24-shuffle 8 x 8 transpose of 256-bit vectors: in-lane unpacks of
    // 32- then 64-bit elements, then 128-bit halves (one cross-lane step).
    V t[8], u[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i += 2) {
      t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
      t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
#pragma GCC unroll 8
    for (int i = 0; i < 8; i += 4) {
#pragma GCC unroll 8
      for (int h = 0; h < 2; ++h) {
        u[i + 2 * h] = __builtin_shufflevector(t[i + h], t[i + h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
        u[i + 2 * h + 1] =
            __builtin_shufflevector(t[i + h], t[i + h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
      }
    }
#pragma GCC unroll 8
    for (int i = 0; i < 4; ++i) {
      r[i] = __builtin_shufflevector(u[i], u[i + 4], 0, 1, 2, 3, 8, 9, 10, 11);
      r[i + 4] = __builtin_shufflevector(u[i], u[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
  } else if constexpr (W > 1) {
#pragma GCC unroll 8
    for (int round = 1; round < W; round *= 2) {
      V t[W];
#pragma GCC unroll 16
      for (int i = 0; i < W / 2; ++i) {
        t[2 * i] = Interleave<W, false>(r[i], r[i + W / 2]);
        t[2 * i + 1] = Interleave<W, true>(r[i], r[i + W / 2]);
      }
#pragma GCC unroll 16
      for (int i = 0; i < W; ++i) r[i] = t[i];
    }
  }
}

template <typename V, int K, int W, bool kOnlyA, bool kTernary>
inline void Md5Lanes(const uint32_t* __restrict rows, uint32_t* __restrict out) {
  constexpr int L = K * W;
  static_assert(16 % W == 0, "a block is 16 words: W must divide 16");
  // Lane-minor message words: word j of lane l at words[j * L + l]. With one
  // lane the rows already are in that order.
  alignas(64) uint32_t transposed[W == 1 ? 1 : 16 * L];
  const uint32_t* words = rows;
  if constexpr (W > 1) {
    // Fully unrolled, so that r[] lives in registers and each row moves with
    // one vector load (a loop here spills r[] and stalls on store forwarding).
#pragma GCC unroll 16
    for (int k = 0; k < K; ++k) {
#pragma GCC unroll 16
      for (int tile = 0; tile < 16 / W; ++tile) {
        V r[W];
#pragma GCC unroll 16
        for (int i = 0; i < W; ++i) {
          __builtin_memcpy(&r[i], rows + 16 * (k * W + i) + tile * W, sizeof(V));
        }
        Transpose<V, W>(r);
#pragma GCC unroll 16
        for (int i = 0; i < W; ++i) {
          __builtin_memcpy(transposed + (tile * W + i) * L + k * W, &r[i], sizeof(V));
        }
      }
    }
    words = transposed;
  }
  V a[K], b[K], c[K], d[K];
  for (int k = 0; k < K; ++k) {
    a[k] = V{} + 0x67452301u;
    b[k] = V{} + 0xefcdab89u;
    c[k] = V{} + 0x98badcfeu;
    d[k] = V{} + 0x10325476u;
  }
  // Word 15 is the high half of the bit length: 0 for every one-block
  // message (at most 55 bytes), so its four steps skip a load and an add.
  auto m = [&](int j, int k) -> V {
    if (j == 15) return V{};
    V v;
    __builtin_memcpy(&v, words + j * L + k * W, sizeof(V));
    return v;
  };
  // One MD5 step on every group: a = b + rotl(a + f(b, c, d) + M[j] + t, s),
  // summed in the order AddF..AddI choose (see above). For vectors, t is
  // read from memory through an opaque pointer: GCC 12 would otherwise
  // rebuild each splatted constant through a general register (mov, vmovd,
  // vpbroadcastd: 3 instructions per step instead of one broadcast load).
#define CHSIM_MD5_STEP(fn, A, B, C, D, j, t, s)                             \
  {                                                                         \
    static constexpr uint32_t kT = static_cast<uint32_t>(t) + kTAdjust##fn; \
    const uint32_t* tp = &kT;                                               \
    if constexpr (W > 1) asm("" : "+r"(tp));                                \
    const uint32_t tv = *tp;                                                \
    _Pragma("GCC unroll 8") for (int k = 0; k < K; ++k) {                   \
      const V x = A[k] + (m(j, k) + tv);                                    \
      A[k] = Rotl(Add##fn<kTernary>(x, B[k], C[k], D[k]), s) + B[k];        \
    }                                                                       \
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
// and NAME_abcd (whole state), each over exactly K * W lanes. The _FORMS
// variant also says which G form to use (tests build both).
#define CHSIM_MD5_DEFINE_KERNELS_FORMS(NAME, V, K, W, TERNARY)     \
  namespace chsim::md5mb {                                         \
  void NAME##_a(const uint32_t* rows, uint32_t* out) noexcept {    \
    Md5Lanes<V, K, W, true, TERNARY>(rows, out);                   \
  }                                                                \
  void NAME##_abcd(const uint32_t* rows, uint32_t* out) noexcept { \
    Md5Lanes<V, K, W, false, TERNARY>(rows, out);                  \
  }                                                                \
  }
#define CHSIM_MD5_DEFINE_KERNELS(NAME, V, K, W) \
  CHSIM_MD5_DEFINE_KERNELS_FORMS(NAME, V, K, W, kTernaryLogic)

#endif  // CHSIM_MD5_MULTIBUFFER_IMPL_H_
