#include "chsim/sim/scenario.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>

#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "chsim/ring.h"
#include "chsim/sim/errors.h"
#include "chsim/sim/key_shape.h"
#include "chsim/sim/node_pattern.h"
#include "chsim/sim/rng.h"
#include "chsim/sim/server_list.h"
#include "chsim/sim/text_file.h"

namespace chsim::sim {
namespace {

constexpr uint64_t kMaxNodes = 1'000'000;
constexpr uint64_t kMaxKeys = 1'000'000'000'000ULL;
constexpr uint64_t kMaxCases = 1'000'000;
constexpr uint64_t kMaxTableSize = uint64_t{1} << 28;  // maglev; about 2 GB to populate
// JSON nesting: a scenario needs 4 levels; deeper input is refused at parse
// time (a 10^5-deep array would overflow the stack of any recursive walk).
constexpr int kMaxDepth = 64;
constexpr char kDefaultPattern[] = "10.{i/65536%256}.{i/256%256}.{i%256}:11211";

std::string Show(const Json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::string EscapePointerToken(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t prev = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cur = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
      prev = cur;
    }
  }
  return row[b.size()];
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// A value in the scenario document with its JSON pointer, for typed reads
// whose errors name the file, the pointer, what was found and what is accepted.
class Reader {
 public:
  Reader(const std::string& file, const Json* value, std::string pointer)
      : file_(file), value_(value), pointer_(std::move(pointer)) {}

  const Json& value() const { return *value_; }
  const std::string& pointer() const { return pointer_; }
  std::string where() const { return file_ + ": " + (pointer_.empty() ? "/" : pointer_); }

  [[noreturn]] void Fail(const std::string& accepted) const {
    throw UsageError(where() + ": found " + Show(*value_) + "; accepted: " + accepted);
  }
  [[noreturn]] void FailMessage(const std::string& message) const {
    throw UsageError(where() + ": " + message);
  }

  // Requires an object whose keys are all in `allowed`.
  void Object(const std::vector<std::string>& allowed) const {
    if (!value_->is_object()) Fail("an object with keys " + JoinNames(allowed));
    for (auto it = value_->begin(); it != value_->end(); ++it) {
      if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
      std::string hint;
      for (const std::string& a : allowed) {
        if (EditDistance(a, it.key()) <= 2) hint = " (did you mean '" + a + "'?)";
      }
      throw UsageError(file_ + ": " + pointer_ + "/" + EscapePointerToken(it.key()) +
                       ": unknown key '" + it.key() + "'" + hint + "; accepted keys here: " +
                       JoinNames(allowed));
    }
  }
  bool Has(const std::string& key) const { return value_->contains(key); }
  Reader At(const std::string& key) const {
    return Reader(file_, &(*value_)[key], pointer_ + "/" + EscapePointerToken(key));
  }
  Reader At(size_t i) const {
    return Reader(file_, &(*value_)[i], pointer_ + "/" + std::to_string(i));
  }
  void Require(const std::string& key, const std::string& what) const {
    if (!Has(key)) {
      throw UsageError(where() + ": missing required key '" + key + "' (" + what + ")");
    }
  }

  uint64_t Uint(uint64_t min, uint64_t max) const {
    std::string accepted = "an integer " + std::to_string(min) + ".." + std::to_string(max);
    if (!value_->is_number_integer()) Fail(accepted);
    if (value_->is_number_unsigned()) {
      uint64_t v = value_->get<uint64_t>();
      if (v < min || v > max) Fail(accepted);
      return v;
    }
    int64_t v = value_->get<int64_t>();
    if (v < 0 || static_cast<uint64_t>(v) < min || static_cast<uint64_t>(v) > max) Fail(accepted);
    return static_cast<uint64_t>(v);
  }
  double Number(double min, double max, bool min_exclusive, const std::string& accepted) const {
    if (!value_->is_number()) Fail(accepted);
    double v = value_->get<double>();
    if (!(min_exclusive ? v > min : v >= min) || !(v <= max) || !std::isfinite(v)) Fail(accepted);
    return v;
  }
  std::string String(const std::string& accepted) const {
    if (!value_->is_string()) Fail(accepted);
    return value_->get<std::string>();
  }
  std::string Enum(const std::vector<std::string>& names) const {
    std::string accepted = "one of " + JoinNames(names);
    if (!value_->is_string()) Fail(accepted);
    std::string v = value_->get<std::string>();
    if (std::find(names.begin(), names.end(), v) == names.end()) Fail(accepted);
    return v;
  }
  bool Bool() const {
    if (!value_->is_boolean()) Fail("true or false");
    return value_->get<bool>();
  }
  // A value or a non-empty list of values (a sweep axis).
  template <typename F>
  auto List(F&& one) const -> std::vector<decltype(one(*this))> {
    std::vector<decltype(one(*this))> out;
    if (value_->is_array()) {
      if (value_->empty()) Fail("a value or a non-empty list of values");
      for (size_t i = 0; i < value_->size(); ++i) out.push_back(one(At(i)));
    } else {
      out.push_back(one(*this));
    }
    return out;
  }

