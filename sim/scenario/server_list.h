// SPDX-License-Identifier: Apache-2.0
// Server lists: the text format every chsim command reads.
//
//   # comment                      blank lines and '#' to end of line ignored
//   HOST[:PORT] [WEIGHT [NAME]]    one server per line
//
// PORT defaults to 11211 (1..65535); IPv6 hosts are written in brackets
// ("[::1]:11211"). WEIGHT is an integer in 1..2^31-1, default 1; a list in which
// any line gives a weight is weighted (even if every weight is 1: the peers
// then take their weighted path). NAME (twemproxy's server name) needs a
// WEIGHT before it. A server's label is its first token exactly as written;
// labels must be unique.
#ifndef CHSIM_SIM_SCENARIO_SERVER_LIST_H_
#define CHSIM_SIM_SCENARIO_SERVER_LIST_H_

#include <string>
#include <string_view>
#include <vector>

#include "chsim/node.h"

namespace chsim::sim {

struct ServerList {
  std::vector<Node> nodes;
  bool weighted = false;
};

// Limits: at most kMaxServers lines with a server, kMaxLineBytes bytes per
// line and kMaxFileBytes bytes in all (a 1 GB line is refused after reading
// 256 MiB, not hashed).
inline constexpr size_t kMaxServers = 1'000'000;
inline constexpr size_t kMaxLineBytes = 4096;
inline constexpr size_t kMaxFileBytes = size_t{256} << 20;

// Throws UsageError "FILE:LINE: ..." for a malformed line, a duplicate label
// or an empty list.
ServerList ParseServerList(std::string_view text, const std::string& filename);

// Reads and parses a file ("-" is stdin). Throws UsageError when it cannot be read.
ServerList LoadServerList(const std::string& path);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_SCENARIO_SERVER_LIST_H_
