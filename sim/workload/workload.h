// SPDX-License-Identifier: Apache-2.0
// Workloads: the stream of load units a case measures, and the registry of
// workload types. A unit is one key (or one request, for Zipf) with a weight;
// loads count unit weights.
//
// Each type is one WorkloadSpec in its own file (sim/workload/workload_*.cc):
// the scenario's "type" name, a doc line, what a unit is, the typed rows of
// its "workload" object (sim/base/fields.h: name, type, bounds, default, doc,
// example; the reader, scenarios/schema.json and `chsim list --json` are made
// from them) and the factory of the resolved workload of one case; plus its
// row in kWorkloads (workload.cc). Nothing else lists workloads (a test fails
// when a spec defined under sim/workload/ is missing from the registry).
//
//   uniform     unit u = key u: shape rendered with random parts seeded by (seed, u)
//   sequential  unit u = key number start + u*step rendered into the shape
//   zipf        unit u = a request: rank r ~ Zipf(s, keys) drawn from (seed, u);
//               key = shape rendered for number r-1 with parts seeded by (seed, r)
//   file        unit = a line of the file, key bytes verbatim, weight from the
//               last token when "weighted" (streamed, never held in memory)
//   trace       unit = a request of a cache trace file (trace.h), streamed
//
// Every workload also reads as a stream of requests (requests.h): its units
// in order, each a read of its key unless a trace says otherwise; zipf and
// uniform give objects sizes with a "size" field.
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
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/base/fields.h"
#include "sim/base/json_reader.h"
#include "sim/workload/key_shape.h"
#include "sim/workload/requests.h"

namespace chsim::sim {

// Most keys (or requests) of one case.
inline constexpr uint64_t kMaxKeys = 1'000'000'000'000ULL;

// What Workload::Stats counts. Distinct objects come from a bottom-k sketch
// (k = 65536 smallest hashes of the object ids; Bar-Yossef et al., "Counting
// distinct elements in a data stream", RANDOM 2002): exact up to k distinct
// objects, beyond that an estimate with relative standard error about
// 1/sqrt(k) = 0.4%; bytes are the sketch's mean size (each object's size at
// its first request) times the estimate (docs/cache.md#distinct-objects).
struct StreamStats {
  uint64_t requests = 0, reads = 0;
  uint64_t unique_objects = 0, unique_bytes = 0;
  bool has_unique = false;  // the unique counts were asked for
  bool exact = true;        // unique counts exact (at most k distinct objects)
};

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

  // Whether requests carry sizes in bytes.
  virtual bool sized() const noexcept { return false; }
  // out[j] = the size of the object of key j of a block KeysAt just made
  // (block.index holds each key's object number). REQUIRES: indexed(),
  // sized(). Default: zeros.
  virtual void SizesAt(uint64_t seed, const KeyBlock& block, std::span<uint32_t> out) const;
  // Whether the units form a request stream: false for a weighted key file
  // (a line's weight is a count, not an order of requests).
  virtual bool streams() const noexcept { return true; }
  // The units in order as requests. Default: indexed workloads in blocks of
  // KeysAt (sizes from SizesAt), every request a read. A non-indexed
  // workload overrides it. REQUIRES: streams().
  virtual std::unique_ptr<RequestReader> OpenRequests(uint64_t seed) const;

  // The request stream of the trial with key seed `seed`: its length (an
  // indexed workload's units(); a file read through once) and, when
  // `unique` is asked, its distinct objects (by ObjectId) and their bytes.
  // Computed once per seed (a file's stream has one) and kept; concurrent
  // callers wait for the first. Throws what reading the stream throws.
  StreamStats Stats(uint64_t seed, bool unique) const;
  uint64_t StreamLength(uint64_t seed) const {
    return indexed() ? units() : Stats(seed, false).requests;
  }

 private:
  mutable std::mutex stats_mu_;
  mutable std::map<uint64_t, StreamStats> stats_;
};

// A sweep axis: a scenario key whose value may be a list.
struct SweepAxis {
  std::string key;  // e.g. "keys" (results and case ids add "workload.")
  std::vector<Json> values;
  bool swept = false;  // given as a list
};

// A workload object split for the sweep: the axes (its sweepable rows, in
// row order, outermost first) and the fields that are not swept.
struct WorkloadFields {
  std::vector<SweepAxis> axes;
  Json fixed = Json::object();
};

