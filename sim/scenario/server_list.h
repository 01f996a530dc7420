// SPDX-License-Identifier: Apache-2.0
// Server lists: the text format every chsim command reads.
//
//   # comment                      blank lines and '#' to end of line ignored
//   HOST[:PORT] [WEIGHT [NAME]] [host=H] [rack=R] [zone=Z]
//                                  one server per line
//
// PORT defaults to 11211 (1..65535); IPv6 hosts are written in brackets
// ("[::1]:11211"). WEIGHT is an integer in 1..2^31-1, default 1; a list in which
// any line gives a weight is weighted (even if every weight is 1: the peers
// then take their weighted path). NAME (twemproxy's server name) needs a
// WEIGHT before it. A server's label is its first token exactly as written;
// labels must be unique.
//
// Failure domains (chsim/topology.h): after the address, any token with '='
// is LEVEL=NAME, LEVEL one of host, rack, zone, each at most once a line; the
// other tokens keep their places (WEIGHT, then NAME). Either no line gives
// domains, or every line gives the same levels, nested (a rack in one zone).
// A list without '=' after its addresses reads exactly as before domains
// existed; a NAME cannot contain '='.
#ifndef CHSIM_SIM_SCENARIO_SERVER_LIST_H_
#define CHSIM_SIM_SCENARIO_SERVER_LIST_H_

#include <string>
#include <string_view>
#include <vector>

#include "chsim/node.h"
#include "chsim/topology.h"

namespace chsim::sim {

struct ServerList {
  std::vector<Node> nodes;
  bool weighted = false;
  Topology topology;  // by position in `nodes`; empty when no line gives domains
};

// Limits: at most kMaxServers lines with a server, kMaxLineBytes bytes per
// line and kMaxFileBytes bytes in all (a 1 GB line is refused after reading
// 256 MiB, not hashed).
inline constexpr size_t kMaxServers = 1'000'000;
inline constexpr size_t kMaxLineBytes = 4096;
inline constexpr size_t kMaxFileBytes = size_t{256} << 20;

// Throws UsageError "FILE:LINE: ..." for a malformed line (a bad domain
// token, a domain that breaks the nesting), a duplicate label or an empty
// list.
ServerList ParseServerList(std::string_view text, const std::string& filename);

// Reads and parses a file ("-" is stdin). Throws UsageError when it cannot be read.
ServerList LoadServerList(const std::string& path);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_SCENARIO_SERVER_LIST_H_
