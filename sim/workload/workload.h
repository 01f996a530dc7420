// Workloads: the stream of load units a case measures, and the registry of
// workload types. A unit is one key (or one request, for Zipf) with a weight;
// loads count unit weights.
//
// Each type is one WorkloadSpec (its own file, sim/workload/workload_*.cc, plus one
// row in workload.cc): the scenario's "type" name, a doc line, its JSON Schema
// (scenarios/schema.json's "workload" part is made from them), a reader of its
// "workload" object and a factory of the resolved workload of one case.
//
//   uniform     unit u = key u: shape rendered with random parts seeded by (seed, u)
//   sequential  unit u = key number start + u*step rendered into the shape
//   zipf        unit u = a request: rank r ~ Zipf(s, keys) drawn from (seed, u);
//               key = shape rendered for number r-1 with parts seeded by (seed, r)
//   file        unit = a line of the file, key bytes verbatim, weight from the
//               last token when "weighted" (streamed, never held in memory)
//
// A Workload is resolved once per case when the scenario is loaded and is
// immutable; a trial passes its seed to every call. Generated workloads are
// indexed: unit u is a pure function of (seed, u), so any thread can make any
// range and memory never grows with the key count.
//
// Thread-safety: Workload methods are const and may run concurrently (each
// caller passes its own buffer).
#ifndef CHSIM_SIM_WORKLOAD_WORKLOAD_H_
#define CHSIM_SIM_WORKLOAD_WORKLOAD_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/base/json_reader.h"
#include "sim/workload/key_shape.h"

namespace chsim::sim {

// Most keys (or requests) of one case.
inline constexpr uint64_t kMaxKeys = 1'000'000'000'000ULL;

class Workload {
 public:
  virtual ~Workload() = default;

  // Whether units are indexed (made from (seed, u)) or read in order.
  virtual bool indexed() const noexcept = 0;
  // Units of a trial when indexed; otherwise an estimate (progress and work
  // limits only).
  virtual uint64_t units() const noexcept = 0;
  // Whether a trial places any unit (false for 0 keys).
  virtual bool samples() const noexcept { return !indexed() || units() > 0; }
  // Writes the key of unit u into *out (weight 1). REQUIRES: indexed().
  virtual void KeyAt(uint64_t seed, uint64_t u, std::string* out) const;
  // Fills *block with the keys of units [begin, begin + count), each equal to
  // KeyAt's. REQUIRES: indexed(). Default: KeyAt key by key (generated
  // workloads render a block at once with KeyShape::RenderBlock).
  virtual void KeysAt(uint64_t seed, uint64_t begin, size_t count, KeyBlock* block) const;
  // Calls f(key, weight) for every unit in order; stops early when f returns
  // false. REQUIRES: !indexed(). Throws UsageError "FILE:LINE: ..." for a bad
  // line, RuntimeError for a read error.
  virtual void ForEachLine(const std::function<bool(std::string_view, uint64_t)>& f) const;
  // Throws the UsageError a run would meet reading the units (a file's bad
  // line); the plan calls it before anything runs. Default: nothing to check.
  virtual void Check() const {}
};

// A sweep axis: a scenario key whose value may be a list.
struct SweepAxis {
  std::string key;  // e.g. "keys" (results and case ids add "workload.")
  std::vector<Json> values;
  bool swept = false;  // given as a list
};

// What a workload reader returns: the axes (in sweep order, outermost first)
// and the fields that are not swept.
struct WorkloadFields {
  std::vector<SweepAxis> axes;
  Json fixed = Json::object();
};

struct WorkloadSpec {
  std::string_view name;    // the scenario's "type"
  std::string_view doc;     // one line, for chsim list and README
  std::string_view schema;  // JSON Schema of its "workload" object
  // Checks the "workload" object (keys, values, files) and splits it into
  // axes and fixed fields; throws UsageError naming the JSON pointer.
  WorkloadFields (*read)(const JsonReader& w, const std::string& scenario_path);
  // The workload of one case: `fields` holds the fixed fields and one value
  // per axis, all checked by `read`.
  std::shared_ptr<const Workload> (*make)(const Json& fields);
};

// Every workload type, in registry order.
std::span<const WorkloadSpec* const> AllWorkloads() noexcept;
// nullptr when unknown.
const WorkloadSpec* FindWorkload(std::string_view name) noexcept;
// FindWorkload(type)->make(fields); throws std::invalid_argument for an
// unknown type. For tests and callers that build a workload by hand.
std::shared_ptr<const Workload> MakeWorkload(std::string_view type, const Json& fields);

// Readers of the fields several workloads share: "shape" (a key shape,
// sweepable, `default_shape` when absent) and "keys" (required, sweepable,
// min..kMaxKeys).
SweepAxis ReadShapeAxis(const JsonReader& w, const char* default_shape);
SweepAxis ReadKeysAxis(const JsonReader& w, uint64_t min);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_WORKLOAD_WORKLOAD_H_
