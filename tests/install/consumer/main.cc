// SPDX-License-Identifier: Apache-2.0
// Builds a spymemcached-profile ring over the servers named on the command
// line and prints the server of one key: the smallest use of the public API.
#include <cstdio>
#include <string>
#include <vector>

#include "chsim/profile.h"
#include "chsim/ring.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: consumer KEY HOST:PORT...\n");
    return 2;
  }
  std::vector<chsim::Node> nodes;
  for (int i = 2; i < argc; ++i) {
    std::string label = argv[i];
    chsim::Node n;
    n.label = label;
    n.host = label.substr(0, label.find(':'));
    n.port = static_cast<uint32_t>(std::stoul(label.substr(label.find(':') + 1)));
    n.port_given = true;
    nodes.push_back(n);
  }
  chsim::Ring ring = chsim::Ring::Build(chsim::MakeProfile("spymemcached"), nodes);
  std::printf("%s\t%s\n", argv[1], nodes[ring.Locate(argv[1])].label.c_str());
  return 0;
}
