// SPDX-License-Identifier: Apache-2.0
#include "sim/results/results.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "sim/base/errors.h"
#include "sim/base/stats.h"
#include "sim/base/text_file.h"
#include "sim/run/metrics.h"

namespace chsim::sim {
namespace {

Json Number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json CaseHeader(const CaseSpec& c) {
  Json j = Json::object();
  j["case_id"] = c.id;
  j["case_index"] = c.index;
  j["algorithm"] = c.algorithm.name();
  j["params"] = c.algorithm.shown;
  j["n"] = c.nodes;
  j["axes"] = c.axes;
  return j;
}

Json ParamJson(const ParamValue& v) {
  if (const uint64_t* u = std::get_if<uint64_t>(&v)) return *u;
  if (const double* d = std::get_if<double>(&v)) return *d;
  return std::get<std::string>(v);
}

Json ParameterEntry(const ParamSpec& p) {
  Json j = Json::object();
  j["name"] = p.name;
  j["type"] = p.type == ParamType::kInteger  ? "integer"
              : p.type == ParamType::kNumber ? "number"
                                             : "string";
  j["default"] = ParamJson(p.Default());
  if (p.type == ParamType::kInteger) {
    j["minimum"] = static_cast<uint64_t>(p.min);
    j["maximum"] = static_cast<uint64_t>(p.max);
  } else if (p.type == ParamType::kNumber) {
    j["minimum"] = p.min;
    j["maximum"] = p.max;
  }
  if (p.type == ParamType::kString && p.choices) {
    j["choices"] = Json::array();
    for (std::string_view c : p.choices()) j["choices"].push_back(c);
  }
  j["accepted"] = p.Accepted();
  j["sweepable"] = p.sweepable;
  j["doc"] = p.doc;
  return j;
}

}  // namespace

Json CapabilitiesJson(const Capabilities& c) {
  return {{"weights", c.weights},          {"removal", c.arbitrary_removal ? "any" : "last_added"},
          {"incremental", c.incremental},  {"exact_shares", c.exact_shares},
          {"stateful", c.stateful},        {"minimal_disruption", c.minimal_disruption},
          {"history_free", c.history_free}};
}

namespace {

// The replay's per-node and window tables of one case.
void AppendCacheTables(const CaseSpec& c, const CaseResult& r, Json& nodes, Json& windows) {
  for (const CacheNodeRow& n : r.cache_nodes) {
    Json row = {{"case_id", c.id},
                {"case_index", c.index},
                {"trial", n.trial},
                {"step", n.step},
                {"node", n.node},
                {"label", r.labels[n.trial][n.node]},
                {"requests", n.requests},
                {"reads", n.reads},
                {"misses", n.misses},
                {"miss_bytes", n.miss_bytes},
                {"read_bytes", n.read_bytes},
                {"objects", n.objects},
                {"stored_bytes", n.stored_bytes}};
    nodes.push_back(std::move(row));
  }
  for (const CacheWindowRow& w : r.cache_windows) {
    const double reads = static_cast<double>(w.reads);
    Json row = {{"case_id", c.id},
                {"case_index", c.index},
                {"trial", w.trial},
                {"step", w.step},
                {"start", w.start},
                {"requests", w.requests},
                {"reads", w.reads},
                {"misses", w.misses},
                {"twin_misses", w.twin_misses},
                {"miss_ratio", Number(w.misses / reads)},
                {"twin_miss_ratio", Number(w.twin_misses / reads)}};
    windows.push_back(std::move(row));
  }
}

}  // namespace

Json AlgorithmCatalog(const std::vector<const AlgorithmSpec*>& specs) {
  Json out = Json::array();
  for (const AlgorithmSpec* spec : specs) {
    Json params = Json::array();
    for (const ParamSpec& p : spec->params) params.push_back(ParameterEntry(p));
    out.push_back({{"name", spec->name},
                   {"summary", spec->summary},
                   {"paper", spec->paper},
                   {"year", spec->year == 0 ? Json(nullptr) : Json(spec->year)},
                   {"capabilities", CapabilitiesJson(spec->capabilities)},
                   {"parameters", std::move(params)}});
  }
  return out;
}

namespace {

// The case's tidy rows, and per (step, metric) the summary over its trials.
void AppendRowsAndSummary(const Json& header, const CaseResult& r, Json& rows, Json& summary) {
  std::map<std::pair<uint32_t, const MetricSpec*>, std::vector<double>> by_key;
  std::vector<std::pair<uint32_t, const MetricSpec*>> key_order;
  auto event = [&r](uint32_t step) {
    return step < r.step_events.size() ? r.step_events[step] : std::string();
  };
  for (const MetricRow& m : r.rows) {
    const MetricSpec& info = m.metric.spec();
    Json row = header;
    row["trial"] = m.trial;
    row["step"] = m.step;
    row["event"] = event(m.step);
    row["metric"] = info.name;
    row["value"] = Number(m.value);
    row["unit"] = info.unit;
    row["deterministic"] = info.deterministic;
    rows.push_back(std::move(row));
    auto key = std::make_pair(m.step, &info);
    auto [it, inserted] = by_key.try_emplace(key);
    if (inserted) key_order.push_back(key);
    if (std::isfinite(m.value)) it->second.push_back(m.value);
  }
  for (const auto& key : key_order) {
    const MetricSpec& info = *key.second;
    Summary sm = Summarize(by_key[key]);
    Json row = header;
    row["step"] = key.first;
    row["event"] = event(key.first);
    row["metric"] = info.name;
    row["trials"] = sm.count;
    row["mean"] = sm.count ? Number(sm.mean) : Json(nullptr);
    row["stddev"] = sm.count > 1 ? Number(sm.stddev) : Json(nullptr);
    row["ci95_low"] = sm.count > 1 ? Number(sm.mean - sm.ci95_half) : Json(nullptr);
    row["ci95_high"] = sm.count > 1 ? Number(sm.mean + sm.ci95_half) : Json(nullptr);
    row["unit"] = info.unit;
    row["deterministic"] = info.deterministic;
    summary.push_back(std::move(row));
  }
}

// The case's per-node rows and remapping transitions.
void AppendNodesAndTransitions(const CaseSpec& c, const CaseResult& r, Json& nodes,
                               Json& transitions) {
  for (const NodeRow& nr : r.nodes) {
    Json row = Json::object();
    row["case_id"] = c.id;
    row["case_index"] = c.index;
    row["trial"] = nr.trial;
    row["step"] = nr.step;
    row["node"] = nr.node;
    row["label"] = r.labels[nr.trial][nr.node];
    row["weight"] = nr.weight;
    row["load"] = Number(nr.load);
    row["expected"] = Number(nr.expected);
    row["ratio"] = Number(nr.load / nr.expected);
    row["share"] = Number(nr.share);
    row["moved_in"] = Number(nr.moved_in);
    row["moved_out"] = Number(nr.moved_out);
    nodes.push_back(std::move(row));
  }
  for (const TransitionRow& t : r.transitions) {
    Json row = Json::object();
    row["case_id"] = c.id;
    row["case_index"] = c.index;
    row["trial"] = t.trial;
    row["step"] = t.step;
    row["from"] = r.labels[t.trial][t.from];
    row["to"] = r.labels[t.trial][t.to];
    row["units"] = t.units;
    transitions.push_back(std::move(row));
  }
}

}  // namespace

Json BuildResults(const Scenario& s, const std::vector<const CaseSpec*>& cases,
                  const std::vector<const CaseResult*>& results, const Shard& shard,
                  const Json& provenance) {
  Json doc = Json::object();
  doc["schema_version"] = kResultsSchemaVersion;
  doc["kind"] = "chsim-results";
  doc["scenario_file"] = s.path;
  doc["scenario"] = s.resolved;
  doc["shard"] = {{"index", shard.index}, {"count", shard.count}};
  doc["provenance"] = provenance;
  doc["algorithms"] = AlgorithmCatalog(s.algorithms());
  Json jcases = Json::array(), rows = Json::array(), summary = Json::array(), nodes = Json::array(),
       transitions = Json::array(), cache_nodes = Json::array(), cache_windows = Json::array();
  for (size_t k = 0; k < cases.size(); ++k) {
    const CaseSpec& c = *cases[k];
    const CaseResult& r = *results[k];
    const Json header = CaseHeader(c);
    Json jc = header;
    jc["seed"] = std::to_string(c.seed);
    jc["workload"] = c.workload_shown;
    jc["status"] = r.status;
    jc["message"] = r.message;
    jc["steps"] = r.step_events;
    jc["per_node"] = PerNodeName(PerNodeApplied(s.per_node, c.nodes));
    jcases.push_back(std::move(jc));
    AppendRowsAndSummary(header, r, rows, summary);
    AppendNodesAndTransitions(c, r, nodes, transitions);
    AppendCacheTables(c, r, cache_nodes, cache_windows);
  }
  doc["cases"] = std::move(jcases);
  doc["rows"] = std::move(rows);
  doc["summary"] = std::move(summary);
  doc["nodes"] = std::move(nodes);
  doc["transitions"] = std::move(transitions);
  if (s.Needs(&GroupPasses::replay)) {
    doc["cache_nodes"] = std::move(cache_nodes);
    doc["cache_windows"] = std::move(cache_windows);
  }
  return doc;
}

std::string SerializeResults(const Json& doc) {
  std::string out = "{\n";
  bool first = true;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!first) out += ",\n";
    first = false;
    out += ' ';
    out += Json(it.key()).dump();
    out += ": ";
    const Json& v = it.value();
    if (v.is_array() && !v.empty()) {
      out += "[\n";
      for (size_t i = 0; i < v.size(); ++i) {
        out += "  ";
        out += v[i].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        out += i + 1 < v.size() ? ",\n" : "\n";
      }
      out += " ]";
    } else {
      out += v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
  }
  out += "\n}\n";
  return out;
}

