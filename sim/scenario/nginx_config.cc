// SPDX-License-Identifier: Apache-2.0
// nginx configuration: an `upstream NAME { ... }` block, at any depth (in
// `http`, in `stream`, or alone in a snippet). The syntax is nginx 1.22's
// (src/core/ngx_conf_file.c, ngx_conf_read_token): words separated by blanks,
// `;` ends a directive, `{ }` a block, `#` a comment, quotes "..." or '...',
// a backslash escaping the next character. The upstream's servers are read
// as src/http/ngx_http_upstream.c (ngx_http_upstream_server) reads them, and
// its `hash KEY [consistent]` as ngx_http_upstream_hash_module.c does.
//
// `include FILE;` is followed wherever it stands, as ngx_conf_include does:
// FILE relative to the main file's folder (nginx's conf prefix, whatever
// file the include is in); a FILE with `*`, `?` or `[` is a glob(3) pattern,
// its matches in sorted order and none an empty include; any other FILE must
// be there. The included directives take the include's place. A directive's
// errors name the file it is in.
#include <glob.h>

#include <memory>

#include "sim/base/errors.h"
#include "sim/base/text_file.h"
#include "sim/scenario/server_config_internal.h"

namespace chsim::sim::internal {
namespace {

struct Directive {
  std::vector<std::string> words;
  const std::string* file = nullptr;  // the file it is in
  size_t line = 0;
  bool block = false;
  std::vector<Directive> children;
};

// The files `include FILE` names (above), in the order nginx reads them.
std::vector<std::string> IncludeNames(const IncludedFiles& files, const std::string& file,
                                      const std::string& at, size_t line) {
  const std::string full = ResolveBeside(files.main() == "-" ? "" : files.main(), file);
  if (full.find_first_of("*?[") == std::string::npos) return {full};
  glob_t g{};
  const int rc = glob(full.c_str(), 0, nullptr, &g);
  std::vector<std::string> out;
  if (rc == 0) out.assign(g.gl_pathv, g.gl_pathv + g.gl_pathc);
  globfree(&g);
  if (rc != 0 && rc != GLOB_NOMATCH) throw LineError(at, line, "glob() " + Quote(full) + " failed");
  return out;
}

// Splits a configuration into directives and blocks, following includes.
class Parser {
 public:
  Parser(std::string_view text, const std::string* path, IncludedFiles* files, size_t depth = 0)
      : text_(text), path_(*path), files_(files), base_(depth) {}

  std::vector<Directive> Top() { return Block(base_); }

 private:
  bool Blank(char c) const { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

  // Skips blanks and comments; false at the end of the text.
  bool Skip() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (Blank(c)) {
        if (c == '\n') ++line_;
        ++pos_;
      } else {
        return true;
      }
    }
    return false;
  }

  // One word at pos_, quoted or not, its escapes applied.
  std::string Word() {
    std::string w;
    const char quote = text_[pos_] == '"' || text_[pos_] == '\'' ? text_[pos_++] : 0;
    const size_t start_line = line_;
    for (; pos_ < text_.size(); ++pos_) {
      char c = text_[pos_];
      if (quote != 0 && c == quote) {
        ++pos_;
        return w;
      }
      if (quote == 0 && (Blank(c) || c == ';' || c == '{' || c == '}')) return w;
      if (c == '\n') ++line_;
      if (c == '\\' && pos_ + 1 < text_.size()) {
        c = text_[++pos_];
        const bool known = c == '"' || c == '\'' || c == '\\' || c == 't' || c == 'r' || c == 'n';
        if (!known) w += '\\';
        c = c == 't' ? '\t' : c == 'r' ? '\r' : c == 'n' ? '\n' : c;
      }
      w += c;
    }
    if (quote != 0) throw LineError(path_, start_line, "unexpected end of file in a quoted string");
    return w;
  }

  std::vector<Directive> Block(size_t depth);
  // Appends the directives of the files `include` names at this depth.
  void Include(const Directive& include, size_t depth, std::vector<Directive>& out);

