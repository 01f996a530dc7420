// SPDX-License-Identifier: Apache-2.0
// `chsim tune`: the least points per node a deployment needs for a target
// max/mean at a confidence (see sim/tune/tune.h for the method).
#include <cstdio>
#include <string>

#include "sim/base/errors.h"
#include "sim/cli/commands.h"
#include "sim/results/results.h"
#include "sim/scenario/server_config.h"
#include "sim/tune/tune.h"
#include "sim/tune/tune_command.h"

namespace chsim::cli {
namespace {

struct TuneFlags {
  sim::TuneOptions options;
  std::string json;
  bool quiet = false;
};

// A proxy's configuration as --servers: its servers, and its profile and
// options unless --profile or --algorithm is given.
void ReadServers(sim::TuneOptions& o) {
  if (o.servers.empty()) return;
  sim::ServerSource src = sim::LoadServers(o.servers);
  const std::string notes = sim::ServerSourceNotes(src);
  if (!notes.empty()) std::fputs(notes.c_str(), stderr);
  if (src.format != sim::ServerFormat::kList && o.profile.empty() && o.algorithm.empty()) {
    if (src.profile.empty()) {
      throw sim::UsageError(src.path + ":" + src.block + ": " + src.why_no_profile +
                            "; name a --profile to tune it anyway");
    }
    o.profile = src.profile;
    o.profile_options = src.options;
  }
  o.server_list = std::move(src.list);
}

void RunTune(TuneFlags& f) {
  ReadServers(f.options);
  const sim::TuneRequest r = sim::MakeTuneRequest(f.options);
  sim::TuneProgress progress;
  if (!f.quiet)
    progress = [](const std::string& s) { std::fprintf(stderr, "tune: %s\n", s.c_str()); };
  sim::TuneResult res = sim::Tune(r, progress);
  std::printf("%s\n", res.summary.c_str());
  if (f.json.empty()) return;
  sim::WriteFileAtomically(f.json, sim::TuneDocument(f.options, r, res).dump(1) + "\n");
}

}  // namespace

void AddTuneCommand(CLI::App& app) {
  static TuneFlags flags;  // the callback runs after this function returns
  sim::TuneOptions* o = &flags.options;
  CLI::App* cmd = app.add_subcommand(
      "tune",
      "Find the least points per node that keep max/mean <= target with a confidence.\n"
      "The answer is the least candidate whose exact check (real rings over drawn names)\n"
      "shows max/mean <= target in at least a share `confidence` of the draws, its lower\n"
      "neighbour checked and short of it; if --time-budget runs out first, the line says\n"
      "'not settled' and gives the range of points still in doubt.\n"
      "Examples:\n"
      "  chsim tune --nodes 200 --max-over-mean 1.10\n"
      "  chsim tune --nodes 100 --algorithm ring --hasher xxh3 --max-over-mean 1.05 --json t.json\n"
      "  chsim tune --servers servers.txt --profile spymemcached --max-over-mean 1.10\n"
      "  chsim tune --nodes 1000 --algorithm maglev --max-over-mean 1.01\n"
      "  chsim tune --nodes 100 --algorithm maglev --max-excess-churn 0.005\n"
      "  chsim tune --nodes 100 --replicas 3 --racks 3 --max-over-mean 1.10\n"
      "  chsim tune --nodes 100 --profile nginx --max-over-mean 1.10   # answers in weights\n"
      "  chsim tune --servers default.vcl:vd --max-over-mean 1.10      # answers in replicas\n"
      "  chsim tune --nodes 100 --profile envoy-ring --max-over-mean 1.10  # in min_ring_size\n"
      "  chsim tune --nodes 100 --profile envoy-maglev --max-over-mean 1.01  # in table_size\n"
      "  chsim tune --nodes 100 --profile jedis --max-over-mean 1.10   # answers in weights");
  auto* nodes = cmd->add_option("--nodes", o->nodes, "node count (names are drawn)");
  cmd->add_option("--servers", o->servers,
                  "server list (tuned exactly, with its real names), or a proxy's configuration "
                  "FILE[:BLOCK] (docs/proxies.md), tuned with its profile unless --profile "
                  "is given")
      ->excludes(nodes);
  cmd->add_option("--profile", o->profile, "compatibility profile (default: research ring)");
  cmd->add_option("--hash-algorithm", o->hash_algorithm, "spymemcached hash algorithm");
  cmd->add_option("--min-ring-size", o->min_ring_size,
                  "envoy-ring: minimum_ring_size now, compared with the answer (default: the "
                  "configuration's, else 1024)")
      ->check(CLI::Range(uint64_t{1}, kEnvoyMaxRingSize));
  cmd->add_option("--max-ring-size", o->max_ring_size,
                  "envoy-ring: maximum_ring_size, the largest min_ring_size the answer may be "
                  "(default: the configuration's, else 8388608)")
      ->check(CLI::Range(uint64_t{1}, kEnvoyMaxRingSize));
  cmd->add_option("--maglev-table-size", o->maglev_table_size,
                  "envoy-maglev: table_size now, a prime (default: the configuration's, else "
                  "65537)")
      ->check(CLI::Range(uint64_t{2}, kEnvoyMaxTableSize));
  cmd->add_option("--algorithm", o->algorithm, sim::TunableAlgorithmsText());
  cmd->add_option("--hasher", o->hasher,
                  "node hasher (rings: md5, as Ketama; others: the algorithm's default)");
  cmd->add_option("--max-over-mean", o->max_over_mean, "target max/mean, > 1 (e.g. 1.10)");
  cmd->add_option("--max-excess-churn", o->max_excess_churn,
                  "maglev: target keys moved beyond the removed node's share (e.g. 0.01)");
  cmd->add_option("--replicas", o->replicas,
                  "copies per key (not points per node): tune the hottest node's share of all "
                  "copies; also reports replica neighbours and the loss at 1% failed");
  cmd->add_option("--strategy", o->strategy,
                  "with --replicas: the replica strategy (chsim list; default: the first that "
                  "applies to the algorithm)");
  cmd->add_option("--racks", o->racks,
                  "with --replicas: nodes dealt round-robin into this many racks, copies spread "
                  "over them as the strategy's domain rule says");
  cmd->add_option("--confidence", o->confidence, "probability over name draws, in (0,1)")
      ->capture_default_str();
  cmd->add_option("--metric", o->metric, "structural (exact shares) or sampled (--keys)")
      ->capture_default_str();
  cmd->add_option("--keys", o->keys, "keys for --metric sampled (at most 10^9)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, sim::kTuneMaxKeys));
  cmd->add_option("--draws", o->draws, "draws per candidate: model, and at most this many exact")
      ->capture_default_str();
  cmd->add_option("--time-budget", o->time_budget,
                  "seconds for the exact check (sizes its draws); inf: --draws alone bounds "
                  "the work, so the answer depends on the request only")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed")->capture_default_str();
  cmd->add_option("--threads", o->threads, "threads (default: all cores)");
  cmd->add_option("--json", flags.json,
                  "write the result as JSON to this file (results/README.md, \"Tune files\"; "
                  "chsim validate --results checks it)");
  cmd->add_flag("--quiet", flags.quiet, "no progress on stderr");
  cmd->callback([] { RunTune(flags); });
}

}  // namespace chsim::cli