std::string TemporaryPathFor(const std::string& path) {
  return path + ".tmp." + std::to_string(::getpid());
}

void WriteFileAtomically(const std::string& path, std::string_view text) {
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!folder.empty() && !std::filesystem::is_directory(folder)) {
    std::filesystem::create_directories(folder, ec);
    if (ec) throw RuntimeError(path + ": cannot make its folder: " + ec.message());
  }
  std::string tmp = TemporaryPathFor(path);
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    throw RuntimeError(tmp + ": cannot create: " + std::strerror(errno));
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fflush(f) == 0 && ok;
  ok = ::fsync(::fileno(f)) == 0 && ok;
  int saved = errno;
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    if (ok) saved = errno;
    std::remove(tmp.c_str());
    throw RuntimeError(path + ": cannot write: " + std::strerror(saved));
  }
}

namespace {
Json MergeResultsUnchecked(const std::vector<std::string>& paths);
}  // namespace

Json MergeResults(const std::vector<std::string>& paths) {
  try {
    return MergeResultsUnchecked(paths);
  } catch (const nlohmann::json::exception& e) {  // a field of the wrong type or missing
    throw UsageError("merge: an input is not a whole chsim result file (" + std::string(e.what()) +
                     "); accepted: result files of chsim run --shard I/N");
  }
}

