// Loading a scenario: one stage per part of the document (header, nodes,
// workload, events, options, each algorithm entry), then the sweep expansion
// and the resolution of each case, then the schema check and the resolved
// document. Every value is checked where it is read, with its JSON pointer.
#include "sim/scenario/scenario.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "sim/base/errors.h"
#include "sim/base/rng.h"
#include "sim/base/text_file.h"
#include "sim/scenario/server_list.h"

namespace chsim::sim {
namespace {

// JSON nesting: a scenario needs 4 levels; deeper input is refused at parse
// time (a 10^5-deep array would overflow the stack of any recursive walk).
constexpr int kMaxDepth = 64;
constexpr char kDefaultPattern[] = "10.{i/65536%256}.{i/256%256}.{i%256}:11211";
constexpr uint32_t kMaxWeight = 0x7fffffff;

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

uint64_t ParseSeed(const JsonReader& r) {
  const char* accepted = "an integer 0..2^64-1, or a string of its decimal digits";
  if (!r.value().is_string()) return r.Uint(0, UINT64_MAX);
  const std::string s = r.value().get<std::string>();
  if (s.empty() || s.size() > 20) r.Fail(accepted);
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') r.Fail(accepted);
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) r.Fail(accepted);
    v = v * 10 + d;
  }
  return v;
}

std::string ResolvePath(const std::string& scenario_path, const std::string& file) {
  std::filesystem::path p(file);
  if (p.is_absolute()) return file;
  std::filesystem::path base = std::filesystem::path(scenario_path).parent_path();
  return (base / p).lexically_normal().string();
}

// --- Stages -------------------------------------------------------------

void ReadHeader(const JsonReader& root, std::optional<uint64_t> seed_override, Scenario* s) {
  root.Object({"$schema", "schema_version", "name", "description", "seed", "trials", "nodes",
               "algorithms", "workload", "events", "metrics", "epsilon", "on_unsupported", "output",
               "throughput"});
  root.Require("schema_version", "the scenario format version, 1");
  if (root.At("schema_version").Uint(1, 1000) != kScenarioSchemaVersion) {
    root.At("schema_version").Fail("1 (this chsim reads scenario format 1)");
  }
  root.Require("name", "a short name for the scenario");
  s->name = root.At("name").String("a name of letters, digits, '.', '_' or '-'");
  if (s->name.empty() || s->name.size() > 100 ||
      s->name.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
          std::string::npos) {
    root.At("name").Fail("1..100 letters, digits, '.', '_' or '-'");
  }
  if (root.Has("description")) s->description = root.At("description").String("a string");
  s->seed = root.Has("seed") ? ParseSeed(root.At("seed")) : 1;
  if (seed_override) s->seed = *seed_override;
  if (root.Has("trials")) s->trials = static_cast<uint32_t>(root.At("trials").Uint(1, 10000));
}

std::vector<uint32_t> ReadWeightList(const JsonReader& r) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < r.value().size(); ++i) {
    out.push_back(static_cast<uint32_t>(r.At(i).Uint(1, kMaxWeight)));
  }
  return out;
}

void ReadWeights(const JsonReader& w, Scenario* s) {
  const char* accepted =
      "\"uniform\", a list of integer weights (one per node), {\"min\": A, \"max\": B} or "
      "{\"choice\": [w, ...]}";
  if (w.value().is_string()) {
    if (w.value().get<std::string>() != "uniform") w.Fail(accepted);
  } else if (w.value().is_array()) {
    if (w.value().empty()) w.Fail(accepted);
    s->weights.kind = WeightSpec::Kind::kExplicit;
    s->weights.values = ReadWeightList(w);
    for (uint32_t c : s->counts) {
      if (c != s->weights.values.size()) {
        w.FailMessage("found " + std::to_string(s->weights.values.size()) + " weights for " +
                      std::to_string(c) + " nodes; accepted: one weight per node");
      }
    }
  } else if (w.value().is_object() && w.Has("choice")) {
    w.Object({"choice"});
    JsonReader c = w.At("choice");
    if (!c.value().is_array() || c.value().empty()) c.Fail("a non-empty list of weights");
    s->weights.kind = WeightSpec::Kind::kChoice;
    s->weights.values = ReadWeightList(c);
  } else if (w.value().is_object()) {
    w.Object({"min", "max"});
    w.Require("min", "smallest weight");
    w.Require("max", "largest weight");
    s->weights.kind = WeightSpec::Kind::kRandomUniform;
    s->weights.min = static_cast<uint32_t>(w.At("min").Uint(1, kMaxWeight));
    s->weights.max = static_cast<uint32_t>(w.At("max").Uint(s->weights.min, kMaxWeight));
  } else {
    w.Fail(accepted);
  }
}

