// SPDX-License-Identifier: Apache-2.0
// HAProxy configuration: a `backend` or `listen` section, read as HAProxy 2.6
// reads it (src/cfgparse.c, cfgparse-listen.c, server.c): one directive a
// line, words split on blanks, '#' to the end of the line, quotes and
// backslash escapes. A section inherits `balance`, `hash-type` and
// `default-server` from the last `defaults` section before it (or the one
// `from NAME` names). Read: `balance` (whether the key is hashed),
// `hash-type consistent [FUNCTION] [avalanche]`, `server NAME ADDRESS` with
// `weight` (0..256; 0 takes no keys), `id` (1..2^31-1, once per backend),
// `backup` and `disabled` (no keys while the others are up); the server's
// label is its NAME, its `id` the node's NAME (HaproxyServerIds numbers the
// others).
#include <stdexcept>

#include "chsim/profile.h"
#include "sim/base/errors.h"
#include "sim/base/text_file.h"
#include "sim/scenario/server_config_internal.h"

namespace chsim::sim::internal {
namespace {

struct Line {
  std::vector<std::string> words;
  size_t number = 0;
};

// Words of one line: blanks separate, '#' starts a comment, "..." and '...'
// quote, a backslash escapes the next character.
std::vector<std::string> Words(std::string_view line) {
  std::vector<std::string> out;
  std::string w;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote == 0 && (c == ' ' || c == '\t' || c == '\r')) {
      if (in_word) out.push_back(std::move(w)), w.clear();
      in_word = false;
      continue;
    }
    if (quote == 0 && c == '#') break;
    in_word = true;
    if (c == '\\' && quote != '\'' && i + 1 < line.size()) {
      w += line[++i];
    } else if ((c == '"' || c == '\'') && (quote == 0 || quote == c)) {
      quote = quote == 0 ? c : 0;
    } else {
      w += c;
    }
  }
  if (in_word) out.push_back(std::move(w));
  return out;
}

bool IsSection(const std::string& w) {
  for (const char* s : {"global", "defaults", "frontend", "backend", "listen", "peers", "resolvers",
                        "userlist", "mailers", "program", "http-errors", "ring", "cache",
                        "fcgi-app", "log-forward", "crt-store", "traces"}) {
    if (w == s) return true;
  }
  return false;
}

// The settings a backend takes from `defaults` and changes itself.
struct Settings {
  std::string balance;
  std::vector<std::string> hash_type;  // the words after `hash-type`
  size_t hash_type_line = 0;
  uint64_t default_weight = 1;
  bool weight_given = false;
};

// Server keywords that take one argument (HAProxy 2.6 srv_kws), so that the
// argument is not read as a keyword.
bool TakesArgument(std::string_view k) {
  for (const char* s : {"inter",
                        "fastinter",
                        "downinter",
                        "rise",
                        "fall",
                        "port",
                        "addr",
                        "maxconn",
                        "minconn",
                        "maxqueue",
                        "cookie",
                        "slowstart",
                        "on-error",
                        "on-marked-down",
                        "on-marked-up",
                        "observe",
                        "error-limit",
                        "ca-file",
                        "crt",
                        "crl-file",
                        "sni",
                        "proto",
                        "resolvers",
                        "resolve-prefer",
                        "resolve-net",
                        "resolve-opts",
                        "init-addr",
                        "agent-port",
                        "agent-inter",
                        "agent-addr",
                        "agent-send",
                        "track",
                        "redir",
                        "source",
                        "tcp-ut",
                        "pool-max-conn",
                        "pool-low-conn",
                        "pool-purge-delay",
                        "max-reuse",
                        "alpn",
                        "npn",
                        "check-sni",
                        "check-alpn",
                        "check-proto",
                        "namespace",
                        "usesrc",
                        "ciphers",
                        "ciphersuites",
                        "curves",
                        "verify",
                        "verifyhost",
                        "ssl-min-ver",
                        "ssl-max-ver",
                        "socks4",
                        "shard",
                        "log-proto",
                        "ws",
                        "set-proxy-v2-tlv-fmt",
                        "hash-key",
                        "guid"}) {
    if (k == s) return true;
  }
  return false;
}