  std::string_view text_;
  const std::string& path_;  // the file read, where its directives' file points
  IncludedFiles* files_;
  size_t base_;  // the depth of this file's top level
  size_t pos_ = 0, line_ = 1;
};

void Parser::Include(const Directive& d, size_t depth, std::vector<Directive>& out) {
  if (d.words.size() != 2)
    throw LineError(path_, d.line, "invalid number of arguments in \"include\" directive");
  for (const std::string& f : IncludeNames(*files_, d.words[1], path_, d.line)) {
    std::string text;
    const std::string* name = files_->Open(f, path_, d.line, &text);
    std::vector<Directive> in = Parser(text, name, files_, depth).Top();
    files_->Close();
    for (Directive& x : in) out.push_back(std::move(x));
  }
}

std::vector<Directive> Parser::Block(size_t depth) {
  std::vector<Directive> out;
  Directive d;
  for (;;) {
    if (!Skip()) {
      if (!d.words.empty())
        throw LineError(path_, line_, "unexpected end of file, expecting \";\" or \"}\"");
      if (depth > base_) throw LineError(path_, line_, "unexpected end of file, expecting \"}\"");
      return out;
    }
    const char c = text_[pos_];
    if (c == ';' || c == '{') {
      ++pos_;
      if (d.words.empty()) throw LineError(path_, line_, std::string("unexpected \"") + c + "\"");
      if (c == '{') {
        if (depth >= 64) throw LineError(path_, line_, "blocks nested more than 64 deep");
        d.block = true;
        d.children = Block(depth + 1);
      }
      if (!d.block && d.words[0] == "include") {
        Include(d, depth, out);
      } else {
        out.push_back(std::move(d));
      }
      d = Directive();
    } else if (c == '}') {
      ++pos_;
      if (!d.words.empty() || depth == base_) throw LineError(path_, line_, "unexpected \"}\"");
      return out;
    } else {
      if (d.words.empty()) d.line = line_, d.file = &path_;
      d.words.push_back(Word());
    }
  }
}

void FindUpstreams(const std::vector<Directive>& ds, std::vector<const Directive*>& out) {
  for (const Directive& d : ds) {
    if (d.block && d.words[0] == "upstream" && d.words.size() == 2) out.push_back(&d);
    if (d.block) FindUpstreams(d.children, out);
  }
}

// The address of a `server` directive: refused as ngx_parse_url refuses it.
void CheckAddress(const std::string& addr, const std::string& path, size_t line, Node& node) {
  node.label = addr;
  if (addr.size() >= 5 && (addr.compare(0, 5, "unix:") == 0 || addr.compare(0, 5, "UNIX:") == 0)) {
    node.host = addr.substr(5);
    return;
  }
  const size_t close = addr[0] == '[' ? addr.find(']') : std::string::npos;
  const size_t colon = addr.rfind(':');
  const bool has_port = colon != std::string::npos && (close == std::string::npos || colon > close);
  const std::string host = has_port ? addr.substr(0, colon) : addr;
  if (host.empty()) throw LineError(path, line, "no host in upstream " + Quote(addr));
  if (addr.find('/') != std::string::npos || (addr[0] == '[' && close == std::string::npos))
    throw LineError(path, line, "invalid host in upstream " + Quote(addr));
  node.host = host[0] == '[' ? host.substr(1, host.size() - 2) : host;
  node.port = 80;  // nginx connects to 80; the hash reads the text as written
  uint64_t port = 0;
  if (has_port) {
    if (!ParseDecimal(addr.substr(colon + 1), 1, 65535, &port)) {
      throw LineError(path, line,
                      "invalid port in upstream " + Quote(addr) + "; accepted: 1..65535");
    }
    node.port = static_cast<uint32_t>(port);
    node.port_given = true;
  }
}

// A `server` line; false when the server takes no keys (down, backup).
bool ReadServer(const Directive& d, ServerSource& s, bool hashed, Node& node) {
  if (d.words.size() < 2)
    throw LineError(*d.file, d.line, "invalid number of arguments in \"server\"");
  CheckAddress(d.words[1], *d.file, d.line, node);
  bool takes_keys = true;
  for (size_t i = 2; i < d.words.size(); ++i) {
    const std::string& p = d.words[i];
    const size_t eq = p.find('=');
    const std::string name = p.substr(0, eq == std::string::npos ? p.size() : eq + 1);
    uint64_t w = 0;
    if (name == "weight=") {
      if (!ParseDecimal(p.substr(7), 1, 2147483647, &w))
        throw LineError(*d.file, d.line,
                        "invalid parameter " + Quote(p) + "; accepted: weight=1..2147483647");
      node.weight = static_cast<uint32_t>(w);
      s.list.weighted = true;
    } else if (name == "max_conns=" || name == "max_fails=" || name == "fail_timeout=") {
      Ignore(s, "server " + name.substr(0, name.size() - 1));
    } else if (p == "backup" && hashed) {
      throw LineError(*d.file, d.line, "balancing method does not support parameter \"backup\"");
    } else if (p == "backup" || p == "down") {
      s.notes.push_back(WhereIn(*d.file, d.line, s.path) + ": server " + Quote(node.label) +
                        " is " + p + ": left out (it takes no keys" +
                        (p == "down" ? "; nginx tries the next point instead)" : ")"));
      takes_keys = false;
    } else {
      throw LineError(*d.file, d.line,
                      "invalid parameter " + Quote(p) +
                          "; accepted: weight=, max_conns=, max_fails=, "
                          "fail_timeout=, backup, down");
    }
  }
  return takes_keys;
}

// The balancing directive of the block (the last one wins, as nginx warns
// "load balancing method redefined"): "hash", "hash consistent" or another.
std::string Balancer(const Directive& up) {
  std::string balancer;
  for (const Directive& d : up.children) {
    const std::string& n = d.words[0];
    if (n == "hash") {
      if (d.words.size() < 2 || d.words.size() > 3)
        throw LineError(*d.file, d.line, "invalid number of arguments in \"hash\" directive");
      if (d.words.size() == 3 && d.words[2] != "consistent")
        throw LineError(*d.file, d.line,
                        "invalid parameter " + Quote(d.words[2]) + "; accepted: consistent");
      balancer = d.words.size() == 3 ? "hash consistent" : "hash";
    } else if (n == "ip_hash" || n == "least_conn" || n == "random" || n == "least_time" ||
               n == "sticky" || n == "ntlm") {
      balancer = n;
    }
  }
  return balancer;
}

}  // namespace