void ReadNodeFile(const JsonReader& nodes, const std::string& path, Scenario* s) {
  for (const char* k : {"count", "pattern", "first_index", "weights"}) {
    if (nodes.Has(k)) {
      nodes.At(k).FailMessage(std::string("'") + k +
                              "' cannot be combined with 'file' (the file lists the nodes)");
    }
  }
  s->node_file = ResolvePath(path, nodes.At("file").String("a server-list file path"));
  ServerList list;
  try {
    list = LoadServerList(s->node_file);
  } catch (const UsageError& e) {
    throw UsageError(nodes.At("file").where() + ": " + e.what());
  }
  s->file_nodes = std::move(list.nodes);
  s->file_weighted = list.weighted;
  s->counts = {static_cast<uint32_t>(s->file_nodes.size())};
}

void ReadNodes(const JsonReader& root, Scenario* s) {
  root.Require("nodes", "count and naming pattern, or a server-list file");
  JsonReader nodes = root.At("nodes");
  nodes.Object({"count", "pattern", "first_index", "weights", "file"});
  if (nodes.Has("file")) return ReadNodeFile(nodes, root.file(), s);
  nodes.Require("count", "how many nodes, or a list of counts");
  s->counts = nodes.At("count").List(
      [](const JsonReader& r) { return static_cast<uint32_t>(r.Uint(1, kMaxScenarioNodes)); });
  s->patterns = {kDefaultPattern};
  if (nodes.Has("pattern")) {
    s->patterns = nodes.At("pattern").List([](const JsonReader& r) {
      std::string p = r.String("a naming pattern such as \"10.0.{i/256}.{i%256}:11211\"");
      NodePattern::Compile(p, r.where());
      return p;
    });
  }
  if (nodes.Has("first_index")) {
    s->first_index = static_cast<uint32_t>(nodes.At("first_index").Uint(0, 1u << 30));
  }
  if (nodes.Has("weights")) ReadWeights(nodes.At("weights"), s);
}

struct WorkloadPart {
  const WorkloadSpec* spec = nullptr;
  WorkloadFields fields;
};

WorkloadPart ReadWorkload(const JsonReader& root, const Json& default_workload) {
  const JsonReader w = root.Has("workload")
                           ? root.At("workload")
                           : JsonReader(root.file(), &default_workload, "/workload");
  std::vector<std::string> types;
  for (const WorkloadSpec* spec : AllWorkloads()) types.emplace_back(spec->name);
  if (!w.value().is_object()) w.Fail("an object with a \"type\"");
  w.Require("type", JoinNames(types));
  WorkloadPart part;
  part.spec = FindWorkload(w.At("type").Enum(types));
  part.fields = part.spec->read(w, root.file());
  return part;
}

// Labels of a named add, parsed as server-list lines (host, port, weight).
std::vector<Node> ParseLabels(const std::vector<std::string>& labels, uint32_t weight,
                              const std::string& where) {
  std::string text;
  for (const std::string& l : labels) text += l + " " + std::to_string(weight) + "\n";
  return ParseServerList(text, where).nodes;
}

void ReadNodeLabels(const JsonReader& r, EventSpec* spec) {
  if (!r.value().is_array() || r.value().empty()) r.Fail("a non-empty list of node labels");
  for (size_t j = 0; j < r.value().size(); ++j)
    spec->nodes.push_back(r.At(j).String("a node label"));
}

