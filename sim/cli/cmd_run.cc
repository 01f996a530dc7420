// SPDX-License-Identifier: Apache-2.0
// `chsim run`, `chsim validate` and `chsim merge`: scenarios in, result files out.
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sim/base/errors.h"
#include "sim/base/interrupt.h"
#include "sim/base/thread_pool.h"
#include "sim/cli/commands.h"
#include "sim/results/provenance.h"
#include "sim/results/results.h"
#include "sim/run/plan.h"
#include "sim/run/run_document.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"

namespace chsim::cli {
namespace {

std::vector<std::string> g_argv;

sim::Shard ParseShard(const std::string& text) {
  const std::string accepted = "; accepted: I/N with 0 <= I < N, e.g. --shard 0/4";
  size_t slash = text.find('/');
  if (slash == std::string::npos) throw sim::UsageError("--shard: found '" + text + "'" + accepted);
  try {
    size_t used1 = 0, used2 = 0;
    unsigned long i = std::stoul(text.substr(0, slash), &used1);
    unsigned long n = std::stoul(text.substr(slash + 1), &used2);
    if (used1 != slash || used2 != text.size() - slash - 1 || n == 0 || i >= n || n > 1'000'000) {
      throw std::invalid_argument("range");
    }
    return sim::Shard{static_cast<uint32_t>(i), static_cast<uint32_t>(n)};
  } catch (const std::logic_error&) {
    throw sim::UsageError("--shard: found '" + text + "'" + accepted);
  }
}

std::optional<uint64_t> ParseSeedFlag(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos) {
    throw sim::UsageError("--seed: found '" + text + "'; accepted: an integer 0..2^64-1");
  }
  try {
    return std::stoull(text);
  } catch (const std::out_of_range&) {
    throw sim::UsageError("--seed: found '" + text + "'; accepted: an integer 0..2^64-1");
  }
}

// Fails before any work when the result file could not be written (a run may
// take hours). When its folder exists: creates and removes the temporary file
// the writer will use. When it does not (WriteFileAtomically makes it): its
// nearest existing ancestor must be a folder this process may write.
void CheckOutputWritable(const std::string& output) {
  namespace fs = std::filesystem;
  if (fs::is_directory(output)) {
    throw sim::RuntimeError(output + ": cannot write: Is a directory (checked before running)");
  }
  const fs::path folder = fs::path(output).parent_path();
  fs::path existing = folder;
  while (!existing.empty() && !fs::exists(existing)) existing = existing.parent_path();
  if (existing.empty()) existing = ".";
  if (!fs::is_directory(existing)) {
    throw sim::UsageError("-o: found '" + output + "', but '" + existing.string() +
                          "' is not a folder; accepted: a file path whose folders exist or can "
                          "be made");
  }
  if (existing != folder && !folder.empty()) {
    if (::access(existing.c_str(), W_OK | X_OK) != 0) {
      throw sim::RuntimeError(output + ": cannot make its folder in " + existing.string() + ": " +
                              std::strerror(errno) + " (checked before running)");
    }
    return;
  }
  const std::string probe = output + ".tmp." + std::to_string(::getpid());
  FILE* f = std::fopen(probe.c_str(), "wb");
  if (f == nullptr) {
    throw sim::RuntimeError(output + ": cannot write: " + std::strerror(errno) +
                            " (checked before running)");
  }
  std::fclose(f);
  std::remove(probe.c_str());
}

struct RunFlags {
  std::string scenario;
  std::string output;
  unsigned threads = 0;
  std::string seed;
  bool dry_run = false;
  std::string shard;
  bool quiet = false;
  bool force = false;
};

void Run(const RunFlags& f) {
  sim::RunInfo info;
  info.started_utc = sim::UtcNow();
  info.command = g_argv;
  sim::Scenario s = sim::LoadScenario(f.scenario, ParseSeedFlag(f.seed));
  sim::Shard shard = f.shard.empty() ? sim::Shard{} : ParseShard(f.shard);
  unsigned threads = f.threads ? f.threads : sim::DefaultThreads();
  std::vector<const sim::CaseSpec*> cases = sim::ShardCases(s, shard);
  if (f.dry_run) {
    const std::vector<sim::CasePlan> plan =
        sim::PlanScenario(s, sim::PlanOptions{threads, shard, f.force});
    std::printf("scenario %s: %zu cases (%zu in this shard), %u trials, %zu events, seed %llu\n",
                s.name.c_str(), s.cases.size(), cases.size(), s.trials, s.events.size(),
                static_cast<unsigned long long>(s.seed));
    std::printf("index\tcase_id\tseed\tplan\n");
    for (const sim::CaseSpec* c : cases) {
      const sim::CasePlan& p = plan[c->index];
      std::printf("%zu\t%s\t%llu\t%s\n", c->index, c->id.c_str(),
                  static_cast<unsigned long long>(c->seed),
                  p.skipped ? ("skipped: " + p.message).c_str() : "ok");
    }
    return;
  }
  sim::CheckWork(s, cases, f.force);  // before creating any file
  std::string output = f.output;
  if (output.empty()) {
    std::string stem = std::filesystem::path(f.scenario).stem().string();
    if (stem.empty() || f.scenario == "-") stem = s.name;
    std::filesystem::create_directories("results");
    output = "results/" + stem +
             (shard.count > 1
                  ? ".shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count)
                  : std::string()) +
             ".json";
  }
  CheckOutputWritable(output);
  sim::InstallInterruptHandlers();
  size_t finished = 0;
  sim::Json doc;
  try {
    doc = sim::RunDocument(s, sim::RunOptions{threads, shard, f.force}, info, f.quiet, &finished);
  } catch (const sim::Interrupted&) {
    int sig = sim::InterruptSignal();
    std::fprintf(stderr,
                 "chsim: interrupted by %s after finishing %zu of %zu cases; no result file "
                 "written (%s untouched)\n",
                 sig == SIGTERM ? "SIGTERM" : "SIGINT", finished, cases.size(), output.c_str());
    std::_Exit(128 + (sig ? sig : SIGINT));
  }
  if (sim::StopRequested()) {
    const int sig = sim::InterruptSignal();
    std::fprintf(stderr,
                 "chsim: interrupted by %s after finishing all %zu cases; no result file written\n",
                 sig == SIGTERM ? "SIGTERM" : "SIGINT", cases.size());
    std::_Exit(128 + (sig ? sig : SIGINT));
  }
  sim::WriteFileAtomically(output, sim::SerializeResults(doc));
  size_t skipped = 0;
  for (const sim::Json& c : doc["cases"]) {
    if (c["status"] == "skipped") {
      ++skipped;
      if (!f.quiet) {
        std::fprintf(stderr, "chsim: note: case skipped: %s\n",
                     c["message"].get<std::string>().c_str());
      }
    }
  }
  if (!f.quiet) {
    const sim::Json& p = doc["provenance"];
    std::fprintf(stderr,
                 "chsim: wrote %s: %zu cases (%zu skipped), %zu rows, %.1f s on %u threads\n",
                 output.c_str(), cases.size(), skipped, doc["rows"].size(),
                 p["wall_seconds"].get<double>(), threads);
  }
}

struct MergeFlags {
  std::vector<std::string> inputs;
  std::string output;
  bool missing = false;
  uint32_t shards = 0;
  std::string scenario;
  std::string seed;
};

constexpr int kExitIncomplete = 3;  // merge --missing: the listing has holes

// merge --missing: the listing as JSON on stdout, in words on stderr.
void ListMissing(const MergeFlags& f) {
  if (!f.output.empty()) throw sim::UsageError("merge: --missing writes no file; drop -o");
  if (f.inputs.empty() && f.shards == 0) {
    throw sim::UsageError(
        "merge --missing: no input files and no --shards N; accepted: shard "
        "result files, or --shards N to list all N as missing");
  }
  if (!f.seed.empty() && f.scenario.empty()) {
    throw sim::UsageError("merge --missing: --seed goes with --scenario FILE");
  }
  sim::ShardReference ref;
  if (f.shards) ref.count = f.shards;
  sim::Scenario s;
  if (!f.scenario.empty()) {
    s = sim::LoadScenario(f.scenario, ParseSeedFlag(f.seed));
    ref.scenario = &s.resolved;
    ref.scenario_source = "--scenario " + f.scenario;
  }
  const sim::ShardListing listing = sim::ListShards(f.inputs, ref);
  std::printf("%s\n", sim::ShardListingJson(listing).dump().c_str());
  std::fflush(stdout);
  for (const sim::ShardFile& file : listing.files) {
    if (file.status == "ok") continue;
    std::fprintf(stderr, "chsim: %s: %s\n", file.status.c_str(), file.reason.c_str());
  }
  if (!listing.count) {
    std::fprintf(stderr,
                 "chsim: no valid shard file: the shard count is unknown (give --shards N)\n");
  } else if (!listing.missing.empty()) {
    std::fprintf(stderr, "chsim: shard(s) %s of %u missing (rerun them with --shard I/%u)\n",
                 sim::IndexRanges(listing.missing).c_str(), *listing.count, *listing.count);
  }
  if (!listing.Complete()) std::exit(kExitIncomplete);
  std::fprintf(stderr, "chsim: all %u shards present; chsim merge will join them\n",
               *listing.count);
}

void Merge(const MergeFlags& f) {
  if (f.missing) return ListMissing(f);
  if (f.shards || !f.scenario.empty() || !f.seed.empty()) {
    throw sim::UsageError("merge: --shards, --scenario and --seed go with --missing");
  }
  if (f.output.empty()) {
    throw sim::UsageError("merge: -o FILE is required (or --missing to list the missing shards)");
  }
  sim::Json doc = sim::MergeResults(f.inputs);
  sim::WriteFileAtomically(f.output, sim::SerializeResults(doc));
  std::fprintf(stderr, "chsim: merged %zu files into %s (%zu cases, %zu rows)\n", f.inputs.size(),
               f.output.c_str(), doc["cases"].size(), doc["rows"].size());
}

struct ValidateFlags {
  std::vector<std::string> files;
  bool results = false;  // the files are result files
  RunFlags run;          // the flags that change what run refuses
};

// `chsim validate`: each file loaded and planned as `chsim run` would (or,
// with --results, checked against its result schema); one line per file.
void Validate(const ValidateFlags& v) {
  int bad = 0;
  for (const std::string& path : v.files) {
    try {
      if (v.results) {
        sim::ValidateResultsFile(path);
        std::printf("%s: ok\n", path.c_str());
        continue;
      }
      const RunFlags& f = v.run;
      const sim::Scenario s = sim::LoadScenario(path, ParseSeedFlag(f.seed));
      const sim::Shard shard = f.shard.empty() ? sim::Shard{} : ParseShard(f.shard);
      const unsigned threads = f.threads ? f.threads : sim::DefaultThreads();
      size_t skipped = 0;
      for (const sim::CasePlan& p : sim::PlanScenario(s, {threads, shard, f.force})) {
        skipped += p.skipped;
      }
      std::printf("%s: ok (%zu cases, %u trials, %zu events", path.c_str(), s.cases.size(),
                  s.trials, s.events.size());
      if (skipped) std::printf("; %zu cases will be skipped, see run --dry-run", skipped);
      std::printf(")\n");
    } catch (const sim::UsageError& e) {
      std::fprintf(stderr, "chsim: error: %s\n", e.what());
      ++bad;
    }
  }
  if (bad) {
    throw sim::UsageError(std::to_string(bad) + " of " + std::to_string(v.files.size()) +
                          " files invalid");
  }
}

void AddRunCommand(CLI::App& app) {
  static RunFlags flags;  // outlives the app's callbacks
  RunFlags* f = &flags;
  CLI::App* run = app.add_subcommand(
      "run",
      "Run a scenario and write a JSON result file.\n"
      "Examples:\n"
      "  chsim run scenarios/balance-vs-points.json                 # -> "
      "results/balance-vs-points.json\n"
      "  chsim run scenarios/remap-events.json -o out.json --threads 2 --seed 7\n"
      "  chsim run scenarios/lookup-throughput.json --dry-run      # list the cases, run nothing\n"
      "  chsim run sweep.json --shard 3/16 -o part3.json            # every 16th case from case 3\n"
      "Exit status: 0 done, 2 bad input, 1 runtime error, 130/143 interrupted (no file written).");
  run->add_option("scenario", f->scenario, "scenario file (JSON; scenarios/schema.json)")
      ->required();
  run->add_option("-o,--output", f->output,
                  "result file (default results/<scenario stem>.json; missing folders are made); "
                  "written whole or not at all");
  run->add_option("--threads", f->threads,
                  "worker threads (default: all cores); results do not depend on it")
      ->check(CLI::Range(1u, 1024u));
  run->add_option("--seed", f->seed, "master seed, replacing the scenario's");
  run->add_flag("--dry-run", f->dry_run,
                "plan every case as chsim validate does, and list the cases with their ids, seeds "
                "and plan (ok, or skipped and why); run nothing");
  run->add_option("--shard", f->shard,
                  "I/N: run only cases with index % N == I (merge with chsim merge)");
  run->add_flag("-q,--quiet", f->quiet, "no progress or summary on stderr");
  run->add_flag(
      "--force", f->force,
      "run even beyond 2e10 key placements (about 10 min on 2 cores; refused without it)");
  run->callback([f] { Run(*f); });
}

void AddValidateCommand(CLI::App& app) {
  static ValidateFlags flags;  // outlives the app's callbacks
  ValidateFlags* v = &flags;
  RunFlags* vf = &flags.run;
  CLI::App* validate = app.add_subcommand(
      "validate",
      "Check scenario files (or result files with --results) without running them: each\n"
      "scenario is loaded and every case planned (each algorithm's admission checks and a\n"
      "replay of the events timeline), so validate refuses exactly what chsim run refuses,\n"
      "with the same message.\n"
      "Examples:\n"
      "  chsim validate scenarios/*.json\n"
      "  chsim validate --seed 7 --shard 0/4 sweep.json   # as chsim run with those flags\n"
      "  chsim validate --results results/remap-events.json\n"
      "Prints one line per file; exit 2 if any is invalid.");
  validate->add_option("files", v->files, "scenario files")->required();
  validate->add_flag(
      "--results", v->results,
      "the files are result files: of chsim run or merge (results/schema.json), of chsim "
      "tune --json (results/tune-schema.json) or of chsim diff --json "
      "(results/diff-schema.json)");
  validate->add_option("--seed", vf->seed, "master seed, as chsim run --seed");
  validate->add_option("--shard", vf->shard,
                       "I/N, as chsim run --shard (the work limit counts it)");
  validate->add_flag("--force", vf->force, "as chsim run --force (no work limit)");
  validate->add_option("--threads", vf->threads, "planning threads (default: all cores)")
      ->check(CLI::Range(1u, 1024u));
  validate->callback([v] { Validate(*v); });
}

void AddMergeCommand(CLI::App& app) {
  static MergeFlags merge_flags;
  MergeFlags* m = &merge_flags;
  CLI::App* merge = app.add_subcommand(
      "merge",
      "Merge the result files of the shards of one run (chsim run --shard I/N) into one,\n"
      "or, with --missing, list which shards a set of files lacks (to rerun them).\n"
      "Examples:\n"
      "  chsim merge part*.json -o results/sweep.json\n"
      "  chsim merge --missing --shards 32 --scenario sweep.json parts/sweep.*.json\n"
      "The merged rows, summary, nodes and cases equal those of a single run.\n"
      "--missing prints one JSON object on stdout: {\"count\", \"complete\", \"missing\",\n"
      "\"rerun\" (the missing indices as sbatch --array ranges, e.g. \"2,5-7\"), \"duplicate\",\n"
      "\"foreign\" (files of another scenario, seed or shard count), \"invalid\", \"files\"};\n"
      "the same in words on stderr.\n"
      "Exit status: 0 merged (--missing: complete, a merge would succeed), 3 (--missing)\n"
      "shards missing, duplicated, foreign or invalid, 2 bad input, 1 runtime error.");
  merge->add_option("files", m->inputs, "shard result files, one per shard");
  merge->add_option("-o,--output", m->output, "merged result file (required unless --missing)");
  merge->add_flag("--missing", m->missing,
                  "list missing, duplicated, foreign and invalid shards as JSON; merge nothing");
  merge->add_option("--shards", m->shards, "with --missing: the run's shard count N")
      ->check(CLI::Range(1u, 1'000'000u));
  merge->add_option("--scenario", m->scenario,
                    "with --missing: the scenario the shards were run from (others are foreign)");
  merge->add_option("--seed", m->seed, "with --scenario: the --seed the shards were run with");
  merge->callback([m] { Merge(*m); });
}

}  // namespace

void AddRunCommands(CLI::App& app, int argc, char** argv) {
  g_argv.assign(argv, argv + argc);
  AddRunCommand(app);
  AddValidateCommand(app);
  AddMergeCommand(app);
}

}  // namespace chsim::cli
