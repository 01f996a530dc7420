// SPDX-License-Identifier: Apache-2.0
// Loading a scenario: the document is checked against the rows of the format
// (ScenarioFields, once), then one stage per part (header, nodes, workload,
// events, options) turns the checked values into the scenario with the checks
// that span fields, each algorithm entry is read from its spec, the sweep is
// expanded and each case resolved, and the resolved document made.
#include "sim/scenario/scenario.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "sim/base/errors.h"
#include "sim/base/rng.h"
#include "sim/base/text_file.h"
#include "sim/scenario/case_id.h"
#include "sim/scenario/server_config.h"
#include "sim/scenario/server_list.h"

namespace chsim::sim {
namespace {

// JSON nesting: a scenario needs 4 levels; deeper input is refused at parse
// time (a 10^5-deep array would overflow the stack of any recursive walk).
constexpr int kMaxDepth = 64;

Json ParseJson(std::string_view text, const std::string& path) {
  try {
    return Json::parse(text.begin(), text.end(), [&path](int depth, Json::parse_event_t, Json&) {
      if (depth > kMaxDepth) {
        throw UsageError(path + ": JSON nested more than " + std::to_string(kMaxDepth) +
                         " levels deep; accepted: a scenario object (scenarios/schema.json)");
      }
      return true;
    });
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e400
    std::string what = e.what();
    size_t at = what.find("] ");
    if (at != std::string::npos) at += 2;
    throw UsageError(path +
                     ": not valid JSON: " + (at == std::string::npos ? what : what.substr(at)));
  }
}

// The rows' default node pattern (node files use it for adds by count).
const std::string& DefaultPattern() {
  static const std::string pattern = [] {
    const FieldSpec* nodes = ScenarioFields().Find("nodes");
    const FieldSpec* p = nodes->alternatives[0].object->Find("pattern");
    return Json::parse(p->default_json).get<std::string>();
  }();
  return pattern;
}

template <typename T>
std::vector<T> Values(const Json& list) {
  std::vector<T> out;
  for (const Json& v : list) out.push_back(v.get<T>());
  return out;
}

// --- Stages: each turns checked values (ScenarioFields, defaults filled in)
// into the scenario, with the checks that span fields. ----------------------

void ReadHeader(const Json& v, std::optional<uint64_t> seed_override, Scenario* s) {
  s->name = v["name"].get<std::string>();
  if (v.contains("description")) s->description = v["description"].get<std::string>();
  const Json& seed = v["seed"];
  s->seed = seed.is_string() ? std::stoull(seed.get<std::string>()) : seed.get<uint64_t>();
  if (seed_override) s->seed = *seed_override;
  s->trials = v["trials"].get<uint32_t>();
}

void ReadWeights(const JsonReader& w, const Json& v, Scenario* s) {
  if (v.is_string()) return;  // "uniform"
  if (v.is_array()) {
    s->weights.kind = WeightSpec::Kind::kExplicit;
    s->weights.values = Values<uint32_t>(v);
    for (uint32_t c : s->counts) {
      if (c != s->weights.values.size()) {
        w.FailMessage("found " + std::to_string(s->weights.values.size()) + " weights for " +
                      std::to_string(c) + " nodes; accepted: one weight per node");
      }
    }
  } else if (v.contains("choice")) {
    s->weights.kind = WeightSpec::Kind::kChoice;
    s->weights.values = Values<uint32_t>(v["choice"]);
  } else {
    s->weights.kind = WeightSpec::Kind::kRandomUniform;
    s->weights.min = v["min"].get<uint32_t>();
    const FieldSpec& max = *ScenarioFields()
                                .Find("nodes")
                                ->alternatives[0]
                                .object->Find("weights")
                                ->alternatives[2]
                                .object->Find("max");
    s->weights.max = static_cast<uint32_t>(w.At("max").Uint(s->weights.min, max.max));
  }
}

void ReadNodeFile(const JsonReader& file, Scenario* s) {
  s->node_file = ResolveBeside(file.file(), file.value().get<std::string>());
  ServerList list;
  try {
    list = LoadServers(s->node_file).list;
  } catch (const UsageError& e) {
    throw UsageError(file.where() + ": " + e.what());
  }
  s->file_nodes = std::move(list.nodes);
  s->file_weighted = list.weighted;
  s->file_topology = std::move(list.topology);
  s->counts = {static_cast<uint32_t>(s->file_nodes.size())};
}

// "hosts", "racks", "zones" and "assign" (domains.h), checked against every
// node count of the sweep, and against a file's own domain columns.
void ReadDomains(const JsonReader& nodes, const Json& v, Scenario* s) {
  DomainSpec& d = s->domains;
  for (DomainLevel l : kAllDomainLevels) {
    const std::string key(DomainLevelPlural(l));
    if (!v.contains(key)) continue;
    DomainCount& c = d.levels[static_cast<size_t>(l)];
    c.given = true;
    if (v[key].is_array()) {
      c.sizes = Values<uint32_t>(v[key]);
      c.count = static_cast<uint32_t>(c.sizes.size());
    } else {
      c.count = v[key].get<uint32_t>();
    }
    if (!s->file_topology.empty()) {
      nodes.At(key).FailMessage("the server file gives the nodes' domains (" +
                                s->file_topology.LevelNames() +
                                "); accepted: domains from the file or generated, not both");
    }
  }
  d.blocks = v["assign"] == "blocks";
  if (nodes.Has("assign") && !d.any()) {
    nodes.At("assign").FailMessage(
        "spreads failure domains, but none is given; accepted: \"assign\" with \"hosts\", "
        "\"racks\" or \"zones\"");
  }
  for (uint32_t n : s->counts) {
    DomainLevel at = DomainLevel::kHost;
    const std::string why = CheckDomains(d, n, &at);
    if (!why.empty()) nodes.At(std::string(DomainLevelPlural(at))).FailMessage(why);
  }
}

void ReadNodes(const JsonReader& root, const Json& v, Scenario* s) {
  const JsonReader nodes = root.At("nodes");
  if (v.contains("file")) {
    ReadNodeFile(nodes.At("file"), s);
  } else {
    s->counts = Values<uint32_t>(v["count"]);
    s->patterns = Values<std::string>(v["pattern"]);
    s->first_index = v["first_index"].get<uint32_t>();
    if (!v["weights"].is_string()) ReadWeights(nodes.At("weights"), v["weights"], s);
  }
  ReadDomains(nodes, v, s);
}

struct WorkloadPart {
  const WorkloadSpec* spec = nullptr;
  WorkloadFields fields;
};

WorkloadPart ReadWorkload(const JsonReader& root, const Json& v) {
  WorkloadPart part;
  part.spec = FindWorkload(v["type"].get<std::string>());
  CheckWorkload(*part.spec, root.At("workload"), v);
  const Json none = Json::object();
  part.fields =
      SplitWorkloadFields(*part.spec, v, root.Has("workload") ? root.At("workload").value() : none);
  return part;
}

// Labels of a named add, parsed as server-list lines (host, port, weight).
std::vector<Node> ParseLabels(const std::vector<std::string>& labels, uint32_t weight,
                              const std::string& where) {
  std::string text;
  for (const std::string& l : labels) text += l + " " + std::to_string(weight) + "\n";
  return ParseServerList(text, where).nodes;
}

// The selection of add (count or nodes), remove (nodes, random or last) and
// reweight (nodes or random), and its label: "remove random 1",
// "reweight n1, n2 to 5".
void ReadSelection(const std::string& op, const Json& v, EventSpec* spec) {
  std::string what;
  if (v.contains("nodes")) {
    spec->select = EventSpec::Select::kNamed;
    spec->nodes = Values<std::string>(v["nodes"]);
    what = JoinNames(spec->nodes);
  } else if (v.contains("random")) {
    spec->select = EventSpec::Select::kRandom;
    spec->count = v["random"].get<uint32_t>();
    what = "random " + std::to_string(spec->count);
  } else if (v.contains("last")) {
    spec->select = EventSpec::Select::kLast;
    spec->count = v["last"].get<uint32_t>();
    what = "last " + std::to_string(spec->count);
  } else {
    spec->count = v["count"].get<uint32_t>();  // add by count (Select::kNone)
    what = std::to_string(spec->count);
  }
  spec->label = op + " " + what;
  if (spec->op == EventSpec::Op::kReweight) spec->label += " to " + std::to_string(spec->weight);
}

// A fail: a share of the live nodes ("fail 0.1"), or whole domains ("fail 2
// racks"), as many as exist at most.
void ReadFail(const JsonReader& e, const Json& v, EventSpec* spec) {
  if (v.contains("fraction")) {
    if (v.contains("count")) {
      e.At("count").FailMessage(
          "counts failed domains; accepted: \"count\" with \"domain\", not with \"fraction\"");
    }
    spec->fraction = v["fraction"].get<double>();
    const Json& f = e.At("fraction").value();
    spec->label = "fail " + (f.is_string() ? f.get<std::string>() : f.dump());
    return;
  }
  spec->domain = FindDomainLevel(v["domain"].get<std::string>());
  spec->count = v.contains("count") ? v["count"].get<uint32_t>() : 1;
  const std::string level(DomainLevelName(*spec->domain));
  spec->label = "fail " + std::to_string(spec->count) + " " + level + (spec->count > 1 ? "s" : "");
}

EventSpec ReadEvent(const JsonReader& e, const Json& v) {
  static constexpr std::pair<std::string_view, EventSpec::Op> kOps[] = {
      {"add", EventSpec::Op::kAdd},
      {"remove", EventSpec::Op::kRemove},
      {"fail", EventSpec::Op::kFail},
      {"reweight", EventSpec::Op::kReweight},
      {"restore", EventSpec::Op::kRestore}};
  const std::string op = v["op"].get<std::string>();
  EventSpec spec;
  spec.pointer = e.pointer();
  for (const auto& [name, value] : kOps) {
    if (name == op) spec.op = value;
  }
  if (v.contains("weight")) spec.weight = v["weight"].get<uint32_t>();
  if (spec.op == EventSpec::Op::kFail) {
    ReadFail(e, v, &spec);
  } else if (spec.op == EventSpec::Op::kRestore) {
    spec.label = "restore";
  } else {
    ReadSelection(op, v, &spec);
  }
  if (spec.op == EventSpec::Op::kAdd && spec.select == EventSpec::Select::kNamed) {
    spec.added = ParseLabels(spec.nodes, spec.weight, e.where() + ": nodes");
  }
  if (v.contains("at")) {
    spec.at = EventAt{};
    if (v["at"].contains("request")) {
      spec.at->request = v["at"]["request"].get<uint64_t>();
    } else {
      spec.at->by_fraction = true;
      spec.at->fraction = v["at"]["fraction"].get<double>();
    }
  }
  return spec;
}

// `level` (a domain failure's, the replication's) names a level the nodes
// carry: refused at `at` otherwise, naming those they do.
void RequireDomainLevel(const JsonReader& at, DomainLevel l, const Scenario& s) {
  if (s.HasDomains(l)) return;
  const std::string name(DomainLevelName(l)), plural(DomainLevelPlural(l));
  std::string carried;
  for (DomainLevel c : kAllDomainLevels) {
    if (s.HasDomains(c)) carried += (carried.empty() ? "" : ", ") + std::string(DomainLevelName(c));
  }
  at.FailMessage("found \"" + name + "\", but the nodes carry no " + plural +
                 "; accepted: a level they carry (" +
                 (carried.empty() ? "none: give \"nodes\" " + plural + ", or " + name +
                                        "=NAME in the server file"
                                  : carried) +
                 ")");
}

// A domain failure names a level the nodes carry, and fewer domains than
// they have there (a live node must stay).
void CheckDomainFailure(const JsonReader& e, const EventSpec& spec, const Scenario& s) {
  const DomainLevel l = *spec.domain;
  const std::string plural(DomainLevelPlural(l));
  RequireDomainLevel(e.At("domain"), l, s);
  const uint32_t domains = s.file_topology.Has(l) ? s.file_topology.Count(l)
                                                  : s.domains.levels[static_cast<size_t>(l)].count;
  if (spec.count >= domains) {
    (e.Has("count") ? e.At("count") : e)
        .FailMessage("found " + spec.label + " of the " + std::to_string(domains) + " " + plural +
                     " the nodes have; accepted: fewer than " + std::to_string(domains) +
                     " (a live node must stay)");
  }
}

void ReadEvents(const JsonReader& root, const Json& v, Scenario* s) {
  for (size_t i = 0; i < v.size(); ++i) {
    s->events.push_back(ReadEvent(root.At("events").At(i), v[i]));
    if (s->events.back().domain) CheckDomainFailure(root.At("events").At(i), s->events.back(), *s);
  }
}

void ReadOptions(const Json& v, Scenario* s) {
  // The field's choices are the groups' names: every entry names one.
  s->groups.clear();
  for (const MetricGroup* g : AllMetricGroups()) {
    for (const Json& m : v["metrics"]) {
      if (m == g->name) {
        s->groups.push_back(g);
        break;
      }
    }
  }
  s->epsilon = v["epsilon"].get<double>();
  const std::string on = v["on_unsupported"].get<std::string>();
  s->on_unsupported = on == "error"  ? OnUnsupported::kError
                      : on == "skip" ? OnUnsupported::kSkip
                                     : OnUnsupported::kRebuild;
  const std::string per_node = v["output"]["per_node"].get<std::string>();
  for (PerNode m : {PerNode::kNone, PerNode::kFirstTrial, PerNode::kAll, PerNode::kAuto}) {
    if (per_node == PerNodeName(m)) s->per_node = m;
  }
  s->transitions = v["output"]["transitions"].get<bool>();
  s->throughput_keys = v["throughput"]["keys"].get<uint32_t>();
  s->throughput_min_ms = v["throughput"]["min_time_ms"].get<uint32_t>();
  s->throughput_repetitions = v["throughput"]["repetitions"].get<uint32_t>();
}

// The "cache" settings (docs/cache.md): given exactly when the cache metric is.
void ReadCache(const JsonReader& root, const Json& v, Scenario* s) {
  if (!s->Needs(&GroupPasses::replay)) {
    if (v.contains("cache")) {
      root.At("cache").FailMessage(
          "cache settings without the cache metric; accepted: "
          "\"cache\" in \"metrics\" with them");
    }
    return;
  }
  root.Require("cache", "the caches' policy and capacity (the cache metric)");
  const Json& c = v["cache"];
  CacheSettings& cs = s->cache_settings;
  cs.policies.clear();
  for (const Json& p : c["policy"]) cs.policies.push_back(*FindCachePolicy(p.get<std::string>()));
  cs.policy_swept =
      root.At("cache").Has("policy") && root.At("cache").At("policy").value().is_array();
  const std::string unit = c["capacity"].begin().key();
  cs.capacity.bytes = unit.starts_with("bytes");
  cs.capacity.fraction = unit.ends_with("_fraction");
  cs.capacity.value = c["capacity"][unit].get<double>();
  cs.window = c["window"].is_string() ? 0 : c["window"].get<uint64_t>();
  cs.recovery_epsilon = c["recovery_epsilon"].get<double>();
}

// The "replication" request (docs/replicas.md): required with the replicas
// metric, allowed with throughput (which then times the replica sets).
void ReadReplication(const JsonReader& root, const Json& v, Scenario* s) {
  ReplicationSettings& rs = s->replication;
  const bool wanted = s->Selects("replicas") || s->Selects("throughput");
  if (!v.contains("replication")) {
    if (s->Selects("replicas")) {
      root.Require("replication",
                   "the copies per key the replicas metric measures, e.g. "
                   "{\"factor\": 3}");
    }
    return;
  }
  if (!wanted) {
    root.At("replication")
        .FailMessage(
            "a replication request without a metric that reads it; accepted: \"replicas\" or "
            "\"throughput\" in \"metrics\" with it");
  }
  const Json& r = v["replication"];
  const JsonReader given = root.At("replication");
  rs.given = true;
  rs.factors = Values<uint32_t>(r["factor"]);
  rs.factor_swept = given.At("factor").value().is_array();
  if (r.contains("strategy")) {
    const Json& g = given.At("strategy").value();
    rs.strategy_swept = g.is_array() || g == "all";
    for (const Json& name : r["strategy"]) {
      if (name == "all") {
        for (const ReplicaStrategy* st : AllReplicaStrategies()) rs.strategies.push_back(st);
      } else {
        rs.strategies.push_back(FindReplicaStrategy(name.get<std::string>()));
      }
    }
  }
  if (r.contains("domain")) {
    const JsonReader d = given.At("domain");
    rs.domain_swept = d.value().is_array();
    for (size_t i = 0; i < r["domain"].size(); ++i) {
      const std::string name = r["domain"][i].get<std::string>();
      rs.domains.push_back(FindDomainLevel(name));  // nullopt for "none"
      if (rs.domains.back())
        RequireDomainLevel(rs.domain_swept ? d.At(i) : d, *rs.domains.back(), *s);
    }
  }
  rs.failed = r["failed"].get<double>();
  rs.failure_sets = r["failure_sets"].get<uint32_t>();
}

// "at" places events on the request stream the cache metric replays: all of
// them or none, and only with that metric; in stream order.
void CheckEventPlacement(const JsonReader& root, const Scenario& s) {
  const std::optional<EventAt>* last = nullptr;
  for (size_t i = 0; i < s.events.size(); ++i) {
    const std::optional<EventAt>& at = s.events[i].at;
    const JsonReader e = root.At("events").At(i);
    if (at && !s.Needs(&GroupPasses::replay)) {
      e.At("at").FailMessage(
          "places the event on the request stream, which only the cache "
          "metric replays; accepted: \"at\" with \"cache\" in \"metrics\"");
    }
    if (!at && s.Needs(&GroupPasses::replay)) {
      e.FailMessage(
          "the cache metric replays one request stream; accepted: every event placed "
          "on it with \"at\": {\"request\": N} or {\"fraction\": F}");
    }
    const bool same_kind = at && last && at->by_fraction == (*last)->by_fraction;
    if (same_kind &&
        (at->by_fraction ? at->fraction < (*last)->fraction : at->request < (*last)->request)) {
      e.At("at").FailMessage("found " + ShowJson(e.At("at").value()) +
                             " before the previous event's place; accepted: events in stream "
                             "order");
    }
    if (at) last = &at;
  }
}

// One entry of "algorithms": its spec and the parameters it gives, each an
// axis of values in the spec's order.
struct AlgorithmEntry {
  const AlgorithmSpec* spec = nullptr;
  std::vector<const ParamSpec*> params;  // parallel to axes
  std::vector<SweepAxis> axes;
  std::string pointer;
};

AlgorithmEntry ReadAlgorithmEntry(const JsonReader& a) {
  std::vector<std::string> names;
  for (const AlgorithmSpec* spec : AllAlgorithms()) names.emplace_back(spec->name);
  names.emplace_back("all");  // expanded before entries are read (ExpandAll)
  if (!a.value().is_object()) a.Fail("an object {\"algorithm\": name, parameters...}");
  a.Require("algorithm", "one of " + JoinNames(names));
  AlgorithmEntry entry;
  entry.spec = FindAlgorithm(a.At("algorithm").Enum(names));
  entry.pointer = a.pointer();
  std::vector<std::string> keys = {"algorithm"};
  for (const ParamSpec& p : entry.spec->params) keys.emplace_back(p.name);
  a.Object(keys);
  for (const ParamSpec& p : entry.spec->params) {
    const std::string key(p.name);
    if (!a.Has(key)) continue;
    const JsonReader r = a.At(key);
    if (r.value().is_array() && !p.sweepable) r.Fail(p.Accepted() + " (one value: not sweepable)");
    entry.params.push_back(&p);
    entry.axes.push_back(SweepAxis{key, r.List([&p](const JsonReader& v) { return v.Param(p); }),
                                   r.value().is_array()});
  }
  return entry;
}

// --- Sweep expansion and resolution --------------------------------------

// One combination of axis values: the cartesian product's odometer.
class Odometer {
 public:
  explicit Odometer(const std::vector<const SweepAxis*>& axes)
      : axes_(axes), pos_(axes.size(), 0) {}
  const Json& value(size_t k) const { return axes_[k]->values[pos_[k]]; }
  // Moves to the next combination (last axis fastest); false after the last.
  bool Next() {
    for (size_t k = axes_.size(); k-- > 0;) {
      if (++pos_[k] < axes_[k]->values.size()) return true;
      pos_[k] = 0;
    }
    return false;
  }

