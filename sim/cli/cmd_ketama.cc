// `chsim locate` and `chsim ring`: map keys to servers, and print the ring,
// exactly as a chosen peer client would.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
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

// Longest key line accepted (a memcached key is at most 250 bytes).
constexpr size_t kMaxKeyBytes = size_t{1} << 20;

// Calls f(line) for each '\n'-terminated line of the file (and a final
// unterminated one), streaming: memory does not grow with the file. A line
// longer than kMaxKeyBytes is refused.
template <typename F>
void ForEachLine(const std::string& path, F&& f) {
  FILE* in = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (in == nullptr) throw sim::UsageError(path + ": cannot open: " + std::strerror(errno));
  std::string carry;
  std::string buf(1 << 16, '\0');
  size_t got;
  size_t line_no = 1;
  auto check = [&](size_t len) {
    if (len > kMaxKeyBytes) {
      if (in != stdin) std::fclose(in);
      throw sim::UsageError(path + ":" + std::to_string(line_no) + ": key line longer than " +
                            std::to_string(kMaxKeyBytes) + " bytes; accepted: keys up to 1 MiB");
    }
  };
  while ((got = std::fread(buf.data(), 1, buf.size(), in)) > 0) {
    std::string_view chunk(buf.data(), got);
    size_t start = 0;
    for (size_t nl; (nl = chunk.find('\n', start)) != std::string_view::npos; start = nl + 1) {
      check(carry.size() + (nl - start));
      if (carry.empty()) {
        f(chunk.substr(start, nl - start));
      } else {
        carry.append(chunk.substr(start, nl - start));
        f(std::string_view(carry));
        carry.clear();
      }
      ++line_no;
    }
    check(carry.size() + (chunk.size() - start));
    carry.append(chunk.substr(start));
  }
  bool failed = std::ferror(in);
  if (in != stdin) std::fclose(in);
  if (failed) throw sim::UsageError(path + ": read error");
  if (!carry.empty()) f(std::string_view(carry));
}

// `chsim locate --algorithm NAME`: the research algorithms (chsim list).
struct AlgorithmOptions {
  std::string name;
  AlgorithmParams params;
};

void AddAlgorithmOptions(CLI::App* cmd, AlgorithmOptions& a) {
  cmd->add_option("--algorithm", a.name,
                  "research algorithm instead of a peer profile (chsim list); keys are hashed "
                  "with --hasher (default xxh3)");
  cmd->add_option("--points", a.params.points_per_node,
                  "ring, bounded_load: points per node (default 160)");
  cmd->add_option("--table-size", a.params.table_size, "maglev: prime table size (default 65537)");
  cmd->add_option("--probes", a.params.probes, "multi_probe: probes per key (default 21)");
  cmd->add_option("--balance-factor", a.params.balance_factor,
                  "bounded_load: c > 1 (default 1.25); keys are placed in file order");
  cmd->add_option("--capacity", a.params.capacity,
                  "anchor: most nodes it can hold (default 2 x the list)");
}

// Rejects algorithm parameters without --algorithm, and profile options with it.
void CheckOptionMix(const CLI::App* cmd, const AlgorithmOptions& a) {
  static constexpr const char* kAlgorithmOnly[] = {"--points", "--table-size", "--probes",
                                                   "--balance-factor", "--capacity"};
  if (a.name.empty()) {
    for (const char* opt : kAlgorithmOnly) {
      if (cmd->count(opt) > 0) {
        throw sim::UsageError(std::string(opt) + " needs --algorithm NAME (see chsim list)");
      }
    }
    return;
  }
  for (const char* opt : {"--profile", "--hash-algorithm"}) {
    if (cmd->count(opt) > 0) {
      throw sim::UsageError(std::string(opt) +
                            " selects a peer profile; it cannot be combined with --algorithm");
    }
  }
}

void LocateWithAlgorithm(const RingOptions& o, AlgorithmOptions a, const std::string& keys) {
  sim::ServerList list = sim::LoadServerList(o.servers);
  a.params.hasher = o.hasher.empty() ? "xxh3" : o.hasher;
  std::unique_ptr<Algorithm> algo;
  const Hasher* hasher = nullptr;
  try {
    hasher = &GetHasher(a.params.hasher);
    algo = MakeAlgorithm(a.name, list.nodes, a.params);
  } catch (const Unsupported& e) {
    throw sim::UsageError(o.servers + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    throw sim::UsageError(e.what());
  }
  const bool stateful = algo->capabilities().stateful;
  Output out;
  ForEachLine(keys, [&](std::string_view key) {
    const uint64_t h = (*hasher)(key);
    const uint32_t id = stateful ? algo->Assign(h) : algo->Locate(h);
    const Node& node = list.nodes[id];  // ids 0..n-1 are the list, in order
    out.Append(key);
    out.Append("\t", 1);
    out.Append(node.label);
    out.Append("\n", 1);
  });
}

}  // namespace

void AddLocateCommand(CLI::App& app) {
  // Static storage: the callbacks below run after this function returns.
  static RingOptions options;
  static std::string keys_path = "-";
  auto* o = &options;
  auto* keys = &keys_path;
  CLI::App* cmd = app.add_subcommand(
      "locate",
      "Map keys to servers as a peer client would; prints KEY<TAB>SERVER per key line.\n"
      "Example: chsim locate --servers servers.txt --profile libmemcached keys.txt\n"
      "         chsim locate --servers servers.txt --algorithm maglev keys.txt");
  AddRingOptions(cmd, *o);
  static AlgorithmOptions algorithm_options;
  auto* algo = &algorithm_options;
  AddAlgorithmOptions(cmd, *algo);
  cmd->add_option("keys", *keys, "key file, one key per line, bytes verbatim ('-' = stdin)")
      ->capture_default_str();
  cmd->callback([cmd, o, algo, keys] {
    CheckOptionMix(cmd, *algo);
    if (!algo->name.empty()) {
      LocateWithAlgorithm(*o, *algo, *keys);
      return;
    }
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
  static RingOptions options;
  auto* o = &options;
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
