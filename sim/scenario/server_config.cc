// SPDX-License-Identifier: Apache-2.0
#include "sim/scenario/server_config.h"

#include <sys/stat.h>

#include <charconv>

#include "sim/base/errors.h"
#include "sim/base/text_file.h"
#include "sim/scenario/server_config_internal.h"

namespace chsim::sim {
namespace {

constexpr ServerFormat kFormats[] = {ServerFormat::kList, ServerFormat::kNginx,
                                     ServerFormat::kHaproxy, ServerFormat::kVarnish,
                                     ServerFormat::kEnvoy};

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

ServerFormat FormatOfName(const std::string& path) {
  if (EndsWith(path, ".conf")) return ServerFormat::kNginx;
  if (EndsWith(path, ".cfg")) return ServerFormat::kHaproxy;
  if (EndsWith(path, ".vcl")) return ServerFormat::kVarnish;
  for (std::string_view ext : {".yaml", ".yml", ".json"})
    if (EndsWith(path, ext)) return ServerFormat::kEnvoy;
  return ServerFormat::kList;
}

bool IsFile(const std::string& path) {
  struct stat st;
  return path == "-" || stat(path.c_str(), &st) == 0;
}

// FILE or FILE:BLOCK: the whole spec when it names a file, else split at the
// last ':' when the part before it does.
std::pair<std::string, std::string> SplitSpec(const std::string& spec) {
  if (IsFile(spec)) return {spec, ""};
  const size_t colon = spec.rfind(':');
  if (colon != std::string::npos && colon > 0 && IsFile(spec.substr(0, colon)))
    return {spec.substr(0, colon), spec.substr(colon + 1)};
  return {spec, ""};  // the read below names the missing file
}

}  // namespace

std::string_view ServerFormatName(ServerFormat f) noexcept {
  switch (f) {
    case ServerFormat::kList:
      return "list";
    case ServerFormat::kNginx:
      return "nginx";
    case ServerFormat::kHaproxy:
      return "haproxy";
    case ServerFormat::kVarnish:
      return "varnish";
    case ServerFormat::kEnvoy:
      return "envoy";
  }
  return "";
}

std::string ServerFormatNames() {
  std::string out;
  for (ServerFormat f : kFormats)
    out += (out.empty() ? "" : ", ") + std::string(ServerFormatName(f));
  return out;
}

ServerSource LoadServers(const std::string& spec, std::string_view format) {
  auto [path, block] = SplitSpec(spec);
  ServerFormat f = FormatOfName(path);
  if (!format.empty()) {
    bool known = false;
    for (ServerFormat k : kFormats) {
      if (ServerFormatName(k) == format) f = k, known = true;
    }
    if (!known) {
      throw UsageError("--servers-format: found " + Quote(format) +
                       "; accepted: " + ServerFormatNames());
    }
  }
  if (f == ServerFormat::kList && !block.empty()) {
    throw UsageError(
        spec +
        ": a server list has no blocks; FILE:BLOCK names a block of a "
        "configuration (" +
        ServerFormatNames() +
        ": by the extension .conf, .cfg, .vcl, .yaml/.yml/.json, or --servers-format)");
  }
  const std::string text = ReadFileOrStdin(path, kMaxFileBytes);
  switch (f) {
    case ServerFormat::kList: {
      ServerSource s;
      s.list = ParseServerList(text, path);
      s.path = path;
      return s;
    }
    case ServerFormat::kNginx:
      return internal::ReadNginx(text, path, block);
    case ServerFormat::kHaproxy:
      return internal::ReadHaproxy(text, path, block);
    case ServerFormat::kVarnish:
      return internal::ReadVarnish(text, path, block);
    case ServerFormat::kEnvoy:
      return internal::ReadEnvoy(text, path, block);
  }
  throw UsageError(spec + ": unknown format");
}

std::string ServerSourceNotes(const ServerSource& s) {
  std::string out;
  const std::string where = s.path + (s.block.empty() ? "" : ":" + s.block);
  if (!s.ignored.empty()) {
    out += "chsim: " + where + ": ignored (they do not change which server a key maps to): ";
    for (size_t i = 0; i < s.ignored.size(); ++i) out += (i ? ", " : "") + s.ignored[i];
    out += "\n";
  }
  for (const std::string& note : s.notes) out += "chsim: " + where + ": " + note + "\n";
  return out;
}

namespace internal {

size_t PickBlock(const std::vector<std::string>& names, const std::string& wanted,
                 const std::string& path, std::string_view kind) {
  std::string all;
  for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
  if (names.empty()) {
    throw UsageError(path + ": no " + std::string(kind) +
                     " in the file (a proxy configuration, by its extension; a server list "
                     "is read from another name or with --servers-format list)");
  }
  if (wanted.empty()) {
    if (names.size() == 1) return 0;
    throw UsageError(path + ": " + std::to_string(names.size()) + " " + std::string(kind) + "s (" +
                     all + "); name one as " + path + ":NAME");
  }
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == wanted) return i;
  throw UsageError(path + ": no " + std::string(kind) + " " + Quote(wanted) + "; found " + all);
}

bool ParseDecimal(std::string_view s, uint64_t lo, uint64_t hi, uint64_t* out) {
  while (s.size() > 1 && s[0] == '0') s.remove_prefix(1);
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

void Ignore(ServerSource& s, std::string_view directive) {
  for (const std::string& d : s.ignored)
    if (d == directive) return;
  s.ignored.emplace_back(directive);
}

std::string WhereIn(const std::string& file, size_t line, const std::string& main) {
  return (file == main ? "line " : file + ":") + std::to_string(line);
}

void AddServer(ServerSource& s, Node node, size_t line, ServerLines& lines,
               const std::string* file) {
  const std::string& path = file != nullptr ? *file : s.path;
  auto [it, added] = lines.emplace(node.label, std::pair(file, line));
  if (!added) {
    const std::string& first = it->second.first ? *it->second.first : s.path;
    throw LineError(path, line,
                    "server " + Quote(node.label) + " again (first on " +
                        WhereIn(first, it->second.second, path) +
                        "); chsim needs each server once");
  }
  if (s.list.nodes.size() == kMaxServers)
    throw LineError(path, line, "more than " + std::to_string(kMaxServers) + " servers");
  s.list.nodes.push_back(std::move(node));
}

const std::string* IncludedFiles::Open(const std::string& file, const std::string& at, size_t line,
                                       std::string* text) {
  if (names_.size() == kMaxFiles)
    throw LineError(at, line, "more than " + std::to_string(kMaxFiles) + " included files");
  if (open_.size() > kMaxDepth)
    throw LineError(at, line, "includes nested more than " + std::to_string(kMaxDepth) + " deep");
  std::error_code ec;
  std::filesystem::path id = std::filesystem::weakly_canonical(file, ec);
  if (ec) id = file;
  if (open_.empty()) {
    const std::filesystem::path main = std::filesystem::weakly_canonical(main_, ec);
    open_.push_back(ec ? std::filesystem::path(main_) : main);
  }
  for (const std::filesystem::path& p : open_) {
    if (p == id) throw LineError(at, line, "include " + Quote(file) + " includes itself");
  }
  try {
    *text = ReadFileOrStdin(file, kMaxFileBytes);
  } catch (const UsageError& e) {
    throw LineError(at, line, std::string("include: ") + e.what());
  }
  open_.push_back(id);
  names_.push_back(file);
  return &names_.back();
}

void FinishList(ServerSource& s, std::string_view kind) {
  if (s.list.nodes.empty()) {
    throw UsageError(s.path + ": " + std::string(kind) + " " + Quote(s.block) +
                     " has no servers that take keys");
  }
}

}  // namespace internal
}  // namespace chsim::sim
