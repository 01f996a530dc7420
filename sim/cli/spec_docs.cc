// SPDX-License-Identifier: Apache-2.0
#include "sim/cli/spec_docs.h"

#include <algorithm>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/profile.h"
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

void AppendRow(const AlgorithmSpec& a, std::string* t) {
  const Capabilities& c = a.capabilities;
  std::string name;
  AppendCode(a.name, &name);
  const std::string cells[] = {name,
                               a.paper.empty() ? std::string("-") : std::string(a.paper),
                               a.year ? std::to_string(a.year) : std::string("-"),
                               ParameterList(a, true),
                               c.weights ? "yes" : "no",
                               c.arbitrary_removal ? "any" : "last added",
                               c.minimal_disruption ? "yes" : "no",
                               RestoreOrder(c),
                               std::string(a.memory_doc)};
  for (const std::string& cell : cells) {
    *t += "| ";
    *t += cell;
    *t += ' ';
  }
  *t += "|\n";
}

// "`keys` (required, sweepable; 0..1000000000000)".
std::string FieldSummary(const FieldSpec& f) {
  std::string out;
  AppendCode(f.name, &out);
  std::string notes = f.required ? "required" : "";
  if (f.sweepable) notes += notes.empty() ? "sweepable" : ", sweepable";
  if (!f.default_json.empty())
    notes += (notes.empty() ? "default " : "; default ") + std::string(f.default_json);
  if (!notes.empty()) out += " (" + notes + ")";
  out += ": " + std::string(f.doc);
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

std::string ParameterList(const AlgorithmSpec& spec, bool markdown) {
  std::string out;
  for (const ParamSpec& p : spec.params) {
    if (!out.empty()) out += ", ";
    if (markdown) {
      AppendCode(p.name, &out);
    } else {
      out += p.name;
    }
    const std::string def = FormatParamValue(p.Default());
    if (!def.empty()) {
      out += markdown ? " (" : "=";
      out += def;
      if (markdown) out += ')';
    }
  }
  return out.empty() ? "none" : out;
}

const char* RestoreOrder(const Capabilities& c) {
  if (c.history_free) return "any order";
  return c.minimal_disruption && c.incremental ? "reverse order only" : "no";
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

std::string MetricTableMarkdown() {
  std::string t = "| metric | unit | deterministic | meaning |\n|---|---|---|---|\n";
  for (const MetricSpec& m : AllMetrics()) {
    std::string name;
    AppendCode(m.name, &name);
    t += "| " + name + " | " + std::string(m.unit) + " | " + (m.deterministic ? "yes" : "no") +
         " | " + std::string(m.meaning) + " |\n";
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