struct WorkloadSpec {
  std::string_view name;  // the scenario's "type"
  std::string_view doc;   // one line, for chsim list and README
  // What one load unit is: "key" (distinct keys), "request" (requests drawn
  // over keys, which repeat: a popularity law) or "line" (a file's lines,
  // weighted by a count when the file says so).
  std::string_view unit;
  // The rows of its "workload" object besides "type", in sweep order.
  std::span<const FieldSpec> fields;
  // The workload of one case, from its rows' values (one value per sweep
  // axis, checked by the rows, defaults filled in). An optional row without
  // a default is read only when fields.Has() says it was given; the kit
  // (tests/sim/workload_keys_test.cc) builds every workload from its
  // required rows alone to hold it to that.
  std::shared_ptr<const Workload> (*make)(const FieldValues& fields);
  // Checks that span rows (null: none), on the object `w` as written and its
  // values as the rows checked them (`checked`, sweepable rows as lists);
  // throws UsageError through `w`.
  void (*check)(const JsonReader& w, const Json& checked) = nullptr;
};

// The checks of a "workload" object that span rows, on the object `w` as
// written and its values as the rows checked them (`checked`, sweepable rows
// as lists): the shared rows' (a "shape" that renders fewer distinct keys
// than "keys" asks for repeats keys, which reads as bad balance: refused),
// then the spec's own `check`. Throws UsageError through `w`.
void CheckWorkload(const WorkloadSpec& spec, const JsonReader& w, const Json& checked);

// The factory of a workload class constructed from its fields.
template <typename W>
std::shared_ptr<const Workload> MakeWorkloadAs(const FieldValues& fields) {
  return std::make_shared<W>(fields);
}

// spec.make over `fields` (one value per row, as SplitWorkloadFields' fixed
// fields with each axis at one value). What the factory throws besides
// UsageError and RuntimeError (a FieldError: it read a row that has no
// value; a JSON type error) becomes a one-line UsageError "WHERE: workload
// "NAME" ...", `where` being e.g. "FILE: /workload".
std::shared_ptr<const Workload> BuildWorkload(const WorkloadSpec& spec, const Json& fields,
                                              const std::string& where);

// Every workload type, in registry order.
std::span<const WorkloadSpec* const> AllWorkloads() noexcept;
// nullptr when unknown.
const WorkloadSpec* FindWorkload(std::string_view name) noexcept;
// The "workload" object's variants, one per type (its rows and its name as
// the "type" tag), for the scenario reader and schema.
std::span<const ObjectSpec* const> WorkloadVariants() noexcept;

// Reads a "workload" object (tag "type" and the type's rows) and splits it
// into axes and fixed fields; throws UsageError naming the JSON pointer.
WorkloadFields ReadWorkloadFields(const JsonReader& w, const WorkloadSpec** spec);
// The same for a "workload" object of one given type (registered or not).
WorkloadFields ReadWorkloadAs(const WorkloadSpec& spec, const JsonReader& w);
// The same split of a "workload" object already checked by its rows
// (`checked`: sweepable rows as lists); `given` is the object as written,
// which says which rows were swept (given as lists).
WorkloadFields SplitWorkloadFields(const WorkloadSpec& spec, const Json& checked,
                                   const Json& given);
// The workload of `type` from a "workload" object, read and checked as a
// scenario would (one value per sweepable row); throws UsageError or
// std::invalid_argument for an unknown type. For tests and callers that build
// a workload by hand.
std::shared_ptr<const Workload> MakeWorkload(std::string_view type, const Json& fields);

// Rows several workloads share: "keys" (required, sweepable, min..kMaxKeys),
// "shape" (a key shape, sweepable, `default_json` when absent) and "size"
// (requests.h's object sizes).
void CheckKeyShape(const JsonReader& value, Json* checked);
constexpr FieldSpec KeysField(uint64_t min) {
  return {.name = "keys",
          .type = FieldType::kInteger,
          .doc = "how many keys",
          .required = true,
          .sweepable = true,
          .min = min,
          .max = kMaxKeys,
          .example_json = "100000",
          .limit_doc = "keys are streamed in blocks, never stored: memory stays flat"};
}
constexpr FieldSpec ShapeField(std::string_view default_json) {
  return {.name = "shape",
          .type = FieldType::kString,
          .doc = "key shape: literal text with {i}, {n}, {hex:N}, {alnum:N}, {bytes:N} parts",
          .sweepable = true,
          .default_json = default_json,
          .example_json = "\"session:{alnum:16-32}\"",
          .accepted = "a key shape such as \"user:{n}\"",
          .check = CheckKeyShape};
}
constexpr FieldSpec SizeField() {
  return {.name = "size",
          .type = FieldType::kOneOf,
          .doc = "each object's size in bytes: a number, or a uniform or log-normal distribution",
          .alternatives = kObjectSizeForms,
          .example_json = R"({"distribution": "lognormal", "mu": 6.5, "sigma": 1.0})",
          .accepted = kObjectSizeAccepted};
}

}  // namespace chsim::sim

#endif  // CHSIM_SIM_WORKLOAD_WORKLOAD_H_
