// SPDX-License-Identifier: Apache-2.0
// `mincopysets`: Minimum Copysets (Cidon et al., "Copysets: Reducing the
// Frequency of Data Loss in Cloud Storage", USENIX ATC 2013, section 3.3 and
// RAMCloud's use of it): one seeded permutation of the nodes cut into groups
// of k, so N / k copysets, the fewest any scheme has; a key's copies are its
// primary (the algorithm's Locate answer) and the rest of the primary's
// group. Copyset Replication with scatter width k - 1 (copyset.cc holds the
// selector and the seeding rule).
#include "internal.h"

namespace chsim::replicas_internal {

extern const ReplicaStrategy kMinCopysetsStrategy;

namespace {

constexpr ParamSpec kParams[] = {kCopysetSeedParam};

}  // namespace

constinit const ReplicaStrategy kMinCopysetsStrategy = CopysetsBaseline({
    .name = "mincopysets",
    .summary = "Minimum Copysets: the primary's group in one seeded permutation cut into groups "
               "of k (a durability baseline)",
    .paper = "Cidon et al., \"Copysets: Reducing the Frequency of Data Loss in Cloud Storage\", "
             "USENIX ATC 2013, section 3.3",
    .params = kParams,
    .make = [](const ReplicaInput& in, const Params& p) -> std::unique_ptr<ReplicaSelector> {
      return MakeCopysets(in, 1, p.Integer("seed"));
    },
});

}  // namespace chsim::replicas_internal
