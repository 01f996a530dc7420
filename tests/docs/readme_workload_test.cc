// SPDX-License-Identifier: Apache-2.0
// docs/extending.md's worked workload example ("A workload"), extracted from
// it at build time, read and run through its spec: the guide's code builds
// against today's headers and does what the guide says.
#include <gtest/gtest.h>

#include <string>

#include "sim/base/errors.h"
#include "sim/base/json_reader.h"
#include "sim/workload/workload.h"

namespace chsim::sim {

extern const WorkloadSpec kPrefixedWorkload;

namespace {

const std::string kFile = "s.json";

TEST(ReadmeWorkload, ReaderTakesItsKeysAndRefusesOthers) {
  const Json w = Json::parse(R"({"type": "prefixed", "keys": [10, 1000]})");
  const WorkloadFields f = ReadWorkloadAs(kPrefixedWorkload, JsonReader(kFile, &w, "/workload"));
  ASSERT_EQ(f.axes.size(), 1u);
  EXPECT_EQ(f.axes[0].key, "keys");
  EXPECT_TRUE(f.axes[0].swept);
  EXPECT_EQ(f.axes[0].values.size(), 2u);
  const Json bad = Json::parse(R"({"type": "prefixed", "keys": 10, "shape": "k{n}"})");
  EXPECT_THROW(ReadWorkloadAs(kPrefixedWorkload, JsonReader(kFile, &bad, "/workload")), UsageError);
}

TEST(ReadmeWorkload, MakesThePrefixedKeysItDescribes) {
  const auto w = BuildWorkload(kPrefixedWorkload, Json::parse(R"({"keys": 1000})"), kFile);
  ASSERT_TRUE(w->indexed());
  EXPECT_EQ(w->units(), 1000u);
  int seen[3] = {0, 0, 0};
  const std::string prefixes[3] = {"user:", "session:", "cart:"};
  std::string key;
  for (uint64_t u = 0; u < 1000; ++u) {
    w->KeyAt(9, u, &key);
    int which = -1;
    for (int p = 0; p < 3; ++p) {
      if (key == prefixes[p] + std::to_string(u)) which = p;
    }
    ASSERT_GE(which, 0) << key;
    ++seen[which];
  }
  for (int n : seen) EXPECT_GT(n, 250);  // each prefix about a third of the keys
}

TEST(ReadmeWorkload, RowsDescribeItsFields) {
  ASSERT_EQ(kPrefixedWorkload.fields.size(), 1u);
  const Json row = FieldCatalog(kPrefixedWorkload.fields[0]);
  EXPECT_EQ(row["name"], "keys");
  EXPECT_EQ(row["sweepable"], true);
  EXPECT_EQ(row["required"], true);
  EXPECT_EQ(FindWorkload("prefixed"), nullptr)
      << "a registered workload is named \"prefixed\", the name of docs/extending.md's example; "
         "pick another name for it";
}

}  // namespace
}  // namespace chsim::sim
