// KeyShape: a template for generated keys, e.g. "user:{n}" or
// "session:{alnum:16-32}". Compiled once, rendered for any (index, seed)
// without allocation once the buffer has grown.
//
// Placeholders (anything else is literal text; "{{" and "}}" are braces):
//   {i}         the key's number (sequential index, or Zipf rank - 1) in decimal
//   {i:0W}      the same, zero-padded to W digits (W 1..20)
//   {n}         a random integer in [0, 2^63) in decimal
//   {hex:N}     N random lowercase hex digits            (N 1..4096)
//   {alnum:N}   N random characters of [0-9A-Za-z]        (or {alnum:A-B}: length
//   {bytes:N}   N random bytes 0..255                      uniform in A..B)
// Random parts come from SplitMix64 seeded by the seed given to Render, so a
// key is a pure function of (index, seed).
//
// Thread-safety: immutable after Compile; Render may run concurrently.
#ifndef CHSIM_SIM_KEY_SHAPE_H_
#define CHSIM_SIM_KEY_SHAPE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace chsim::sim {

// Bytes RenderTo may write past the key (whole 16- and 32-byte stores).
inline constexpr size_t kRenderSlack = 32;

// Keys packed in one buffer: keys[j] views into bytes. Reused from block to
// block, so it allocates only while growing.
struct KeyBlock {
  std::vector<char> bytes;
  std::vector<std::string_view> keys;
  std::vector<uint64_t> index, seed;  // scratch for the producer
};

class KeyShape {
 public:
  // Throws UsageError "<where>: ..." naming the bad placeholder and the
  // accepted ones.
  static KeyShape Compile(std::string_view shape, const std::string& where);

  // Replaces *out with the key for `index`, drawing random parts from `seed`.
  void Render(uint64_t index, uint64_t seed, std::string* out) const;
  // The same key written to out[0..n); returns n. The simulator's hot path:
  // no allocation, random characters made 8 at a time. It may scribble up to
  // kRenderSlack bytes past the key. REQUIRES: out has room for
  // max_length() + kRenderSlack bytes.
  size_t RenderTo(uint64_t index, uint64_t seed, char* out) const noexcept;
  // block->keys[j] = the key for (index[j], seed[j]) for every j, packed in
  // block->bytes (RenderTo in one loop, no call per key).
  // REQUIRES: index.size() == seed.size().
  void RenderBlock(std::span<const uint64_t> index, std::span<const uint64_t> seed,
                   KeyBlock* block) const;

  // Whether any part is random (else keys depend on the index only).
  bool random() const noexcept { return random_; }
  // Largest key length in bytes.
  size_t max_length() const noexcept { return max_length_; }

 private:
  enum class Kind { kLiteral, kIndex, kNumber, kHex, kAlnum, kBytes };
  struct Part {
    Kind kind;
    std::string text;  // kLiteral: the text, zero-padded to a multiple of 16 bytes
    uint32_t min = 0, max = 0;  // lengths (kLiteral: the text's); kIndex: zero-pad width in min
  };
  size_t RenderImpl(uint64_t index, uint64_t seed, char* out) const noexcept;
  void RenderLoop(const uint64_t* index, const uint64_t* seed, size_t count, char* out,
                  std::string_view* keys) const noexcept;
  void RenderLoopAvx2(const uint64_t* index, const uint64_t* seed, size_t count, char* out,
                      std::string_view* keys) const noexcept;

  std::vector<Part> parts_;
  bool random_ = false;
  size_t max_length_ = 0;
};

}  // namespace chsim::sim

#endif  // CHSIM_SIM_KEY_SHAPE_H_