// The selection of remove (nodes, random or last) and reweight (nodes or random).
void ReadSelection(const JsonReader& e, bool allow_last, EventSpec* spec) {
  int given = e.Has("nodes") + e.Has("random") + (allow_last && e.Has("last"));
  if (given != 1) {
    e.FailMessage("found " + std::to_string(given) +
                  " selections; accepted: exactly one of \"nodes\": [labels], \"random\": count" +
                  (allow_last ? ", \"last\": count" : ""));
  }
  if (e.Has("nodes")) {
    spec->select = EventSpec::Select::kNamed;
    ReadNodeLabels(e.At("nodes"), spec);
  } else if (e.Has("random")) {
    spec->select = EventSpec::Select::kRandom;
    spec->count = static_cast<uint32_t>(e.At("random").Uint(1, kMaxScenarioNodes));
  } else {
    spec->select = EventSpec::Select::kLast;
    spec->count = static_cast<uint32_t>(e.At("last").Uint(1, kMaxScenarioNodes));
  }
}

void ReadAdd(const JsonReader& e, EventSpec* spec) {
  e.Object({"op", "count", "nodes", "weight"});
  if (e.Has("nodes") == e.Has("count")) {
    e.FailMessage(
        "accepted: exactly one of \"count\": k (named by the pattern) or \"nodes\": [labels]");
  }
  if (e.Has("weight")) spec->weight = static_cast<uint32_t>(e.At("weight").Uint(1, kMaxWeight));
  if (e.Has("count")) {
    spec->count = static_cast<uint32_t>(e.At("count").Uint(1, kMaxScenarioNodes));
    spec->label = "add " + std::to_string(spec->count);
    return;
  }
  spec->select = EventSpec::Select::kNamed;
  ReadNodeLabels(e.At("nodes"), spec);
  spec->label = "add " + JoinNames(spec->nodes);
  spec->added = ParseLabels(spec->nodes, spec->weight, e.where() + ": nodes");
}

// "remove random 1", "reweight n1, n2 to 5".
std::string SelectionLabel(const std::string& op, const EventSpec& spec) {
  std::string label = op + " ";
  if (spec.select == EventSpec::Select::kNamed) label += JoinNames(spec.nodes);
  if (spec.select == EventSpec::Select::kRandom) label += "random " + std::to_string(spec.count);
  if (spec.select == EventSpec::Select::kLast) label += "last " + std::to_string(spec.count);
  if (spec.op == EventSpec::Op::kReweight) label += " to " + std::to_string(spec.weight);
  return label;
}

EventSpec ReadEvent(const JsonReader& e) {
  if (!e.value().is_object()) e.Fail("an object with an \"op\"");
  e.Require("op", "add, remove, fail, reweight or restore");
  const std::string op = e.At("op").Enum({"add", "remove", "fail", "reweight", "restore"});
  EventSpec spec;
  spec.pointer = e.pointer();
  if (op == "add") {
    spec.op = EventSpec::Op::kAdd;
    ReadAdd(e, &spec);
  } else if (op == "remove") {
    e.Object({"op", "nodes", "random", "last"});
    spec.op = EventSpec::Op::kRemove;
    ReadSelection(e, true, &spec);
    spec.label = SelectionLabel(op, spec);
  } else if (op == "fail") {
    e.Object({"op", "fraction"});
    spec.op = EventSpec::Op::kFail;
    e.Require("fraction", "share of live nodes that fail, 0 < f < 1");
    spec.fraction = e.At("fraction").Number(0.0, 1.0, true, "a number > 0 and < 1");
    if (spec.fraction >= 1.0) e.At("fraction").Fail("a number > 0 and < 1");
    const Json& f = e.At("fraction").value();
    spec.label = "fail " + (f.is_string() ? f.get<std::string>() : f.dump());
  } else if (op == "reweight") {
    e.Object({"op", "nodes", "random", "weight"});
    spec.op = EventSpec::Op::kReweight;
    ReadSelection(e, false, &spec);
    e.Require("weight", "the new weight");
    spec.weight = static_cast<uint32_t>(e.At("weight").Uint(1, kMaxWeight));
    spec.label = SelectionLabel(op, spec);
  } else {
    e.Object({"op"});
    spec.op = EventSpec::Op::kRestore;
    spec.label = "restore";
  }
  return spec;
}

