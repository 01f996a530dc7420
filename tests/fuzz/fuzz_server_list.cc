// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the server-list parser. Any input must either parse into a
// non-empty list of valid nodes (each with its failure-domain path) or raise
// UsageError with a one-line message that names the file; nothing else may
// escape, crash or hang.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <unordered_set>

#include "sim/base/errors.h"
#include "sim/scenario/server_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    chsim::sim::ServerList list = chsim::sim::ParseServerList(text, "fuzz.txt");
    if (list.nodes.empty()) std::abort();
    // Domain columns: one path per node, each level given for all or none.
    if (list.topology.size() != list.nodes.size()) std::abort();
    for (chsim::DomainLevel l : list.topology.levels()) {
      if (list.topology.Of(l).size() != list.nodes.size()) std::abort();
    }
    std::unordered_set<std::string> labels;
    for (const chsim::Node& n : list.nodes) {
      if (n.weight < 1 || n.port < 1 || n.port > 65535 || n.host.empty()) std::abort();
      if (!labels.insert(n.label).second) std::abort();
      if (n.weight != 1 && !list.weighted) std::abort();
    }
  } catch (const chsim::sim::UsageError& e) {
    std::string_view msg = e.what();
    if (msg.rfind("fuzz.txt", 0) != 0 || msg.find('\n') != std::string_view::npos) std::abort();
  }
  return 0;
}
