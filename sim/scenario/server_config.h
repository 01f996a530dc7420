// SPDX-License-Identifier: Apache-2.0
// Server lists in the form operators already have: the servers, weights and
// the names a proxy hashes, read from the program's own configuration.
//
//   FILE            a server list (server_list.h), or a configuration with one block
//   FILE:BLOCK      the block named BLOCK of a configuration
//
// | format    | file                          | BLOCK                                  |
// |-----------|-------------------------------|----------------------------------------|
// | `list`    | anything else                 | -                                      |
// | `nginx`   | `*.conf`                      | an `upstream` (http or stream)         |
// | `haproxy` | `*.cfg`                       | a `backend` or `listen` section        |
// | `varnish` | `*.vcl`                       | a `directors.shard()` object           |
// | `envoy`   | `*.yaml`, `*.yml`, `*.json`   | a cluster (`name`)                     |
//
// The format is the file name's extension unless given (--servers-format).
// Only what changes the mapping is read (servers, their weights, the names
// or ids hashed, the hash function and ring sizes); every other directive is
// ignored and named in `ignored`, each once. docs/proxies.md gives each
// reader's rules and the program source they follow.
//
// Refusals are UsageError "FILE:LINE: ..." (one line): a malformed block, a
// server the program itself refuses (a port out of range, a weight it does
// not accept), a BLOCK that is not there (naming the ones that are).
#ifndef CHSIM_SIM_SCENARIO_SERVER_CONFIG_H_
#define CHSIM_SIM_SCENARIO_SERVER_CONFIG_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chsim/profile.h"
#include "sim/scenario/server_list.h"

namespace chsim::sim {

enum class ServerFormat { kList, kNginx, kHaproxy, kVarnish, kEnvoy };

// "list", "nginx", "haproxy", "varnish", "envoy".
std::string_view ServerFormatName(ServerFormat f) noexcept;
// The names above, comma-separated, for messages and help.
std::string ServerFormatNames();

struct ServerSource {
  ServerList list;
  ServerFormat format = ServerFormat::kList;
  std::string path;   // the file read
  std::string block;  // the block read ("" for a server list)
  // The profile that reproduces the program's choice of server for this
  // block, with the options its configuration sets ("": none, e.g. a plain
  // list, or a block the program does not balance by a key hash: `why_no_profile`
  // says so).
  std::string profile;
  ProfileOptions options;
  std::string why_no_profile;
  // Settings read that the profile's options carry, by their configuration
  // names (Envoy: min_ring_size, max_ring_size, hash_function, table_size,
  // use_hostname_for_hashing).
  std::vector<std::pair<std::string, std::string>> settings;
  // Directives read and ignored (they do not change the mapping), each once,
  // in the order first seen.
  std::vector<std::string> ignored;
  // What was read but is not modelled, or changed what was read (a server
  // marked down left out), one line each.
  std::vector<std::string> notes;
};

// Reads FILE or FILE:BLOCK (above). `format` is a ServerFormatName or "" (by
// the extension). Throws UsageError.
ServerSource LoadServers(const std::string& spec, std::string_view format = {});

// The stderr lines for what LoadServers ignored and noted ("" when nothing).
std::string ServerSourceNotes(const ServerSource& s);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_SCENARIO_SERVER_CONFIG_H_
