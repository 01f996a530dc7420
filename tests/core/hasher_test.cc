// SPDX-License-Identifier: Apache-2.0
// Known-answer tests for every hasher, from published vectors (RFC 1321,
// RFC 3720 check values, the FNV and xxHash reference suites, Appleby's
// SMHasher, Java's String.hashCode). The golden file of the reference
// libraries (tests/compat/golden/hashers.tsv) is checked in compat_test.cc.
#include "chsim/hasher.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace chsim {
namespace {

uint64_t H(std::string_view hasher, std::string_view key) { return GetHasher(hasher)(key); }

TEST(Hasher, Md5SlicesRfc1321) {
  // MD5("") = d41d8cd98f00b204 e9800998ecf8427e
  EXPECT_EQ(H("md5", ""), 0xd98c1dd4u);
  EXPECT_EQ(H("md5_64", ""), 0x04b2008fd98c1dd4ull);
  // MD5("abc") = 900150983cd24fb0 d6963f7d28e17f72
  EXPECT_EQ(H("md5", "abc"), 0x98500190u);
  EXPECT_EQ(H("md5_64", "abc"), 0xb04fd23c98500190ull);
}

TEST(Hasher, Crc32CheckValue) {
  EXPECT_EQ(H("crc32", "123456789"), 0xcbf43926u);
  EXPECT_EQ(H("crc32", ""), 0u);
  EXPECT_EQ(H("crc_spy", "123456789"), (0xcbf43926u >> 16) & 0x7fff);
}

TEST(Hasher, FnvReferenceVectors) {
  EXPECT_EQ(H("fnv1_32", ""), 0x811c9dc5u);
  EXPECT_EQ(H("fnv1a_32", ""), 0x811c9dc5u);
  EXPECT_EQ(H("fnv1_32", "a"), 0x050c5d7eu);
  EXPECT_EQ(H("fnv1a_32", "a"), 0xe40c292cu);
  EXPECT_EQ(H("fnv1_32", "foobar"), 0x31f0b262u);
  EXPECT_EQ(H("fnv1a_32", "foobar"), 0xbf9cf968u);
  EXPECT_EQ(H("fnv1_64", ""), 0xcbf29ce484222325ull);
  EXPECT_EQ(H("fnv1_64", "a"), 0xaf63bd4c8601b7beull);
  EXPECT_EQ(H("fnv1a_64", "a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(H("fnv1_64", "foobar"), 0x340d8765a4dda9c2ull);
  EXPECT_EQ(H("fnv1a_64", "foobar"), 0x85944171f73967e8ull);
}

TEST(Hasher, SpyFnvEqualsByteFnvOnAsciiAndTruncates) {
  for (std::string_view k : {"", "a", "foobar", "user:12345"}) {
    EXPECT_EQ(H("spy_fnv1_32", k), H("fnv1_32", k)) << k;
    EXPECT_EQ(H("spy_fnv1a_32", k), H("fnv1a_32", k)) << k;
    EXPECT_EQ(H("spy_fnv1_64", k), H("fnv1_64", k) & 0xffffffffu) << k;
    EXPECT_EQ(H("spy_fnv1a_64", k), H("fnv1a_64", k) & 0xffffffffu) << k;
  }
  // "é" is one UTF-16 unit 0x00E9 (two UTF-8 bytes): FNV-1a 32 of that unit.
  uint32_t h = (0x811c9dc5u ^ 0xe9u) * 16777619u;
  EXPECT_EQ(H("spy_fnv1a_32", "\xc3\xa9"), h);
  EXPECT_NE(H("spy_fnv1a_32", "\xc3\xa9"), H("fnv1a_32", "\xc3\xa9"));
}

TEST(Hasher, JavaStringHashCode) {
  EXPECT_EQ(H("java_string", ""), 0u);
  EXPECT_EQ(H("java_string", "hello"), 99162322u);
  // "polygenelubricants".hashCode() == Integer.MIN_VALUE
  EXPECT_EQ(H("java_string", "polygenelubricants"), 0x80000000u);
  // U+1F600 is a surrogate pair D83D DE00: 31 * 0xD83D + 0xDE00.
  EXPECT_EQ(H("java_string", "\xf0\x9f\x98\x80"), 31u * 0xD83Du + 0xDE00u);
}

TEST(Hasher, OneAtATime) {
  // Bob Jenkins' published values.
  EXPECT_EQ(H("one_at_a_time", "a"), 0xca2e9442u);
  EXPECT_EQ(H("one_at_a_time", "The quick brown fox jumps over the lazy dog"), 0x519e91f5u);
}

TEST(Hasher, Murmur3Smhasher) {
  EXPECT_EQ(H("murmur3_32", ""), 0u);
  EXPECT_EQ(H("murmur3_32", "hello"), 0x248bfa47u);
  EXPECT_EQ(H("murmur3_32", "The quick brown fox jumps over the lazy dog"), 0x2e4ff723u);
}

TEST(Hasher, XxHashReference) {
  EXPECT_EQ(H("xxh32", ""), 0x02cc5d05u);
  EXPECT_EQ(H("xxh64", ""), 0xef46db3751d8e999ull);
  EXPECT_EQ(H("xxh3", ""), 0x2d06800538d394c2ull);
}

// FIPS 180-2 SHA-256 vectors: "abc" -> ba7816bf ... b410ff61 f20015ad, "" ->
// e3b0c442 ... 7852b855; sha256_last32 is the last 4 bytes, little-endian.
TEST(Hasher, Sha256Last32Vectors) {
  EXPECT_EQ(H("sha256_last32", "abc"), 0xad1500f2u);
  EXPECT_EQ(H("sha256_last32", ""), 0x55b85278u);
  // 56 bytes: FIPS 180-2's two-block vector, ... 19db06c1.
  EXPECT_EQ(H("sha256_last32", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            0xc106db19u);
}

TEST(Hasher, RegistryNamesUniqueAndUnknownListsValid) {
  std::set<std::string_view> names;
  for (const Hasher& h : AllHashers()) EXPECT_TRUE(names.insert(h.name).second) << h.name;
  for (std::string_view n : {"md5", "md5_64", "crc32", "fnv1_32", "fnv1a_32", "fnv1_64", "fnv1a_64",
                             "one_at_a_time", "murmur3_32", "xxh32", "xxh64", "xxh3"}) {
    EXPECT_NE(FindHasher(n), nullptr) << n;
  }
  try {
    GetHasher("md6");
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown hasher 'md6'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("xxh3"), std::string::npos);
  }
}

TEST(Hasher, BitsBoundTheOutput) {
  for (const Hasher& h : AllHashers()) {
    for (std::string_view k : {"", "x", "user:1", "\xff\xfe\x00zz"}) {
      uint64_t v = h(k);
      if (h.bits < 64) {
        EXPECT_LT(v, uint64_t{1} << h.bits) << h.name;
      }
    }
  }
}

}  // namespace
}  // namespace chsim
