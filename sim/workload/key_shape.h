// SPDX-License-Identifier: Apache-2.0
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
// Thread-safety: immutable after Compile; Render and RenderBlock may run
// concurrently (SetIsa excepted).
#ifndef CHSIM_SIM_WORKLOAD_KEY_SHAPE_H_
#define CHSIM_SIM_WORKLOAD_KEY_SHAPE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace chsim::sim {

// Bytes RenderTo may write past the key (whole 16- and 32-byte stores).
inline constexpr size_t kRenderSlack = 32;

// A block of keys: keys[j] views into bytes, each key in its own slot of
// stride() bytes. Reused from block to block, so it allocates only while
// growing.
struct KeyBlock {
  std::vector<char> bytes;
  std::vector<std::string_view> keys;
  std::vector<uint64_t> index, stream;  // scratch for the producer
  std::vector<uint32_t> lengths;        // scratch for RenderBlock
  std::vector<uint64_t> state;
};

class KeyShape {
 public:
  // Throws UsageError "<where>: ..." naming the bad placeholder and the
  // accepted ones.
  static KeyShape Compile(std::string_view shape, const std::string& where);

  // Replaces *out with the key for `index`, drawing random parts from `seed`.
  void Render(uint64_t index, uint64_t seed, std::string* out) const;
  // The same key written to out[0..n); returns n. No allocation; it may
  // scribble up to kRenderSlack bytes past the key. REQUIRES: out has room
  // for max_length() + kRenderSlack bytes.
  size_t RenderTo(uint64_t index, uint64_t seed, char* out) const noexcept;
  // The simulator's hot path: block->keys[j] = the key for index[j] with
  // random parts seeded by DeriveSeed(seed, stream[j]) (chsim/splitmix.h),
  // for every j, each in its own slot of block->bytes. Keys are made several
  // at a time, one per vector lane (AVX-512: 8, AVX2: 4, else 4 in the
  // baseline's vectors): seed mixing, lengths and characters in lanes, the
  // shape's parts as a fixed plan applied to every lane. The same bytes as
  // Render, on every path (tests/sim/key_shape_test.cc forces each).
  // REQUIRES: index.size() == stream.size().
  void RenderBlock(std::span<const uint64_t> index, uint64_t seed, std::span<const uint64_t> stream,
                   KeyBlock* block) const;

  // Whether any part is random (else keys depend on the index only).
  bool random() const noexcept { return random_; }
  // Largest key length in bytes.
  size_t max_length() const noexcept { return max_length_; }
  // Most distinct keys the shape renders over distinct numbers: UINT64_MAX
  // with {i} (each number its own key), else the product of the random
  // parts' counts ({n}: 2^63; {hex:N}: 16^N, {alnum:A-B}: the sum of 62^L
  // over the lengths; ...), saturating at UINT64_MAX; 1 for literal text.
  uint64_t max_distinct() const noexcept;

  // The lane width RenderBlock uses: "avx512", "avx2" or "portable".
  static const char* Isa() noexcept;
  // Forces one (tests, benchmarks); false, changing nothing, when the name is
  // unknown or the CPU lacks it. Must not race with RenderBlock.
  static bool SetIsa(std::string_view isa) noexcept;

 private:
  enum class Kind { kLiteral, kIndex, kNumber, kHex, kAlnum, kBytes };
  struct Part {
    Kind kind;
    std::string text;           // kLiteral: the text, zero-padded to a multiple of 16 bytes
    uint32_t min = 0, max = 0;  // lengths (kLiteral: the text's); kIndex: zero-pad width in min
  };
  size_t RenderImpl(uint64_t index, uint64_t seed, char* out) const noexcept;
  // Keys [0, count) of a block, L lanes at a time, into slots of `stride`
  // bytes from `out`; lens[j] = key j's length; false when RenderImpl must
  // redo the block (see key_shape.cc). One function per lane width, each
  // compiled for its ISA; kAvx2 (the AVX2 one only) lets it use AVX2
  // instructions written as asm.
  template <int L, bool kAvx2>
  bool RenderLanes(const uint64_t* index, uint64_t mixed_seed, const uint64_t* stream, size_t count,
                   char* out, size_t stride, uint32_t* lens, uint64_t* state) const noexcept;
  bool RenderLanesAvx512(const uint64_t* index, uint64_t mixed_seed, const uint64_t* stream,
                         size_t count, char* out, size_t stride, uint32_t* lens,
                         uint64_t* state) const noexcept;
  bool RenderLanesAvx2(const uint64_t* index, uint64_t mixed_seed, const uint64_t* stream,
                       size_t count, char* out, size_t stride, uint32_t* lens,
                       uint64_t* state) const noexcept;
  bool RenderLanesPortable(const uint64_t* index, uint64_t mixed_seed, const uint64_t* stream,
                           size_t count, char* out, size_t stride, uint32_t* lens,
                           uint64_t* state) const noexcept;

  std::vector<Part> parts_;
  bool random_ = false;
  size_t max_length_ = 0;
};

}  // namespace chsim::sim

#endif  // CHSIM_SIM_WORKLOAD_KEY_SHAPE_H_
