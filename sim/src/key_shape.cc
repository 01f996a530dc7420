#include "chsim/sim/key_shape.h"

#include <bit>
#include <charconv>
#include <cstring>

#include "chsim/sim/errors.h"
#include "chsim/sim/rng.h"
#include "chsim/sim/text_file.h"

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
  for (size_t i = 0; i < shape.size(); ++i) {
    char c = shape[i];
    if (c == '}') {
      if (i + 1 < shape.size() && shape[i + 1] == '}') {
        literal += '}';
        ++i;
        continue;
      }
      throw UsageError(where + ": found a lone '}' in key shape " + Quote(shape) +
                       "; accepted: '}}' for a literal brace");
    }
    if (c != '{') {
      literal += c;
      continue;
    }
    if (i + 1 < shape.size() && shape[i + 1] == '{') {
      literal += '{';
      ++i;
      continue;
    }
    size_t close = shape.find('}', i);
    if (close == std::string_view::npos) {
      throw UsageError(where + ": unclosed '{' in key shape " + Quote(shape) + "; " + kAccepted);
    }
    std::string_view body = shape.substr(i + 1, close - i - 1);
    i = close;
    flush();
    auto bad = [&] {
      return UsageError(where + ": found placeholder {" + std::string(body) + "} in key shape " +
                        Quote(shape) + "; " + kAccepted);
    };
    Part part{Kind::kLiteral, {}};
    std::string_view name = body.substr(0, body.find(':'));
    std::string_view arg =
        body.find(':') == std::string_view::npos ? std::string_view() : body.substr(name.size() + 1);
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
                         std::string(body) + "}; accepted: 1.." +
                         std::to_string(kMaxRandomLength) + ", and A <= B in A-B");
      }
      k.random_ = true;
      k.max_length_ += part.max;
    } else {
      throw bad();
    }
    k.parts_.push_back(std::move(part));
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

// Random characters, 8 per SplitMix64 word: byte k of a word (bits 8k..8k+7,
// low byte first) gives character k:
//   hex:   "0123456789abcdef"[byte & 15]
//   alnum: "0-9A-Za-z"[(byte * 62) >> 8]  (Lemire's multiply-shift onto 0..61)
//   bytes: the byte itself
// Four words (32 characters) at a time in 256-bit vectors (GCC vector
// extensions; AVX2 when the CPU has it, see RenderBlock): SplitMix64's output
// function on four states at once, then a table-free mapping. Always makes
// `words` words rounded up to 4 (the part's longest key), so the loop has the
// same trip count for every key (a variable one costs a mispredicted exit per
// key), stores them whole, then advances rng past the ceil(len / 8) words the
// key used. Stores may run up to 31 bytes past a part's longest key, into room
// the caller reserves (max_length() + kRenderSlack) and later parts or keys
// overwrite. Vectors stay inside this function (passing 32-byte vectors
// between functions depends on the ISA).
using U64x4 = uint64_t __attribute__((vector_size(32)));
using U16x16 = uint16_t __attribute__((vector_size(32)));
using I8x32 = int8_t __attribute__((vector_size(32)));
static_assert(kRenderSlack >= 31);

enum CharKind { kHexChars, kAlnumChars, kRawBytes };

template <CharKind kKind>
[[gnu::always_inline]] inline char* RandomChars(Stream& rng, uint32_t len, uint32_t words,
                                                char* out) noexcept {
  constexpr uint64_t g = kSplitMixGamma;
  for (uint32_t w = 0; w < words; w += 4) {
    // States s + (w + 1 + lane) * gamma: Mix adds the first gamma itself (rng.h).
    U64x4 x = rng.state() + uint64_t{w} * g + U64x4{1 * g, 2 * g, 3 * g, 4 * g};
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x = x ^ (x >> 31);
    if constexpr (std::endian::native == std::endian::big) {
      for (int k = 0; k < 4; ++k) x[k] = __builtin_bswap64(x[k]);
    }
    if constexpr (kKind == kHexChars) {
      I8x32 i = reinterpret_cast<I8x32>(x) & 15;
      x = reinterpret_cast<U64x4>(i + '0' + ((i > 9) & int8_t{'a' - '0' - 10}));
    } else if constexpr (kKind == kAlnumChars) {
      // Each byte times 62 in its 16-bit lane (< 2^14: no carry into the next byte).
      U16x16 v = reinterpret_cast<U16x16>(x);
      U16x16 low = ((v & 0xff) * 62) >> 8;     // even bytes' index, in the low byte
      U16x16 high = ((v >> 8) * 62) & 0xff00;  // odd bytes' index, in the high byte
      I8x32 i = reinterpret_cast<I8x32>(low | high);  // 0..61 per byte
      x = reinterpret_cast<U64x4>(i + '0' + ((i > 9) & int8_t{'A' - '0' - 10}) +
                                  ((i > 35) & int8_t{'a' - 'A' - 26}));
    }
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

}  // namespace

// The key for (index, seed); the body of RenderTo, inlined into each
// RenderBlock variant.
[[gnu::always_inline]] inline size_t KeyShape::RenderImpl(uint64_t index, uint64_t seed,
                                                         char* out) const noexcept {
  char* const begin = out;
  Stream rng(seed);
  for (const Part& p : parts_) {
    switch (p.kind) {
      case Kind::kLiteral:  // text is padded to 16 bytes; the slack takes the overrun
        for (uint32_t k = 0; k < p.min; k += 16) std::memcpy(out + k, p.text.data() + k, 16);
        out += p.min;
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
        uint32_t len = p.min == p.max ? p.min : p.min + static_cast<uint32_t>(
                                                            rng.Below(p.max - p.min + 1));
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

[[gnu::always_inline]] inline void KeyShape::RenderLoop(const uint64_t* index,
                                                       const uint64_t* seed, size_t count,
                                                       char* out,
                                                       std::string_view* keys) const noexcept {
  for (size_t j = 0; j < count; ++j) {
    size_t len = RenderImpl(index[j], seed[j], out);
    keys[j] = std::string_view(out, len);
    out += len;
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same loop compiled for AVX2 (four 64-bit lanes per vector), chosen at
// run time; identical output.
__attribute__((target("avx2"))) void KeyShape::RenderLoopAvx2(
    const uint64_t* index, const uint64_t* seed, size_t count, char* out,
    std::string_view* keys) const noexcept {
  RenderLoop(index, seed, count, out, keys);
}
#endif

void KeyShape::RenderBlock(std::span<const uint64_t> index, std::span<const uint64_t> seed,
                           KeyBlock* block) const {
  const size_t count = index.size();
  if (block->bytes.size() < count * max_length_ + kRenderSlack) {
    block->bytes.resize(count * max_length_ + kRenderSlack);
  }
  block->keys.resize(count);
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) {
    RenderLoopAvx2(index.data(), seed.data(), count, block->bytes.data(), block->keys.data());
    return;
  }
#endif
  RenderLoop(index.data(), seed.data(), count, block->bytes.data(), block->keys.data());
}

}  // namespace chsim::sim
