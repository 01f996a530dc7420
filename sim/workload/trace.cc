// SPDX-License-Identifier: Apache-2.0
// Trace files: a byte source (plain or zstd), a line splitter, and one parser
// per format filling RequestBlocks.
#include "sim/workload/trace.h"

#include <sys/stat.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>

#include "sim/base/errors.h"
#include "sim/base/interrupt.h"
#include "sim/base/json_reader.h"
#include "sim/base/text_file.h"

// XXH3 inlined from libxxhash's header (XXH_INLINE_ALL): the object ids of
// short keys are hashed from registers with its own constants and mixers.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace chsim::sim {
namespace {

constexpr size_t kBufferBytes = size_t{1} << 20;  // also the longest line
constexpr size_t kOracleRecord = 24;

// The bytes of a file, decompressed when it starts with a zstd frame.
class ByteSource {
 public:
  explicit ByteSource(const std::string& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "rb");
    if (file_ == nullptr) throw UsageError(path + ": cannot open: " + std::strerror(errno));
    unsigned char magic[4] = {};
    const size_t got = std::fread(magic, 1, 4, file_);
    zstd_ =
        got == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd;
    std::rewind(file_);
    if (zstd_) {
      dctx_ = ZSTD_createDCtx();
      in_buf_.resize(ZSTD_DStreamInSize());
    }
  }
  ~ByteSource() {
    if (dctx_ != nullptr) ZSTD_freeDCtx(dctx_);
    if (file_ != nullptr) std::fclose(file_);
  }
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // The file's size when it is not compressed and nothing has been read.
  std::optional<uint64_t> PlainSize() const {
    struct stat st {};
    if (zstd_ || ::fstat(::fileno(file_), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    if (std::ftell(file_) != 0) return std::nullopt;
    return static_cast<uint64_t>(st.st_size);
  }

  // Reads up to `cap` bytes into `out`: how many, 0 at the end. On a read
  // or decompression error, returns 0 and sets *error.
  size_t Read(char* out, size_t cap, std::string* error) {
    if (!zstd_) {
      const size_t n = std::fread(out, 1, cap, file_);
      if (n == 0 && std::ferror(file_)) *error = std::string("read error: ") + std::strerror(errno);
      return n;
    }
    ZSTD_outBuffer o{out, cap, 0};
    while (o.pos == 0) {
      if (in_.pos == in_.size && !eof_) {
        in_ =
            ZSTD_inBuffer{in_buf_.data(), std::fread(in_buf_.data(), 1, in_buf_.size(), file_), 0};
        if (in_.size == 0 && std::ferror(file_)) {
          *error = std::string("read error: ") + std::strerror(errno);
          return 0;
        }
        eof_ = in_.size == 0;
      }
      if (eof_ && pending_ == 0) return 0;  // the last frame ended: a clean end
      const size_t consumed = in_.pos;
      pending_ = ZSTD_decompressStream(dctx_, &o, &in_);
      if (ZSTD_isError(pending_)) {
        *error = std::string("zstd: ") + ZSTD_getErrorName(pending_);
        return 0;
      }
      if (eof_ && o.pos == 0 && in_.pos == consumed) {
        *error = "truncated zstd frame (the file ends inside it)";
        return 0;
      }
    }
    return o.pos;
  }

 private:
  std::string path_;
  FILE* file_ = nullptr;
  bool zstd_ = false;
  ZSTD_DCtx* dctx_ = nullptr;
  std::vector<char> in_buf_;
  ZSTD_inBuffer in_{nullptr, 0, 0};
  size_t pending_ = 0;  // ZSTD_decompressStream's last hint: 0 at a frame's end
  bool eof_ = false;
};

// Lines of a ByteSource ('\n'-terminated; a final line without one counts; a
// trailing '\r' dropped), each valid until the next call.
class Lines {
 public:
  explicit Lines(const std::string& path) : path_(path), source_(path), buf_(kBufferBytes) {}

  // False at the end.
  bool Next(std::string_view* line) {
    for (;;) {
      const char* nl =
          static_cast<const char*>(std::memchr(buf_.data() + begin_, '\n', end_ - begin_));
      if (nl != nullptr) {
        *line = Cut(nl - buf_.data(), 1);
        return true;
      }
      if (!Refill()) {
        if (begin_ == end_) return false;
        *line = Cut(end_, 0);
        return true;
      }
    }
  }
  uint64_t line() const noexcept { return line_; }  // number of the last line returned
  const std::string& path() const noexcept { return path_; }
  [[noreturn]] void Fail(const std::string& what) const {
    throw RuntimeError(path_ + ":" + std::to_string(line_) + ": " + what);
  }

 private:
  std::string_view Cut(size_t end, size_t skip) {
    std::string_view l(buf_.data() + begin_, end - begin_);
    begin_ = end + skip;
    ++line_;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    return l;
  }
  // Moves the unread bytes to the front and reads after them.
  bool Refill() {
    if (begin_ == 0 && end_ == buf_.size()) {
      line_ += 1;
      Fail("line longer than " + std::to_string(kBufferBytes) +
           " bytes; accepted: one request a line");
    }
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
    std::string error;
    const size_t n = source_.Read(buf_.data() + end_, buf_.size() - end_, &error);
    if (!error.empty()) {
      throw RuntimeError(path_ + ": " + error + " after line " + std::to_string(line_));
    }
    end_ += n;
    return n > 0;
  }

  std::string path_;
  ByteSource source_;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;
  uint64_t line_ = 0;
};

// The comma-separated fields of `line` (no quoting).
void SplitCommas(std::string_view line, std::vector<std::string_view>* out) {
  out->clear();
  for (size_t start = 0;;) {
    const size_t comma = line.find(',', start);
    out->push_back(line.substr(start, comma - start));
    if (comma == std::string_view::npos) return;
    start = comma + 1;
  }
}

bool ParseUint(std::string_view s, uint64_t* v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

// The operation named `s` (any case); false if unknown.
bool ParseOp(std::string_view s, RequestOp* op) {
  std::string lower(s);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::pair<const char*, RequestOp> kOps[] = {
      {"get", RequestOp::kRead},        {"gets", RequestOp::kRead},
      {"read", RequestOp::kRead},       {"get_lease", RequestOp::kRead},
      {"set", RequestOp::kWrite},       {"add", RequestOp::kWrite},
      {"replace", RequestOp::kWrite},   {"cas", RequestOp::kWrite},
      {"append", RequestOp::kWrite},    {"prepend", RequestOp::kWrite},
      {"incr", RequestOp::kWrite},      {"decr", RequestOp::kWrite},
      {"write", RequestOp::kWrite},     {"update", RequestOp::kWrite},
      {"set_lease", RequestOp::kWrite}, {"delete", RequestOp::kDelete},
      {"del", RequestOp::kDelete},      {"remove", RequestOp::kDelete}};
  for (const auto& [name, value] : kOps) {
    if (lower == name) {
      *op = value;
      return true;
    }
  }
  return false;
}

constexpr char kOpsAccepted[] =
    "get, gets, read, get_lease, set, add, replace, cas, append, prepend, incr, decr, write, "
    "update, set_lease, delete, del, remove (any case)";

// Builds a block: keys are appended as bytes, their views made at the end.
class BlockWriter {
 public:
  explicit BlockWriter(RequestBlock* b) : b_(b) {
    b_->keys.bytes.clear();
    b_->keys.index.clear();  // ends of the keys
    b_->sizes.clear();
    b_->ops.clear();
  }
  void Add(std::string_view key, uint32_t size, RequestOp op) {
    b_->keys.bytes.insert(b_->keys.bytes.end(), key.begin(), key.end());
    b_->keys.index.push_back(b_->keys.bytes.size());
    b_->sizes.push_back(size);
    b_->ops.push_back(op);
  }
  size_t count() const noexcept { return b_->sizes.size(); }
  void Finish() {
    b_->keys.keys.resize(count());
    size_t start = 0;
    for (size_t j = 0; j < count(); ++j) {
      const size_t end = static_cast<size_t>(b_->keys.index[j]);
      b_->keys.keys[j] = std::string_view(b_->keys.bytes.data() + start, end - start);
      start = end;
    }
  }

 private:
  RequestBlock* b_;
};

// What every line format shares: the lines, the empty-trace check.
class LineTrace : public RequestReader {
 public:
  explicit LineTrace(const TraceSpec& spec) : lines_(spec.path) {}
  void Next(size_t max, RequestBlock* block) override {
    BlockWriter w(block);
    while (w.count() < max && Fill(max, w)) {
    }
    w.Finish();
    if (w.count() == 0 && !seen_ && !empty_allowed()) {
      throw RuntimeError(lines_.path() + ": empty trace (" + std::to_string(lines_.line()) +
                         " lines, no request); accepted: a " + Format() + " trace");
    }
    seen_ = seen_ || w.count() > 0;
  }

 protected:
  // Adds the requests of the next line (or what is pending); false at the end.
  virtual bool Fill(size_t max, BlockWriter& w) = 0;
  virtual std::string Format() const = 0;
  virtual bool empty_allowed() const noexcept { return false; }
  Lines lines_;

 private:
  bool seen_ = false;
};

class KeyLinesTrace final : public LineTrace {
 public:
  using LineTrace::LineTrace;

 private:
  std::string Format() const override { return "key lines"; }
  bool empty_allowed() const noexcept override { return true; }
  bool Fill(size_t, BlockWriter& w) override {
    std::string_view line;
    if (!lines_.Next(&line)) return false;
    w.Add(line, 0, RequestOp::kRead);
    return true;
  }
};

class TwitterTrace final : public LineTrace {
 public:
  using LineTrace::LineTrace;

 private:
  std::string Format() const override { return "twitter"; }
  bool Fill(size_t, BlockWriter& w) override {
    std::string_view line;
    if (!lines_.Next(&line)) return false;
    size_t comma[6];  // the first comma, then the last five from the right
    comma[0] = line.find(',');
    size_t at = line.size();
    for (int k = 5; k >= 1; --k) {
      at = at == 0 ? std::string_view::npos : line.rfind(',', at - 1);
      if (at == std::string_view::npos || at <= comma[0]) Malformed(line);
      comma[k] = at;
    }
    auto field = [&](int k) { return line.substr(comma[k] + 1, comma[k + 1] - comma[k] - 1); };
    uint64_t ts = 0, key_size = 0, value_size = 0;
    if (!ParseUint(line.substr(0, comma[0]), &ts)) Malformed(line);
    if (!ParseUint(field(1), &key_size) || !ParseUint(field(2), &value_size) ||
        key_size + value_size > UINT32_MAX) {
      lines_.Fail("found key_size " + Quote(field(1)) + ", value_size " + Quote(field(2)) +
                  "; accepted: sizes in bytes whose sum is below 2^32");
    }
    RequestOp op;
    if (!ParseOp(field(4), &op)) {
      lines_.Fail("found operation " + Quote(field(4)) + "; accepted: " + kOpsAccepted);
    }
    w.Add(line.substr(comma[0] + 1, comma[1] - comma[0] - 1),
          static_cast<uint32_t>(key_size + value_size), op);
    return true;
  }
  [[noreturn]] void Malformed(std::string_view line) const {
    lines_.Fail("found " + Quote(line) +
                "; accepted: timestamp,key,key_size,value_size,client_id,operation,ttl "
                "(Twitter's cache-trace format)");
  }
};

// A header line names the columns; each line is one request, or `count`.
class CsvTrace final : public LineTrace {
 public:
  explicit CsvTrace(const TraceSpec& spec) : LineTrace(spec), columns_(spec.columns) {
    std::string_view header;
    if (!lines_.Next(&header)) return;  // empty: Next reports it
    SplitCommas(header, &fields_);
    names_.assign(fields_.begin(), fields_.end());
    key_ = Column(columns_.key, true);
    if (columns_.size.empty() && !columns_.explicit_columns) {
      if (Column("size", false) != kNone) size_ = {Column("size", false)};
    }
    for (const std::string& c : columns_.size) size_.push_back(Column(c, true));
    const std::string op = columns_.op.empty() && !columns_.explicit_columns ? "op" : columns_.op;
    if (!op.empty()) op_ = Column(op, columns_.explicit_columns);
    if (!columns_.count.empty()) count_ = Column(columns_.count, true);
  }

 private:
  static constexpr size_t kNone = SIZE_MAX;
  size_t Column(const std::string& name, bool required) const {
    auto it = std::find(names_.begin(), names_.end(), name);
    if (it != names_.end()) return static_cast<size_t>(it - names_.begin());
    if (required) {
      throw UsageError(lines_.path() + ":1: the header has no column " + Quote(name) +
                       "; found columns: " + JoinNames(names_));
    }
    return kNone;
  }
  std::string Format() const override { return "csv"; }

  bool Fill(size_t max, BlockWriter& w) override {
    if (pending_ == 0 && !ReadLine()) return false;
    while (pending_ > 0 && w.count() < max) {
      w.Add(key_text_, size_value_, op_value_);
      --pending_;
    }
    return true;
  }
  // Parses the next line into key_text_, size_value_, op_value_, pending_.
  bool ReadLine() {
    std::string_view line;
    if (!lines_.Next(&line)) return false;
    SplitCommas(line, &fields_);
    if (fields_.size() != names_.size()) {
      lines_.Fail("found " + std::to_string(fields_.size()) + " fields; accepted: " +
                  std::to_string(names_.size()) + " comma-separated fields, as the header names");
    }
    key_text_.assign(fields_[key_]);
    uint64_t total = 0;
    for (size_t c : size_) {
      uint64_t v = 0;
      if (!ParseUint(fields_[c], &v) || (total += v) > UINT32_MAX) {
        lines_.Fail("found " + names_[c] + " " + Quote(fields_[c]) +
                    "; accepted: a size in bytes (sizes summed below 2^32)");
      }
    }
    size_value_ = static_cast<uint32_t>(total);
    op_value_ = RequestOp::kRead;
    if (op_ != kNone && !ParseOp(fields_[op_], &op_value_)) {
      lines_.Fail("found operation " + Quote(fields_[op_]) + "; accepted: " + kOpsAccepted);
    }
    pending_ = 1;
    if (count_ != kNone && !ParseUint(fields_[count_], &pending_)) {
      lines_.Fail("found " + names_[count_] + " " + Quote(fields_[count_]) +
                  "; accepted: a repeat count 0..2^64-1");
    }
    return true;
  }

  TraceColumns columns_;
  std::vector<std::string> names_;
  size_t key_ = 0, op_ = kNone, count_ = kNone;
  std::vector<size_t> size_;
  std::vector<std::string_view> fields_;
  std::string key_text_;
  uint32_t size_value_ = 0;
  RequestOp op_value_ = RequestOp::kRead;
  uint64_t pending_ = 0;  // repeats of the current line still to hand out
};

// The 8 decimal digits of x < 10^8 (leading zeros included) as byte values
// 0..9, the first digit in the lowest byte: x splits into two 4-digit
// halves, each into two 2-digit quarters, each into two digits, by
// multiply-shift divisions in lanes of one 64-bit word (Khuong, "How to print
// integers really fast", 2017: 10486 / 2^20 divides by 100 below 43,699;
// 103 / 2^10 by 10 below 179).
inline uint64_t EightDigits(uint32_t x) noexcept {
  const uint64_t halves = (x / 10000) | (static_cast<uint64_t>(x % 10000) << 32);
  const uint64_t hundreds = ((halves * 10486) >> 20) & 0x0000007f0000007fULL;
  const uint64_t quarters = ((halves - 100 * hundreds) << 16) | hundreds;
  const uint64_t tens = ((quarters * 103) >> 10) & 0x000f000f000f000fULL;
  return tens | (quarters - 10 * tens) << 8;
}

constexpr uint64_t kAsciiZeros = 0x3030303030303030ULL;

// Digits in a word of EightDigits after its leading zeros (at least 1).
inline size_t Significant(uint64_t digits) noexcept {
  return digits == 0 ? 1 : 8 - static_cast<size_t>(std::countr_zero(digits) / 8);
}

// Writes v in decimal right-aligned in out[0, 20) and returns its digit
// count: out[20 - count, 20) is what std::to_chars would write. Only the
// 8-digit chunks v reaches are written (the bytes before are left as they
// were); the count comes from the leading zeros of the first chunk.
inline size_t RenderDecimal(uint64_t v, char* out) noexcept {
  constexpr uint64_t k1e8 = 100000000, k1e16 = 10000000000000000ULL;
  if (v < k1e8) {
    const uint64_t low = EightDigits(static_cast<uint32_t>(v));
    const uint64_t text = low | kAsciiZeros;
    std::memcpy(out + 12, &text, 8);  // byte order: little-endian hosts (as the records)
    return Significant(low);
  }
  const uint64_t rest = v % k1e16;
  const uint64_t mid = EightDigits(static_cast<uint32_t>(rest / k1e8));
  const uint64_t low = EightDigits(static_cast<uint32_t>(rest % k1e8)) | kAsciiZeros;
  const uint64_t mid_text = mid | kAsciiZeros;
  std::memcpy(out + 4, &mid_text, 8);
  std::memcpy(out + 12, &low, 8);
  if (v < k1e16) return 8 + Significant(mid);
  // The first 4 of 20 digits (v / 10^16 < 1845): the top half of a word.
  const uint64_t top = EightDigits(static_cast<uint32_t>(v / k1e16)) >> 32;
  const uint32_t top_text = static_cast<uint32_t>(top | kAsciiZeros);
  std::memcpy(out, &top_text, 4);
  return 16 + Significant(top) - 4;
}

// XXH3-64 with seed 0 (ObjectId) of the decimal key of `id` < 10^8, whose
// `digits` bytes are the top bytes of the little-endian word `text` (as
// RenderDecimal's low chunk holds them): XXH3's 4-8 byte case (xxhash.h,
// XXH3_len_4to8_64b, default secret) from the register, or for 1-3 digits
// (id < 1000) the id looked up in `below_1000`. Both are formed and one is
// selected: key lengths mix in most traces (a Zipf trace over 10^6 ids has
// about half its requests below 1000), and a branch on the length would
// mispredict about every other request.
inline uint64_t ShortKeyXxh3(uint64_t id, uint64_t text, size_t digits,
                             const std::array<uint64_t, 1000>& below_1000) noexcept {
  const auto secret = [](size_t at) {
    uint64_t w;
    std::memcpy(&w, XXH3_kSecret + at, 8);
    return w;
  };
  const uint64_t key = text >> (64 - 8 * digits);  // the key's bytes from byte 0
  const uint64_t input1 = static_cast<uint32_t>(key), input2 = text >> 32;
  const uint64_t keyed = (input2 + (input1 << 32)) ^ (secret(8) ^ secret(16));
  const uint64_t long_hash = XXH3_rrmxmx(keyed, digits);
  const uint64_t use_long = 0 - static_cast<uint64_t>(digits >= 4);
  return (long_hash & use_long) | (below_1000[std::min<uint64_t>(id, 999)] & ~use_long);
}

// The ObjectId of the keys "0".."999", made once.
const std::array<uint64_t, 1000>& Below1000() {
  static const std::array<uint64_t, 1000> table = [] {
    std::array<uint64_t, 1000> t{};
    for (uint64_t v = 0; v < t.size(); ++v) {
      const std::string key = std::to_string(v);
      t[v] = XXH3_64bits(key.data(), key.size());
    }
    return t;
  }();
  return table;
}

// ObjectId of the decimal key of `id`, rendered right-aligned in slot[0, 20)
// (RenderDecimal) with `digits` digits.
inline uint64_t RenderedKeyId(uint64_t id, const char* slot, size_t digits,
                              const std::array<uint64_t, 1000>& below_1000) noexcept {
  if (digits <= 8) {
    uint64_t text;
    std::memcpy(&text, slot + 12, 8);  // the word just stored: forwarded
    return ShortKeyXxh3(id, text, digits, below_1000);
  }
  return XXH3_64bits(slot + 20 - digits, digits);
}

// 24-byte records, parsed where they were read: each key (the id in decimal)
// is rendered straight into the block, sizes and ops written in place; or,
// when the consumer takes raw ids, only the ids and sizes.
class OracleTrace final : public RequestReader {
 public:
  explicit OracleTrace(const TraceSpec& spec)
      : path_(spec.path), source_(spec.path), buf_(kOracleRecord * kOracleBuffered) {}

  void Next(size_t max, RequestBlock* block) override {
    if (have_ - at_ < kOracleRecord * std::min(max, kOracleBuffered)) Refill();
    const size_t count = std::min(max, (have_ - at_) / kOracleRecord);
    if (count == 0 && records_ == 0) Empty();
    block->sizes.resize(count);
    block->ops.assign(count, RequestOp::kRead);
    block->ids.resize(count);
    block->ids_raw = !block->keys_wanted && block->raw_ids_wanted;
    if (block->keys_wanted) {
      Parse<true>(count, block);
    } else {
      block->keys.keys.clear();
      if (block->ids_raw) {
        ParseRaw(count, block);
      } else {
        Parse<false>(count, block);
      }
    }
    at_ += count * kOracleRecord;
    records_ += count;
  }

  // Every record is a read. A plain file's records are its size over 24, with
  // the errors reading them would meet (empty, a truncated last record).
  void CountRest(uint64_t* requests, uint64_t* reads) override {
    if (records_ == 0 && have_ == 0) {
      if (const std::optional<uint64_t> bytes = source_.PlainSize()) {
        if (*bytes == 0) Empty();
        records_ = *bytes / kOracleRecord;
        if (*bytes % kOracleRecord != 0) Truncated(*bytes % kOracleRecord);
        *requests += records_;
        *reads += records_;
        return;
      }
    }
    const uint64_t before = records_;
    for (;;) {
      const size_t n = (have_ - at_) / kOracleRecord;
      at_ += n * kOracleRecord;
      records_ += n;
      ThrowIfStopped();
      if (!Refill()) break;
    }
    if (records_ == 0) Empty();
    *requests += records_ - before;
    *reads += records_ - before;
  }

 private:
  static constexpr size_t kDigits = 20;            // the longest uint64 in decimal
  static constexpr size_t kOracleBuffered = 4096;  // records the buffer holds

  // The next `count` records into the block: sizes and ids, and with kKeys
  // the keys (rendered into keys.bytes, else in a local buffer).
  template <bool kKeys>
  void Parse(size_t count, RequestBlock* block) {
    KeyBlock& k = block->keys;
    char local[kDigits];
    if constexpr (kKeys) {
      k.bytes.resize(count * kDigits);
      k.keys.resize(count);
    }
    // Locals: the byte stores may alias any pointer kept in memory.
    const char* r = buf_.data() + at_;
    char* slot = kKeys ? k.bytes.data() : local;
    std::string_view* keys = k.keys.data();
    uint32_t* sizes = block->sizes.data();
    uint64_t* ids = block->ids.data();
    const std::array<uint64_t, 1000>& below_1000 = Below1000();
    for (size_t j = 0; j < count; ++j, r += kOracleRecord) {
      uint64_t id;
      std::memcpy(&id, r + 4, 8);  // little-endian records on a little-endian host
      std::memcpy(&sizes[j], r + 12, 4);
      const size_t digits = RenderDecimal(id, slot);
      if constexpr (kKeys) keys[j] = std::string_view(slot + kDigits - digits, digits);
      ids[j] = RenderedKeyId(id, slot, digits, below_1000);
      if constexpr (kKeys) slot += kDigits;
    }
  }
  // The next `count` records' integer ids and sizes.
  void ParseRaw(size_t count, RequestBlock* block) const noexcept {
    const char* r = buf_.data() + at_;
    uint32_t* sizes = block->sizes.data();
    uint64_t* ids = block->ids.data();
    for (size_t j = 0; j < count; ++j, r += kOracleRecord) {
      std::memcpy(&ids[j], r + 4, 8);
      std::memcpy(&sizes[j], r + 12, 4);
    }
  }

  [[noreturn]] void Empty() const {
    throw RuntimeError(path_ +
                       ": empty trace (no record); accepted: 24-byte oracleGeneral "
                       "records");
  }
  [[noreturn]] void Truncated(size_t bytes) const {
    throw RuntimeError(path_ + ": record " + std::to_string(records_ + 1) + ": truncated (" +
                       std::to_string(bytes) +
                       " of 24 bytes); accepted: 24-byte "
                       "oracleGeneral records");
  }
  // Keeps the unread bytes and fills the rest of the buffer; false when not
  // one whole record is left (the end).
  bool Refill() {
    std::memmove(buf_.data(), buf_.data() + at_, have_ - at_);
    have_ -= at_;
    at_ = 0;
    while (have_ < buf_.size()) {
      std::string error;
      const size_t n = source_.Read(buf_.data() + have_, buf_.size() - have_, &error);
      if (!error.empty()) {
        throw RuntimeError(path_ + ": record " + std::to_string(records_ + 1) + ": " + error);
      }
      if (n == 0) break;
      have_ += n;
    }
    if (have_ > 0 && have_ < kOracleRecord) Truncated(have_);
    return have_ >= kOracleRecord;
  }

  std::string path_;
  ByteSource source_;
  std::vector<char> buf_;
  size_t at_ = 0, have_ = 0;
  uint64_t records_ = 0;  // records handed out
};

}  // namespace

const char* TraceFormatName(TraceFormat f) noexcept {
  switch (f) {
    case TraceFormat::kTwitter:
      return "twitter";
    case TraceFormat::kCsv:
      return "csv";
    case TraceFormat::kOracleGeneral:
      return "oracle_general";
    case TraceFormat::kKeyLines:
      break;
  }
  return "key_lines";
}

void DecimalKeyObjectIds(std::span<const uint64_t> ids, std::span<uint64_t> out) noexcept {
  const std::array<uint64_t, 1000>& below_1000 = Below1000();
  char slot[20];
  for (size_t j = 0; j < ids.size(); ++j) {
    const size_t digits = RenderDecimal(ids[j], slot);
    out[j] = RenderedKeyId(ids[j], slot, digits, below_1000);
  }
}

std::unique_ptr<RequestReader> OpenTrace(const TraceSpec& spec) {
  switch (spec.format) {
    case TraceFormat::kTwitter:
      return std::make_unique<TwitterTrace>(spec);
    case TraceFormat::kCsv:
      return std::make_unique<CsvTrace>(spec);
    case TraceFormat::kOracleGeneral:
      return std::make_unique<OracleTrace>(spec);
    case TraceFormat::kKeyLines:
      break;
  }
  return std::make_unique<KeyLinesTrace>(spec);
}

bool TraceSized(const TraceSpec& spec) {
  if (spec.format == TraceFormat::kKeyLines) return false;
  if (spec.format != TraceFormat::kCsv) return true;
  if (!spec.columns.size.empty()) return true;
  if (spec.columns.explicit_columns) return false;
  Lines lines(spec.path);
  std::string_view header;
  if (!lines.Next(&header)) return false;
  std::vector<std::string_view> names;
  SplitCommas(header, &names);
  return std::find(names.begin(), names.end(), "size") != names.end();
}

}  // namespace chsim::sim
