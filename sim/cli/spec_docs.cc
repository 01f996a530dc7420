#include "sim/cli/spec_docs.h"

#include "chsim/algorithm.h"

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

}  // namespace

std::string AlgorithmTableMarkdown() {
  std::string t =
      "| algorithm | paper | year | parameters (default) | weights | removal | minimal "
      "disruption | keys back after fail + restore | memory |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  for (const AlgorithmSpec* a : AllAlgorithms()) AppendRow(*a, &t);
  return t;
}

}  // namespace chsim::sim