ServerSource ReadNginx(std::string_view text, const std::string& path, const std::string& block) {
  ServerSource s;
  s.format = ServerFormat::kNginx;
  s.path = path;
  IncludedFiles files(path);
  const std::vector<Directive> top = Parser(text, &files.main(), &files).Top();
  std::vector<const Directive*> ups;
  FindUpstreams(top, ups);
  std::vector<std::string> names;
  for (const Directive* u : ups) names.push_back(u->words[1]);
  const Directive& up = *ups[PickBlock(names, block, path, "upstream")];
  s.block = up.words[1];
  const std::string balancer = Balancer(up);
  const bool hashed = balancer == "hash" || balancer == "hash consistent";
  s.profile = balancer == "hash consistent" ? "nginx" : balancer == "hash" ? "nginx-hash" : "";
  if (s.profile.empty()) {
    s.why_no_profile = "upstream " + Quote(s.block) + " balances " +
                       (balancer.empty() ? "round robin" : "by " + balancer) +
                       ", not by a key hash (nginx's `hash KEY [consistent]`)";
  }
  ServerLines lines;
  for (const Directive& d : up.children) {
    if (d.block)
      throw LineError(*d.file, d.line, "unexpected block " + Quote(d.words[0]) + " in upstream");
    if (d.words[0] == "server") {
      Node node;
      if (ReadServer(d, s, hashed, node)) AddServer(s, std::move(node), d.line, lines, d.file);
    } else if (d.words[0] != "hash") {
      Ignore(s, d.words[0]);
    }
  }
  FinishList(s, "upstream");
  return s;
}

}  // namespace chsim::sim::internal
