// SPDX-License-Identifier: Apache-2.0
// Node: one server of a consistent-hashing deployment, as a client knows it.
//
// `label` is how the node was written by the user (the first token of a server
// list line, e.g. "10.0.0.1:11211" or "10.0.0.1"); results and `chsim locate`
// report it. The profiles derive their point-key strings from host, port and
// name (see profile.h), never from DNS.
#ifndef CHSIM_NODE_H_
#define CHSIM_NODE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace chsim {

inline constexpr uint32_t kDefaultPort = 11211;  // memcached's port

struct Node {
  std::string label;  // as written; unique key for reporting
  std::string host;   // host part of the label
  uint32_t port = kDefaultPort;
  uint32_t weight = 1;      // >= 1
  std::string name;         // optional explicit name (twemproxy's NAME column)
  bool port_given = false;  // whether the label spelled a port
};

// Sum of the weights. REQUIRES: nodes non-empty.
uint64_t TotalWeight(std::span<const Node> nodes) noexcept;

// Whether any node's weight differs from 1: the list is weighted (a list can
// also be weighted by spelling weights out, all 1; its reader says so).
bool HasWeights(std::span<const Node> nodes) noexcept;

// A node list built from a count: labels "10.0.{i/256}.{i%256}:11211" style
// (host "10.<i/65536>.<(i/256)%256>.<i%256>", port 11211), weight 1.
// Addresses are names only: nothing ever connects to them.
std::vector<Node> MakeNumberedNodes(uint32_t count, uint32_t first_index = 0);

}  // namespace chsim

#endif  // CHSIM_NODE_H_
