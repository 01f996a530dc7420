// SPDX-License-Identifier: Apache-2.0
#include "sim/workload/key_shape.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <charconv>
#include <cstring>

#include "sim/base/brace_template.h"
#include "sim/base/errors.h"
#include "sim/base/rng.h"
#include "sim/base/text_file.h"

namespace chsim::sim {
namespace {

constexpr uint32_t kMaxRandomLength = 4096;
constexpr char kAccepted[] =
    "accepted: {i}, {i:0W}, {n}, {hex:N}, {alnum:N}, {alnum:A-B}, {bytes:N}, {bytes:A-B}, "
    "{{, }}";

bool ParseUint(std::string_view s, uint32_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

namespace {

uint64_t SaturatingTimes(uint64_t a, uint64_t b) noexcept {
  return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

// Strings of `base` symbols with a length in [min, max], saturating.
uint64_t Strings(uint64_t base, uint32_t min, uint32_t max) noexcept {
  uint64_t sum = 0, power = 1;
  for (uint32_t len = 1; len <= max && sum != UINT64_MAX; ++len) {
    power = SaturatingTimes(power, base);
    if (len >= min) sum = power > UINT64_MAX - sum ? UINT64_MAX : sum + power;
  }
  return sum;
}

}  // namespace

uint64_t KeyShape::max_distinct() const noexcept {
  uint64_t total = 1;
  for (const Part& p : parts_) {
    switch (p.kind) {
      case Kind::kLiteral:
        break;
      case Kind::kIndex:
        return UINT64_MAX;
      case Kind::kNumber:
        total = SaturatingTimes(total, uint64_t{1} << 63);
        break;
      case Kind::kHex:
        total = SaturatingTimes(total, Strings(16, p.min, p.max));
        break;
      case Kind::kAlnum:
        total = SaturatingTimes(total, Strings(62, p.min, p.max));
        break;
      case Kind::kBytes:
        total = SaturatingTimes(total, Strings(256, p.min, p.max));
        break;
    }
  }
  return total;
}

KeyShape KeyShape::Compile(std::string_view shape, const std::string& where) {
  KeyShape k;
  std::string literal;
  auto flush = [&] {
    if (!literal.empty()) {
      Part part{Kind::kLiteral, literal};
      part.min = part.max = static_cast<uint32_t>(literal.size());
      part.text.resize((literal.size() + 15) / 16 * 16, '\0');  // whole 16-byte copies
      k.parts_.push_back(std::move(part));
      k.max_length_ += literal.size();
      literal.clear();
    }
  };
  auto on_placeholder = [&](std::string_view body) {
    flush();
    auto bad = [&] {
      return UsageError(where + ": found placeholder {" + std::string(body) + "} in key shape " +
                        Quote(shape) + "; " + kAccepted);
    };
    Part part{Kind::kLiteral, {}};
    std::string_view name = body.substr(0, body.find(':'));
    std::string_view arg = body.find(':') == std::string_view::npos ? std::string_view()
                                                                    : body.substr(name.size() + 1);
    if (name == "i") {
      part.kind = Kind::kIndex;
      if (!arg.empty()) {
        if (arg.size() < 2 || arg[0] != '0' || !ParseUint(arg.substr(1), &part.min) ||
            part.min < 1 || part.min > 20) {
          throw bad();
        }
      }
      k.max_length_ += 20;
    } else if (name == "n") {
      if (!arg.empty()) throw bad();
      part.kind = Kind::kNumber;
      k.random_ = true;
      k.max_length_ += 19;
    } else if (name == "hex" || name == "alnum" || name == "bytes") {
      part.kind = name == "hex" ? Kind::kHex : name == "alnum" ? Kind::kAlnum : Kind::kBytes;
      size_t dash = arg.find('-');
      if (dash == std::string_view::npos) {
        if (!ParseUint(arg, &part.min)) throw bad();
        part.max = part.min;
      } else if (name == "hex" || !ParseUint(arg.substr(0, dash), &part.min) ||
                 !ParseUint(arg.substr(dash + 1), &part.max)) {
        throw bad();
      }
      if (part.min < 1 || part.max < part.min || part.max > kMaxRandomLength) {
        throw UsageError(where + ": found length " + std::string(arg) + " in {" +
                         std::string(body) + "}; accepted: 1.." + std::to_string(kMaxRandomLength) +
                         ", and A <= B in A-B");
      }
      k.random_ = true;
      k.max_length_ += part.max;
    } else {
      throw bad();
    }
    k.parts_.push_back(std::move(part));
  };
  switch (ScanBraces(
      shape, [&](std::string_view text) { literal += text; }, on_placeholder)) {
    case BraceError::kLoneClose:
      throw UsageError(where + ": found a lone '}' in key shape " + Quote(shape) +
                       "; accepted: '}}' for a literal brace");
    case BraceError::kUnclosed:
      throw UsageError(where + ": unclosed '{' in key shape " + Quote(shape) + "; " + kAccepted);
    case BraceError::kNone:
      break;
  }
  flush();
  return k;
}

void KeyShape::Render(uint64_t index, uint64_t seed, std::string* out) const {
  out->resize(max_length_ + kRenderSlack);
  out->resize(RenderTo(index, seed, out->data()));
}

namespace {

// SplitMix64 (chsim/splitmix.h) with its state in view: value k of the stream
// from state s is Mix64(s + k * gamma), so words ahead can be made out of
// order and the state then skipped past the ones a key used (Skip).
using Stream = SplitMix64;
constexpr uint64_t kGamma = kSplitMixGamma;
// DeriveSeed's constant (chsim/splitmix.h); tests/sim/key_shape_test.cc checks
// the lanes' seeds against DeriveSeed itself.
constexpr uint64_t kDeriveTag = 0x6a09e667f3bcc909ULL;

// Random characters, 8 per SplitMix64 word: byte k of a word (bits 8k..8k+7,
// low byte first) gives character k:
//   hex:   "0123456789abcdef"[byte & 15]
//   alnum: "0-9A-Za-z"[(byte * 62) >> 8]  (Lemire's multiply-shift onto 0..61)
//   bytes: the byte itself
// A key of length len uses the next ceil(len / 8) words of its stream.
enum CharKind { kHexChars, kAlnumChars, kRawBytes };

// Vectors of L 64-bit lanes (GCC vector extensions: AVX-512, AVX2 or the
// baseline's registers, per the function they are inlined into). Everything
// that takes one is always inlined and takes it by reference: a vector never
// crosses a call (its calling convention depends on the ISA).
template <int L>
struct Lanes {
  typedef uint64_t U64 __attribute__((vector_size(8 * L)));
  typedef uint16_t U16 __attribute__((vector_size(8 * L)));
  typedef int8_t I8 __attribute__((vector_size(8 * L)));
};

// SplitMix64's output function, in place: Mix64 without its first "+ gamma".
template <typename V>
[[gnu::always_inline]] inline void Finalize(V& x) noexcept {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  x ^= x >> 31;
}

// Maps the bytes of random words to characters in place (table-free, see
// above). kAvx2 (only where inlined into an AVX2 function, x one 256-bit
// vector): (b * 62) >> 8 as the high half of b * (62 << 8), one vpmulhuw per
// byte parity, where the compiler makes each multiply by 62 shifts and a
// subtraction. In asm: a template not itself compiled for AVX2 cannot call
// its intrinsics. GCC only: clang checks a 256-bit "x" operand against the
// template's own target and refuses it, so clang builds take the generic
// lines, which compute the same bytes.
template <CharKind kKind, int L, bool kAvx2 = false>
[[gnu::always_inline]] inline void MapChars(typename Lanes<L>::U64& x) noexcept {
  using T = Lanes<L>;
  if constexpr (std::endian::native == std::endian::big) {
    for (int k = 0; k < L; ++k) x[k] = __builtin_bswap64(x[k]);
  }
  if constexpr (kKind == kHexChars) {
    typename T::I8 i = reinterpret_cast<typename T::I8>(x) & 15;
    x = reinterpret_cast<typename T::U64>(i + '0' + ((i > 9) & int8_t{'a' - '0' - 10}));
  } else if constexpr (kKind == kAlnumChars) {
    // Each byte times 62 in its 16-bit lane (< 2^14: no carry into the next byte).
    typename T::U16 v = reinterpret_cast<typename T::U16>(x);
    typename T::U16 low, high;
#ifdef __clang__
    constexpr bool kAsm = false;
#else
    constexpr bool kAsm = kAvx2;
#endif
    if constexpr (kAsm) {
      static_assert(L == 4);
      const typename T::U16 factor = typename T::U16{} + (62 << 8);
      low = v & 0xff;
      high = v & 0xff00;
      asm("vpmulhuw %[f], %[low], %[low]\n\tvpmulhuw %[f], %[high], %[high]"
          : [low] "+x"(low), [high] "+x"(high)
          : [f] "xm"(factor));
      high &= 0xff00;
    } else {
      low = ((v & 0xff) * 62) >> 8;     // even bytes' index, in the low byte
      high = ((v >> 8) * 62) & 0xff00;  // odd bytes' index, in the high byte
    }
    typename T::I8 i = reinterpret_cast<typename T::I8>(low | high);  // 0..61 per byte
    x = reinterpret_cast<typename T::U64>(i + '0' + ((i > 9) & int8_t{'A' - '0' - 10}) +
                                          ((i > 35) & int8_t{'a' - 'A' - 26}));
  }
}

// One key's random characters: `words` words (the part's longest key,
// rounded up to 4) made four at a time whatever the length, so the loop has
// the same trip count for every key (a variable one costs a mispredicted exit
// per key), stored whole, then rng skips the ceil(len / 8) words the key
// used. Stores may run up to 31 bytes past the part's longest key, into room
// the caller reserves (max_length() + kRenderSlack) and later parts overwrite.
template <CharKind kKind>
[[gnu::always_inline]] inline char* RandomChars(Stream& rng, uint32_t len, uint32_t words,
                                                char* out) noexcept {
  using U64 = Lanes<4>::U64;
  for (uint32_t w = 0; w < words; w += 4) {
    // States s + (w + 1 + lane) * gamma: Mix adds the first gamma itself (rng.h).
    U64 x =
        rng.state() + uint64_t{w} * kGamma + U64{1 * kGamma, 2 * kGamma, 3 * kGamma, 4 * kGamma};
    Finalize(x);
    MapChars<kKind, 4>(x);
    std::memcpy(out + 8 * w, &x, 32);
  }
  rng.Skip((len + 7) / 8);
  return out + len;
}

// "00" .. "99".
constexpr struct Digits2 {
  char c[200];
  constexpr Digits2() : c() {
    for (int i = 0; i < 100; ++i) {
      c[2 * i] = static_cast<char>('0' + i / 10);
      c[2 * i + 1] = static_cast<char>('0' + i % 10);
    }
  }
} kDigits2;

// Writes the 4 digits of x < 10^4 (zero-padded).
[[gnu::always_inline]] inline void Write4(uint32_t x, char* p) noexcept {
  std::memcpy(p, kDigits2.c + 2 * (x / 100), 2);
  std::memcpy(p + 2, kDigits2.c + 2 * (x % 100), 2);
}
// Writes the 8 digits of x < 10^8 (zero-padded).
[[gnu::always_inline]] inline void Write8(uint32_t x, char* p) noexcept {
  Write4(x / 10000, p);
  Write4(x % 10000, p + 4);
}

constexpr uint64_t kPow10[20] = {1ULL,
                                 10ULL,
                                 100ULL,
                                 1000ULL,
                                 10000ULL,
                                 100000ULL,
                                 1000000ULL,
                                 10000000ULL,
                                 100000000ULL,
                                 1000000000ULL,
                                 10000000000ULL,
                                 100000000000ULL,
                                 1000000000000ULL,
                                 10000000000000ULL,
                                 100000000000000ULL,
                                 1000000000000000ULL,
                                 10000000000000000ULL,
                                 100000000000000000ULL,
                                 1000000000000000000ULL,
                                 10000000000000000000ULL};

// v in decimal, zero-padded to `width` digits. Digits come in independent
// 8-digit chunks (divisions by constants: multiplies), so the work is a few
// short dependency chains instead of one chain of 20 divisions; the digit
// count is log10 from the bit width (x 1233 / 4096 ~ log10 2) corrected by one
// comparison. Always stores 32 bytes (kRenderSlack takes the rest).
// REQUIRES: width <= 20.
[[gnu::always_inline]] inline char* Decimal(uint64_t v, uint32_t width, char* out) noexcept {
  const uint32_t t = static_cast<uint32_t>((64 - __builtin_clzll(v | 1)) * 1233) >> 12;
  const uint32_t n = t + 1 - ((v | 1) < kPow10[t] ? 1 : 0);  // digits of v, 1..20 (0 has one)
  const uint32_t total = n > width ? n : width;
  char buf[56];  // 20 digits at [4, 24), zero-padded; read as [24 - total, 56 - total)
  std::memcpy(buf, "000000000000000000000000", 24);
  if (v < kPow10[8]) {
    Write8(static_cast<uint32_t>(v), buf + 16);
  } else {
    Write8(static_cast<uint32_t>(v % kPow10[8]), buf + 16);
    Write8(static_cast<uint32_t>(v / kPow10[8] % kPow10[8]), buf + 8);
    Write4(static_cast<uint32_t>(v / kPow10[16]), buf + 4);
  }
  std::memcpy(out, buf + 24 - total, 32);
  return out + total;
}

// A literal part: its text is padded to 16 bytes; the slack takes the overrun.
[[gnu::always_inline]] inline char* Literal(const std::string& text, uint32_t len,
                                            char* out) noexcept {
  for (uint32_t k = 0; k < len; k += 16) std::memcpy(out + k, text.data() + k, 16);
  return out + len;
}

}  // namespace

// The key for (index, seed), one part after the other: the reference path
// (Render, RenderTo) and RenderBlock's fallback.
size_t KeyShape::RenderImpl(uint64_t index, uint64_t seed, char* out) const noexcept {
  char* const begin = out;
  Stream rng(seed);
  for (const Part& p : parts_) {
    switch (p.kind) {
      case Kind::kLiteral:
        out = Literal(p.text, p.min, out);
        break;
      case Kind::kIndex:
        out = Decimal(index, p.min, out);
        break;
      case Kind::kNumber:
        out = Decimal(rng.Next() >> 1, 0, out);
        break;
      case Kind::kHex:
      case Kind::kAlnum:
      case Kind::kBytes: {
        uint32_t len =
            p.min == p.max ? p.min : p.min + static_cast<uint32_t>(rng.Below(p.max - p.min + 1));
        const uint32_t words = (p.max + 7) / 8;
        out = p.kind == Kind::kHex     ? RandomChars<kHexChars>(rng, len, words, out)
              : p.kind == Kind::kAlnum ? RandomChars<kAlnumChars>(rng, len, words, out)
                                       : RandomChars<kRawBytes>(rng, len, words, out);
        break;
      }
    }
  }
  return static_cast<size_t>(out - begin);
}

size_t KeyShape::RenderTo(uint64_t index, uint64_t seed, char* out) const noexcept {
  return RenderImpl(index, seed, out);
}

namespace {

// Whether any lane of v is not zero (v is clobbered).
template <int L>
[[gnu::always_inline]] inline bool AnyLane(typename Lanes<L>::U64& v) noexcept {
  if constexpr (L == 8) {
    v |= __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3);
    v |= __builtin_shufflevector(v, v, 2, 3, 0, 1, 6, 7, 4, 5);
    v |= __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6);
  } else {
    static_assert(L == 4);
    v |= __builtin_shufflevector(v, v, 2, 3, 0, 1);
    v |= __builtin_shufflevector(v, v, 1, 0, 3, 2);
  }
  return v[0] != 0;
}

// Each lane's random characters of one part: four words of every lane at
// once (each lane its own stream), then transposed so that each lane's 32
// bytes go to its key in one store. Makes the part's longest key rounded up
// to 32 bytes whatever the lane's length (a fixed trip count); the overrun
// lands in the key's slot (kRenderSlack), where later parts overwrite it.
template <CharKind kKind, int L, bool kAvx2>
[[gnu::always_inline]] inline void LaneChars(const typename Lanes<L>::U64& s, uint32_t words,
                                             char* const* at) noexcept {
  using U64 = typename Lanes<L>::U64;
  for (uint32_t w = 0; w < words; w += 4) {
    U64 x[4];
    for (int k = 0; k < 4; ++k) {
      x[k] = s + (w + k + 1) * kGamma;
      Finalize(x[k]);
      MapChars<kKind, L, kAvx2>(x[k]);
    }
    // x[k][l] is word w + k of lane l: transpose 4 x L words to L x 4.
    if constexpr (L == 4) {
      const U64 t0 = __builtin_shufflevector(x[0], x[1], 0, 4, 2, 6);
      const U64 t1 = __builtin_shufflevector(x[0], x[1], 1, 5, 3, 7);
      const U64 t2 = __builtin_shufflevector(x[2], x[3], 0, 4, 2, 6);
      const U64 t3 = __builtin_shufflevector(x[2], x[3], 1, 5, 3, 7);
      // One named vector per lane, no array: indexing an array of vectors
      // sends them through the stack, and the 16-byte halves read back from a
      // 32-byte store cost a store-forwarding stall each.
      const U64 r0 = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
      const U64 r1 = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
      const U64 r2 = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
      const U64 r3 = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
      std::memcpy(at[0] + 8 * w, &r0, 32);
      std::memcpy(at[1] + 8 * w, &r1, 32);
      std::memcpy(at[2] + 8 * w, &r2, 32);
      std::memcpy(at[3] + 8 * w, &r3, 32);
    } else {
      static_assert(L == 8);
      const U64 t0 = __builtin_shufflevector(x[0], x[1], 0, 8, 2, 10, 4, 12, 6, 14);
      const U64 t1 = __builtin_shufflevector(x[0], x[1], 1, 9, 3, 11, 5, 13, 7, 15);
      const U64 t2 = __builtin_shufflevector(x[2], x[3], 0, 8, 2, 10, 4, 12, 6, 14);
      const U64 t3 = __builtin_shufflevector(x[2], x[3], 1, 9, 3, 11, 5, 13, 7, 15);
      // Two lanes' 32 bytes per vector: (0, 2), (4, 6), (1, 3), (5, 7).
      const U64 u[4] = {__builtin_shufflevector(t0, t2, 0, 1, 8, 9, 2, 3, 10, 11),
                        __builtin_shufflevector(t0, t2, 4, 5, 12, 13, 6, 7, 14, 15),
                        __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 2, 3, 10, 11),
                        __builtin_shufflevector(t1, t3, 4, 5, 12, 13, 6, 7, 14, 15)};
      constexpr int kLane[4] = {0, 4, 1, 5};
      for (int k = 0; k < 4; ++k) {  // halves as 256-bit vectors: no trip through memory
        const typename Lanes<4>::U64 low = __builtin_shufflevector(u[k], u[k], 0, 1, 2, 3);
        const typename Lanes<4>::U64 high = __builtin_shufflevector(u[k], u[k], 4, 5, 6, 7);
        std::memcpy(at[kLane[k]] + 8 * w, &low, 32);
        std::memcpy(at[kLane[k] + 2] + 8 * w, &high, 32);
      }
    }
  }
}

// A random-characters part for every key of a block, L keys per group: the
// length (Below(max - min + 1) for a range: the high word of Next() * range,
// in 32-bit halves as range < 2^13; a lane needing Below's rejection step is
// flagged in `rejected`), the characters (LaneChars), then the stream skips
// the words each key used and its offset moves past its characters.
template <CharKind kKind, int L, bool kAvx2>
[[gnu::always_inline]] inline void LaneCharsPart(uint32_t min, uint32_t max, size_t slots,
                                                 char* out, size_t stride, uint32_t* lens,
                                                 uint64_t* state,
                                                 typename Lanes<L>::U64& rejected) noexcept {
  using U64 = typename Lanes<L>::U64;
  const uint32_t words = (max + 7) / 8;
  const uint64_t range = max - min + 1;
  for (size_t g = 0; g < slots; g += L) {
    U64 s;
    std::memcpy(&s, state + g, sizeof s);
    U64 len = U64{} + min;
    if (min != max) {
      U64 r = s + kGamma;
      Finalize(r);
      s += kGamma;
      const U64 lo = (r & 0xffffffffULL) * range, hi = (r >> 32) * range;
      rejected |= reinterpret_cast<U64>(lo + (hi << 32) < range);
      len += (hi + (lo >> 32)) >> 32;
    }
    char* at[L];
    for (size_t l = 0; l < L; ++l) at[l] = out + (g + l) * stride + lens[g + l];
    LaneChars<kKind, L, kAvx2>(s, words, at);
    s += ((len + 7) >> 3) * kGamma;
    std::memcpy(state + g, &s, sizeof s);
    for (size_t l = 0; l < L; ++l) lens[g + l] += static_cast<uint32_t>(len[l]);
  }
}

}  // namespace

// Keys [0, count) of a block into slots of `stride` bytes from `out`, part
// by part (the compiled plan): each part for every key, L keys at a time in
// vector lanes (key g + l in lane l of group g), so that the groups of a
// part are independent and the CPU overlaps them (one group's dependency
// chain of multiplies is long). Between parts each key's stream state and
// write offset live in state[] and lens[] (room for count rounded up to L;
// the last group's extra lanes make throwaway keys in their own slots).
// Returns false when a lane's bounded length needs Below's rejection step
// (probability below range / 2^64): the caller then renders the block one
// key at a time.
template <int L, bool kAvx2>
[[gnu::always_inline]] inline bool KeyShape::RenderLanes(const uint64_t* index, uint64_t mixed_seed,
                                                         const uint64_t* stream, size_t count,
                                                         char* out, size_t stride, uint32_t* lens,
                                                         uint64_t* state) const noexcept {
  using U64 = typename Lanes<L>::U64;
  const size_t slots = (count + L - 1) / L * L;
  for (size_t g = 0; g < slots; g += L) {
    U64 s;
    if (count - g >= L) {
      std::memcpy(&s, stream + g, sizeof s);
    } else {  // the last, partial group: extra lanes repeat the last key
      for (size_t l = 0; l < L; ++l) s[l] = stream[std::min(g + l, count - 1)];
    }
    // DeriveSeed(seed, i) = Mix64(Mix64(seed) ^ Mix64(i ^ H0)); Mix64(x) = Finalize(x + gamma).
    s = (s ^ kDeriveTag) + kGamma;
    Finalize(s);
    s = (s ^ mixed_seed) + kGamma;
    Finalize(s);
    std::memcpy(state + g, &s, sizeof s);
  }
  std::fill(lens, lens + slots, 0);
  U64 rejected{};
  for (const Part& p : parts_) {
    switch (p.kind) {
      case Kind::kLiteral:
        for (size_t j = 0; j < count; ++j) {
          Literal(p.text, p.min, out + j * stride + lens[j]);
          lens[j] += p.min;
        }
        break;
      case Kind::kIndex:
        for (size_t j = 0; j < count; ++j) {
          char* at = out + j * stride + lens[j];
          lens[j] += static_cast<uint32_t>(Decimal(index[j], p.min, at) - at);
        }
        break;
      case Kind::kNumber:
        for (size_t g = 0; g < slots; g += L) {
          U64 s, x;
          std::memcpy(&s, state + g, sizeof s);
          x = s + kGamma;
          Finalize(x);
          s += kGamma;
          std::memcpy(state + g, &s, sizeof s);
          for (size_t l = 0; l < L; ++l) {
            char* at = out + (g + l) * stride + lens[g + l];
            lens[g + l] += static_cast<uint32_t>(Decimal(x[l] >> 1, 0, at) - at);
          }
        }
        break;
      case Kind::kHex:
        LaneCharsPart<kHexChars, L, kAvx2>(p.min, p.max, slots, out, stride, lens, state, rejected);
        break;
      case Kind::kAlnum:
        LaneCharsPart<kAlnumChars, L, kAvx2>(p.min, p.max, slots, out, stride, lens, state,
                                             rejected);
        break;
      case Kind::kBytes:
        LaneCharsPart<kRawBytes, L, kAvx2>(p.min, p.max, slots, out, stride, lens, state, rejected);
        break;
    }
  }
  return !AnyLane<L>(rejected);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define CHSIM_KEY_SHAPE_X86 1
__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl"))) bool KeyShape::RenderLanesAvx512(
    const uint64_t* index, uint64_t mixed_seed, const uint64_t* stream, size_t count, char* out,
    size_t stride, uint32_t* lens, uint64_t* state) const noexcept {
  return RenderLanes<8, false>(index, mixed_seed, stream, count, out, stride, lens, state);
}
__attribute__((target("avx2"))) bool KeyShape::RenderLanesAvx2(
    const uint64_t* index, uint64_t mixed_seed, const uint64_t* stream, size_t count, char* out,
    size_t stride, uint32_t* lens, uint64_t* state) const noexcept {
  return RenderLanes<4, true>(index, mixed_seed, stream, count, out, stride, lens, state);
}
#endif
bool KeyShape::RenderLanesPortable(const uint64_t* index, uint64_t mixed_seed,
                                   const uint64_t* stream, size_t count, char* out, size_t stride,
                                   uint32_t* lens, uint64_t* state) const noexcept {
  return RenderLanes<4, false>(index, mixed_seed, stream, count, out, stride, lens, state);
}

namespace {

enum class Isa { kPortable, kAvx2, kAvx512 };
constexpr const char* kIsaNames[] = {"portable", "avx2", "avx512"};

bool IsaSupported(Isa isa) {
#ifdef CHSIM_KEY_SHAPE_X86
  __builtin_cpu_init();
  if (isa == Isa::kAvx512) {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  }
  if (isa == Isa::kAvx2) return __builtin_cpu_supports("avx2");
#endif
  return isa == Isa::kPortable;
}

Isa BestIsa() {
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2}) {
    if (IsaSupported(isa)) return isa;
  }
  return Isa::kPortable;
}

