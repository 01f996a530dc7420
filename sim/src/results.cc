#include "chsim/sim/results.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "chsim/sim/errors.h"
#include "chsim/sim/metrics.h"
#include "chsim/sim/stats.h"
#include "chsim/sim/text_file.h"

namespace chsim::sim {
namespace {

Json Number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json CaseHeader(const CaseSpec& c) {
  Json j = Json::object();
  j["case_id"] = c.id;
  j["case_index"] = c.index;
  j["algorithm"] = c.algorithm.name;
  j["params"] = c.algorithm.shown;
  j["n"] = c.nodes;
  j["axes"] = c.axes;
  return j;
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
  Json jcases = Json::array(), rows = Json::array(), summary = Json::array(),
       nodes = Json::array(), transitions = Json::array();
  for (size_t k = 0; k < cases.size(); ++k) {
    const CaseSpec& c = *cases[k];
    const CaseResult& r = *results[k];
    Json header = CaseHeader(c);
    Json jc = header;
    jc["seed"] = std::to_string(c.seed);
    jc["workload"] = c.workload.shown;
    jc["status"] = r.status;
    jc["message"] = r.message;
    jc["steps"] = r.step_events;
    jcases.push_back(jc);
    // Tidy rows, and the values per (step, metric) for the summary.
    std::map<std::pair<uint32_t, std::string_view>, std::vector<double>> by_key;
    std::vector<std::pair<uint32_t, std::string_view>> key_order;
    for (const MetricRow& m : r.rows) {
      const MetricInfo* info = FindMetric(m.metric);
      Json row = header;
      row["trial"] = m.trial;
      row["step"] = m.step;
      row["event"] = m.step < r.step_events.size() ? r.step_events[m.step] : "";
      row["metric"] = m.metric;
      row["value"] = Number(m.value);
      row["unit"] = info ? info->unit : "";
      row["deterministic"] = info ? info->deterministic : false;
      rows.push_back(std::move(row));
      auto key = std::make_pair(m.step, m.metric);
      auto [it, inserted] = by_key.try_emplace(key);
      if (inserted) key_order.push_back(key);
      if (std::isfinite(m.value)) it->second.push_back(m.value);
    }
    for (const auto& key : key_order) {
      const std::vector<double>& values = by_key[key];
      const MetricInfo* info = FindMetric(key.second);
      Summary sm = Summarize(values);
      Json row = header;
      row["step"] = key.first;
      row["event"] = key.first < r.step_events.size() ? r.step_events[key.first] : "";
      row["metric"] = key.second;
      row["trials"] = sm.count;
      row["mean"] = sm.count ? Number(sm.mean) : Json(nullptr);
      row["stddev"] = sm.count > 1 ? Number(sm.stddev) : Json(nullptr);
      row["ci95_low"] = sm.count > 1 ? Number(sm.mean - sm.ci95_half) : Json(nullptr);
      row["ci95_high"] = sm.count > 1 ? Number(sm.mean + sm.ci95_half) : Json(nullptr);
      row["unit"] = info ? info->unit : "";
      row["deterministic"] = info ? info->deterministic : false;
      summary.push_back(std::move(row));
    }
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
  doc["cases"] = std::move(jcases);
  doc["rows"] = std::move(rows);
  doc["summary"] = std::move(summary);
  doc["nodes"] = std::move(nodes);
  doc["transitions"] = std::move(transitions);
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

Json MergeResultsUnchecked(const std::vector<std::string>& paths) {
  if (paths.empty()) throw UsageError("merge: no input files; accepted: shard result files");
  std::vector<Json> docs;
  for (const std::string& p : paths) {
    // Read once (stdin cannot be reread), then the same checks as chsim
    // validate --results, for files and "-" alike.
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
      std::string found = kind == nullptr       ? "nothing"
                          : kind->is_string()   ? Quote(kind->get<std::string>())
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
      docs.push_back(std::move(parsed));  // ordered keys, as written
    } catch (const UsageError& e) {  // "FILE: /pointer: problem (results/schema.json)"
      throw UsageError("merge: an input is not a whole chsim result file: " +
                       std::string(e.what()) + "; accepted: result files of chsim run --shard I/N");
    }
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
      throw UsageError(paths[i] + ": /shard/count: found " + std::to_string(c) + "; accepted: " +
                       std::to_string(count) + " (as in " + paths[0] + ")");
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
  // Tables: stable merge by case_index keeps each case's own order.
  for (const char* table : {"cases", "rows", "summary", "nodes", "transitions"}) {
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

}  // namespace chsim::sim
