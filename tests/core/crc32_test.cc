// SPDX-License-Identifier: Apache-2.0
// The slicing-by-8 CRC-32 (chsim/crc32.h) must equal zlib's crc32() on every
// length 0..300 (whole words, every tail of 1..7 bytes, keys shorter than a
// word), at every alignment, on random bytes; and the PHP memcache variant
// must equal zlib over the key with each byte <= 0x20 replaced by '_'.
#include "chsim/crc32.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <string>
#include <vector>

#include "chsim/splitmix.h"

namespace chsim {
namespace {

uint32_t Zlib(const std::string& s) {
  return static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size())));
}

std::string RandomBytes(SplitMix64& rng, size_t len) {
  std::string s(len, '\0');
  for (char& c : s) c = static_cast<char>(rng.Next());
  return s;
}

TEST(Crc32Test, EqualsZlibOnEveryLengthAndAlignment) {
  SplitMix64 rng(33);
  for (size_t len = 0; len <= 300; ++len) {
    for (size_t offset = 0; offset < 8; ++offset) {
      const std::string buf = RandomBytes(rng, offset + len);
      const std::string key = buf.substr(offset);
      ASSERT_EQ(Crc32(buf.data() + offset, len), Zlib(key))
          << "length " << len << " offset " << offset;
    }
  }
}

TEST(Crc32Test, KnownAnswers) {
  EXPECT_EQ(Crc32("", 0), 0u);
  EXPECT_EQ(Crc32("123456789", 9), 0xcbf43926u);  // the CRC-32 check value
  const std::string ones(300, '\xff'), zeros(300, '\0');
  for (size_t len = 0; len <= 300; ++len) {
    ASSERT_EQ(Crc32(ones.data(), len), Zlib(ones.substr(0, len))) << len;
    ASSERT_EQ(Crc32(zeros.data(), len), Zlib(zeros.substr(0, len))) << len;
  }
}

TEST(Crc32Test, SpacesAsUnderscoreEqualsZlibOfTheCleanedKey) {
  SplitMix64 rng(34);
  // Random bytes, and bytes drawn near the 0x20 boundary and its high-bit twin 0xa0.
  constexpr unsigned char kEdges[] = {0x00, 0x1f, 0x20, 0x21, 0x5f, 0x7f,
                                      0x80, 0x9f, 0xa0, 0xa1, 0xdf, 0xff};
  for (size_t len = 0; len <= 300; ++len) {
    for (int kind = 0; kind < 4; ++kind) {
      std::string key = RandomBytes(rng, len);
      if (kind >= 2) {
        for (char& c : key) c = static_cast<char>(kEdges[rng.Next() % sizeof(kEdges)]);
      }
      std::string cleaned = key;
      for (char& c : cleaned) {
        if (static_cast<unsigned char>(c) <= 0x20) c = '_';
      }
      ASSERT_EQ(Crc32SpacesAsUnderscore(key.data(), len), Zlib(cleaned))
          << "length " << len << " kind " << kind;
    }
  }
  for (unsigned b = 0; b < 256; ++b) {  // every byte value, alone and in a full word
    const std::string one(1, static_cast<char>(b)), word(8, static_cast<char>(b));
    const char r = b <= 0x20 ? '_' : static_cast<char>(b);
    EXPECT_EQ(Crc32SpacesAsUnderscore(one.data(), 1), Zlib(std::string(1, r))) << b;
    EXPECT_EQ(Crc32SpacesAsUnderscore(word.data(), 8), Zlib(std::string(8, r))) << b;
  }
}

TEST(Crc32Test, BatchesEqualTheOneKeyForms) {
  SplitMix64 rng(35);
  std::vector<std::string> storage;
  for (size_t len = 0; len <= 300; ++len) storage.push_back(RandomBytes(rng, len));
  const std::vector<std::string_view> keys(storage.begin(), storage.end());
  std::vector<uint32_t> plain(keys.size()), cleaned(keys.size());
  Crc32Batch(keys, plain);
  Crc32SpacesAsUnderscoreBatch(keys, 250, cleaned);
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(plain[i], Zlib(storage[i])) << i;
    const size_t cut = std::min<size_t>(keys[i].size(), 250);
    ASSERT_EQ(cleaned[i], Crc32SpacesAsUnderscore(keys[i].data(), cut)) << i;
  }
}

}  // namespace
}  // namespace chsim
