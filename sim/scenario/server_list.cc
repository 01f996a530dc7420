// SPDX-License-Identifier: Apache-2.0
#include "sim/scenario/server_list.h"

#include <charconv>
#include <optional>
#include <unordered_map>

#include "sim/base/errors.h"
#include "sim/base/text_file.h"

namespace chsim::sim {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::vector<std::string_view> Tokens(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !IsSpace(line[j])) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

// Parses a decimal in [lo, hi]; false on anything else.
bool ParseUint(std::string_view s, uint64_t lo, uint64_t hi, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// HOST, HOST:PORT or [IPV6]:PORT into node->host, port and port_given.
void ParseAddress(std::string_view addr, const std::string& file, size_t line_no, Node* node) {
  std::string_view host = addr, port;
  bool has_port = false;
  if (!addr.empty() && addr[0] == '[') {
    size_t close = addr.find(']');
    if (close == std::string_view::npos || close == 1) {
      throw LineError(file, line_no, "bad IPv6 address " + Quote(addr) + "; expected [ADDR]:PORT");
    }
    host = addr.substr(1, close - 1);
    std::string_view rest = addr.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') {
        throw LineError(file, line_no, "bad address " + Quote(addr) + "; expected [ADDR]:PORT");
      }
      port = rest.substr(1);
      has_port = true;
    }
  } else if (size_t colon = addr.find(':'); colon != std::string_view::npos) {
    if (addr.find(':', colon + 1) != std::string_view::npos) {
      throw LineError(file, line_no,
                      "address " + Quote(addr) + " has several ':'; write IPv6 as [ADDR]:PORT");
    }
    host = addr.substr(0, colon);
    port = addr.substr(colon + 1);
    has_port = true;
  }
  if (host.empty()) throw LineError(file, line_no, "empty host in " + Quote(addr));
  uint64_t v = 0;
  if (has_port) {
    if (!ParseUint(port, 1, 65535, &v)) {
      throw LineError(file, line_no, "bad port " + Quote(port) + "; expected an integer 1..65535");
    }
    node->port = static_cast<uint32_t>(v);
    node->port_given = true;
  }
  node->host = std::string(host);
}

// Moves the LEVEL=NAME tokens of a line (after its address) into *path,
// leaving the others in order.
void TakeDomains(std::vector<std::string_view>& tok, const std::string& file, size_t line_no,
                 Topology::Path* path) {
  std::vector<std::string_view> rest = {tok[0]};
  for (size_t i = 1; i < tok.size(); ++i) {
    const size_t eq = tok[i].find('=');
    if (eq == std::string_view::npos) {
      rest.push_back(tok[i]);
      continue;
    }
    const std::string_view key = tok[i].substr(0, eq), name = tok[i].substr(eq + 1);
    const std::optional<DomainLevel> level = FindDomainLevel(key);
    if (!level) {
      throw LineError(file, line_no,
                      "unknown failure-domain level " + Quote(key) + " in " + Quote(tok[i]) +
                          "; accepted: host=NAME, rack=NAME, zone=NAME");
    }
    if (name.empty()) {
      throw LineError(file, line_no,
                      "empty " + std::string(key) + " name in " + Quote(tok[i]) +
                          "; accepted: " + std::string(key) + "=NAME");
    }
    std::string& slot = (*path)[static_cast<size_t>(*level)];
    if (!slot.empty()) {
      throw LineError(file, line_no,
                      "two " + std::string(key) + "s (" + Quote(slot) + " and " + Quote(name) +
                          "); accepted: one " + std::string(key) + "=NAME a line");
    }
    slot = std::string(name);
  }
  tok = std::move(rest);
}

}  // namespace

ServerList ParseServerList(std::string_view text, const std::string& file) {
  ServerList list;
  std::unordered_map<std::string, size_t> seen;  // label -> line
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.size() > kMaxLineBytes) {
      throw LineError(file, line_no,
                      "line is " + std::to_string(line.size()) + " bytes long; accepted: at most " +
                          std::to_string(kMaxLineBytes) + " bytes per server line");
    }
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    if (line.find('\0') != std::string_view::npos) {
      throw LineError(file, line_no,
                      "NUL byte in server line; expected HOST[:PORT] [WEIGHT [NAME]]");
    }
    std::vector<std::string_view> tok = Tokens(line);
    if (tok.empty()) continue;
    Topology::Path path;
    TakeDomains(tok, file, line_no, &path);
    if (tok.size() > 3) {
      throw LineError(file, line_no,
                      "found " + std::to_string(tok.size()) + " fields " + Quote(line) +
                          "; expected HOST[:PORT] [WEIGHT [NAME]] [host=H] [rack=R] [zone=Z]");
    }
    Node node;
    std::string_view addr = tok[0];
    node.label = std::string(addr);
    ParseAddress(addr, file, line_no, &node);
    if (tok.size() >= 2) {
      uint64_t v = 0;
      if (!ParseUint(tok[1], 1, 2147483647, &v)) {
        throw LineError(file, line_no,
                        "bad weight " + Quote(tok[1]) + "; expected an integer 1..2147483647");
      }
      node.weight = static_cast<uint32_t>(v);
      list.weighted = true;
    }
    if (tok.size() == 3) node.name = std::string(tok[2]);
    auto [it, inserted] = seen.emplace(node.label, line_no);
    if (!inserted) {
      throw LineError(file, line_no,
                      "duplicate server " + Quote(node.label) + " (first on line " +
                          std::to_string(it->second) + "); each server must appear once");
    }
    if (list.nodes.size() == kMaxServers) {
      throw LineError(file, line_no, "more than " + std::to_string(kMaxServers) + " servers");
    }
    try {
      list.topology.Append(path);
    } catch (const std::invalid_argument& e) {  // levels or nesting; "node N" is the line
      std::string what = e.what();
      const std::string node = " (node " + std::to_string(list.nodes.size()) + ")";
      if (const size_t at = what.find(node); at != std::string::npos) what.erase(at, node.size());
      if (what.starts_with("node ")) what = "this server" + what.substr(what.find(' ', 5));
      if (const size_t at = what.find("the nodes before"); at != std::string::npos) {
        what.replace(at, 16, "the lines before");
      }
      throw LineError(file, line_no, what);
    }
    list.nodes.push_back(std::move(node));
  }
  if (list.nodes.empty()) {
    throw UsageError(file + ": no servers (expected lines HOST[:PORT] [WEIGHT [NAME]])");
  }
  return list;
}

ServerList LoadServerList(const std::string& path) {
  return ParseServerList(ReadFileOrStdin(path, kMaxFileBytes), path);
}

}  // namespace chsim::sim
