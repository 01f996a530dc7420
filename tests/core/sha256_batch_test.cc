// SPDX-License-Identifier: Apache-2.0
// The batched Varnish key hash (chsim/sha256_batch.h) must equal the one at a
// time reference, HashSha256Last32 (OpenSSL), on every kernel the CPU has:
// every length 0..300 (one block up to 55 bytes, OpenSSL past it), random
// bytes, short and long keys mixed, and batches that leave lanes idle.
#include "chsim/sha256_batch.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "chsim/hasher.h"
#include "chsim/splitmix.h"

namespace chsim {
namespace {

class Sha256BatchTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    saved_ = Sha256BatchIsa();
    if (!SetSha256BatchIsa(GetParam())) GTEST_SKIP() << GetParam() << " not on this CPU";
  }
  void TearDown() override { SetSha256BatchIsa(saved_); }
  std::string saved_;
};

void ExpectEqualsReference(const std::vector<std::string>& storage) {
  const std::vector<std::string_view> keys(storage.begin(), storage.end());
  for (size_t count : {keys.size(), size_t{1}, size_t{2}, size_t{3}, size_t{5}}) {
    std::vector<uint32_t> got(count, 0xdeadbeef);
    Sha256BatchLast32(std::span(keys).first(count), got);
    for (size_t i = 0; i < count; ++i) {
      ASSERT_EQ(got[i], HashSha256Last32(keys[i].data(), keys[i].size()))
          << Sha256BatchIsa() << " key #" << i << " length " << keys[i].size() << " of " << count;
    }
  }
}

TEST_P(Sha256BatchTest, EqualsOpenSslOnEveryLength) {
  SplitMix64 rng(256);
  std::vector<std::string> storage;
  for (size_t len = 0; len <= 300; ++len) {
    for (int copy = 0; copy < 3; ++copy) {
      std::string k(len, '\0');
      for (char& c : k) c = static_cast<char>(rng.Next());
      storage.push_back(k);
    }
  }
  ExpectEqualsReference(storage);
}

TEST_P(Sha256BatchTest, EqualsOpenSslOnMixedLengths) {
  SplitMix64 rng(257);
  std::vector<std::string> storage;
  for (int i = 0; i < 1000; ++i) {
    std::string k(rng.Next() % 80, '\0');  // a fifth of them past the one-block limit
    for (char& c : k) c = static_cast<char>(rng.Next());
    storage.push_back(k);
  }
  ExpectEqualsReference(storage);
  // SHA-256("") = e3b0...7852b855: bytes 28..31 read little-endian.
  const std::string_view empty[1] = {""};
  uint32_t h[1];
  Sha256BatchLast32(empty, h);
  EXPECT_EQ(h[0], 0x55b85278u);
}

INSTANTIATE_TEST_SUITE_P(Kernels, Sha256BatchTest, ::testing::Values("openssl", "sha-ni"),
                         [](const auto& info) {
                           return std::string(info.param) == "sha-ni" ? std::string("shani")
                                                                      : std::string(info.param);
                         });

TEST(Sha256BatchIsaTest, RefusesUnknownNames) {
  const std::string before = Sha256BatchIsa();
  EXPECT_FALSE(SetSha256BatchIsa("avx9000"));
  EXPECT_EQ(before, Sha256BatchIsa());
}

}  // namespace
}  // namespace chsim
