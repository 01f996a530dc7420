// SPDX-License-Identifier: Apache-2.0
// chsim.profiles() ... chsim.metrics() (read from the registries through
// sim::Catalog), chsim.hash, and chsim.theory: the balance theory the
// simulator writes as theory.* rows and tune starts from.
#include "sim/results/catalog.h"

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "sim/base/stats.h"
#include "sim/python/bind.h"
#include "sim/scenario/case_id.h"
#include "sim/tune/tune.h"

namespace chsim::python {
namespace {

using namespace pybind11::literals;

py::object CatalogPart(const char* part) { return ToPython(sim::Catalog()[part]); }

py::object Hash(py::handle name, py::handle keys) {
  const Hasher& hasher = GetHasher(ReadString(name, "name"));
  if (PyUnicode_Check(keys.ptr()) || PyBytes_Check(keys.ptr())) {
    return py::int_(hasher(KeyBytes(keys, "keys")));
  }
  const Keys k(keys);
  py::array_t<uint64_t> out(static_cast<py::ssize_t>(k.size()));
  uint64_t* o = out.mutable_data();
  {
    py::gil_scoped_release release;
    ForEachBlock(k, [&](size_t begin, std::span<const std::string_view> block) {
      HashBatch(hasher, block, {o + begin, block.size()});
    });
  }
  return out;
}

// Arguments of the theory functions: v > 0, n >= 1, 0 < q < 1.
double Points(py::handle v) {
  const double x = ReadNumber(v, "points_per_node");
  if (!(x > 0) || !std::isfinite(x)) {
    throw std::invalid_argument("points_per_node must be a finite number > 0 (found " +
                                std::string(py::str(v)) + ")");
  }
  return x;
}

double Nodes(py::handle n) {
  const double x = ReadNumber(n, "nodes");
  if (!(x >= 1) || !std::isfinite(x)) {
    throw std::invalid_argument("nodes must be a finite number >= 1 (found " +
                                std::string(py::str(n)) + ")");
  }
  return x;
}

double Probability(py::handle q, const char* what) {
  const double x = ReadNumber(q, what);
  if (!(x > 0 && x < 1)) {
    throw std::invalid_argument(std::string(what) + " must be a number in (0, 1) (found " +
                                std::string(py::str(q)) + ")");
  }
  return x;
}

void BindTheory(py::module_& m) {
  py::module_ t = m.def_submodule("theory", R"(The balance theory of a Ketama ring.

A node of a ring with v random points per node owns a share whose ratio to the mean is
Gamma(v, 1/v) (Karger et al. 1997): its arcs are v exponential spacings. By Wilson &
Hilferty (1931), (X)^(1/3) is about Normal(1 - a, a) with a = 1/(9v). These are the
figures chsim writes beside measured ones (theory.* rows) and tune starts from.)");
  t.def(
      "cv", [](py::handle v) { return sim::RingTheoryFor(Points(v), 1).cv; },
      py::arg("points_per_node"),
      "Relative standard deviation of a node's load: 1/sqrt(v) (theory.cv rows).");
  t.def(
      "max_over_mean",
      [](py::handle n, py::handle v) {
        return sim::RingTheoryFor(Points(v), Nodes(n)).max_over_mean;
      },
      py::arg("nodes"), py::arg("points_per_node"),
      "Expected largest load / mean over n nodes: 1 + sqrt(2 ln n / v) (theory.max_over_mean "
      "rows).");
  t.def(
      "wh_quantile",
      [](py::handle v, py::handle q) { return sim::WhQuantile(Points(v), Probability(q, "q")); },
      py::arg("points_per_node"), py::arg("q"),
      "The q-quantile of one node's load / mean (Wilson-Hilferty); q = 0.005 and 0.995 give the "
      "theory.wh99_low and theory.wh99_high rows.");
  t.def(
      "max_ratio_quantile",
      [](py::handle n, py::handle v, py::handle q) {
        return sim::MaxRatioQuantile(Nodes(n), Points(v), Probability(q, "q"));
      },
      py::arg("nodes"), py::arg("points_per_node"), py::arg("q"),
      "The q-quantile of the largest of n nodes' load / mean, the nodes taken as independent: "
      "wh_quantile(v, q ** (1 / n)).");
  t.def(
      "cv_quantile",
      [](py::handle n, py::handle v, py::handle q) {
        return sim::CvQuantile(Nodes(n), Points(v), Probability(q, "q"));
      },
      py::arg("nodes"), py::arg("points_per_node"), py::arg("q"),
      "The q-quantile of the CV of the loads across n nodes (normal approximation of a sample "
      "standard deviation, Gamma(v)'s kurtosis included).");
  t.def(
      "points_for_target",
      [](py::handle n, py::handle target, py::handle confidence, py::handle keys_per_node) {
        const uint64_t nodes = ReadUint(n, "nodes", 1, UINT32_MAX);
        const double t = ReadNumber(target, "max_over_mean");
        const double c = Probability(confidence, "confidence");
        const double k = ReadNumber(keys_per_node, "keys_per_node");
        if (!(t > 1)) {
          throw std::invalid_argument("max_over_mean must be a number > 1 (found " +
                                      std::string(py::str(target)) + ")");
        }
        return sim::AnalyticPoints(static_cast<uint32_t>(nodes), t, c, std::max(0.0, k));
      },
      py::arg("nodes"), py::arg("max_over_mean"), py::arg("confidence") = 0.95,
      py::arg("keys_per_node") = 0,
      "The least points per node v (continuous) with P(max/mean <= target) >= confidence in the "
      "Wilson-Hilferty model, sampling noise of keys_per_node keys included when > 0; inf when "
      "no v reaches it. chsim tune's analytic first guess (answer.analytic_points).");
}

// A dict's items as JSON values, in its order.
std::vector<std::pair<std::string, sim::Json>> JsonItems(py::handle dict, const char* what) {
  std::vector<std::pair<std::string, sim::Json>> out;
  if (dict.is_none()) return out;
  if (!PyDict_Check(dict.ptr())) {
    throw TypeError(std::string(what) + " must be a dict (found " + TypeName(dict) + ")");
  }
  py::object dumps = py::module_::import("json").attr("dumps");
  for (auto [key, value] : py::reinterpret_borrow<py::dict>(dict)) {
    const std::string k = ReadString(key, std::string(what) + " key");
    out.emplace_back(k, sim::Json::parse(dumps(value).cast<std::string>()));
  }
  return out;
}

py::dict PartsDict(const sim::CaseIdParts& parts) {
  py::dict params, axes;
  for (const auto& [k, v] : parts.params) params[Text(k)] = ToPython(v);
  for (const auto& [k, v] : parts.axes) axes[Text(k)] = ToPython(v);
  return py::dict("algorithm"_a = Text(parts.algorithm), "params"_a = params, "axes"_a = axes);
}

std::string CaseId(py::handle algorithm, py::handle params, py::handle axes) {
  sim::CaseIdParts parts{ReadString(algorithm, "algorithm"), JsonItems(params, "params"),
                         JsonItems(axes, "axes")};
  const AlgorithmSpec& spec = GetAlgorithm(parts.algorithm);
  std::vector<std::pair<std::string, sim::Json>> ordered;  // the spec's order, as scenarios give
  for (const ParamSpec& p : spec.params) {
    for (const auto& item : parts.params) {
      if (item.first == p.name) ordered.push_back(item);
    }
  }
  for (const auto& [name, value] : parts.params) {
    if (!spec.FindParam(name)) {
      throw std::invalid_argument(parts.algorithm + " has no parameter '" + name + "'");
    }
  }
  parts.params = std::move(ordered);
  return sim::FormatCaseId(parts);
}

std::string CaseLabel(py::handle case_id, py::handle drop) {
  std::vector<std::string> names;
  for (py::handle d : py::reinterpret_borrow<py::iterable>(drop)) {
    names.push_back(ReadString(d, "drop"));
  }
  return sim::CaseLabel(sim::ParseCaseId(ReadString(case_id, "case_id")), names);
}

}  // namespace

void BindCatalog(py::module_& m) {
  m.def(
      "profiles", [] { return CatalogPart("profiles"); },
      "The Ketama client profiles Ring reproduces, as dicts: name, description, key_hasher, "
      "point_hasher, points_per_node, points_per_hash, lookup, ties, duplicates.");
  m.def(
      "hashers", [] { return CatalogPart("hashers"); },
      "The hashers (chsim.hash, key_hasher, hasher parameters), as dicts: name, description, "
      "bits.");
  m.def(
      "algorithms", [] { return CatalogPart("algorithms"); },
      "The registered algorithms, as dicts (the entries of `chsim list --json`): name, summary, "
      "paper, year, capabilities, memory, balance_bound, default_key_hasher, replica_strategies "
      "(the names of those that apply), and parameters "
      "(name, type, doc, default, minimum/maximum or choices, rule, auto, sweepable, accepted).");
  m.def(
      "replica_strategies", [] { return CatalogPart("replica_strategies"); },
      "The replica strategies (how a key's copies are chosen: `chsim locate --replicas K "
      "--strategy NAME`), as dicts: name, summary, paper, year, applies_to, algorithms (the names "
      "it applies to), domain_rule (None: it does not place by failure domain), minimal, "
      "short_results, reads_map (it reads a CRUSH map), parameters.");
  m.def(
      "topology", [] { return CatalogPart("topology"); },
      "The failure-domain model (`chsim list --json`'s \"topology\"): levels (innermost first: "
      "name, scenario_field, server_list_column, within: the level it nests in), rules, "
      "server_list, generated, domain_failure.");
  m.def(
      "workloads", [] { return CatalogPart("workloads"); },
      "The scenario workload types, as dicts: name, doc, unit (what one of its units is), "
      "fields (the rows of the scenario's \"workload\" object: name, type, doc, limits).");
  m.def(
      "metrics", [] { return CatalogPart("metrics"); },
      "The metrics result rows hold, as dicts: name, unit, group (the scenario \"metrics\" entry "
      "that selects it), deterministic, meaning.");
  m.def("hash", &Hash, py::arg("name"), py::arg("keys"),
        R"(Hashes keys with a registered hasher (chsim.hashers()).

keys: one key (str, as UTF-8, or bytes) -> an int; or a list, tuple or numpy array of keys
(as Algorithm.locate_batch takes them) -> a numpy uint64 array. 32-bit hashers give values
below 2^32. Runs without the GIL.)");
  m.def("case_id", &CaseId, py::arg("algorithm"), py::arg("params") = py::none(),
        py::arg("axes") = py::none(),
        R"(The id chsim gives a scenario case: the algorithm, the parameters its entry gives
(dict; written in the spec's order) and the case's axes (dict: "nodes.count", swept
"nodes.pattern" and "workload.*" values, in order): "ring(hasher=md5,points_per_node=40)/n=10".
Result files, shard merging and seeds key on it.)");
  m.def(
      "parse_case_id",
      [](py::handle id) { return PartsDict(sim::ParseCaseId(ReadString(id, "case_id"))); },
      py::arg("case_id"),
      "A case id read back: {\"algorithm\", \"params\" (typed by the algorithm's spec), \"axes\" "
      "(\"nodes.count\" for n; values that read as numbers are numbers)}. Raises ValueError for an "
      "id of another form or an unknown algorithm or parameter.");
  m.def("case_label", &CaseLabel, py::arg("case_id"), py::arg("drop") = py::tuple(),
        "The short name figures give a case: its algorithm and the parameters its id names, "
        "hashers and profiles bare, points per node as v=, table size as M=, balance factor as "
        "c= (each parameter's spec says how), those in `drop` left out: "
        "'ring(hasher=md5,points_per_node=40)/n=10' -> 'ring(md5, v=40)'.");
  BindTheory(m);
}

}  // namespace chsim::python