void ReadEvents(const JsonReader& root, Scenario* s) {
  if (!root.Has("events")) return;
  JsonReader ev = root.At("events");
  if (!ev.value().is_array()) ev.Fail("a list of events");
  for (size_t i = 0; i < ev.value().size(); ++i) s->events.push_back(ReadEvent(ev.At(i)));
}

void ReadOutput(const JsonReader& root, Scenario* s) {
  if (root.Has("output")) {
    JsonReader o = root.At("output");
    o.Object({"per_node", "transitions"});
    if (o.Has("per_node")) {
      std::string v = o.At("per_node").Enum({"none", "first_trial", "all"});
      s->per_node = v == "none"  ? PerNode::kNone
                    : v == "all" ? PerNode::kAll
                                 : PerNode::kFirstTrial;
    }
    if (o.Has("transitions")) s->transitions = o.At("transitions").Bool();
  }
  if (root.Has("throughput")) {
    JsonReader t = root.At("throughput");
    t.Object({"keys", "min_time_ms", "repetitions"});
    if (t.Has("keys")) s->throughput_keys = static_cast<uint32_t>(t.At("keys").Uint(16, 1u << 24));
    if (t.Has("min_time_ms")) {
      s->throughput_min_ms = static_cast<uint32_t>(t.At("min_time_ms").Uint(1, 60000));
    }
    if (t.Has("repetitions")) {
      s->throughput_repetitions = static_cast<uint32_t>(t.At("repetitions").Uint(1, 100));
    }
  }
}