 private:
  const std::vector<const SweepAxis*>& axes_;
  std::vector<size_t> pos_;
};

// The algorithm of one case: given parameters resolved by the spec, the
// parameters as results show them, and the key hasher.
AlgorithmConfig ResolveAlgorithm(const AlgorithmEntry& entry, const std::vector<Json>& values,
                                 uint32_t nodes, const JsonReader& a) {
  AlgorithmConfig config;
  config.spec = entry.spec;
  config.shown = Json::object();
  Params given;
  for (size_t k = 0; k < entry.params.size(); ++k) {
    const ParamSpec& p = *entry.params[k];
    Json v = values[k];
    if (v.is_string() && p.type == ParamType::kInteger) v = p.auto_value(nodes);  // "auto"
    given.Set(p.name, ParamFromJson(p, v));
    config.shown[std::string(p.name)] = v;
  }
  config.params = entry.spec->Resolve(given);
  for (const auto& [name, value] : config.params.values()) {
    if (config.shown.contains(name) || name == "key_hasher") continue;
    if (const std::string* s = std::get_if<std::string>(&value); s && s->empty()) continue;
    if (const uint64_t* u = std::get_if<uint64_t>(&value)) config.shown[name] = *u;
    if (const double* d = std::get_if<double>(&value)) config.shown[name] = *d;
    if (const std::string* s = std::get_if<std::string>(&value)) config.shown[name] = *s;
  }
  try {
    config.key_hasher = &GetHasher(entry.spec->KeyHasher(config.params));
  } catch (const std::invalid_argument& e) {  // a profile option the profile does not take
    a.FailMessage(e.what());
  }
  if (!config.shown.contains("key_hasher")) config.shown["key_hasher"] = config.key_hasher->name;
  return config;
}

// The case's id (case_id.h): the parameters the entry gives, then its axes.
std::string CaseId(const AlgorithmEntry& entry, const CaseSpec& c) {
  CaseIdParts parts{std::string(entry.spec->name), {}, {}};
  for (const ParamSpec* p : entry.params) {
    parts.params.emplace_back(std::string(p->name), c.algorithm.shown[std::string(p->name)]);
  }
  for (auto it = c.axes.begin(); it != c.axes.end(); ++it) parts.axes.emplace_back(it.key(), *it);
  return FormatCaseId(parts);
}

// What the cases of one scenario share while they are made.
struct Expansion {
  Scenario* s;
  WorkloadPart workload;
  std::map<std::string, std::shared_ptr<const Workload>> workloads;  // by fields
  std::map<std::string, std::shared_ptr<const NodePattern>> patterns;
  std::shared_ptr<const Workload> throughput_keys;  // uniform "user:{n}" keys
  std::set<std::string> ids;
};

std::shared_ptr<const Workload> CaseWorkload(Expansion& x, const Json& fields) {
  auto [it, inserted] = x.workloads.try_emplace(fields.dump());
  if (inserted) it->second = BuildWorkload(*x.workload.spec, fields, x.s->path + ": /workload");
  return it->second;
}

std::shared_ptr<const NodePattern> CasePattern(Expansion& x, const std::string& pattern) {
  auto [it, inserted] = x.patterns.try_emplace(pattern);
  if (inserted) {
    it->second = std::make_shared<const NodePattern>(NodePattern::Compile(
        pattern.empty() ? DefaultPattern() : pattern, x.s->path + ": /nodes/pattern"));
  }
  return it->second;
}

// Fills the case's node, workload and axis values from one combination:
// axes [0, first_param) are nodes.count and nodes.pattern, then the entry's
// parameters, then the workload's axes.
std::vector<Json> ApplyAxes(Expansion& x, const std::vector<const SweepAxis*>& all,
                            const Odometer& o, size_t first_param, size_t first_workload,
                            size_t first_cache, CaseSpec* c) {
  std::vector<Json> params;
  Json fields = x.workload.fields.fixed;
  c->axes = Json::object();
  for (size_t k = 0; k < all.size(); ++k) {
    const Json& v = o.value(k);
    if (k < first_param) {
      if (all[k]->key == "nodes.count") c->nodes = v.get<uint32_t>();
      if (all[k]->key == "nodes.pattern") c->pattern = v.get<std::string>();
      if (all[k]->swept || all[k]->key == "nodes.count") c->axes[all[k]->key] = v;
    } else if (k < first_workload) {
      params.push_back(v);
    } else if (k < first_cache) {
      fields[all[k]->key] = v;
      if (all[k]->swept) c->axes["workload." + all[k]->key] = v;
    } else if (all[k]->key == "policy") {
      c->cache_policy = *FindCachePolicy(v.get<std::string>());
      if (all[k]->swept) c->axes["cache." + all[k]->key] = v;
    } else if (all[k]->key == "strategy") {
      c->replica_strategy = FindReplicaStrategy(v.get<std::string>());
      c->axes["replication.strategy"] = v;
    } else if (all[k]->key == "domain") {
      c->replica_domain = FindDomainLevel(v.get<std::string>());
      c->axes["replication.domain"] = v;
    } else {
      c->replicas = v.get<uint32_t>();
      c->axes["replication.factor"] = v;
    }
  }
  c->workload = CaseWorkload(x, fields);
  c->throughput_workload = c->workload;
  if (!c->workload->indexed() || c->workload->units() == 0) {
    if (!x.throughput_keys) {
      x.throughput_keys =
          MakeWorkload("uniform", {{"shape", "user:{n}"}, {"keys", x.s->throughput_keys}});
    }
    c->throughput_workload = x.throughput_keys;
  }
  c->workload_shown = Json{{"type", x.workload.spec->name}};
  c->compiled_pattern = CasePattern(x, c->pattern);
  return params;
}

// The replication axes of one algorithm entry: the strategies asked (a list
// or "all": those that apply; none named: the first that applies), the
// factors and, when given, the domains.
struct ReplicationAxes {
  SweepAxis strategy{"strategy", {}, true};
  SweepAxis factor{"factor", {}, true};
  SweepAxis domain{"domain", {}, true};
};

// A sweep (of strategies or of domains) makes no case of a strategy without a
// domain rule over a domain level; one asked alone is kept, and the plan
// refuses it naming the strategies that do.
bool PairFits(const ReplicationSettings& rs, const ReplicaStrategy& st,
              const std::optional<DomainLevel>& domain) {
  return !domain || st.UsesDomains() || !(rs.strategy_swept || rs.domain_swept);
}

ReplicationAxes ReplicationAxesFor(const ReplicationSettings& rs, const AlgorithmSpec& spec) {
  ReplicationAxes axes;
  for (uint32_t k : rs.factors) axes.factor.values.push_back(k);
  for (const std::optional<DomainLevel>& d : rs.domains) {
    axes.domain.values.push_back(d ? std::string(DomainLevelName(*d)) : "none");
  }
  auto fits_some = [&](const ReplicaStrategy* st) {
    if (rs.domains.empty()) return true;
    return std::any_of(rs.domains.begin(), rs.domains.end(),
                       [&](const auto& d) { return PairFits(rs, *st, d); });
  };
  std::vector<const ReplicaStrategy*> names = rs.strategies;
  if (names.empty()) {
    for (const ReplicaStrategy* st : ReplicaStrategiesFor(spec)) {
      const bool any_level = std::any_of(rs.domains.begin(), rs.domains.end(),
                                         [](const auto& d) { return d.has_value(); });
      if (names.empty() && (!any_level || st->UsesDomains())) names.push_back(st);
    }
  }
  for (const ReplicaStrategy* st : names) {
    const Json name = std::string(st->name);
    if (st->AppliesTo(spec) && fits_some(st) &&
        std::find(axes.strategy.values.begin(), axes.strategy.values.end(), name) ==
            axes.strategy.values.end()) {
      axes.strategy.values.push_back(name);
    }
  }
  return axes;
}

// No strategy asked applies to the entry's algorithm: refused, naming those
// that do.
[[noreturn]] void FailNoStrategy(Expansion& x, const AlgorithmSpec& spec, const JsonReader& a) {
  std::string fit, asked;
  for (const ReplicaStrategy* st : ReplicaStrategiesFor(spec))
    fit += (fit.empty() ? "" : ", ") + std::string(st->name);
  const std::vector<const ReplicaStrategy*>& named = x.s->replication.strategies;
  for (const ReplicaStrategy* st : named)
    asked += (asked.empty() ? "" : ", ") + std::string(st->name);
  const std::string what =
      named.empty() ? "no replica strategy applies to"
      : named.size() == 1
          ? "strategy " + asked + " (/replication/strategy) does not apply to"
          : "none of the strategies " + asked + " (/replication/strategy) applies to";
  const std::string needs =
      named.size() == 1 ? " (it needs " + std::string(named[0]->applies_doc) + ")" : "";
  a.FailMessage(what + " algorithm " + std::string(spec.name) + needs + "; strategies for " +
                std::string(spec.name) + ": " + (fit.empty() ? "none" : fit));
}

void ExpandEntry(Expansion& x, const AlgorithmEntry& entry, const JsonReader& a) {
  Scenario& s = *x.s;
  SweepAxis count{"nodes.count", {}, s.counts.size() > 1};
  for (uint32_t n : s.counts) count.values.push_back(n);
  SweepAxis pattern{"nodes.pattern", {}, s.patterns.size() > 1};
  for (const std::string& p : s.patterns) pattern.values.push_back(p);
  std::vector<const SweepAxis*> all = {&count};
  if (!s.patterns.empty()) all.push_back(&pattern);
  const size_t first_param = all.size();
  for (const SweepAxis& axis : entry.axes) all.push_back(&axis);
  const size_t first_workload = all.size();
  for (const SweepAxis& axis : x.workload.fields.axes) all.push_back(&axis);
  const size_t first_cache = all.size();
  SweepAxis policy{"policy", {}, s.cache_settings.policy_swept};
  for (CachePolicy p : s.cache_settings.policies) policy.values.push_back(CachePolicyName(p));
  if (s.Needs(&GroupPasses::replay)) all.push_back(&policy);
  const ReplicationAxes replication = ReplicationAxesFor(s.replication, *entry.spec);
  if (s.replication.given) {
    if (replication.strategy.values.empty()) FailNoStrategy(x, *entry.spec, a);
    all.push_back(&replication.strategy);
    all.push_back(&replication.factor);
    if (!s.replication.domains.empty()) all.push_back(&replication.domain);
  }
  uint64_t product = 1;  // refuse an absurd sweep before expanding it
  for (const SweepAxis* axis : all)
    product = std::min(product * axis->values.size(), kMaxCases + 1);
  if (s.cases.size() + product > kMaxCases) {
    a.FailMessage(
        "the sweep makes more than 1,000,000 cases; accepted: at most 1,000,000 cases "
        "in all (split the sweep)");
  }
  Odometer o(all);
  do {
    CaseSpec c;
    c.pointer = entry.pointer;
    const std::vector<Json> params =
        ApplyAxes(x, all, o, first_param, first_workload, first_cache, &c);
    if (c.replica_strategy && !PairFits(s.replication, *c.replica_strategy, c.replica_domain)) {
      continue;
    }
    c.algorithm = ResolveAlgorithm(entry, params, c.nodes, a);
    c.id = CaseId(entry, c);
    if (!x.ids.insert(c.id).second) {
      a.FailMessage("two cases have the same id '" + c.id +
                    "'; accepted: algorithm entries that differ in some parameter");
    }
    c.seed = Derive(s.seed, Tag(c.id));
    c.index = s.cases.size();
    s.cases.push_back(std::move(c));
  } while (o.Next());
}

// {"algorithm": "all", parameters...}: its keys are "algorithm" and any
// parameter some registered algorithm declares.
void CheckAllEntry(const JsonReader& a) {
  std::vector<std::string> keys = {"algorithm"};
  for (const AlgorithmSpec* spec : AllAlgorithms()) {
    for (const ParamSpec& p : spec->params) {
      if (std::find(keys.begin(), keys.end(), p.name) == keys.end()) keys.emplace_back(p.name);
    }
  }
  a.Object(keys);
}

bool IsAll(const Json& entry) {
  return entry.is_object() && entry.contains("algorithm") && entry["algorithm"] == "all";
}

// The entries of "algorithms" with "all" (the string, or an entry
// {"algorithm": "all", parameters...}) replaced by one entry per registered
// algorithm that no other entry names, in registry order, each with the given
// parameters it declares. `pointers` gets each entry's JSON pointer (an
// expanded entry's is its "all" entry's).
std::vector<Json> ExpandAll(const JsonReader& algs, std::vector<std::string>* pointers) {
  const char* accepted = "a non-empty list of {\"algorithm\": name, parameters...}, or \"all\"";
  const Json all_list = Json::array({{{"algorithm", "all"}}});
  const bool all = algs.value() == "all";
  if (!all && (!algs.value().is_array() || algs.value().empty())) algs.Fail(accepted);
  const Json& given = all ? all_list : algs.value();
  std::vector<std::string> named;
  for (const Json& e : given) {
    if (e.is_object() && e.contains("algorithm") && e["algorithm"].is_string() && !IsAll(e)) {
      named.push_back(e["algorithm"].get<std::string>());
    }
  }
  std::vector<Json> out;
  for (size_t i = 0; i < given.size(); ++i) {
    const std::string pointer = algs.pointer() + (all ? "" : "/" + std::to_string(i));
    if (!IsAll(given[i])) {
      out.push_back(given[i]);
      pointers->push_back(pointer);
      continue;
    }
    if (!all) CheckAllEntry(algs.At(i));
    for (const AlgorithmSpec* spec : AllAlgorithms()) {
      if (std::find(named.begin(), named.end(), spec->name) != named.end()) continue;
      Json entry = {{"algorithm", spec->name}};
      for (const ParamSpec& p : spec->params) {
        if (given[i].contains(p.name)) entry[std::string(p.name)] = given[i][std::string(p.name)];
      }
      out.push_back(std::move(entry));
      pointers->push_back(pointer);
    }
  }
  return out;
}

void ReadAlgorithms(const JsonReader& root, Expansion& x) {
  std::vector<std::string> pointers;
  x.s->algorithm_entries = ExpandAll(root.At("algorithms"), &pointers);
  for (size_t i = 0; i < x.s->algorithm_entries.size(); ++i) {
    const JsonReader a(root.file(), &x.s->algorithm_entries[i], pointers[i]);
    ExpandEntry(x, ReadAlgorithmEntry(a), a);
  }
}

// What the cache metric needs of the workload: a request stream, with sizes
// when capacity is in bytes.
void CheckCacheWorkload(const JsonReader& root, const Scenario& s) {
  if (!s.Needs(&GroupPasses::replay)) return;
  for (const CaseSpec& c : s.cases) {
    if (!c.workload->streams()) {
      root.At("workload")
          .At("weighted")
          .FailMessage(
              "a weighted key file is not a request stream; accepted: the cache metric over one "
              "key a line, a trace or a generated workload");
    }
    if (s.cache_settings.capacity.bytes && !c.workload->sized()) {
      root.At("cache")
          .At("capacity")
          .FailMessage(
              "a capacity in bytes, but the workload's requests have no sizes; accepted: "
              "\"objects\" or \"objects_fraction\", or a workload with sizes (\"size\", or a "
              "trace with sizes)");
    }
  }
}

// The "cache" settings with every default filled in.
Json ResolvedCache(const CacheSettings& cs, const Json& given) {
  Json policies = Json::array();
  for (CachePolicy p : cs.policies) policies.push_back(CachePolicyName(p));
  return {{"policy", cs.policy_swept ? policies : policies[0]},
          {"capacity", given["capacity"]},
          {"window", cs.window == 0 ? Json("auto") : Json(cs.window)},
          {"recovery_epsilon", cs.recovery_epsilon}};
}

// The document with every default filled in.
Json Resolved(const Scenario& s, const Json& doc) {
  Json r = doc;
  const Json& given = doc["algorithms"];
  if (given == "all" || std::any_of(given.begin(), given.end(), IsAll)) {
    r["algorithms"] = s.algorithm_entries;  // the algorithms "all" stood for, by name
  }
  r["seed"] = std::to_string(s.seed);
  r["trials"] = s.trials;
  if (!doc.contains("workload")) {
    r["workload"] = Json::parse(ScenarioFields().Find("workload")->default_json);
  }
  if (s.node_file.empty()) {
    r["nodes"]["pattern"] = s.patterns.size() == 1 ? Json(s.patterns[0]) : Json(s.patterns);
    r["nodes"]["first_index"] = s.first_index;
    if (!doc["nodes"].contains("weights")) r["nodes"]["weights"] = "uniform";
  }
  if (!doc.contains("events")) r["events"] = Json::array();
  Json metrics = Json::array();
  for (const MetricGroup* g : s.groups) metrics.push_back(g->name);
  r["metrics"] = metrics;
  if (s.Needs(&GroupPasses::replay)) r["cache"] = ResolvedCache(s.cache_settings, doc["cache"]);
  if (s.replication.given) {
    r["replication"]["failed"] = s.replication.failed;
    r["replication"]["failure_sets"] = s.replication.failure_sets;
  }
  r["epsilon"] = s.epsilon;
  r["on_unsupported"] = s.on_unsupported == OnUnsupported::kError  ? "error"
                        : s.on_unsupported == OnUnsupported::kSkip ? "skip"
                                                                   : "rebuild";
  r["output"] = {{"per_node", PerNodeName(s.per_node)}, {"transitions", s.transitions}};
  r["throughput"] = {{"keys", s.throughput_keys},
                     {"min_time_ms", s.throughput_min_ms},
                     {"repetitions", s.throughput_repetitions}};
  return r;
}

Scenario ParseScenarioUnchecked(std::string_view text, const std::string& path,
                                std::optional<uint64_t> seed_override) {
  const Json doc = ParseJson(text, path);
  Scenario s;
  s.path = path;
  const JsonReader root(path, &doc, "");
  const Json v = ReadObject(root, ScenarioFields());  // every row checked, defaults filled in
  ReadHeader(v, seed_override, &s);
  ReadNodes(root, v["nodes"], &s);
  Expansion x{&s, ReadWorkload(root, v["workload"]), {}, {}, {}, {}};
  ReadEvents(root, v["events"], &s);
  ReadOptions(v, &s);
  ReadCache(root, v, &s);
  ReadReplication(root, v, &s);
  CheckEventPlacement(root, s);
  ReadAlgorithms(root, x);
  CheckCacheWorkload(root, s);
  s.resolved = Resolved(s, doc);
  return s;
}

}  // namespace

PerNode PerNodeApplied(PerNode mode, uint32_t nodes) noexcept {
  if (mode != PerNode::kAuto) return mode;
  return nodes <= kPerNodeAutoMaxNodes ? PerNode::kFirstTrial : PerNode::kNone;
}

const char* PerNodeName(PerNode mode) noexcept {
  static constexpr const char* kNames[] = {"none", "first_trial", "all", "auto"};  // enum order
  return kNames[static_cast<size_t>(mode)];
}

std::vector<const AlgorithmSpec*> Scenario::algorithms() const {
  std::vector<const AlgorithmSpec*> out;
  for (const CaseSpec& c : cases) {
    if (std::find(out.begin(), out.end(), c.algorithm.spec) == out.end()) {
      out.push_back(c.algorithm.spec);
    }
  }
  return out;
}

Scenario LoadScenario(const std::string& path, std::optional<uint64_t> seed_override) {
  return ParseScenario(ReadFileOrStdin(path, size_t{64} << 20), path, seed_override);
}

Scenario ParseScenario(std::string_view text, const std::string& path,
                       std::optional<uint64_t> seed_override) {
  try {
    return ParseScenarioUnchecked(text, path, seed_override);
  } catch (const UsageError& e) {
    throw UsageError(OneLine(e.what()));
  }
}

}  // namespace chsim::sim
