// SPDX-License-Identifier: Apache-2.0
#include "sim/cli/key_lines.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "sim/base/errors.h"

namespace chsim::sim {
namespace {

// Bytes asked of each read: the block and its lines stay in L2 while mapped.
constexpr size_t kReadBytes = size_t{256} << 10;
// A partial line of up to kMaxKeyBytes kept at the front, plus one read.
constexpr size_t kCapacity = KeyLineReader::kMaxKeyBytes + kReadBytes;
constexpr size_t kOutputBytes = size_t{256} << 10;

// Copies n bytes; n <= 32 (nearly every key and label) is one 32-byte move,
// which may read and write up to 32 bytes past n: the caller has that slack
// on both sides.
inline char* CopySlack(char* dst, const char* src, size_t n) {
  if (n <= 32) [[likely]] {
    std::memcpy(dst, src, 32);
  } else {
    std::memcpy(dst, src, n);
  }
  return dst + n;
}

}  // namespace

KeyLineReader::KeyLineReader(const std::string& path)
    : path_(path), in_(path == "-" ? stdin : std::fopen(path.c_str(), "rb")) {
  if (in_ == nullptr) throw UsageError(path + ": cannot open: " + std::strerror(errno));
  buf_.reset(new char[kCapacity + 64]);
}

KeyLineReader::~KeyLineReader() {
  if (in_ != stdin) std::fclose(in_);
}

void KeyLineReader::TooLong() const {
  throw UsageError(path_ + ":" + std::to_string(line_) + ": key line longer than " +
                   std::to_string(kMaxKeyBytes) + " bytes; accepted: keys up to 1 MiB");
}

bool KeyLineReader::Refill() {
  if (eof_) return false;
  char* const buf = buf_.get();
  const size_t keep = end_ - begin_;  // <= kMaxKeyBytes: a partial line
  std::memmove(buf, buf + begin_, keep);
  begin_ = 0;
  end_ = keep;
  const size_t got = std::fread(buf + end_, 1, std::min(kReadBytes, kCapacity - keep), in_);
  end_ += got;
  std::memset(buf + end_, 0, 64);  // the slack is read, never used: defined bytes
  if (got == 0) {
    if (std::ferror(in_)) throw UsageError(path_ + ": read error");
    eof_ = true;
    return false;
  }
  return true;
}

size_t KeyLineReader::Split(size_t max_lines) {
  // 64 bytes at a time: a mask of their '\n's, then a line per set bit. Bits
  // past end_ (the slack, whose bytes are stale) are cleared. Only a chunk's
  // first line can be longer than 64 bytes, so only it is checked.
  const char* const buf = buf_.get();
  std::string_view* const lines = lines_.data();
  size_t n = 0, start = begin_;
  for (size_t chunk = begin_; chunk < end_ && n < max_lines; chunk += 64) {
    uint64_t m = internal::NewlineMask64(buf + chunk);
    if (end_ - chunk < 64) m &= (uint64_t{1} << (end_ - chunk)) - 1;
    if (m == 0) continue;
    if (chunk + static_cast<size_t>(std::countr_zero(m)) - start > kMaxKeyBytes) {
      if (n == 0) TooLong();
      break;  // hand out the lines before it first
    }
    if (max_lines - n < 64 && static_cast<size_t>(std::popcount(m)) > max_lines - n) {
      // The block fills up in this chunk: keep its first max_lines - n lines.
      uint64_t rest = m;
      for (size_t keep = max_lines - n; keep > 0; --keep) rest &= rest - 1;
      m ^= rest;
    }
    for (; m != 0; m &= m - 1) {
      const size_t nl = chunk + static_cast<size_t>(std::countr_zero(m));
      lines[n++] = std::string_view(buf + start, nl - start);
      start = nl + 1;
    }
  }
  begin_ = start;
  line_ += n;
  return n;
}

std::span<const std::string_view> KeyLineReader::Next(size_t max_lines) {
  if (lines_.size() < max_lines) lines_.resize(max_lines);
  for (;;) {
    // Lines found, or none whole in the buffer: hand these out before it moves.
    if (const size_t n = Split(max_lines); n > 0) return {lines_.data(), n};
    if (end_ - begin_ > kMaxKeyBytes) TooLong();
    if (!Refill()) break;
  }
  if (begin_ == end_) return {};
  lines_[0] = std::string_view(buf_.get() + begin_, end_ - begin_);  // last line, no '\n'
  begin_ = end_;
  ++line_;
  return {lines_.data(), 1};
}

namespace internal {

uint64_t NewlineMask64(const char* p, bool portable) noexcept {
#ifdef __SSE2__
  if (!portable) {
    const __m128i nl = _mm_set1_epi8('\n');
    uint64_t m = 0;
    for (int i = 0; i < 4; ++i) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
      m |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)))} << (16 * i);
    }
    return m;
  }
