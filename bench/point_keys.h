// SPDX-License-Identifier: Apache-2.0
// The point keys a Ketama ring hashes (bench/build_benchmark.cc's MD5 floor
// and bench/peers/chsim_peer.cc): for each node, PREFIX-i for every digest
// the profile takes (4 points per MD5 digest), as Ring::Build makes them.
#ifndef CHSIM_BENCH_POINT_KEYS_H_
#define CHSIM_BENCH_POINT_KEYS_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chsim/node.h"
#include "chsim/profile.h"

namespace chsim::bench {

// Point keys packed in one string; views[i] is key i.
struct PointKeys {
  std::string bytes;
  std::vector<std::string_view> views;
};

// The MD5 point keys of an unweighted list under a profile that takes 4
// points per digest, node by node.
inline void MakeMd5PointKeys(const Profile& p, std::span<const Node> nodes, PointKeys* out) {
  const uint64_t total_weight = TotalWeight(nodes);
  std::vector<size_t> ends;
  out->bytes.clear();
  for (const Node& node : nodes) {
    const uint32_t points = PointsForNode(p, false, node.weight, total_weight, nodes.size());
    const std::string prefix = PointKeyPrefix(p, node) + "-";
    for (uint32_t i = 0; 4 * i < points; ++i) {
      out->bytes += prefix + std::to_string(i);
      ends.push_back(out->bytes.size());
    }
  }
  out->views.clear();
  size_t start = 0;
  for (size_t end : ends) {
    out->views.emplace_back(out->bytes.data() + start, end - start);
    start = end;
  }
}

}  // namespace chsim::bench

#endif  // CHSIM_BENCH_POINT_KEYS_H_
