// Helpers shared by the algorithms (internal.h).
#include <string>
#include <unordered_set>

#include "internal.h"

namespace chsim::algorithms_internal {

void CheckNodes(std::string_view algorithm, std::span<const Node> nodes) {
  if (nodes.empty())
    throw std::invalid_argument(std::string(algorithm) + " needs at least one node");
  if (nodes.size() >= UINT32_MAX) {
    throw std::invalid_argument(std::string(algorithm) + ": too many nodes");
  }
  std::unordered_set<std::string_view> seen;
  for (const Node& n : nodes) {
    if (n.weight == 0) {
      throw std::invalid_argument(std::string(algorithm) + ": node '" + n.label + "' has weight 0");
    }
    if (!seen.insert(n.label).second) {
      throw std::invalid_argument(std::string(algorithm) + ": node '" + n.label +
                                  "' appears twice; labels must be unique");
    }
  }
}

void CheckNewNode(std::string_view algorithm, std::span<const Node> live, const Node& node) {
  if (node.weight == 0) {
    throw std::invalid_argument(std::string(algorithm) + ": node '" + node.label +
                                "' has weight 0");
  }
  for (const Node& n : live) {
    if (n.label == node.label) {
      throw std::invalid_argument(std::string(algorithm) + ": node '" + node.label +
                                  "' is already live; labels must be unique");
    }
  }
}

void RequireNotLast(std::string_view algorithm, size_t live) {
  if (live <= 1) {
    throw Unsupported(std::string(algorithm) + ": cannot remove the only live node");
  }
}

}  // namespace chsim::algorithms_internal