// NAME ADDRESS: the address's host and port (0..65535; 0 is the client's).
void ReadAddress(const std::string& addr, const std::string& path, size_t line, Node& node) {
  const size_t colon = addr.rfind(':');
  const size_t close = addr.rfind(']');
  std::string host = addr, port;
  if (colon != std::string::npos && (close == std::string::npos || colon > close)) {
    host = addr.substr(0, colon);
    port = addr.substr(colon + 1);
  }
  if (!host.empty() && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  uint64_t p = 0;
  if (!port.empty() && port[0] != '+' && port[0] != '-' && !ParseDecimal(port, 0, 65535, &p)) {
    throw LineError(path, line,
                    "invalid port " + Quote(port) + " in " + Quote(addr) + "; accepted: 0..65535");
  }
  node.host = host.empty() ? addr : host;
  node.port = static_cast<uint32_t>(p);
  node.port_given = !port.empty();
}

struct ServerLine {
  Node node;
  bool takes_keys = true;
  std::string why_not;
};

ServerLine ReadServer(const Line& l, const Settings& st, ServerSource& s) {
  const std::vector<std::string>& w = l.words;
  if (w.size() < 3) throw LineError(s.path, l.number, "'server' expects <name> and <addr>");
  ServerLine out;
  out.node.label = w[1];
  ReadAddress(w[2], s.path, l.number, out.node);
  uint64_t weight = st.default_weight;
  for (size_t i = 3; i < w.size(); ++i) {
    uint64_t v = 0;
    if ((w[i] == "weight" || w[i] == "id") && i + 1 == w.size())
      throw LineError(s.path, l.number, "'" + w[i] + "' expects an integer argument");
    if (w[i] == "weight") {
      if (!ParseDecimal(w[++i], 0, 256, &v))
        throw LineError(s.path, l.number,
                        "weight of server " + w[1] + " is not within 0 and 256 (" + w[i] + ")");
      weight = v;
      s.list.weighted = true;
    } else if (w[i] == "id") {
      if (!ParseDecimal(w[++i], 1, 2147483647, &v))
        throw LineError(s.path, l.number,
                        "'id' : custom id has to be an integer 1..2147483647 (" + w[i] + ")");
      out.node.name = std::to_string(v);
    } else if (w[i] == "backup" || w[i] == "disabled") {
      out.takes_keys = false;
      out.why_not = w[i];
    } else {
      Ignore(s, "server " + w[i]);
      if (TakesArgument(w[i])) ++i;
    }
  }
  if (weight == 0) out.takes_keys = false, out.why_not = "weight 0";
  out.node.weight = static_cast<uint32_t>(weight == 0 ? 1 : weight);
  return out;
}

// `balance` and `hash-type` into the profile: haproxy when the key is hashed
// on a consistent tree.
void ChooseProfile(const Settings& st, ServerSource& s) {
  const std::string& b = st.balance;
  const bool hashed = b == "source" || b == "uri" || b == "url_param" || b == "hash" ||
                      b.rfind("hdr(", 0) == 0 || b.rfind("rdp-cookie", 0) == 0;
  const std::string type = st.hash_type.empty() ? "map-based" : st.hash_type[0];
  if (!hashed) {
    s.why_no_profile = "backend " + Quote(s.block) + " balances " + (b.empty() ? "roundrobin" : b) +
                       ", not by a key hash";
    return;
  }
  if (type != "consistent") {
    s.why_no_profile = "backend " + Quote(s.block) + " hashes keys with hash-type " + type +
                       " (the modulo of lb_map.c, not modelled); chsim reads hash-type consistent";
    return;
  }
  s.profile = "haproxy";
  if (st.hash_type.size() < 2) return;
  const std::string& fn = st.hash_type[1];
  if (fn != "sdbm" && fn != "djb2" && fn != "wt6" && fn != "crc32")
    throw LineError(
        s.path, st.hash_type_line,
        "'hash-type' only supports 'sdbm', 'djb2', 'crc32', or 'wt6' hash functions (found " +
            Quote(fn) + ")");
  const bool avalanche = st.hash_type.size() >= 3 && st.hash_type[2] == "avalanche";
  if (st.hash_type.size() >= 3 && !avalanche)
    throw LineError(
        s.path, st.hash_type_line,
        "unknown 'hash-type' modifier " + Quote(st.hash_type[2]) + "; accepted: avalanche");
  s.options.hasher = fn + (avalanche ? "_avalanche" : "");
}

// One setting line of a defaults, backend or listen section.
void Setting(const Line& l, Settings& st, ServerSource* s) {
  const std::vector<std::string>& w = l.words;
  if (w[0] == "balance" && w.size() >= 2) {
    st.balance = w[1];
  } else if (w[0] == "hash-type" && w.size() >= 2) {
    st.hash_type.assign(w.begin() + 1, w.end());
    st.hash_type_line = l.number;
  } else if (w[0] == "default-server") {
    for (size_t i = 1; i + 1 < w.size(); ++i) {
      if (w[i] != "weight") continue;
      if (!ParseDecimal(w[i + 1], 0, 256, &st.default_weight))
        throw LineError(s ? s->path : "", l.number,
                        "default-server weight is not within 0 and 256 (" + w[i + 1] + ")");
    }
  } else if (w[0] == "hash-balance-factor" && s != nullptr) {
    s->notes.push_back(
        "line " + std::to_string(l.number) +
        ": hash-balance-factor (bounded loads) is not modelled: keys map as without it");
  } else if (s != nullptr) {
    Ignore(*s, w[0]);
  }
}

// The servers that take keys, into the list. Every server has an id
// (HaproxyServerIds numbers those without one, in file order, the others
// included), so a server left out keeps the ids of the ones after it: they
// get theirs spelled out.
void KeepServers(std::vector<std::pair<ServerLine, size_t>>& servers, ServerSource& s) {
  std::unordered_map<std::string, size_t> ids;
  ServerLines lines;
  std::vector<Node> all;
  bool left_out = false;
  for (const auto& [sl, line] : servers) {
    if (!sl.node.name.empty()) {
      auto [it, added] = ids.emplace(sl.node.name, line);
      if (!added) {
        throw LineError(s.path, line,
                        "'id' : custom id " + sl.node.name + " already used at line " +
                            std::to_string(it->second));
      }
    }
    all.push_back(sl.node);
    left_out = left_out || !sl.takes_keys;
  }
  std::vector<uint32_t> numbered;
  try {
    numbered = HaproxyServerIds(all);
  } catch (const std::invalid_argument& e) {
    throw UsageError(s.path + ": backend " + Quote(s.block) + ": " + e.what());
  }
  for (size_t i = 0; i < servers.size(); ++i) {
    auto& [sl, line] = servers[i];
    if (!sl.takes_keys) {
      s.notes.push_back("line " + std::to_string(line) + ": server " + Quote(sl.node.label) + " (" +
                        sl.why_not + ") takes no keys while the others are up: left out");
      lines.emplace(sl.node.label, std::pair<const std::string*, size_t>(nullptr, line));
      continue;
    }
    if (left_out) sl.node.name = std::to_string(numbered[i]);
    AddServer(s, std::move(sl.node), line, lines);
  }
}

}  // namespace

