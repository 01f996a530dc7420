// SPDX-License-Identifier: Apache-2.0
// `chsim list`: the profiles, hashers, algorithms (with their parameters and
// capabilities, from the specs), replica strategies, workloads and metrics
// chsim offers; `--json`,
// the same as one machine-readable catalog; `--schema`, scenarios/schema.json;
// `--markdown TABLE`, the tables of README and the docs.
#include <cstdio>
#include <string>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "chsim/replica.h"
#include "chsim/topology.h"
#include "sim/cache/policy.h"
#include "sim/cli/commands.h"
#include "sim/cli/spec_docs.h"
#include "sim/results/catalog.h"
#include "sim/run/metrics.h"
#include "sim/scenario/scenario.h"
#include "sim/workload/workload.h"

namespace chsim::cli {
namespace {

void Line(std::string_view name, std::string_view text) {
  std::printf("  %-26.*s %.*s\n", static_cast<int>(name.size()), name.data(),
              static_cast<int>(text.size()), text.data());
}

std::string CapabilityText(const Capabilities& c) {
  std::string caps;
  auto add = [&caps](bool on, const char* what) {
    if (!on) return;
    if (!caps.empty()) caps += ", ";
    caps += what;
  };
  add(c.weights, "weights");
  add(c.arbitrary_removal, "arbitrary removal");
  add(!c.arbitrary_removal, "last-in-first-out removal only");
  add(c.incremental, "incremental");
  add(!c.incremental, "rebuilds on change");
  add(c.minimal_disruption, "minimal disruption");
  add(c.exact_shares, "exact shares");
  add(c.stateful, "stateful (order-dependent)");
  const std::string restore = sim::RestoreOrder(c);
  if (restore != "no") add(true, ("keys back after fail + restore: " + restore).c_str());
  return caps;
}

std::string ParamLine(const ParamSpec& p) {
  std::string accepted = p.Accepted();
  if (accepted.size() > 60) accepted = accepted.substr(0, 57) + "...";
  return "  " + std::string(p.name) + ": " + std::string(p.doc) + " (" + accepted +
         (p.sweepable ? "" : "; one value") + ")";
}

template <class Specs>
std::string NameList(const Specs& specs) {
  std::string names;
  for (const auto* s : specs) names += (names.empty() ? "" : ", ") + std::string(s->name);
  return names.empty() ? "none" : names;
}

void ListAlgorithm(const AlgorithmSpec& a) {
  Line(a.name, a.summary);
  Line("", "parameters: " + sim::ParameterList(a, false));
  Line("", "capabilities: " + CapabilityText(a.capabilities));
  Line("", "replica strategies: " + NameList(ReplicaStrategiesFor(a)));
  if (!a.paper.empty()) Line("", "paper: " + std::string(a.paper));
  Line("", "memory: " + std::string(a.memory_doc));
  for (const ParamSpec& p : a.params) Line("", ParamLine(p));
}

void ListStrategy(const ReplicaStrategy& s) {
  Line(s.name, s.summary);
  Line("", "applies to: " + std::string(s.applies_doc) + " (" + NameList(AlgorithmsFor(s)) + ")");
  Line("", "failure domains: " + (s.UsesDomains() ? std::string(s.domain_rule) : "not used"));
  Line("", std::string(s.minimal ? "minimal (without domains, over a minimally disruptive "
                                   "algorithm)"
                                 : "not minimal") +
               (s.short_results ? "; may place fewer than K copies" : "; always K copies"));
  if (s.reads_map) Line("", "reads a CRUSH map in crushtool's text form (locate --crush-map)");
  if (!s.paper.empty()) Line("", "paper: " + std::string(s.paper));
  for (const ParamSpec& p : s.params) Line("", ParamLine(p));
}

void List() {
  std::printf("profiles:\n");
  for (const ProfileInfo& p : AllProfiles()) Line(p.name, p.description);
  std::printf("hashers:\n");
  for (const Hasher& h : AllHashers()) Line(h.name, h.description);
  std::printf(
      "algorithms: (scenario \"algorithms\": [{\"algorithm\": NAME, PARAMETER: value, ...}])\n");
  for (const AlgorithmSpec* a : AllAlgorithms()) ListAlgorithm(*a);
  std::printf("replica strategies: (chsim locate --replicas K --strategy NAME)\n");
  for (const ReplicaStrategy* r : AllReplicaStrategies()) ListStrategy(*r);
  std::printf(
      "failure domains: (server list: host=H rack=R zone=Z; scenario \"nodes\": "
      "\"racks\": 3)\n");
  for (DomainLevel l : kAllDomainLevels) {
    const size_t i = static_cast<size_t>(l);
    Line(DomainLevelName(l),
         i + 1 < kDomainLevels
             ? "lies in one " + std::string(DomainLevelName(kAllDomainLevels[i + 1]))
             : std::string("the outermost level (a datacenter)"));
  }
  std::printf("workloads: (scenario \"workload\": {\"type\": NAME, ...})\n");
  for (const sim::WorkloadSpec* w : sim::AllWorkloads()) Line(w->name, w->doc);
  std::printf("cache policies: (scenario \"cache\": {\"policy\": NAME, ...}; docs/cache.md)\n");
  for (std::string_view name : sim::CachePolicyNames()) {
    Line(name, sim::CachePolicyDoc(*sim::FindCachePolicy(name)));
  }
  std::printf("metrics: (result rows; see results/README.md)\n");
  for (const sim::MetricSpec& m : sim::AllMetrics()) {
    std::printf("  %-42s %-11.*s %.*s\n", std::string(m.name).c_str(),
                static_cast<int>(m.unit.size()), m.unit.data(), static_cast<int>(m.meaning.size()),
                m.meaning.data());
  }
}

}  // namespace

void AddListCommand(CLI::App& app) {
  static bool schema = false, json = false;
  static std::string markdown;
  CLI::App* cmd = app.add_subcommand(
      "list",
      "List profiles, hashers, algorithms (parameters, capabilities, paper), replica strategies,\n"
      "scenario workloads and result metrics, each with a one-line description.\n"
      "Examples: chsim list\n"
      "          chsim list --json                             # the same, machine-readable\n"
      "          chsim list --schema                           # the scenario schema\n"
      "          chsim list --markdown workloads               # docs/workloads.md's list\n"
      "scripts/regenerate rewrites every committed document these make.");
  cmd->add_flag("--json", json,
                "print the catalog as JSON: algorithms (parameters, ranges, defaults, "
                "capabilities, paper, year), replica strategies, workloads and their fields, "
                "metrics, profiles, "
                "hashers, the scenario format's rows");
  cmd->add_flag("--schema", schema,
                "print scenarios/schema.json, made from the rows of the scenario format and the "
                "algorithm specs");
  static CLI::Option* table =
      cmd->add_option("--markdown", markdown,
                      "print a table of README.md (algorithms, alone: the default; limits), "
                      "docs/workloads.md (workloads) or results/README.md (metrics), made from "
                      "the specs")
          ->expected(0, 1)
          ->check(CLI::IsMember({"algorithms", "workloads", "limits", "metrics"}));
  cmd->callback([] {
    if (table->count() > 0 && markdown.empty()) markdown = "algorithms";
    if (json) {
      std::fputs((sim::Catalog().dump(2) + "\n").c_str(), stdout);
    } else if (schema) {
      std::fputs(sim::FormatScenarioSchema().c_str(), stdout);
    } else if (markdown == "algorithms") {
      std::fputs(sim::AlgorithmTableMarkdown().c_str(), stdout);
    } else if (markdown == "workloads") {
      std::fputs(sim::WorkloadListMarkdown().c_str(), stdout);
    } else if (markdown == "limits") {
      std::fputs(sim::LimitsTableMarkdown().c_str(), stdout);
    } else if (markdown == "metrics") {
      std::fputs(sim::MetricTableMarkdown().c_str(), stdout);
    } else {
      List();
    }
  });
}

}  // namespace chsim::cli
