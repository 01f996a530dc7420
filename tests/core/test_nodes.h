// SPDX-License-Identifier: Apache-2.0
// A node for the profile tests: label and host as written, a weight, and the
// NAME column (an HAProxy id, a groupcache peer URL).
#ifndef CHSIM_TESTS_CORE_TEST_NODES_H_
#define CHSIM_TESTS_CORE_TEST_NODES_H_

#include <cstdint>
#include <string>

#include "chsim/node.h"

namespace chsim {

inline Node TestNode(const std::string& label, uint32_t weight = 1, const std::string& name = "") {
  Node n;
  n.label = label;
  n.host = label;
  n.weight = weight;
  n.name = name;
  return n;
}

}  // namespace chsim

#endif  // CHSIM_TESTS_CORE_TEST_NODES_H_