#endif
  // Per 8-byte word: x = w ^ "\n\n..." has a zero byte where w has '\n'; the
  // high bit of ~(((x & 7f..) + 7f..) | x | 7f..) is set exactly there (no
  // carry crosses a byte), and the multiply gathers those 8 bits into the top
  // byte, byte k to bit 56 + k.
  constexpr uint64_t k7f = 0x7f7f7f7f7f7f7f7fULL;
  uint64_t m = 0;
  for (int i = 0; i < 8; ++i) {
    uint64_t w;
    std::memcpy(&w, p + 8 * i, 8);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    const uint64_t x = w ^ 0x0a0a0a0a0a0a0a0aULL;
    const uint64_t high = ~(((x & k7f) + k7f) | x | k7f);
    m |= (((high >> 7) * 0x0102040810204080ULL) >> 56) << (8 * i);
  }
  return m;
}

}  // namespace internal

StdoutBuffer::StdoutBuffer() : buf_(new char[kOutputBytes]), cap_(kOutputBytes) {}

StdoutBuffer::~StdoutBuffer() {
  if (used_ > 0) std::fwrite(buf_.get(), 1, used_, stdout);
  std::fflush(stdout);
}

void StdoutBuffer::Append(std::string_view s) {
  char* p = Reserve(s.size());
  std::memcpy(p, s.data(), s.size());
  Commit(p + s.size());
}

void StdoutBuffer::Flush() {
  const size_t n = used_;
  used_ = 0;
  if ((n > 0 && std::fwrite(buf_.get(), 1, n, stdout) != n) || std::fflush(stdout) != 0) {
    throw RuntimeError(std::string("writing standard output: ") + std::strerror(errno));
  }
}

void StdoutBuffer::Grow(size_t n) {
  Flush();
  if (cap_ < n) {
    buf_.reset(new char[n]);
    cap_ = n;
  }
}

void WriteKeyOwners(const std::string& path, std::span<const Node> nodes,
                    const LocateBlock& locate) {
  // "\tLABEL\n" of every node, at a fixed stride with 32 bytes of slack.
  size_t stride = 0;
  for (const Node& n : nodes) stride = std::max(stride, n.label.size() + 2);
  stride += 32;
  std::vector<char> labels(nodes.size() * stride, '\0');
  std::vector<uint32_t> label_size(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    char* p = labels.data() + i * stride;
    p[0] = '\t';
    std::memcpy(p + 1, nodes[i].label.data(), nodes[i].label.size());
    p[nodes[i].label.size() + 1] = '\n';
    label_size[i] = static_cast<uint32_t>(nodes[i].label.size() + 2);
  }
  KeyLineReader reader(path);
  StdoutBuffer out;
  std::vector<uint32_t> owners(kLocateBlockKeys);
  for (;;) {
    const std::span<const std::string_view> keys = reader.Next(kLocateBlockKeys);
    if (keys.empty()) break;
    locate(keys, {owners.data(), keys.size()});
    // The keys are consecutive lines: their bytes, less the '\n's, plus a
    // label each and 32 bytes of slack for CopySlack's whole moves.
    const size_t key_bytes =
        static_cast<size_t>(keys.back().data() - keys.front().data()) + keys.back().size();
    char* p = out.Reserve(key_bytes + keys.size() * stride + 64);
    for (size_t i = 0; i < keys.size(); ++i) {
      p = CopySlack(p, keys[i].data(), keys[i].size());
      p = CopySlack(p, labels.data() + owners[i] * stride, label_size[owners[i]]);
    }
    out.Commit(p);
  }
  out.Flush();
}

}  // namespace chsim::sim