std::atomic<Isa> g_isa{BestIsa()};

}  // namespace

const char* KeyShape::Isa() noexcept {
  return kIsaNames[static_cast<int>(g_isa.load(std::memory_order_relaxed))];
}

bool KeyShape::SetIsa(std::string_view name) noexcept {
  for (int i = 0; i < 3; ++i) {
    if (name == kIsaNames[i] && IsaSupported(static_cast<enum Isa>(i))) {
      g_isa.store(static_cast<enum Isa>(i), std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

void KeyShape::RenderBlock(std::span<const uint64_t> index, uint64_t seed,
                           std::span<const uint64_t> stream, KeyBlock* block) const {
  constexpr size_t kMaxLanes = 8;
  const size_t count = index.size();
  const size_t stride = (max_length_ + kRenderSlack + 15) / 16 * 16;
  const size_t slots = (count + kMaxLanes - 1) / kMaxLanes * kMaxLanes;
  if (block->bytes.size() < slots * stride) block->bytes.resize(slots * stride);
  block->keys.resize(count);
  block->lengths.resize(slots);
  block->state.resize(slots);
  char* const out = block->bytes.data();
  uint32_t* const lens = block->lengths.data();
  const uint64_t mixed = Mix64(seed);
  bool ok;
  switch (g_isa.load(std::memory_order_relaxed)) {
#ifdef CHSIM_KEY_SHAPE_X86
    case Isa::kAvx512:
      ok = RenderLanesAvx512(index.data(), mixed, stream.data(), count, out, stride, lens,
                             block->state.data());
      break;
    case Isa::kAvx2:
      ok = RenderLanesAvx2(index.data(), mixed, stream.data(), count, out, stride, lens,
                           block->state.data());
      break;
#endif
    default:
      ok = RenderLanesPortable(index.data(), mixed, stream.data(), count, out, stride, lens,
                               block->state.data());
  }
  if (!ok) [[unlikely]] {  // a length needs Below's rejection step: one key at a time
    for (size_t j = 0; j < count; ++j) {
      lens[j] = static_cast<uint32_t>(
          RenderImpl(index[j], Mix64(mixed ^ Mix64(stream[j] ^ kDeriveTag)), out + j * stride));
    }
  }
  for (size_t j = 0; j < count; ++j) block->keys[j] = std::string_view(out + j * stride, lens[j]);
}

}  // namespace chsim::sim
