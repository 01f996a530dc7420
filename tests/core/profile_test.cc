// SPDX-License-Identifier: Apache-2.0
// The float32 point-count formula the C and Java peers share, and the profile
// registry. The 156-point counts (docs/design.md#peers) were observed in
// libmemcached, twemproxy and spymemcached's weighted path.
#include "chsim/profile.h"

#include <gtest/gtest.h>

namespace chsim {
namespace {

TEST(Profile, FloatFormulaGives156ForKnownCounts) {
  Profile p = MakeProfile("libmemcached");
  std::vector<size_t> got;
  size_t count_2000 = 0, count_200 = 0;
  for (size_t n = 1; n <= 2000; ++n) {
    uint32_t pts = PointsForNode(p, true, 1, n, n);
    ASSERT_TRUE(pts == 160 || pts == 156) << n << " " << pts;
    if (pts == 156) {
      ++count_2000;
      if (n <= 200) ++count_200;
      if (n <= 107) got.push_back(n);
    }
  }
  EXPECT_EQ(got, (std::vector<size_t>{25, 47, 50, 55, 61, 71, 94, 100, 107}));
  EXPECT_EQ(count_200, 19u);
  EXPECT_EQ(count_2000, 207u);
}

TEST(Profile, IntegerFormulaIsExactForEqualWeights) {
  Profile p = MakeProfile("uhashring");
  for (size_t n : {1, 25, 50, 100, 1000}) EXPECT_EQ(PointsForNode(p, false, 1, n, n), 160u);
  // (40 * 3 * 2) // 4 = 60 iterations of 4 points.
  EXPECT_EQ(PointsForNode(p, true, 2, 4, 3), 240u);
}

TEST(Profile, SpymemcachedConstantUnlessWeighted) {
  Profile p = MakeProfile("spymemcached");
  EXPECT_EQ(PointsForNode(p, false, 1, 50, 50), 160u);
  EXPECT_EQ(PointsForNode(p, true, 1, 50, 50), 156u);
}

TEST(Profile, PointKeyFormats) {
  Node a;
  a.label = "10.0.0.1";
  a.host = "10.0.0.1";
  Node b;
  b.label = "10.0.0.2:11212";
  b.host = "10.0.0.2";
  b.port = 11212;
  EXPECT_EQ(PointKeyPrefix(MakeProfile("spymemcached"), a), "10.0.0.1:11211");
  EXPECT_EQ(PointKeyPrefix(MakeProfile("libmemcached"), a), "10.0.0.1");
  EXPECT_EQ(PointKeyPrefix(MakeProfile("libmemcached"), b), "10.0.0.2:11212");
  EXPECT_EQ(PointKeyPrefix(MakeProfile("libmemcached-spy"), a), "/10.0.0.1:11211");
  EXPECT_EQ(PointKeyPrefix(MakeProfile("twemproxy"), b), "10.0.0.2:11212");
  b.name = "cache-b";
  EXPECT_EQ(PointKeyPrefix(MakeProfile("twemproxy"), b), "cache-b");
  EXPECT_EQ(PointKeyPrefix(MakeProfile("uhashring"), a), "10.0.0.1");
}

TEST(Profile, UnknownNamesAndOptionsAreErrors) {
  EXPECT_THROW(MakeProfile("ketama"), std::invalid_argument);
  EXPECT_THROW(MakeProfile("spymemcached", {"SHA1_HASH", ""}), std::invalid_argument);
  EXPECT_THROW(MakeProfile("libmemcached", {"", "xxh3"}), std::invalid_argument);
  EXPECT_THROW(MakeProfile("libmemcached-ketama", {"", "xxh3"}), std::invalid_argument);
  EXPECT_NO_THROW(MakeProfile("libmemcached-ketama", {"", "md5"}));
  for (const ProfileInfo& info : AllProfiles()) EXPECT_NO_THROW(MakeProfile(info.name));
}

}  // namespace
}  // namespace chsim