void ReadOptions(const JsonReader& root, Scenario* s) {
  if (root.Has("metrics")) {
    JsonReader m = root.At("metrics");
    if (!m.value().is_array() || m.value().empty()) {
      m.Fail("a non-empty list of balance, remap, throughput");
    }
    s->balance = s->remap = s->throughput = false;
    for (size_t i = 0; i < m.value().size(); ++i) {
      std::string v = m.At(i).Enum({"balance", "remap", "throughput"});
      (v == "balance" ? s->balance : v == "remap" ? s->remap : s->throughput) = true;
    }
  }
  if (root.Has("epsilon")) {
    s->epsilon = root.At("epsilon").Number(0.0, 10.0, true, "a number > 0 and <= 10");
  }
  if (root.Has("on_unsupported")) {
    std::string v = root.At("on_unsupported").Enum({"error", "skip", "rebuild"});
    s->on_unsupported = v == "error"  ? OnUnsupported::kError
                        : v == "skip" ? OnUnsupported::kSkip
                                      : OnUnsupported::kRebuild;
  }
  ReadOutput(root, s);
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

// "ring(hasher=md5,points_per_node=40)/n=10/workload.exponent=0.9".
std::string CaseId(const AlgorithmEntry& entry, const CaseSpec& c) {
  auto text = [](const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  std::string id(entry.spec->name);
  for (size_t k = 0; k < entry.params.size(); ++k) {
    const std::string name(entry.params[k]->name);
    id += k == 0 ? '(' : ',';
    id += name;
    id += '=';
    id += text(c.algorithm.shown[name]);
  }
  if (!entry.params.empty()) id += ')';
  for (auto it = c.axes.begin(); it != c.axes.end(); ++it) {
    id += '/';
    id += it.key() == "nodes.count" ? std::string("n") : it.key();
    id += '=';
    id += text(it.value());
  }
  return id;
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
  if (inserted) it->second = x.workload.spec->make(fields);
  return it->second;
}

std::shared_ptr<const NodePattern> CasePattern(Expansion& x, const std::string& pattern) {
  auto [it, inserted] = x.patterns.try_emplace(pattern);
  if (inserted) {
    it->second = std::make_shared<const NodePattern>(NodePattern::Compile(
        pattern.empty() ? kDefaultPattern : pattern, x.s->path + ": /nodes/pattern"));
  }
  return it->second;
}

// Fills the case's node, workload and axis values from one combination:
// axes [0, first_param) are nodes.count and nodes.pattern, then the entry's
// parameters, then the workload's axes.
std::vector<Json> ApplyAxes(Expansion& x, const std::vector<const SweepAxis*>& all,
                            const Odometer& o, size_t first_param, size_t first_workload,
                            CaseSpec* c) {
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
    } else {
      fields[all[k]->key] = v;
      if (all[k]->swept) c->axes["workload." + all[k]->key] = v;
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
    const std::vector<Json> params = ApplyAxes(x, all, o, first_param, first_workload, &c);
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

void ReadAlgorithms(const JsonReader& root, Expansion& x) {
  root.Require("algorithms", "a list of {\"algorithm\": name, parameters...}");
  JsonReader algs = root.At("algorithms");
  if (!algs.value().is_array() || algs.value().empty()) {
    algs.Fail("a non-empty list of {\"algorithm\": name, parameters...}");
  }
  for (size_t i = 0; i < algs.value().size(); ++i) {
    const JsonReader a = algs.At(i);
    ExpandEntry(x, ReadAlgorithmEntry(a), a);
  }
}

// The document with every default filled in.
Json Resolved(const Scenario& s, const Json& doc, const Json& default_workload) {
  Json r = doc;
  r["seed"] = std::to_string(s.seed);
  r["trials"] = s.trials;
  if (!doc.contains("workload")) r["workload"] = default_workload;
  if (s.node_file.empty()) {
    r["nodes"]["pattern"] = s.patterns.size() == 1 ? Json(s.patterns[0]) : Json(s.patterns);
    r["nodes"]["first_index"] = s.first_index;
    if (!doc["nodes"].contains("weights")) r["nodes"]["weights"] = "uniform";
  }
  if (!doc.contains("events")) r["events"] = Json::array();
  Json metrics = Json::array();
  if (s.balance) metrics.push_back("balance");
  if (s.remap) metrics.push_back("remap");
  if (s.throughput) metrics.push_back("throughput");
  r["metrics"] = metrics;
  r["epsilon"] = s.epsilon;
  r["on_unsupported"] = s.on_unsupported == OnUnsupported::kError  ? "error"
                        : s.on_unsupported == OnUnsupported::kSkip ? "skip"
                                                                   : "rebuild";
  r["output"] = {{"per_node", s.per_node == PerNode::kNone         ? "none"
                              : s.per_node == PerNode::kFirstTrial ? "first_trial"
                                                                   : "all"},
                 {"transitions", s.transitions}};
  r["throughput"] = {{"keys", s.throughput_keys},
                     {"min_time_ms", s.throughput_min_ms},
                     {"repetitions", s.throughput_repetitions}};
  return r;
}

Scenario ParseScenarioUnchecked(std::string_view text, const std::string& path,
                                std::optional<uint64_t> seed_override) {
  const Json doc = ParseJson(text, path);
  const Json default_workload = {{"type", "uniform"}, {"keys", 100000}, {"shape", "user:{n}"}};
  Scenario s;
  s.path = path;
  const JsonReader root(path, &doc, "");
  ReadHeader(root, seed_override, &s);
  ReadNodes(root, &s);
  Expansion x{&s, ReadWorkload(root, default_workload), {}, {}, {}, {}};
  ReadEvents(root, &s);
  ReadOptions(root, &s);
  ReadAlgorithms(root, x);
  // JSON Schema validation (the same schema Python validates against).
  const std::string schema_error = ValidateAgainstSchema(nlohmann::json::parse(doc.dump()));
  if (!schema_error.empty()) throw UsageError(path + ": " + schema_error);
  s.resolved = Resolved(s, doc, default_workload);
  return s;
}

}  // namespace

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
