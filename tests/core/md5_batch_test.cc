// SPDX-License-Identifier: Apache-2.0
// The multi-buffer MD5 (chsim/md5_batch.h) must equal OpenSSL's MD5 bit for
// bit: every length 0..1000, millions of random inputs in batches of random
// size with long keys mixed in, on every kernel this CPU can run.
#include "chsim/md5_batch.h"

#include <gtest/gtest.h>

#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/md5.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "chsim/hasher.h"
#include "md5_isa_fixture.h"
#include "sim/base/rng.h"

namespace chsim {
namespace {

std::array<uint8_t, 16> Reference(std::string_view s) {
  std::array<uint8_t, 16> d;
  MD5(reinterpret_cast<const unsigned char*>(s.data()), s.size(), d.data());
  return d;
}

uint32_t Le32(const std::array<uint8_t, 16>& d) {
  return uint32_t{d[0]} | uint32_t{d[1]} << 8 | uint32_t{d[2]} << 16 | uint32_t{d[3]} << 24;
}

// Every kernel the CPU supports (md5_isa_fixture.h).
using Md5BatchTest = Md5IsaTest;

TEST_P(Md5BatchTest, KnownAnswers) {  // RFC 1321 appendix A.5
  std::vector<std::string_view> keys = {"", "a", "abc", "message digest",
                                        "abcdefghijklmnopqrstuvwxyz"};
  std::vector<std::array<uint8_t, 16>> d(keys.size());
  Md5BatchDigests(keys, d);
  const char* want[] = {"d41d8cd98f00b204e9800998ecf8427e", "0cc175b9c0f1b6a831c399e269772661",
                        "900150983cd24fb0d6963f7d28e17f72", "f96b697d7cb7938d525a2f31aaf161d0",
                        "c3fcd3d76192e4007dfb496cca67e13b"};
  for (size_t i = 0; i < keys.size(); ++i) {
    char hex[33];
    for (int j = 0; j < 16; ++j) std::snprintf(hex + 2 * j, 3, "%02x", d[i][j]);
    EXPECT_STREQ(hex, want[i]) << "key '" << keys[i] << "'";
  }
}

TEST_P(Md5BatchTest, EveryLengthUpTo1000) {
  sim::SplitMix64 rng(1);
  std::vector<std::string> owned;
  for (size_t len = 0; len <= 1000; ++len) {
    std::string s(len, '\0');
    for (char& c : s) c = static_cast<char>(rng.Next());
    owned.push_back(std::move(s));
  }
  // Also every prefix of one buffer with all bytes 0xFF (padding boundaries).
  for (size_t len = 0; len <= 130; ++len) owned.push_back(std::string(len, '\xff'));
  std::vector<std::string_view> keys(owned.begin(), owned.end());
  std::vector<std::array<uint8_t, 16>> d(keys.size());
  std::vector<uint32_t> le(keys.size());
  Md5BatchDigests(keys, d);
  Md5BatchLe32(keys, le);
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto ref = Reference(keys[i]);
    ASSERT_EQ(d[i], ref) << "length " << keys[i].size();
    ASSERT_EQ(le[i], Le32(ref)) << "length " << keys[i].size();
    ASSERT_EQ(Md5Le32(keys[i].data(), keys[i].size()), Le32(ref)) << "length " << keys[i].size();
    ASSERT_EQ(HashMd5(keys[i].data(), keys[i].size()), Le32(ref)) << "length " << keys[i].size();
  }
}

TEST_P(Md5BatchTest, MillionsOfRandomInputs) {
  sim::SplitMix64 rng(2);
  constexpr size_t kTotal = 2'000'000;
  std::string pool(1 << 20, '\0');
  for (char& c : pool) c = static_cast<char>(rng.Next());
  std::vector<std::string_view> keys;
  std::vector<uint32_t> le;
  std::vector<std::array<uint8_t, 16>> d;
  size_t done = 0, checked_full = 0;
  while (done < kTotal) {
    // Batches of 1..100 keys: partial chunks, every lane position.
    const size_t n = 1 + rng.Below(100);
    keys.clear();
    for (size_t i = 0; i < n; ++i) {
      // Mostly one-block keys; 1 in 16 longer (OpenSSL path inside the batch).
      const size_t len = rng.Below(16) == 0 ? 56 + rng.Below(200) : rng.Below(56);
      keys.emplace_back(pool.data() + rng.Below(pool.size() - len), len);
    }
    le.assign(n, 0);
    Md5BatchLe32(keys, le);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(le[i], Le32(Reference(keys[i]))) << "batch key " << i;
    }
    if (rng.Below(8) == 0) {  // full digests on a sample (the ring-build path)
      d.assign(n, {});
      Md5BatchDigests(keys, d);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(d[i], Reference(keys[i]));
      checked_full += n;
    }
    done += n;
  }
  EXPECT_GT(checked_full, kTotal / 16);
}

INSTANTIATE_TEST_SUITE_P(Kernels, Md5BatchTest, ::testing::Values("avx512", "avx2", "portable"),
                         [](const auto& info) { return std::string(info.param); });

TEST(Md5BatchIsa, UnknownNameIsRejected) {
  const std::string before = Md5BatchIsa();
  EXPECT_FALSE(SetMd5BatchIsa("sse9"));
  EXPECT_EQ(before, Md5BatchIsa());
}

TEST(Md5BatchIsa, BestSupportedIsTheDefault) {
  const std::string isa = Md5BatchIsa();
  if (__builtin_cpu_supports("avx512f"))
    EXPECT_EQ(isa, "avx512");
  else if (__builtin_cpu_supports("avx2"))
    EXPECT_EQ(isa, "avx2");
  else
    EXPECT_EQ(isa, "portable");
}

}  // namespace
}  // namespace chsim
