// `chsim locate` and `chsim ring`: map keys to servers, and print the ring,
// exactly as a chosen peer client would.
#include <charconv>
#include <cstring>
#include <string>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "chsim/ring.h"
#include "chsim/sim/errors.h"
#include "chsim/sim/key_lines.h"
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
  std::vector<uint64_t> hashes(sim::kLocateBlockKeys);
  sim::WriteKeyOwners(keys, list.nodes, [&](auto block, std::span<uint32_t> owners) {
    HashBatch(*hasher, block, hashes);
    if (!stateful) return algo->LocateBatch({hashes.data(), block.size()}, owners);
    for (size_t i = 0; i < block.size(); ++i) owners[i] = algo->Assign(hashes[i]);  // file order
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
    sim::WriteKeyOwners(*keys, b.list.nodes, [&](auto block, std::span<uint32_t> owners) {
      b.ring.LocateBatch(block, owners);
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
    sim::StdoutBuffer out;
    auto points = b.ring.points();
    auto owners = b.ring.owners();
    for (size_t i = 0; i < points.size(); ++i) {
      const std::string& label = b.list.nodes[owners[i]].label;
      char* p = out.Reserve(label.size() + 12);
      p = std::to_chars(p, p + 10, points[i]).ptr;
      *p++ = '\t';
      std::memcpy(p, label.data(), label.size());
      p[label.size()] = '\n';
      out.Commit(p + label.size() + 1);
    }
    out.Flush();
  });
}

}  // namespace chsim::cli