ServerSource ReadHaproxy(std::string_view text, const std::string& path, const std::string& block) {
  ServerSource s;
  s.format = ServerFormat::kHaproxy;
  s.path = path;
  // Sections: kind, name, the line of the header, the lines inside.
  struct Section {
    std::string kind, name, from;
    std::vector<Line> lines;
  };
  std::vector<Section> sections;
  size_t number = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    Line l{Words(text.substr(pos, end - pos)), ++number};
    pos = end + 1;
    if (l.words.empty()) continue;
    if (IsSection(l.words[0])) {
      Section sec{l.words[0], l.words.size() > 1 ? l.words[1] : "", "", {}};
      if (l.words.size() > 3 && l.words[2] == "from") sec.from = l.words[3];
      sections.push_back(std::move(sec));
    } else if (sections.empty()) {
      throw LineError(path, l.number, "unknown keyword " + Quote(l.words[0]) + " out of section");
    } else {
      sections.back().lines.push_back(std::move(l));
    }
  }
  std::vector<std::string> names;
  std::vector<size_t> index;
  for (size_t i = 0; i < sections.size(); ++i) {
    if (sections[i].kind == "backend" || sections[i].kind == "listen") {
      names.push_back(sections[i].name);
      index.push_back(i);
    }
  }
  const size_t chosen = index[PickBlock(names, block, path, "backend")];
  s.block = sections[chosen].name;
  Settings st;  // from the defaults section that applies
  for (size_t i = 0; i < chosen; ++i) {
    const Section& d = sections[i];
    if (d.kind != "defaults" || (!sections[chosen].from.empty() && d.name != sections[chosen].from))
      continue;
    st = Settings();
    for (const Line& l : d.lines) Setting(l, st, nullptr);
  }
  std::vector<std::pair<ServerLine, size_t>> servers;  // and their lines
  for (const Line& l : sections[chosen].lines) {
    if (l.words[0] == "server-template")
      throw LineError(path, l.number,
                      "server-template is not read; list the servers with `server`");
    if (l.words[0] == "server") {
      servers.emplace_back(ReadServer(l, st, s), l.number);
    } else {
      Setting(l, st, &s);
    }
  }
  KeepServers(servers, s);
  ChooseProfile(st, s);
  FinishList(s, "backend");
  return s;
}

}  // namespace chsim::sim::internal
