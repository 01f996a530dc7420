// SPDX-License-Identifier: Apache-2.0
// Key files for `chsim locate`: lines read a large block at a time, mapped a
// block at a time (so a ring hashes them with the multi-buffer MD5), and the
// answers written through one buffer. Memory stays bounded (about 1.3 MiB of
// buffers) whatever the size of the file.
//
// Thread-safety: each object is used by one thread at a time.
#ifndef CHSIM_SIM_CLI_KEY_LINES_H_
#define CHSIM_SIM_CLI_KEY_LINES_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chsim/node.h"

namespace chsim::sim {

// The lines of a key file ("-" = standard input), in file order. A line is a
// key: its bytes verbatim up to '\n' (a '\r' stays in the key; a final line
// without '\n' counts, an empty file has no lines).
class KeyLineReader {
 public:
  // Longest key line accepted (a memcached key is at most 250 bytes).
  static constexpr size_t kMaxKeyBytes = size_t{1} << 20;
  // Readable bytes after the end of every view Next hands out (same buffer).
  static constexpr size_t kSlack = 32;

  // Throws UsageError "PATH: cannot open: REASON".
  explicit KeyLineReader(const std::string& path);
  ~KeyLineReader();
  KeyLineReader(const KeyLineReader&) = delete;
  KeyLineReader& operator=(const KeyLineReader&) = delete;

  // The next lines (at least one, at most max_lines), each a view valid
  // until the next call, consecutive in one buffer (line i + 1 starts just
  // after line i's '\n'). Empty at the end of the file. Throws UsageError
  // "PATH:LINE: key line longer than ..." for a line above kMaxKeyBytes (once
  // the lines before it have been returned) and "PATH: read error".
  // REQUIRES: max_lines >= 1.
  std::span<const std::string_view> Next(size_t max_lines);

 private:
  // Lines of the unread bytes, up to max_lines, into lines_; returns how many.
  size_t Split(size_t max_lines);
  // Moves the unread bytes to the front and reads more after them; false at
  // end of file.
  bool Refill();
  [[noreturn]] void TooLong() const;

  std::string path_;
  FILE* in_;
  std::unique_ptr<char[]> buf_;  // kCapacity bytes, then 64 of slack
  size_t begin_ = 0, end_ = 0;   // unread bytes
  bool eof_ = false;
  uint64_t line_ = 1;  // number of the next line
  std::vector<std::string_view> lines_;
};

namespace internal {
// Bit i set where p[i] == '\n', for the 64 bytes at p: SSE2 compares where
// the target has them (every x86-64), else 8-byte words (SWAR), which
// `portable` forces (tests compare the two).
uint64_t NewlineMask64(const char* p, bool portable = false) noexcept;
}  // namespace internal

// Standard output through one buffer, written in large pieces.
class StdoutBuffer {
 public:
  StdoutBuffer();
  // Writes what is left; an error here is not reported (call Flush first).
  ~StdoutBuffer();
  StdoutBuffer(const StdoutBuffer&) = delete;
  StdoutBuffer& operator=(const StdoutBuffer&) = delete;

  // Room for n bytes at the returned pointer; Commit(end) then keeps the
  // bytes written up to `end`.
  char* Reserve(size_t n) {
    if (cap_ - used_ < n) Grow(n);
    return buf_.get() + used_;
  }
  void Commit(const char* end) { used_ = static_cast<size_t>(end - buf_.get()); }
  void Append(std::string_view s);
  // Throws RuntimeError "writing standard output: REASON".
  void Flush();

 private:
  void Grow(size_t n);

  std::unique_ptr<char[]> buf_;
  size_t used_ = 0, cap_ = 0;
};

// Fills owners[i] with the index in the node list of the node that keys[i]
// maps to, for one block of keys in file order (a stateful algorithm assigns
// them in that order).
using LocateBlock =
    std::function<void(std::span<const std::string_view> keys, std::span<uint32_t> owners)>;

// Writes "KEY<TAB>LABEL\n" to standard output for every line of the key file
// at `path`, in file order, LABEL being nodes[owner].label with the owner that
// `locate` gives; blocks hold up to kLocateBlockKeys keys. Errors as
// KeyLineReader's and StdoutBuffer's.
inline constexpr size_t kLocateBlockKeys = 2048;
void WriteKeyOwners(const std::string& path, std::span<const Node> nodes,
                    const LocateBlock& locate);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_CLI_KEY_LINES_H_
