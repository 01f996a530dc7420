// SPDX-License-Identifier: Apache-2.0
// chsim.validate, chsim.run (the package's Python layer wraps its text into
// Results) and chsim.tune: the simulator's commands, stoppable with Ctrl-C.
#include <thread>

#include "chsim/profile.h"
#include "sim/base/errors.h"
#include "sim/base/thread_pool.h"
#include "sim/python/bind.h"
#include "sim/results/results.h"
#include "sim/run/plan.h"
#include "sim/run/run_document.h"
#include "sim/scenario/scenario.h"
#include "sim/tune/tune_command.h"

namespace chsim::python {
namespace {

using namespace pybind11::literals;

// A dict as the JSON text of a scenario: numpy scalars become Python numbers.
std::string DictJson(py::handle scenario) {
  py::object numpy_generic = py::module_::import("numpy").attr("generic");
  py::cpp_function plain([numpy_generic](py::handle o) -> py::object {
    if (py::isinstance(o, numpy_generic)) return o.attr("item")();
    throw TypeError("scenario: found " + TypeName(o) +
                    "; accepted: JSON values (dict, list, str, "
                    "int, float, bool, None)");
  });
  return py::module_::import("json")
      .attr("dumps")(scenario, "default"_a = plain)
      .cast<std::string>();
}

// The scenario of a dict ("<dict>" in messages; relative paths in it are taken
// from the working directory) or of a file. Throws ScenarioError.
sim::Scenario ReadScenario(py::handle scenario, py::handle seed, std::string* source) {
  std::optional<uint64_t> seed_override;
  if (!seed.is_none()) seed_override = ReadUint(seed, "seed", 0, UINT64_MAX);
  try {
    if (PyDict_Check(scenario.ptr())) {
      *source = "<dict>";
      return sim::ParseScenario(DictJson(scenario), *source, seed_override);
    }
    if (IsPath(scenario)) {
      *source = FsPath(scenario);
      return sim::LoadScenario(*source, seed_override);
    }
  } catch (const sim::UsageError& e) {
    throw ScenarioError(e.what());
  }
  throw TypeError("scenario: found " + TypeName(scenario) +
                  "; accepted: a dict or the path of a scenario file");
}

unsigned ReadThreads(py::handle threads) {
  if (threads.is_none()) return sim::DefaultThreads();
  return static_cast<unsigned>(ReadUint(threads, "threads", 1, 1024));
}

py::dict Validate(py::handle scenario, py::handle seed, py::handle force, py::handle threads) {
  std::string source;
  const sim::Scenario s = ReadScenario(scenario, seed, &source);
  const sim::PlanOptions options{ReadThreads(threads), {}, ReadBool(force, "force")};
  const std::vector<sim::CasePlan> plan = RunInterruptible(
      [&] {
        try {
          return sim::PlanScenario(s, options);
        } catch (const sim::UsageError& e) {
          throw ScenarioError(e.what());
        }
      },
      [] { return std::string("chsim.validate: interrupted"); });
  py::list skipped;
  for (size_t i = 0; i < plan.size(); ++i) {
    if (plan[i].skipped) {
      skipped.append(
          py::dict("case_id"_a = Text(s.cases[i].id), "message"_a = Text(plan[i].message)));
    }
  }
  return py::dict("scenario"_a = Text(s.name), "cases"_a = s.cases.size(), "trials"_a = s.trials,
                  "events"_a = s.events.size(), "skipped"_a = skipped);
}

py::bytes Run(py::handle scenario, py::handle threads, py::handle progress, py::handle seed,
              py::handle force) {
  sim::RunInfo info;
  info.started_utc = sim::UtcNow();
  std::string source;
  const sim::Scenario s = ReadScenario(scenario, seed, &source);
  const sim::RunOptions options{ReadThreads(threads), {}, ReadBool(force, "force")};
  const bool quiet = !ReadBool(progress, "progress");
  info.command = {"chsim.run", source};
  size_t finished = 0;
  const sim::Json doc = RunInterruptible(
      [&] {
        try {
          return sim::RunDocument(s, options, info, quiet, &finished);
        } catch (const sim::UsageError& e) {  // what the plan refuses
          throw ScenarioError(e.what());
        }
      },
      [&] {
        return "chsim.run: interrupted after finishing " + std::to_string(finished) + " of " +
               std::to_string(s.cases.size()) + " cases; no results";
      });
  return py::bytes(sim::SerializeResults(doc));
}

// Tune's options from Python: None for "not given".
sim::TuneOptions ReadTuneOptions(const py::dict& a) {
  sim::TuneOptions o;
  auto given = [&](const char* name) { return !a[name].is_none(); };
  auto text = [&](const char* name) { return given(name) ? ReadString(a[name], name) : ""; };
  if (given("nodes")) o.nodes = static_cast<uint32_t>(ReadUint(a["nodes"], "nodes", 0, UINT32_MAX));
  if (given("servers")) {
    if (IsPath(a["servers"])) {
      o.servers = FsPath(a["servers"]);
    } else {
      NodeList list = ReadNodes(a["servers"], "servers");
      o.servers = "<" + std::to_string(list.nodes.size()) + " servers>";
      o.server_list =
          sim::ServerList{std::move(list.nodes), list.weighted, std::move(list.topology)};
    }
  }
  o.profile = text("profile");
  o.algorithm = text("algorithm");
  o.hasher = text("hasher");
  o.hash_algorithm = text("hash_algorithm");
  // The command's --min-ring-size, --max-ring-size, --maglev-table-size.
  if (given("min_ring_size"))
    o.min_ring_size = ReadUint(a["min_ring_size"], "min_ring_size", 1, kEnvoyMaxRingSize);
  if (given("max_ring_size"))
    o.max_ring_size = ReadUint(a["max_ring_size"], "max_ring_size", 1, kEnvoyMaxRingSize);
  if (given("maglev_table_size")) {
    o.maglev_table_size =
        ReadUint(a["maglev_table_size"], "maglev_table_size", 2, kEnvoyMaxTableSize);
  }
  if (given("max_over_mean")) o.max_over_mean = ReadNumber(a["max_over_mean"], "max_over_mean");
  if (given("max_excess_churn")) {
    o.max_excess_churn = ReadNumber(a["max_excess_churn"], "max_excess_churn");
  }
  o.confidence = ReadNumber(a["confidence"], "confidence");
  o.metric = ReadString(a["metric"], "metric");
  o.keys = ReadUint(a["keys"], "keys", 0, UINT64_MAX);
  o.draws = static_cast<uint32_t>(ReadUint(a["draws"], "draws", 1, UINT32_MAX));
  o.time_budget = ReadNumber(a["time_budget"], "time_budget");
  o.seed = ReadUint(a["seed"], "seed", 0, UINT64_MAX);
  o.threads = static_cast<int>(ReadThreads(a["threads"]));
  return o;
}

py::object Tune(const py::dict& args) {
  const sim::TuneOptions o = ReadTuneOptions(args);
  const bool show = ReadBool(args["progress"], "progress");
  const sim::TuneRequest r = sim::MakeTuneRequest(o);
  const sim::TuneProgress progress = [show](const std::string& line) {
    sim::ThrowIfStopped();  // Ctrl-C: stop between candidates
    if (!show) return;
    py::gil_scoped_acquire gil;
    py::module_::import("sys").attr("stderr").attr("write")("tune: " + line + "\n");
  };
  const sim::TuneResult res =
      RunInterruptible([&] { return sim::Tune(r, progress); },
                       [] { return std::string("chsim.tune: interrupted; no answer"); });
  return ToPython(sim::TuneDocument(o, r, res));
}

}  // namespace

void BindRun(py::module_& m) {
  m.def("validate", &Validate, py::arg("scenario"), py::arg("seed") = py::none(),
        py::arg("force") = false, py::arg("threads") = py::none(),
        R"(Checks a scenario without running it, as `chsim validate` does: it is read and
every case planned (admission checks, the events timeline replayed), so validate refuses
exactly what run refuses, with the same message.

scenario  a dict (the JSON of a scenario file; relative paths in it are taken from the
          working directory) or a scenario file path.
seed      replaces the scenario's master seed; force: no work limit (as run --force).
Returns {"scenario", "cases", "trials", "events", "skipped": [{"case_id", "message"}]}
(the cases the run will skip). Raises chsim.ScenarioError (a ValueError) naming the file
(or <dict>), the JSON pointer, what was found and what is accepted.)");
  m.def("_run", &Run, py::arg("scenario"), py::arg("threads") = py::none(),
        py::arg("progress") = true, py::arg("seed") = py::none(), py::arg("force") = false,
        "Runs a scenario and returns the result file's bytes (chsim.run wraps them in Results).");
  m.def(
      "_tune", [](const py::kwargs& args) { return Tune(py::dict(args)); },
      "chsim.tune's work: the options as keywords, every one present (None: not given).");
  m.def(
      "_write_file_atomically",
      [](py::handle path, const py::bytes& data) {
        const std::string p = FsPath(path);
        const std::string text = data;
        py::gil_scoped_release release;
        sim::WriteFileAtomically(p, text);
      },
      py::arg("path"), py::arg("data"),
      "Writes data to path whole or not at all (a temporary file, then a rename), as chsim "
      "writes result files.");
}

}  // namespace chsim::python
