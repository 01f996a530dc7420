// SPDX-License-Identifier: Apache-2.0
#include "chsim/node.h"

namespace chsim {

bool HasWeights(std::span<const Node> nodes) noexcept {
  for (const Node& n : nodes) {
    if (n.weight != 1) return true;
  }
  return false;
}

uint64_t TotalWeight(std::span<const Node> nodes) noexcept {
  uint64_t w = 0;
  for (const Node& n : nodes) w += n.weight;
  return w;
}

std::vector<Node> MakeNumberedNodes(uint32_t count, uint32_t first_index) {
  std::vector<Node> nodes;
  nodes.reserve(count);
  for (uint32_t k = 0; k < count; ++k) {
    uint32_t i = first_index + k + 1;  // 10.0.0.1, 10.0.0.2, ...
    Node n;
    n.host = "10." + std::to_string((i >> 16) & 255) + "." + std::to_string((i >> 8) & 255) + "." +
             std::to_string(i & 255);
    n.port = kDefaultPort;
    n.port_given = true;
    n.label = n.host + ":11211";
    nodes.push_back(std::move(n));
  }
  return nodes;
}

}  // namespace chsim
