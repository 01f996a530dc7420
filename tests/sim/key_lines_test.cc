// SPDX-License-Identifier: Apache-2.0
// KeyLineReader (chsim locate's block reader) against a plain split of the
// same bytes, across read-block boundaries, and its newline masks (SSE2 and
// the portable 8-byte-word path) against a byte loop.
#include "sim/cli/key_lines.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "sim/base/errors.h"
#include "sim/base/rng.h"

namespace chsim::sim {
namespace {

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  std::string path = testing::TempDir() + "/key_lines_" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  return path;
}

// The lines as `chsim locate` has always defined them.
std::vector<std::string> PlainSplit(const std::string& bytes) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = bytes.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(bytes.substr(start, nl - start));
  }
  if (start < bytes.size()) lines.push_back(bytes.substr(start));
  return lines;
}

std::vector<std::string> ReadAll(const std::string& path, size_t max_lines) {
  KeyLineReader reader(path);
  std::vector<std::string> lines;
  for (;;) {
    std::span<const std::string_view> block = reader.Next(max_lines);
    if (block.empty()) break;
    EXPECT_LE(block.size(), max_lines);
    for (std::string_view line : block) lines.emplace_back(line);
  }
  return lines;
}

// Random lines: lengths 0..max_len, bytes from `alphabet` (with '\r' and NUL).
std::string RandomText(uint64_t seed, size_t lines, size_t max_len, bool final_newline) {
  static constexpr char kAlphabet[] = "abcXYZ019:-_\r\t ";
  SplitMix64 rng(seed);
  std::string s;
  for (size_t i = 0; i < lines; ++i) {
    const size_t len = rng.Below(max_len + 1);
    for (size_t j = 0; j < len; ++j) {
      s += rng.Below(50) == 0 ? '\0' : kAlphabet[rng.Below(sizeof kAlphabet - 1)];
    }
    if (i + 1 < lines || final_newline) s += '\n';
  }
  return s;
}

TEST(KeyLineReaderTest, SameLinesAsAPlainSplit) {
  const std::vector<std::string> texts = {
      "",
      "\n",
      "\n\n\n",
      "a",
      "a\n",
      "a\nb",
      "a\r\nb\r\n\r\n",
      std::string("x\0y\n\0\n", 6),
      RandomText(1, 40000, 40, true),   // ~0.8 MB: several 256 KiB reads
      RandomText(2, 40000, 40, false),  // the last line without '\n'
      RandomText(3, 3000, 2000, true),  // lines across read boundaries
      std::string(70, '\n') + "tail",   // a 64-byte chunk of newlines only
  };
  for (size_t t = 0; t < texts.size(); ++t) {
    const std::string path = WriteTemp("same" + std::to_string(t), texts[t]);
    const std::vector<std::string> want = PlainSplit(texts[t]);
    for (size_t max_lines :
         {size_t{1}, size_t{3}, size_t{63}, size_t{64}, size_t{65}, size_t{2048}}) {
      ASSERT_EQ(ReadAll(path, max_lines), want) << "text " << t << " max_lines " << max_lines;
    }
  }
}

TEST(KeyLineReaderTest, LongestKeyAcceptedAndOneMoreRefusedAfterTheLinesBefore) {
  const size_t max = KeyLineReader::kMaxKeyBytes;
  const std::string longest(max, 'k');
  const std::string path = WriteTemp("longest", "a\n" + longest + "\nb");
  EXPECT_EQ(ReadAll(path, 2048), (std::vector<std::string>{"a", longest, "b"}));
  EXPECT_EQ(ReadAll(WriteTemp("longest_last", longest), 5), std::vector<std::string>{longest});

  for (const std::string& tail : {std::string("\nc\n"), std::string()}) {  // whole line; last line
    const std::string bad = WriteTemp("too_long", "a\nb\n" + std::string(max + 1, 'x') + tail);
    KeyLineReader reader(bad);
    std::vector<std::string> seen;
    try {
      for (;;) {
        std::span<const std::string_view> block = reader.Next(2048);
        if (block.empty()) break;
        for (std::string_view line : block) seen.emplace_back(line);
      }
      ADD_FAILURE() << "no error";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()), bad +
                                           ":3: key line longer than 1048576 bytes; accepted: "
                                           "keys up to 1 MiB");
    }
    EXPECT_EQ(seen, (std::vector<std::string>{"a", "b"}));
  }
}

TEST(KeyLineReaderTest, MissingFileIsAUsageError) {
  EXPECT_THROW(KeyLineReader(testing::TempDir() + "/no/such/keys.txt"), UsageError);
}

TEST(KeyLineReaderTest, NewlineMasksEqualAByteLoop) {
  SplitMix64 rng(7);
  std::vector<char> bytes(64 + 4096);
  for (char& c : bytes) {
    const uint64_t r = rng.Next();
    c = (r & 3) == 0 ? '\n' : static_cast<char>(r >> 8);  // every byte value occurs
  }
  bytes[10] = '\n' + 0x80 - 0x100;  // 0x8a: '\n' with the high bit set, not a newline
  for (size_t at = 0; at < 4096; ++at) {
    uint64_t want = 0;
    for (int i = 0; i < 64; ++i) want |= uint64_t{bytes[at + i] == '\n'} << i;
    ASSERT_EQ(internal::NewlineMask64(bytes.data() + at, /*portable=*/true), want) << at;
    ASSERT_EQ(internal::NewlineMask64(bytes.data() + at), want) << at;
  }
}

}  // namespace
}  // namespace chsim::sim
