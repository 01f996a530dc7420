// `chsim locate` and `chsim ring`: map keys to servers, and print the ring,
// exactly as a chosen peer client would.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "chsim/profile.h"
#include "chsim/ring.h"
#include "chsim/sim/errors.h"
#include "chsim/sim/server_list.h"
#include "commands.h"

namespace chsim::cli {
namespace {

struct RingOptions {
  std::string servers;
  std::string profile = "spymemcached";
  std::string hash_algorithm;
  std::string hasher;
};

void AddRingOptions(CLI::App* cmd, RingOptions& o) {
  cmd->add_option("--servers", o.servers, "server list file: HOST[:PORT] [WEIGHT [NAME]] per line")
      ->required();
  cmd->add_option("--profile", o.profile, "compatibility profile (chsim list)")
      ->capture_default_str();
  cmd->add_option("--hash-algorithm", o.hash_algorithm,
                  "spymemcached DefaultHashAlgorithm (KETAMA_HASH, FNV1A_64_HASH, ...)");
  cmd->add_option("--hasher", o.hasher, "key hasher where the peer lets you choose");
}

struct BuiltRing {
  sim::ServerList list;
  Ring ring;
};

BuiltRing BuildFromOptions(const RingOptions& o) {
  BuiltRing b;
  b.list = sim::LoadServerList(o.servers);
  Profile p;
  try {
    p = MakeProfile(o.profile, ProfileOptions{o.hash_algorithm, o.hasher});
  } catch (const std::invalid_argument& e) {
    throw sim::UsageError(e.what());
  }
  try {
    b.ring = Ring::Build(p, b.list.nodes, b.list.weighted);
  } catch (const std::invalid_argument& e) {
    throw sim::UsageError(o.servers + ": " + e.what());
  }
  return b;
}

class Output {
 public:
  ~Output() { Flush(); }
  void Append(const char* p, size_t n) {
    buf_.append(p, n);
    if (buf_.size() >= (1 << 16)) Flush();
  }
  void Append(std::string_view s) { Append(s.data(), s.size()); }
  void Flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), stdout) != buf_.size()) {
      throw sim::RuntimeError(std::string("writing standard output: ") + std::strerror(errno));
    }
    buf_.clear();
  }

 private:
  std::string buf_;
};

// Calls f(line) for each '\n'-terminated line of the file (and a final
// unterminated one), streaming: memory does not grow with the file.
template <typename F>
void ForEachLine(const std::string& path, F&& f) {
  FILE* in = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (in == nullptr) throw sim::UsageError(path + ": cannot open: " + std::strerror(errno));
  std::string carry;
  std::string buf(1 << 16, '\0');
  size_t got;
  while ((got = std::fread(buf.data(), 1, buf.size(), in)) > 0) {
    std::string_view chunk(buf.data(), got);
    size_t start = 0;
    for (size_t nl; (nl = chunk.find('\n', start)) != std::string_view::npos; start = nl + 1) {
      if (carry.empty()) {
        f(chunk.substr(start, nl - start));
      } else {
        carry.append(chunk.substr(start, nl - start));
        f(std::string_view(carry));
        carry.clear();
      }
    }
    carry.append(chunk.substr(start));
  }
  bool failed = std::ferror(in);
  if (in != stdin) std::fclose(in);
  if (failed) throw sim::UsageError(path + ": read error");
  if (!carry.empty()) f(std::string_view(carry));
}

}  // namespace

void AddLocateCommand(CLI::App& app) {
  auto* o = new RingOptions;  // lives as long as the process
  auto* keys = new std::string("-");
  CLI::App* cmd = app.add_subcommand(
      "locate",
      "Map keys to servers as a peer client would; prints KEY<TAB>SERVER per key line.\n"
      "Example: chsim locate --servers servers.txt --profile libmemcached keys.txt");
  AddRingOptions(cmd, *o);
  cmd->add_option("keys", *keys, "key file, one key per line, bytes verbatim ('-' = stdin)")
      ->capture_default_str();
  cmd->callback([o, keys] {
    BuiltRing b = BuildFromOptions(*o);
    Output out;
    ForEachLine(*keys, [&](std::string_view key) {
      const Node& node = b.list.nodes[b.ring.Locate(key)];
      out.Append(key);
      out.Append("\t", 1);
      out.Append(node.label);
      out.Append("\n", 1);
    });
  });
}

void AddRingCommand(CLI::App& app) {
  auto* o = new RingOptions;
  CLI::App* cmd = app.add_subcommand(
      "ring",
      "Print the ring in order: POINT<TAB>SERVER for every point the peer keeps.\n"
      "Example: chsim ring --servers servers.txt --profile twemproxy");
  AddRingOptions(cmd, *o);
  cmd->callback([o] {
    BuiltRing b = BuildFromOptions(*o);
    Output out;
    auto points = b.ring.points();
    auto owners = b.ring.owners();
    for (size_t i = 0; i < points.size(); ++i) {
      out.Append(std::to_string(points[i]));
      out.Append("\t", 1);
      out.Append(b.list.nodes[owners[i]].label);
      out.Append("\n", 1);
    }
  });
}

}  // namespace chsim::cli