 private:
  const std::string& file_;
  const Json* value_;
  std::string pointer_;
};

std::vector<std::string> HasherNames() {
  std::vector<std::string> names;
  for (const Hasher& h : AllHashers()) names.emplace_back(h.name);
  return names;
}

std::vector<std::string> AlgorithmNames() {
  std::vector<std::string> names;
  for (const AlgorithmInfo& a : AllAlgorithms()) names.emplace_back(a.name);
  names.emplace_back("ketama");
  return names;
}

// Parameters each algorithm reads (besides key_hasher); unknown registry
// algorithms accept every parameter.
std::vector<std::string> ParametersOf(const std::string& algorithm) {
  if (algorithm == "ketama") return {"profile", "hash_algorithm", "hasher"};
  if (algorithm == "ring") return {"hasher", "points_per_node", "key_hasher"};
  if (algorithm == "modulo" || algorithm == "jump") return {"key_hasher"};
  if (algorithm == "maglev") return {"hasher", "table_size", "key_hasher"};
  if (algorithm == "multi_probe") return {"hasher", "probes", "key_hasher"};
  if (algorithm == "bounded_load") {
    return {"hasher", "points_per_node", "balance_factor", "key_hasher"};
  }
  if (algorithm == "anchor") return {"hasher", "capacity", "key_hasher"};
  if (algorithm == "rendezvous" || algorithm == "memento") return {"hasher", "key_hasher"};
  return {kSweepParameterOrder, kSweepParameterOrder + std::size(kSweepParameterOrder)};
}

std::optional<Capabilities> CapabilitiesOf(const std::string& algorithm) {
  if (algorithm == "ketama") {
    return Capabilities{.weights = true,
                        .arbitrary_removal = true,
                        .lifo_removal = true,
                        .incremental = false,
                        .exact_shares = true,
                        .stateful = false};
  }
  for (const AlgorithmInfo& a : AllAlgorithms()) {
    if (a.name == algorithm) return a.capabilities;
  }
  return std::nullopt;
}

bool IsPrime(uint64_t n) {
  if (n < 2) return false;
  for (uint64_t d = 2; d * d <= n; ++d) {
    if (n % d == 0) return false;
  }
  return true;
}

std::string FormatNumber(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// One parameter value of an algorithm entry, checked.
Json ReadParameter(const std::string& algorithm, const std::string& key, const Reader& r) {
  static const std::vector<std::string> kHashers = HasherNames();
  if (key == "hasher" || key == "key_hasher") {
    if (algorithm == "ketama" && key == "hasher") return r.String("a hasher name");
    return r.Enum(kHashers);
  }
  if (key == "profile") {
    std::vector<std::string> names;
    for (const ProfileInfo& p : AllProfiles()) names.emplace_back(p.name);
    return r.Enum(names);
  }
  if (key == "hash_algorithm") return r.String("a spymemcached hash algorithm name");
  if (key == "points_per_node") return r.Uint(1, 100000);
  if (key == "table_size") {
    if (r.value().is_string()) {
      if (r.value().get<std::string>() != "auto") r.Fail("a prime 2..2^28 or \"auto\"");
      return "auto";
    }
    uint64_t v = r.Uint(2, kMaxTableSize);
    if (!IsPrime(v)) r.Fail("a prime (maglev's table size must be prime) or \"auto\"");
    return v;
  }
  if (key == "probes") return r.Uint(1, 10000);
  if (key == "balance_factor") {
    return r.Number(1.0, 100.0, true, "a number > 1 and <= 100");
  }
  if (key == "capacity") return r.Uint(0, uint64_t{1} << 31);
  r.Fail("a known parameter");
}

void ApplyParameter(const std::string& key, const Json& v, AlgorithmConfig* c) {
  if (key == "hasher") {
    if (c->name == "ketama") {
      c->key_hasher = v.get<std::string>();  // profile override, resolved below
    } else {
      c->params.hasher = v.get<std::string>();
    }
  } else if (key == "key_hasher") {
    c->key_hasher = v.get<std::string>();
  } else if (key == "profile") {
    c->profile = v.get<std::string>();
  } else if (key == "hash_algorithm") {
    c->hash_algorithm = v.get<std::string>();
  } else if (key == "points_per_node") {
    c->params.points_per_node = v.get<uint32_t>();
  } else if (key == "table_size") {
    if (v.is_string()) {
      c->table_size_auto = true;
    } else {
      c->params.table_size = v.get<uint64_t>();
    }
  } else if (key == "probes") {
    c->params.probes = v.get<uint32_t>();
  } else if (key == "balance_factor") {
    c->params.balance_factor = v.get<double>();
  } else if (key == "capacity") {
    c->params.capacity = v.get<uint32_t>();
  }
}

uint64_t ParseSeed(const Reader& r) {
  const char* accepted = "an integer 0..2^64-1, or a string of its decimal digits";
  if (r.value().is_string()) {
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
  return r.Uint(0, UINT64_MAX);
}

std::string ResolvePath(const std::string& scenario_path, const std::string& file) {
  std::filesystem::path p(file);
  if (p.is_absolute()) return file;
  std::filesystem::path base = std::filesystem::path(scenario_path).parent_path();
  return (base / p).lexically_normal().string();
}

struct Axis {
  std::string key;
  std::vector<Json> values;
  bool swept;  // given as a list
};

}  // namespace

std::string DefaultKeyHasher(const std::string& algorithm, const std::string& hasher) {
  if (algorithm == "ring" || algorithm == "multi_probe") return hasher;
  return "xxh3";
}

uint64_t AutoMaglevTableSize(uint64_t n) {
  uint64_t m = std::max<uint64_t>(65537, 100 * n);
  while (!IsPrime(m)) ++m;
  return m;
}

Scenario LoadScenario(const std::string& path, std::optional<uint64_t> seed_override) {
  return ParseScenario(ReadFileOrStdin(path, size_t{64} << 20), path, seed_override);
}

namespace {

// Messages are one line: control bytes a value or key may carry (a JSON
// "\n" in a key) are shown as \xNN, and a message is cut at 1000 bytes.
std::string OneLine(std::string_view message) {
  std::string out;
  for (unsigned char c : message) {
    if (out.size() >= 1000) return out + "...";
    if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

Scenario ParseScenarioUnchecked(std::string_view text, const std::string& path,
                                std::optional<uint64_t> seed_override);

}  // namespace

Scenario ParseScenario(std::string_view text, const std::string& path,
                       std::optional<uint64_t> seed_override) {
  try {
    return ParseScenarioUnchecked(text, path, seed_override);
  } catch (const UsageError& e) {
    throw UsageError(OneLine(e.what()));
  }
}

namespace {

Scenario ParseScenarioUnchecked(std::string_view text, const std::string& path,
                                std::optional<uint64_t> seed_override) {
  Json doc;
  try {
    doc = Json::parse(text.begin(), text.end(), [&path](int depth, Json::parse_event_t, Json&) {
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
    throw UsageError(path + ": not valid JSON: " +
                     (at == std::string::npos ? what : what.substr(at)));
  }
  Scenario s;
  s.path = path;
  Reader root(path, &doc, "");
  root.Object({"$schema", "schema_version", "name", "description", "seed", "trials", "nodes",
               "algorithms", "workload", "events", "metrics", "epsilon", "on_unsupported",
               "output", "throughput"});
  root.Require("schema_version", "the scenario format version, 1");
  if (root.At("schema_version").Uint(1, 1000) != kScenarioSchemaVersion) {
    root.At("schema_version").Fail("1 (this chsim reads scenario format 1)");
  }
  root.Require("name", "a short name for the scenario");
  s.name = root.At("name").String("a name of letters, digits, '.', '_' or '-'");
  if (s.name.empty() || s.name.size() > 100 ||
      s.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
          std::string::npos) {
    root.At("name").Fail("1..100 letters, digits, '.', '_' or '-'");
  }
  if (root.Has("description")) s.description = root.At("description").String("a string");
  if (root.Has("seed")) s.seed = ParseSeed(root.At("seed"));
  else s.seed = 1;
  if (seed_override) s.seed = *seed_override;
  if (root.Has("trials")) s.trials = static_cast<uint32_t>(root.At("trials").Uint(1, 10000));

  // Nodes.
  root.Require("nodes", "count and naming pattern, or a server-list file");
  Reader nodes = root.At("nodes");
  nodes.Object({"count", "pattern", "first_index", "weights", "file"});
  if (nodes.Has("file")) {
    for (const char* k : {"count", "pattern", "first_index", "weights"}) {
      if (nodes.Has(k)) {
        nodes.At(k).FailMessage(std::string("'") + k +
                                "' cannot be combined with 'file' (the file lists the nodes)");
      }
    }
    std::string file = nodes.At("file").String("a server-list file path");
    s.node_file = ResolvePath(path, file);
    ServerList list;
    try {
      list = LoadServerList(s.node_file);
    } catch (const UsageError& e) {
      throw UsageError(nodes.At("file").where() + ": " + e.what());
    }
    s.file_nodes = std::move(list.nodes);
    s.file_weighted = list.weighted;
    s.counts = {static_cast<uint32_t>(s.file_nodes.size())};
  } else {
    nodes.Require("count", "how many nodes, or a list of counts");
    s.counts = nodes.At("count").List(
        [](const Reader& r) { return static_cast<uint32_t>(r.Uint(1, kMaxNodes)); });
    if (nodes.Has("pattern")) {
      s.patterns = nodes.At("pattern").List([](const Reader& r) {
        std::string p = r.String("a naming pattern such as \"10.0.{i/256}.{i%256}:11211\"");
        NodePattern::Compile(p, r.where());
        return p;
      });
    } else {
      s.patterns = {kDefaultPattern};
    }
    if (nodes.Has("first_index")) {
      s.first_index = static_cast<uint32_t>(nodes.At("first_index").Uint(0, 1u << 30));
    }
    if (nodes.Has("weights")) {
      Reader w = nodes.At("weights");
      const char* accepted =
          "\"uniform\", a list of integer weights (one per node), {\"min\": A, \"max\": B} or "
          "{\"choice\": [w, ...]}";
      if (w.value().is_string()) {
        if (w.value().get<std::string>() != "uniform") w.Fail(accepted);
      } else if (w.value().is_array()) {
        s.weights.kind = WeightSpec::Kind::kExplicit;
        if (w.value().empty()) w.Fail(accepted);
        for (size_t i = 0; i < w.value().size(); ++i) {
          s.weights.values.push_back(static_cast<uint32_t>(w.At(i).Uint(1, 0x7fffffff)));
        }
        for (uint32_t c : s.counts) {
          if (c != s.weights.values.size()) {
            w.FailMessage("found " + std::to_string(s.weights.values.size()) +
                          " weights for " + std::to_string(c) +
                          " nodes; accepted: one weight per node");
          }
        }
      } else if (w.value().is_object()) {
        if (w.Has("choice")) {
          w.Object({"choice"});
          s.weights.kind = WeightSpec::Kind::kChoice;
          Reader c = w.At("choice");
          if (!c.value().is_array() || c.value().empty()) c.Fail("a non-empty list of weights");
          for (size_t i = 0; i < c.value().size(); ++i) {
            s.weights.values.push_back(static_cast<uint32_t>(c.At(i).Uint(1, 0x7fffffff)));
          }
        } else {
          w.Object({"min", "max"});
          w.Require("min", "smallest weight");
          w.Require("max", "largest weight");
          s.weights.kind = WeightSpec::Kind::kRandomUniform;
          s.weights.min = static_cast<uint32_t>(w.At("min").Uint(1, 0x7fffffff));
          s.weights.max = static_cast<uint32_t>(w.At("max").Uint(s.weights.min, 0x7fffffff));
        }
      } else {
        w.Fail(accepted);
      }
    }
  }
  bool weighted = s.file_weighted || s.weights.kind != WeightSpec::Kind::kUniform;

  // Workload.
  WorkloadConfig base;
  std::vector<Axis> workload_axes;
  {
    Json default_workload = {{"type", "uniform"}, {"keys", 100000}, {"shape", "user:{n}"}};
    Reader w = root.Has("workload") ? root.At("workload") : Reader(path, &default_workload, "/workload");
    if (!w.value().is_object()) w.Fail("an object with a \"type\"");
    w.Require("type", "uniform, sequential, zipf or file");
    std::string type = w.At("type").Enum({"uniform", "sequential", "zipf", "file"});
    auto shape_axis = [&](const char* def) {
      Axis a{"shape", {}, w.Has("shape") && w.At("shape").value().is_array()};
      if (w.Has("shape")) {
        for (auto& v : w.At("shape").List([](const Reader& r) {
               std::string shape = r.String("a key shape such as \"user:{n}\"");
               KeyShape::Compile(shape, r.where());
               return shape;
             })) {
          a.values.push_back(v);
        }
      } else {
        a.values.push_back(def);
      }
      workload_axes.push_back(a);
    };
    auto keys_axis = [&](uint64_t min) {
      w.Require("keys", "how many keys");
      Axis a{"keys", {}, w.At("keys").value().is_array()};
      for (uint64_t k : w.At("keys").List([&](const Reader& r) { return r.Uint(min, kMaxKeys); })) {
        a.values.push_back(k);
      }
      workload_axes.push_back(a);
    };
    if (type == "uniform") {
      w.Object({"type", "keys", "shape"});
      base.type = WorkloadConfig::Type::kUniform;
      shape_axis("user:{n}");
      keys_axis(0);
    } else if (type == "sequential") {
      w.Object({"type", "keys", "shape", "start", "step"});
      base.type = WorkloadConfig::Type::kSequential;
      shape_axis("user:{i}");
      keys_axis(0);
      if (w.Has("start")) base.start = w.At("start").Uint(0, UINT64_MAX / 2);
      if (w.Has("step")) base.step = w.At("step").Uint(1, 1u << 30);
    } else if (type == "zipf") {
      w.Object({"type", "keys", "requests", "exponent", "shape"});
      base.type = WorkloadConfig::Type::kZipf;
      shape_axis("user:{i}");
      keys_axis(1);
      w.Require("requests", "how many requests to draw");
      base.requests = w.At("requests").Uint(1, kMaxKeys);
      w.Require("exponent", "Zipf exponent s > 0");
      Axis a{"exponent", {}, w.At("exponent").value().is_array()};
      for (double e : w.At("exponent").List([](const Reader& r) {
             return r.Number(0.0, 20.0, true, "a number > 0 and <= 20");
           })) {
        a.values.push_back(e);
      }
      workload_axes.push_back(a);
    } else {
      w.Object({"type", "path", "weighted"});
      base.type = WorkloadConfig::Type::kFile;
      w.Require("path", "a key file, one key per line");
      base.path = ResolvePath(path, w.At("path").String("a file path"));
      if (!std::filesystem::is_regular_file(base.path)) {
        w.At("path").FailMessage("found " + Quote(w.At("path").value().get<std::string>()) +
                                 ", which is not a readable file (resolved to " +
                                 Quote(base.path) + "); accepted: a key file");
      }
      if (w.Has("weighted")) base.weighted = w.At("weighted").Bool();
    }
  }

  // Events.
  if (root.Has("events")) {
    Reader ev = root.At("events");
    if (!ev.value().is_array()) ev.Fail("a list of events");
    for (size_t i = 0; i < ev.value().size(); ++i) {
      Reader e = ev.At(i);
      if (!e.value().is_object()) e.Fail("an object with an \"op\"");
      e.Require("op", "add, remove, fail, reweight or restore");
      std::string op = e.At("op").Enum({"add", "remove", "fail", "reweight", "restore"});
      EventSpec spec;
      spec.pointer = e.pointer();
      auto read_nodes = [&](const Reader& r) {
        if (!r.value().is_array() || r.value().empty()) r.Fail("a non-empty list of node labels");
        for (size_t j = 0; j < r.value().size(); ++j) {
          spec.nodes.push_back(r.At(j).String("a node label"));
        }
      };
      auto selection = [&](bool allow_last) {
        int given = e.Has("nodes") + e.Has("random") + (allow_last && e.Has("last"));
        if (given != 1) {
          e.FailMessage(std::string("found ") + std::to_string(given) +
                        " selections; accepted: exactly one of \"nodes\": [labels], "
                        "\"random\": count" +
                        (allow_last ? ", \"last\": count" : ""));
        }
        if (e.Has("nodes")) {
          spec.select = EventSpec::Select::kNamed;
          read_nodes(e.At("nodes"));
        } else if (e.Has("random")) {
          spec.select = EventSpec::Select::kRandom;
          spec.count = static_cast<uint32_t>(e.At("random").Uint(1, kMaxNodes));
        } else {
          spec.select = EventSpec::Select::kLast;
          spec.count = static_cast<uint32_t>(e.At("last").Uint(1, kMaxNodes));
        }
      };
      if (op == "add") {
        e.Object({"op", "count", "nodes", "weight"});
        spec.op = EventSpec::Op::kAdd;
        if (e.Has("nodes") == e.Has("count")) {
          e.FailMessage("accepted: exactly one of \"count\": k (named by the pattern) or "
                        "\"nodes\": [labels]");
        }
        if (e.Has("count")) {
          spec.count = static_cast<uint32_t>(e.At("count").Uint(1, kMaxNodes));
          spec.label = "add " + std::to_string(spec.count);
        } else {
          spec.select = EventSpec::Select::kNamed;
          read_nodes(e.At("nodes"));
          spec.label = "add " + JoinNames(spec.nodes);
        }
        if (e.Has("weight")) spec.weight = static_cast<uint32_t>(e.At("weight").Uint(1, 0x7fffffff));
      } else if (op == "remove") {
        e.Object({"op", "nodes", "random", "last"});
        spec.op = EventSpec::Op::kRemove;
        selection(true);
      } else if (op == "fail") {
        e.Object({"op", "fraction"});
        spec.op = EventSpec::Op::kFail;
        e.Require("fraction", "share of live nodes that fail, 0 < f < 1");
        spec.fraction = e.At("fraction").Number(0.0, 1.0, true, "a number > 0 and < 1");
        if (spec.fraction >= 1.0) e.At("fraction").Fail("a number > 0 and < 1");
        spec.label = "fail " + FormatNumber(e.At("fraction").value());
      } else if (op == "reweight") {
        e.Object({"op", "nodes", "random", "weight"});
        spec.op = EventSpec::Op::kReweight;
        selection(false);
        e.Require("weight", "the new weight");
        spec.weight = static_cast<uint32_t>(e.At("weight").Uint(1, 0x7fffffff));
      } else {
        e.Object({"op"});
        spec.op = EventSpec::Op::kRestore;
        spec.label = "restore";
      }
      if (spec.label.empty()) {
        spec.label = op + " ";
        if (spec.select == EventSpec::Select::kNamed) spec.label += JoinNames(spec.nodes);
        if (spec.select == EventSpec::Select::kRandom) spec.label += "random " + std::to_string(spec.count);
        if (spec.select == EventSpec::Select::kLast) spec.label += "last " + std::to_string(spec.count);
        if (spec.op == EventSpec::Op::kReweight) spec.label += " to " + std::to_string(spec.weight);
      }
      s.events.push_back(std::move(spec));
    }
  }

  // Metrics and options.
  if (root.Has("metrics")) {
    Reader m = root.At("metrics");
    if (!m.value().is_array() || m.value().empty()) m.Fail("a non-empty list of balance, remap, throughput");
    s.balance = s.remap = s.throughput = false;
    for (size_t i = 0; i < m.value().size(); ++i) {
      std::string v = m.At(i).Enum({"balance", "remap", "throughput"});
      (v == "balance" ? s.balance : v == "remap" ? s.remap : s.throughput) = true;
    }
  }
  if (root.Has("epsilon")) {
    s.epsilon = root.At("epsilon").Number(0.0, 10.0, true, "a number > 0 and <= 10");
  }
  if (root.Has("on_unsupported")) {
    std::string v = root.At("on_unsupported").Enum({"error", "skip", "rebuild"});
    s.on_unsupported = v == "error" ? OnUnsupported::kError
                       : v == "skip" ? OnUnsupported::kSkip
                                     : OnUnsupported::kRebuild;
  }
  if (root.Has("output")) {
    Reader o = root.At("output");
    o.Object({"per_node", "transitions"});
    if (o.Has("per_node")) {
      std::string v = o.At("per_node").Enum({"none", "first_trial", "all"});
      s.per_node = v == "none" ? PerNode::kNone : v == "all" ? PerNode::kAll : PerNode::kFirstTrial;
    }
    if (o.Has("transitions")) s.transitions = o.At("transitions").Bool();
  }
  if (root.Has("throughput")) {
    Reader t = root.At("throughput");
    t.Object({"keys", "min_time_ms", "repetitions"});
    if (t.Has("keys")) s.throughput_keys = static_cast<uint32_t>(t.At("keys").Uint(16, 1u << 24));
    if (t.Has("min_time_ms")) s.throughput_min_ms = static_cast<uint32_t>(t.At("min_time_ms").Uint(1, 60000));
    if (t.Has("repetitions")) s.throughput_repetitions = static_cast<uint32_t>(t.At("repetitions").Uint(1, 100));
  }

  // Algorithms, expanded with the node and workload axes into cases.
  root.Require("algorithms", "a list of {\"algorithm\": name, parameters...}");
  Reader algs = root.At("algorithms");
  if (!algs.value().is_array() || algs.value().empty()) {
    algs.Fail("a non-empty list of {\"algorithm\": name, parameters...}");
  }
  const std::vector<std::string> algorithm_names = AlgorithmNames();
  std::set<std::string> ids;
  bool has_removal = false, has_middle_removal = false;
  for (const EventSpec& e : s.events) {
    if (e.op == EventSpec::Op::kRemove || e.op == EventSpec::Op::kFail ||
        e.op == EventSpec::Op::kReweight) {
      has_removal = true;
      if (e.select != EventSpec::Select::kLast) has_middle_removal = true;
    }
  }
  for (size_t ai = 0; ai < algs.value().size(); ++ai) {
    Reader a = algs.At(ai);
    if (!a.value().is_object()) a.Fail("an object {\"algorithm\": name, parameters...}");
    a.Require("algorithm", "one of " + JoinNames(algorithm_names));
    std::string name = a.At("algorithm").Enum(algorithm_names);
    std::vector<std::string> allowed = ParametersOf(name);
    std::vector<std::string> keys = {"algorithm"};
    keys.insert(keys.end(), allowed.begin(), allowed.end());
    a.Object(keys);
    if (name == "ketama" && !a.Has("profile")) a.Require("profile", "a compatibility profile");
    std::vector<Axis> param_axes;
    for (std::string_view key : kSweepParameterOrder) {
      std::string k(key);
      if (!a.Has(k)) continue;
      Axis axis{k, {}, a.At(k).value().is_array()};
      for (Json v : a.At(k).List([&](const Reader& r) { return ReadParameter(name, k, r); })) {
        axis.values.push_back(std::move(v));
      }
      param_axes.push_back(std::move(axis));
    }
    // Static capability checks: asked before anything runs.
    std::optional<Capabilities> caps = CapabilitiesOf(name);
    if (caps && s.on_unsupported == OnUnsupported::kError) {
      if (weighted && !caps->weights) {
        a.FailMessage(name + " does not support weights and the nodes are weighted; accepted: "
                      "an algorithm with weights (chsim list), or \"on_unsupported\": \"skip\"");
      }
      if (has_middle_removal && !caps->arbitrary_removal) {
        a.FailMessage(name + " can only remove the last node added, and the events remove others; "
                      "accepted: \"on_unsupported\": \"rebuild\" (rebuild over the survivors, "
                      "renumbering them) or \"skip\"");
      }
      if (has_removal && !caps->arbitrary_removal && !caps->lifo_removal) {
        a.FailMessage(name + " cannot remove nodes; accepted: \"on_unsupported\": \"rebuild\" or \"skip\"");
      }
    }
    // Cartesian product: nodes.count, nodes.pattern, parameters, workload axes.
    std::vector<Axis> all;
    all.push_back(Axis{"nodes.count", {}, s.counts.size() > 1});
    for (uint32_t c : s.counts) all.back().values.push_back(c);
    if (!s.patterns.empty()) {
      all.push_back(Axis{"nodes.pattern", {}, s.patterns.size() > 1});
      for (const std::string& p : s.patterns) all.back().values.push_back(p);
    }
    size_t first_param = all.size();
    all.insert(all.end(), param_axes.begin(), param_axes.end());
    size_t first_workload = all.size();
    all.insert(all.end(), workload_axes.begin(), workload_axes.end());
    // Refuse an absurd sweep before expanding it.
    uint64_t product = 1;
    for (const Axis& axis : all) {
      product = std::min<uint64_t>(product * axis.values.size(), kMaxCases + 1);
    }
    if (s.cases.size() + product > kMaxCases) {
      a.FailMessage("the sweep makes more than 1,000,000 cases; accepted: at most 1,000,000 cases "
                    "in all (split the sweep)");
    }
    std::vector<size_t> pos(all.size(), 0);
    for (;;) {
      CaseSpec c;
      c.pointer = a.pointer();
      c.algorithm.name = name;
      c.algorithm.shown = Json::object();
      c.axes = Json::object();
      c.workload = base;
      c.workload.shown = Json::object();
      for (size_t k = 0; k < all.size(); ++k) {
        const Json& v = all[k].values[pos[k]];
        if (k < first_param) {
          if (all[k].key == "nodes.count") c.nodes = v.get<uint32_t>();
          else c.pattern = v.get<std::string>();
          if (all[k].swept || all[k].key == "nodes.count") c.axes[all[k].key] = v;
        } else if (k < first_workload) {
          ApplyParameter(all[k].key, v, &c.algorithm);
          c.algorithm.shown[all[k].key] = v;
        } else {
          if (all[k].key == "shape") c.workload.shape = v.get<std::string>();
          if (all[k].key == "keys") c.workload.keys = v.get<uint64_t>();
          if (all[k].key == "exponent") c.workload.exponent = v.get<double>();
          if (all[k].swept) c.axes["workload." + all[k].key] = v;
        }
      }
      // Resolve defaults the results should show.
      if (name == "ketama") {
        ProfileOptions options{c.algorithm.hash_algorithm, c.algorithm.key_hasher};
        try {
          Profile p = MakeProfile(c.algorithm.profile, options);
          c.algorithm.key_hasher = std::string(p.key_hasher->name);
        } catch (const std::invalid_argument& e) {
          a.FailMessage(e.what());
        }
      } else {
        for (const std::string& k : allowed) {
          if (c.algorithm.shown.contains(k) || k == "key_hasher") continue;
          if (k == "hasher") c.algorithm.shown[k] = c.algorithm.params.hasher;
          if (k == "points_per_node") c.algorithm.shown[k] = c.algorithm.params.points_per_node;
          if (k == "table_size") c.algorithm.shown[k] = c.algorithm.params.table_size;
          if (k == "probes") c.algorithm.shown[k] = c.algorithm.params.probes;
          if (k == "balance_factor") c.algorithm.shown[k] = c.algorithm.params.balance_factor;
          if (k == "capacity") c.algorithm.shown[k] = c.algorithm.params.capacity;
        }
        if (c.algorithm.key_hasher.empty()) {
          c.algorithm.key_hasher = DefaultKeyHasher(name, c.algorithm.params.hasher);
        }
        if (c.algorithm.table_size_auto) {
          c.algorithm.params.table_size = AutoMaglevTableSize(c.nodes);
        }
      }
      if ((name == "ring" || name == "bounded_load") &&
          uint64_t{c.nodes} * c.algorithm.params.points_per_node > Ring::kMaxPoints) {
        a.FailMessage(std::to_string(c.nodes) + " nodes x " +
                      std::to_string(c.algorithm.params.points_per_node) +
                      " points per node is more than the " + std::to_string(Ring::kMaxPoints) +
                      " points a ring can hold; accepted: nodes x points_per_node <= 2^28");
      }
      c.algorithm.shown["key_hasher"] = c.algorithm.key_hasher;
      if (c.algorithm.table_size_auto) c.algorithm.shown["table_size"] = c.algorithm.params.table_size;
      // The id: algorithm(param=value,...)/axis=value...
      std::string id = name + "(";
      bool first = true;
      for (std::string_view key : kSweepParameterOrder) {
        std::string k(key);
        if (!a.Has(k)) continue;
        id += (first ? "" : ",") + k + "=" + FormatNumber(c.algorithm.shown[k]);
        first = false;
      }
      id += ")";
      if (first) id.resize(id.size() - 2);  // no parameters: "jump", not "jump()"
      for (auto it = c.axes.begin(); it != c.axes.end(); ++it) {
        std::string key = it.key() == "nodes.count" ? "n" : it.key();
        id += "/" + key + "=" + FormatNumber(it.value());
      }
      if (!ids.insert(id).second) {
        a.FailMessage("two cases have the same id '" + id +
                      "'; accepted: algorithm entries that differ in some parameter");
      }
      c.id = id;
      c.seed = Derive(s.seed, Tag(id));
      c.algorithm.params.seed = c.seed;
      c.workload.shown["type"] = base.type == WorkloadConfig::Type::kUniform      ? "uniform"
                                 : base.type == WorkloadConfig::Type::kSequential ? "sequential"
                                 : base.type == WorkloadConfig::Type::kZipf       ? "zipf"
                                                                                  : "file";
      c.index = s.cases.size();
      s.cases.push_back(std::move(c));
      // Next combination (last axis fastest).
      size_t k = all.size();
      while (k > 0) {
        --k;
        if (++pos[k] < all[k].values.size()) break;
        pos[k] = 0;
        if (k == 0) goto done;
      }
    }
  done:;
  }
  if (s.cases.size() > 1'000'000) root.FailMessage("more than 1,000,000 cases; split the sweep");

  // JSON Schema validation (the same schema Python validates against).
  std::string schema_error = ValidateAgainstSchema(nlohmann::json::parse(doc.dump()));
  if (!schema_error.empty()) throw UsageError(path + ": " + schema_error);

  // The resolved scenario: the document with defaults filled in.
  s.resolved = doc;
  s.resolved["seed"] = std::to_string(s.seed);
  s.resolved["trials"] = s.trials;
  if (!doc.contains("workload")) {
    s.resolved["workload"] = {{"type", "uniform"}, {"keys", 100000}, {"shape", "user:{n}"}};
  }
  if (s.node_file.empty()) {
    s.resolved["nodes"]["pattern"] = s.patterns.size() == 1 ? Json(s.patterns[0]) : Json(s.patterns);
    s.resolved["nodes"]["first_index"] = s.first_index;
    if (!doc["nodes"].contains("weights")) s.resolved["nodes"]["weights"] = "uniform";
  }
  if (!doc.contains("events")) s.resolved["events"] = Json::array();
  Json metrics = Json::array();
  if (s.balance) metrics.push_back("balance");
  if (s.remap) metrics.push_back("remap");
  if (s.throughput) metrics.push_back("throughput");
  s.resolved["metrics"] = metrics;
  s.resolved["epsilon"] = s.epsilon;
  s.resolved["on_unsupported"] = s.on_unsupported == OnUnsupported::kError  ? "error"
                                 : s.on_unsupported == OnUnsupported::kSkip ? "skip"
                                                                            : "rebuild";
  s.resolved["output"] = {{"per_node", s.per_node == PerNode::kNone       ? "none"
                                       : s.per_node == PerNode::kFirstTrial ? "first_trial"
                                                                            : "all"},
                          {"transitions", s.transitions}};
  s.resolved["throughput"] = {{"keys", s.throughput_keys},
                              {"min_time_ms", s.throughput_min_ms},
                              {"repetitions", s.throughput_repetitions}};
  return s;
}

}  // namespace

}  // namespace chsim::sim