namespace {

// Reads one shard file ("-" = stdin, read once) with the checks of chsim
// validate --results. Throws UsageError naming the file.
Json ReadShardFile(const std::string& p) {
  std::string text = ReadFileOrStdin(p);
  const std::string name = p == "-" ? std::string("<stdin>") : p;
  Json parsed;
  try {
    parsed = Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(name + ": not valid JSON: " + e.what());
  }
  const Json* kind = parsed.is_object() && parsed.contains("kind") ? &parsed["kind"] : nullptr;
  if (kind == nullptr || *kind != "chsim-results") {
    std::string found = kind == nullptr     ? "nothing"
                        : kind->is_string() ? Quote(kind->get<std::string>())
                                            : std::string("a JSON ") + kind->type_name();
    throw UsageError(name + ": /kind: found " + found +
                     "; accepted: \"chsim-results\" (a chsim run result file)");
  }
  if (parsed.value("schema_version", 0) != kResultsSchemaVersion) {
    throw UsageError(name + ": /schema_version: found " + parsed["schema_version"].dump() +
                     "; accepted: " + std::to_string(kResultsSchemaVersion));
  }
  try {
    ValidateResultsText(text, name);
  } catch (const UsageError& e) {  // "FILE: /pointer: problem (results/schema.json)"
    throw UsageError("merge: an input is not a whole chsim result file: " + std::string(e.what()) +
                     "; accepted: result files of chsim run --shard I/N");
  }
  return parsed;  // ordered keys, as written
}

Json MergeResultsUnchecked(const std::vector<std::string>& paths) {
  if (paths.empty()) throw UsageError("merge: no input files; accepted: shard result files");
  std::vector<Json> docs;
  for (const std::string& p : paths) {
    docs.push_back(ReadShardFile(p));
    const Json& d = docs.back();
    if (d["scenario"] != docs[0]["scenario"]) {
      throw UsageError(p + ": /scenario: differs from " + paths[0] +
                       "'s; accepted: shards of one scenario run with the same seed");
    }
  }
  uint32_t count = docs[0]["shard"]["count"].get<uint32_t>();
  std::set<uint32_t> seen;
  for (size_t i = 0; i < docs.size(); ++i) {
    uint32_t c = docs[i]["shard"]["count"].get<uint32_t>();
    uint32_t idx = docs[i]["shard"]["index"].get<uint32_t>();
    if (c != count) {
      throw UsageError(paths[i] + ": /shard/count: found " + std::to_string(c) +
                       "; accepted: " + std::to_string(count) + " (as in " + paths[0] + ")");
    }
    if (!seen.insert(idx).second) {
      throw UsageError(paths[i] + ": /shard/index: shard " + std::to_string(idx) + " given twice");
    }
  }
  if (seen.size() != count) {
    std::string missing;
    for (uint32_t i = 0; i < count; ++i) {
      if (!seen.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
    }
    throw UsageError("merge: shard(s) " + missing + " of " + std::to_string(count) +
                     " missing; accepted: one file per shard");
  }
  Json out = Json::object();
  out["schema_version"] = kResultsSchemaVersion;
  out["kind"] = "chsim-results";
  out["scenario_file"] = docs[0]["scenario_file"];
  out["scenario"] = docs[0]["scenario"];
  out["shard"] = {{"index", 0}, {"count", 1}};
  Json prov = docs[0]["provenance"];
  Json from = Json::array();
  for (size_t i = 0; i < docs.size(); ++i) {
    Json p = docs[i]["provenance"];
    p["file"] = paths[i];
    p["shard"] = docs[i]["shard"];
    from.push_back(p);
  }
  prov["merged_from"] = from;
  out["provenance"] = prov;
  out["algorithms"] = docs[0]["algorithms"];  // every shard lists the scenario's algorithms
  // Tables: stable merge by case_index keeps each case's own order.
  for (const char* table :
       {"cases", "rows", "summary", "nodes", "transitions", "cache_nodes", "cache_windows"}) {
    if (!docs[0].contains(table)) continue;  // the cache tables: only with the cache metric
    std::vector<const Json*> all;
    for (const Json& d : docs) {
      for (const Json& r : d[table]) all.push_back(&r);
    }
    std::stable_sort(all.begin(), all.end(), [](const Json* a, const Json* b) {
      return (*a)["case_index"].get<uint64_t>() < (*b)["case_index"].get<uint64_t>();
    });
    Json arr = Json::array();
    for (const Json* r : all) arr.push_back(*r);
    out[table] = std::move(arr);
  }
  return out;
}

}  // namespace

bool ShardListing::Complete() const {
  if (!count || !missing.empty()) return false;
  for (const ShardFile& f : files) {
    if (f.status != "ok") return false;
  }
  return true;
}

std::string IndexRanges(const std::vector<uint32_t>& ascending) {
  std::string out;
  for (size_t i = 0; i < ascending.size();) {
    size_t j = i;
    while (j + 1 < ascending.size() && ascending[j + 1] == ascending[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ascending[i]);
    if (j > i) out += '-' + std::to_string(ascending[j]);
    i = j + 1;
  }
  return out;
}

namespace {

// What ListShards keeps of a valid file: its shard and its run's identity
// (not the tables: a sweep's parts together may not fit in memory).
struct PartId {
  uint32_t index = 0, count = 0;
  Json scenario;
  std::string key;  // count and scenario, serialized: equal keys = the same run
};

std::optional<PartId> ReadPartId(ShardFile& f) {
  try {
    Json d = ReadShardFile(f.file);
    PartId id{d["shard"]["index"].get<uint32_t>(), d["shard"]["count"].get<uint32_t>(),
              std::move(d["scenario"]), ""};
    f.index = id.index;
    if (id.index >= id.count) {
      throw UsageError(f.file + ": /shard/index: found " + std::to_string(id.index) +
                       "; accepted: below /shard/count " + std::to_string(id.count));
    }
    id.key = std::to_string(id.count) + " " + id.scenario.dump();
    f.status = "ok";
    return id;
  } catch (const UsageError& e) {
    f.reason = e.what();
  } catch (const nlohmann::json::exception& e) {  // a field of the wrong type
    f.reason = f.file + ": " + e.what();
  }
  return std::nullopt;
}

// The reference run among `ids`: the most common one that agrees with what
// is given (the earliest on a tie); ids.size() when none does.
size_t ReferencePart(const std::vector<std::optional<PartId>>& ids, const ShardReference& given) {
  std::map<std::string, size_t> votes;
  for (const auto& id : ids) {
    if (id) ++votes[id->key];
  }
  size_t best = ids.size();
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!ids[i] || (given.scenario && ids[i]->scenario != *given.scenario) ||
        (given.count && ids[i]->count != *given.count)) {
      continue;
    }
    if (best == ids.size() || votes[ids[i]->key] > votes[ids[best]->key]) best = i;
  }
  return best;
}

}  // namespace

