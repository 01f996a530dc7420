// SPDX-License-Identifier: Apache-2.0
// power's two level hashes (core/src/algorithms/power.cc, parameter
// level_hash) on tiny golden cases: key hashes 0, 2^64 - 1 and two others, at
// n = 1, 2, p = 8, p + 1 = 9, p = 2^20, p + 1 and the largest power of two
// (2^31). The answers were computed by tests/algorithms/cli_locate_reference.py's
// power() (Python, none of chsim's code), and cover the first stage, the
// zero-bits level, and keys that take g at p + 1 (key 0 moves to the new
// bucket 8 at n = 9; 0x9e3779b97f4a7c15 takes g at 2^20 + 1 and stays).
// The default ("" or "mix2") must keep every answer chsim gave before the
// parameter existed; "mix64" is the mapping one Mix64 shorter.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/node.h"

namespace chsim {
namespace {

constexpr uint64_t kPowerKeys[] = {0, UINT64_MAX, 0x9e3779b97f4a7c15ULL, 0x0123456789abcdefULL};
constexpr uint32_t kPowerSizes[] = {1, 2, 8, 9, 1u << 20, (1u << 20) + 1, 1u << 31};

// kGolden[key][size] for each level hash.
constexpr uint32_t kPowerMix2[4][7] = {
    {0, 1, 6, 8, 723032, 723032, 2140574255},
    {0, 0, 0, 0, 412396, 412396, 427636866},
    {0, 0, 5, 5, 529682, 529682, 968335435},
    {0, 1, 6, 8, 920217, 920217, 884972499},
};
constexpr uint32_t kPowerMix64[4][7] = {
    {0, 1, 5, 8, 763134, 763134, 1326138252},
    {0, 0, 0, 0, 442350, 442350, 525073378},
    {0, 0, 7, 7, 613885, 613885, 815326975},
    {0, 1, 6, 8, 886935, 886935, 627918665},
};

Params PowerLevelHashParams(const char* value) {
  Params p;
  if (value != nullptr) p.Set("level_hash", std::string(value));
  return p;
}

// Every golden case through the range view (any n) and, for n <= 9, through
// Locate and LocateBatch of an instance over n nodes.
void ExpectPowerGolden(const Params& p, const uint32_t (&want)[4][7], const char* label) {
  const auto nodes = MakeNumberedNodes(9);
  auto a = MakeAlgorithm("power", nodes, p);
  BucketView view;
  ASSERT_TRUE(a->ViewBuckets(&view));
  for (size_t s = 0; s < std::size(kPowerSizes); ++s) {
    const uint32_t n = kPowerSizes[s];
    std::unique_ptr<Algorithm> small;
    if (n <= nodes.size()) small = MakeAlgorithm("power", std::span(nodes).first(n), p);
    for (size_t k = 0; k < std::size(kPowerKeys); ++k) {
      EXPECT_EQ(view.range(view.context, kPowerKeys[k], n), want[k][s])
          << label << " key " << kPowerKeys[k] << " n " << n;
      if (!small) continue;
      EXPECT_EQ(small->Locate(kPowerKeys[k]), want[k][s])
          << label << " key " << kPowerKeys[k] << " n " << n;
      uint32_t out = 0;
      small->LocateBatch(std::span(&kPowerKeys[k], 1), std::span(&out, 1));
      EXPECT_EQ(out, want[k][s]) << label << " batch, key " << kPowerKeys[k] << " n " << n;
    }
  }
}

TEST(PowerLevelHash, DefaultKeepsTheMix2Answers) {
  ExpectPowerGolden(PowerLevelHashParams(nullptr), kPowerMix2, "default");
  ExpectPowerGolden(PowerLevelHashParams(""), kPowerMix2, "\"\"");
  ExpectPowerGolden(PowerLevelHashParams("mix2"), kPowerMix2, "mix2");
}

TEST(PowerLevelHash, Mix64GivesItsOwnAnswers) {
  ExpectPowerGolden(PowerLevelHashParams("mix64"), kPowerMix64, "mix64");
}

TEST(PowerLevelHash, RefusesOtherValuesNamingTheChoices) {
  try {
    MakeAlgorithm("power", MakeNumberedNodes(3), PowerLevelHashParams("crc32c"));
    FAIL() << "level_hash crc32c accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("level_hash"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mix64"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace chsim
