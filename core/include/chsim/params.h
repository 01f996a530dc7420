// SPDX-License-Identifier: Apache-2.0
// Parameters of an algorithm: ParamSpec describes one (name, type, default,
// bounds or allowed values, a doc line, whether a sweep may vary it); Params
// holds the values of one instance.
//
// Every consumer reads the specs rather than its own copy: the algorithm when
// it is built, the scenario reader (keys, bounds, sweep order, case ids),
// scenarios/schema.json (checked equal to them by a test), the `chsim locate`
// flags and `chsim list`. A value outside the spec is refused with the spec's
// one-line message (ParamSpec::Check), wherever it comes from.
//
// Thread-safety: specs are immutable constants; Params is a value.
#ifndef CHSIM_PARAMS_H_
#define CHSIM_PARAMS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace chsim {

enum class ParamType {
  kInteger,  // an unsigned integer within [min, max]
  kNumber,   // a finite double within (or at) min, and at most max
  kString,   // one of choices(), or any string when choices is null
};

// A value: uint64_t for kInteger, double for kNumber, std::string for kString.
using ParamValue = std::variant<uint64_t, double, std::string>;

struct ParamSpec {
  std::string_view name = {};  // e.g. "points_per_node": a scenario key, a --flag, a case-id part
  ParamType type = ParamType::kInteger;
  std::string_view doc = {};  // one line, for chsim list, README and the schema

  // The default: `default_number` for numbers, `default_text` for strings. An
  // empty default string means "the algorithm's own choice" (e.g. a profile's
  // hasher): the value is then not shown in results.
  double default_number = 0;
  std::string_view default_text = {};

  // kInteger and kNumber: accepted range, both ends inclusive unless
  // min_exclusive. Bounds must be exact in a double (|x| <= 2^53).
  double min = 0;
  double max = 0;
  bool min_exclusive = false;
  // kInteger: a further rule (e.g. IsPrime) and how to say it ("a prime").
  bool (*rule)(uint64_t) = nullptr;
  std::string_view rule_doc = {};
  // kInteger: the keyword "auto" (scenarios, flags) stands for
  // auto_value(number of initial nodes), documented by auto_doc.
  uint64_t (*auto_value)(uint64_t nodes) = nullptr;
  std::string_view auto_doc = {};

  // kString: the allowed values (null: any string; the algorithm's admission
  // check decides, e.g. a profile's hash_algorithm).
  std::vector<std::string_view> (*choices)() = nullptr;

  // Whether a scenario may give a list of values (a sweep axis).
  bool sweepable = true;

  // How figure labels show it (sim/scenario/case_id.h, CaseLabel): "SYMBOL=value"
  // ("v=160"), the value alone when `bare` ("md5"), else "name=value".
  std::string_view symbol = {};
  bool bare = false;

  // What is accepted, for messages: "an integer 1..1024", "a prime 2..268435456
  // or \"auto\"", "one of md5, xxh3, ...", "a number > 1 and <= 100".
  std::string Accepted() const;
  // The default as a value.
  ParamValue Default() const;
  // Throws std::invalid_argument "<algorithm>: <name> must be <accepted> (found
  // <value>)" unless `value` has this type and is accepted.
  void Check(std::string_view algorithm, const ParamValue& value) const;
  // Throws Check's message for a value shown as `found` (a value of another
  // type or range than ParamValue holds, e.g. -1 or a list from Python).
  [[noreturn]] void Refuse(std::string_view algorithm, std::string_view found) const;
  // A value from text (a command-line flag): digits for kInteger ("auto" gives
  // auto_value(nodes)), a decimal for kNumber, the text itself for kString.
  // Throws std::invalid_argument "found '<text>'; accepted: ..." when the
  // text is not of the type (the caller names where it came from); the value
  // still needs Check.
  ParamValue Parse(std::string_view text, uint64_t nodes = 0) const;
};

// "7", "1.25", "2.0", "md5": a value as messages show it (numbers in the
// shortest form that reads back equal, with ".0" when integral, as JSON does).
std::string FormatParamValue(const ParamValue& value);

// The values of one algorithm instance, by parameter name, in the order they
// were set. Lookups are linear (an algorithm has a handful of parameters) and
// happen when an instance is built, never per key.
class Params {
 public:
  Params() = default;
  Params(std::initializer_list<std::pair<std::string, ParamValue>> values);

  // Sets (or replaces) a value.
  Params& Set(std::string_view name, ParamValue value);
  bool Has(std::string_view name) const noexcept { return Find(name) != nullptr; }
  // nullptr when not set.
  const ParamValue* Find(std::string_view name) const noexcept;

  // Typed reads. Throw std::logic_error when the value is missing or of
  // another type: an algorithm reading a parameter its spec does not declare
  // is a bug, and fails on its first build.
  uint64_t Integer(std::string_view name) const;
  double Number(std::string_view name) const;
  const std::string& Text(std::string_view name) const;

  const std::vector<std::pair<std::string, ParamValue>>& values() const noexcept { return values_; }
  bool operator==(const Params&) const = default;

  // Context of the build, not a parameter: the node list spells weights out
  // (a server list with a weight column), so peers that take a weighted code
  // path for such lists (ketama profiles) do so even when every weight is 1.
  bool weighted_list = false;

 private:
  std::vector<std::pair<std::string, ParamValue>> values_;
};

// True when m is prime (trial division; m < 2^40 is fast enough). The one
// primality test of the project (maglev table sizes, "auto" sizes, tune).
bool IsPrime(uint64_t m) noexcept;

}  // namespace chsim

#endif  // CHSIM_PARAMS_H_
