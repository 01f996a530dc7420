#include "sim/cli/spec_docs.h"

#include <algorithm>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "sim/results/provenance.h"
#include "sim/run/metrics.h"
#include "sim/scenario/scenario.h"
#include "sim/workload/workload.h"

namespace chsim::sim {
namespace {

// Appends "`text`" (written with += only: GCC 12 misreports a -Wrestrict
// overlap in "literal" + std::string chains, bug 105651).
void AppendCode(std::string_view text, std::string* out) {
  *out += '`';
  *out += text;
  *out += '`';
}

std::string Parameters(const AlgorithmSpec& spec) {
  std::string out;
  for (const ParamSpec& p : spec.params) {
    if (!out.empty()) out += ", ";
    AppendCode(p.name, &out);
    const std::string def = FormatParamValue(p.Default());
    if (!def.empty()) {
      out += " (";
      out += def;
      out += ')';
    }
  }
  return out.empty() ? "none" : out;
}

const char* Restore(const Capabilities& c) {
  if (c.history_free) return "any order";
  return c.minimal_disruption && c.incremental ? "reverse order only" : "no";
}

void AppendRow(const AlgorithmSpec& a, std::string* t) {
  const Capabilities& c = a.capabilities;
  std::string name;
  AppendCode(a.name, &name);
  const std::string cells[] = {name,
                               a.paper.empty() ? std::string("-") : std::string(a.paper),
                               a.year ? std::to_string(a.year) : std::string("-"),
                               Parameters(a),
                               c.weights ? "yes" : "no",
                               c.arbitrary_removal ? "any" : "last added",
                               c.minimal_disruption ? "yes" : "no",
                               Restore(c),
                               std::string(a.memory_doc)};
  for (const std::string& cell : cells) {
    *t += "| ";
    *t += cell;
    *t += ' ';
  }
  *t += "|\n";
}

Json ParamValueJson(const ParamValue& v) {
  if (const uint64_t* u = std::get_if<uint64_t>(&v)) return *u;
  if (const double* d = std::get_if<double>(&v)) return *d;
  const std::string& s = std::get<std::string>(v);
  return s.empty() ? Json(nullptr) : Json(s);
}

Json ParamJson(const ParamSpec& p) {
  static constexpr const char* kTypes[] = {"integer", "number", "string"};
  Json out = {{"name", p.name}, {"type", kTypes[static_cast<int>(p.type)]}, {"doc", p.doc}};
  out["default"] = ParamValueJson(p.Default());  // null: the algorithm's own choice
  auto bound = [&p](double v) {
    return p.type == ParamType::kInteger ? Json(static_cast<uint64_t>(v)) : Json(v);
  };
  if (p.type != ParamType::kString) {
    out[p.min_exclusive ? "exclusive_minimum" : "minimum"] = bound(p.min);
    out["maximum"] = bound(p.max);
  }
  if (p.rule) out["rule"] = p.rule_doc;
  if (p.auto_value) out["auto"] = p.auto_doc;
  if (p.choices) {
    out["choices"] = Json::array();
    for (std::string_view c : p.choices()) out["choices"].push_back(c);
  }
  out["sweepable"] = p.sweepable;
  out["accepted"] = p.Accepted();
  return out;
}

Json CapabilitiesJson(const Capabilities& c) {
  return {{"weights", c.weights},          {"arbitrary_removal", c.arbitrary_removal},
          {"incremental", c.incremental},  {"exact_shares", c.exact_shares},
          {"stateful", c.stateful},        {"minimal_disruption", c.minimal_disruption},
          {"history_free", c.history_free}};
}

Json AlgorithmJson(const AlgorithmSpec& a) {
  Json params = Json::array();
  for (const ParamSpec& p : a.params) params.push_back(ParamJson(p));
  return {{"name", a.name},
          {"summary", a.summary},
          {"paper", a.paper},
          {"year", a.year},
          {"capabilities", CapabilitiesJson(a.capabilities)},
          {"memory", a.memory_doc},
          {"balance_bound", a.balance_bound},
          {"default_key_hasher", a.KeyHasher(a.Resolve({}))},
          {"parameters", params}};
}

Json WorkloadJson(const WorkloadSpec& w) {
  Json fields = Json::array();
  for (const FieldSpec& f : w.fields) fields.push_back(FieldCatalog(f));
  return {{"name", w.name}, {"doc", w.doc}, {"unit", w.unit}, {"fields", fields}};
}

// "`keys` (required, sweepable; 0..1000000000000)".
std::string FieldSummary(const FieldSpec& f) {
  std::string out;
  AppendCode(f.name, &out);
  std::string notes = f.required ? "required" : "";
  if (f.sweepable) notes += notes.empty() ? "sweepable" : ", sweepable";
  if (!f.default_json.empty())
    notes += (notes.empty() ? "default " : "; default ") + std::string(f.default_json);
  out += " (" + notes + "): " + std::string(f.doc);
  return out;
}

// Rows that are limits, with their JSON pointers, depth first; a row met
// again (a shared row, the same bound elsewhere) once.
struct Limits {
  std::vector<std::string> seen;
  std::string table;
  void Object(const ObjectSpec& o, const std::string& at) {
    for (const FieldSpec& f : o.fields) Field(f, at + "/" + std::string(f.name));
  }
  void Field(const FieldSpec& f, const std::string& at) {
    const std::string accepted = f.Accepted();
    if (!f.limit_doc.empty() &&
        std::find(seen.begin(), seen.end(), accepted + "|" + std::string(f.limit_doc)) ==
            seen.end()) {
      seen.push_back(accepted + "|" + std::string(f.limit_doc));
      std::string pointer;
      AppendCode(at, &pointer);
      table += "| " + pointer + " | " + accepted + " | " + std::string(f.limit_doc) + " |\n";
    }
    if (f.object) Object(*f.object, at);
    if (f.items) Field(*f.items, at + "/*");
    for (const FieldSpec& a : f.alternatives) Field(a, at);
    if (f.variants == nullptr) return;
    for (const ObjectSpec* v : f.variants()) {
      Object(*v, at + "(" + std::string(f.tag) + "=" + std::string(v->tag_value) + ")");
    }
  }
};

}  // namespace

Json CatalogJson() {
  Json algorithms = Json::array(), workloads = Json::array(), metrics = Json::array(),
       groups = Json::array(), profiles = Json::array(), hashers = Json::array();
  for (const AlgorithmSpec* a : AllAlgorithms()) algorithms.push_back(AlgorithmJson(*a));
  for (const WorkloadSpec* w : AllWorkloads()) workloads.push_back(WorkloadJson(*w));
  for (const MetricSpec& m : AllMetrics()) {
    metrics.push_back({{"name", m.name},
                       {"group", m.group},
                       {"unit", m.unit},
                       {"deterministic", m.deterministic},
                       {"meaning", m.meaning}});
    if (!m.group.empty() &&
        std::find(groups.begin(), groups.end(), Json(m.group)) == groups.end()) {
      groups.push_back(m.group);
    }
  }
  for (const ProfileInfo& p : AllProfiles()) {
    profiles.push_back({{"name", p.name}, {"description", p.description}});
  }
  for (const Hasher& h : AllHashers()) {
    hashers.push_back({{"name", h.name}, {"description", h.description}, {"bits", h.bits}});
  }
  return {{"catalog_version", kCatalogVersion},
          {"chsim", ToolVersion()},
          {"algorithms", algorithms},
          {"workloads", workloads},
          {"metrics", metrics},
          {"metric_groups", groups},
          {"profiles", profiles},
          {"hashers", hashers},
          {"scenario", ObjectCatalog(ScenarioFields())}};
}

std::string WorkloadListMarkdown() {
  std::string t;
  for (const WorkloadSpec* w : AllWorkloads()) {
    t += "- ";
    AppendCode(w->name, &t);
    t += " (a unit is a " + std::string(w->unit) + "): " + std::string(w->doc) + ".";
    for (const FieldSpec& f : w->fields) t += "\n  " + FieldSummary(f) + ".";
    t += "\n";
  }
  return t;
}

std::string LimitsTableMarkdown() {
  Limits limits;
  limits.Object(ScenarioFields(), "");
  return "| scenario field | accepted | why |\n|---|---|---|\n" + limits.table;
}

std::string AlgorithmTableMarkdown() {
  std::string t =
      "| algorithm | paper | year | parameters (default) | weights | removal | minimal "
      "disruption | keys back after fail + restore | memory |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  for (const AlgorithmSpec* a : AllAlgorithms()) AppendRow(*a, &t);
  return t;
}

}  // namespace chsim::sim