ShardListing ListShards(const std::vector<std::string>& paths, const ShardReference& reference) {
  ShardListing listing;
  std::vector<std::optional<PartId>> ids;
  for (const std::string& p : paths) {
    listing.files.push_back(ShardFile{p, std::nullopt, "invalid", ""});
    ids.push_back(ReadPartId(listing.files.back()));
  }
  const size_t best = ReferencePart(ids, reference);
  const Json* ref_scenario = reference.scenario;
  std::string ref_source = reference.scenario_source;
  listing.count = reference.count;
  if (best < ids.size()) {
    ref_scenario = &ids[best]->scenario;
    if (!reference.scenario) ref_source = paths[best] + "'s";
    listing.count = ids[best]->count;
  }
  std::map<uint32_t, size_t> holder;  // index -> the ok file holding it
  std::set<uint32_t> duplicate;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!ids[i]) continue;
    ShardFile& f = listing.files[i];
    if (ref_scenario && ids[i]->scenario != *ref_scenario) {
      f.status = "foreign";
      f.reason =
          paths[i] + ": /scenario: differs from " + ref_source + " (another scenario or seed)";
    } else if (listing.count && ids[i]->count != *listing.count) {
      f.status = "foreign";
      f.reason = paths[i] + ": /shard/count: found " + std::to_string(ids[i]->count) +
                 "; expected " + std::to_string(*listing.count);
    } else if (auto [it, inserted] = holder.try_emplace(ids[i]->index, i); !inserted) {
      f.status = "duplicate";
      f.reason = paths[i] + ": /shard/index: shard " + std::to_string(ids[i]->index) + " also in " +
                 paths[it->second];
      duplicate.insert(ids[i]->index);
    }
  }
  listing.duplicate.assign(duplicate.begin(), duplicate.end());
  for (uint32_t k = 0; listing.count && k < *listing.count; ++k) {
    if (!holder.count(k)) listing.missing.push_back(k);
  }
  return listing;
}

Json ShardListingJson(const ShardListing& listing) {
  Json out = Json::object();
  out["count"] = listing.count ? Json(*listing.count) : Json(nullptr);
  out["complete"] = listing.Complete();
  out["missing"] = listing.missing;
  out["rerun"] = IndexRanges(listing.missing);
  out["duplicate"] = listing.duplicate;
  Json foreign = Json::array(), invalid = Json::array(), files = Json::array();
  for (const ShardFile& f : listing.files) {
    if (f.status == "foreign") foreign.push_back(f.file);
    if (f.status == "invalid") invalid.push_back(f.file);
    Json j = {{"file", f.file},
              {"index", f.index ? Json(*f.index) : Json(nullptr)},
              {"status", f.status}};
    if (!f.reason.empty()) j["reason"] = f.reason;
    files.push_back(std::move(j));
  }
  out["foreign"] = std::move(foreign);
  out["invalid"] = std::move(invalid);
  out["files"] = std::move(files);
  return out;
}

}  // namespace chsim::sim
