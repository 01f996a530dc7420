// SPDX-License-Identifier: Apache-2.0
// The workload kit: one set of checks run over every workload type of the
// registry (no list to edit: a new type is checked on the next build), and
// proof that it catches a workload that does not do what its spec says.
//
// Each check returns its violations (empty: conforms), so the same code
// judges the registry (must be empty) and deliberately wrong specs (must
// not be). A workload is made as a scenario would make it: its "workload"
// object read by its rows (ReadWorkloadAs) and built by BuildWorkload.
// Checks:
//   Examples         every required row has an example, and the workload
//                    builds from all its rows' examples
//   RequiredAlone    it builds from its required rows' examples alone: every
//                    optional row takes its default or stays absent, so a
//                    factory that reads an optional row without a default
//                    (other than through FieldValues::Has) fails here,
//                    naming the workload and the row
//   KeysAtEqualsKeyAt an indexed workload's KeysAt (the runner's block of
//                    keys) packs exactly the keys KeyAt makes; a streamed one
//                    reads its units
//   DistinctKeys     a workload whose unit is "key" yields kSample distinct
//                    keys over its first kSample units, built from its
//                    required rows (its "keys" row, when it has one, at
//                    kSample) with every other row at its default
// Example file names resolve in tests/algorithms/data (keys.txt,
// servers.txt, trace.csv), so a new workload needs no edit here.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <string>
#include <vector>

#include "chsim_source_dir.h"
#include "sim/base/errors.h"
#include "sim/workload/workload.h"

namespace chsim::sim {
namespace {

using Violations = std::vector<std::string>;
using Check = Violations (*)(const WorkloadSpec& spec);

const std::string kAnchor = CHSIM_SOURCE_DIR "/tests/algorithms/data/scenario.json";

std::string Name(const WorkloadSpec& spec) { return "workload \"" + std::string(spec.name) + "\""; }

// The "workload" object of the rows' examples: every row's, or the required
// rows' only.
Json Examples(const WorkloadSpec& spec, bool required_only) {
  Json given = {{"type", spec.name}};
  for (const FieldSpec& f : spec.fields) {
    if (f.example_json.empty() || (required_only && !f.required)) continue;
    given[std::string(f.name)] = Json::parse(f.example_json);
  }
  return given;
}

// The workload of `given` (each sweep axis at its first value).
std::shared_ptr<const Workload> Build(const WorkloadSpec& spec, const Json& given) {
  const JsonReader w(kAnchor, &given, "/workload");
  WorkloadFields fields = ReadWorkloadAs(spec, w);
  for (const SweepAxis& axis : fields.axes) fields.fixed[axis.key] = axis.values.front();
  return BuildWorkload(spec, fields.fixed, w.where());
}

// What building `given` throws ("" when it builds).
std::string BuildError(const WorkloadSpec& spec, const Json& given) {
  try {
    Build(spec, given);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

Violations CheckExamples(const WorkloadSpec& spec) {
  Violations v;
  for (const FieldSpec& f : spec.fields) {
    if (f.required && f.example_json.empty()) {
      v.push_back(Name(spec) + ": required row \"" + std::string(f.name) + "\" has no example");
    }
  }
  const Json given = Examples(spec, false);
  if (const std::string e = BuildError(spec, given); !e.empty()) {
    v.push_back(Name(spec) + ": built from its examples " + given.dump() + ": " + e);
  }
  return v;
}

Violations CheckRequiredAlone(const WorkloadSpec& spec) {
  Violations v;
  const Json given = Examples(spec, true);
  if (const std::string e = BuildError(spec, given); !e.empty()) {
    v.push_back(Name(spec) + ": built from its required rows alone " + given.dump() + ": " + e);
  }
  return v;
}

Violations CheckKeysAtEqualsKeyAt(const WorkloadSpec& spec) {
  Violations v;
  Json given = Examples(spec, false);
  const auto is_shape = [](const FieldSpec& f) { return f.name == "shape"; };
  if (std::any_of(spec.fields.begin(), spec.fields.end(), is_shape)) {
    given["shape"] = "obj:{i}:{alnum:4-40}";  // one that takes every rendering path
  }
  auto w = Build(spec, given);
  if (!w->indexed()) {
    uint64_t units = 0;
    w->ForEachLine([&units](std::string_view, uint64_t weight) { return (units += weight) > 0; });
    if (units == 0) v.push_back(Name(spec) + ": a streamed workload read no unit");
    return v;
  }
  KeyBlock block;
  std::string key;
  for (uint64_t begin : {uint64_t{0}, uint64_t{1000}, uint64_t{4093}}) {
    w->KeysAt(99, begin, 907, &block);
    if (block.keys.size() != 907u) {
      v.push_back(Name(spec) + ": KeysAt made " + std::to_string(block.keys.size()) + " of 907");
      return v;
    }
    for (size_t j = 0; j < block.keys.size(); ++j) {
      w->KeyAt(99, begin + j, &key);
      if (block.keys[j] != key) {
        v.push_back(Name(spec) + ": KeysAt differs from KeyAt at unit " +
                    std::to_string(begin + j));
        return v;
      }
    }
  }
  return v;
}

constexpr uint64_t kSample = 10000;

// The first `count` units' keys (seed 7), read in order.
std::vector<std::string> FirstKeys(const Workload& w, uint64_t count) {
  std::vector<std::string> keys;
  if (!w.indexed()) {
    w.ForEachLine([&](std::string_view key, uint64_t) {
      keys.emplace_back(key);
      return keys.size() < count;
    });
    return keys;
  }
  KeyBlock block;
  w.KeysAt(7, 0, static_cast<size_t>(std::min(count, w.units())), &block);
  return std::vector<std::string>(block.keys.begin(), block.keys.end());
}

Violations CheckDistinctKeys(const WorkloadSpec& spec) {
  Violations v;
  if (spec.unit != "key") return v;
  Json given = Examples(spec, true);
  const auto is_keys = [](const FieldSpec& f) { return f.name == "keys"; };
  if (std::any_of(spec.fields.begin(), spec.fields.end(), is_keys)) given["keys"] = kSample;
  std::vector<std::string> keys = FirstKeys(*Build(spec, given), kSample);
  const size_t units = keys.size();
  std::sort(keys.begin(), keys.end());
  const size_t distinct = static_cast<size_t>(std::unique(keys.begin(), keys.end()) - keys.begin());
  if (distinct != units) {
    v.push_back(Name(spec) + " says its unit is a key, but its first " + std::to_string(units) +
                " units " + given.dump() + " hold " + std::to_string(distinct) + " distinct keys");
  }
  return v;
}

// A check's violations, or what it threw as one.
Violations RunCheck(Check check, const WorkloadSpec& spec) {
  try {
    return check(spec);
  } catch (const std::exception& e) {
    return {Name(spec) + ": threw " + e.what()};
  }
}

class WorkloadKit : public ::testing::TestWithParam<const WorkloadSpec*> {};

void ExpectNone(Check check) {
  const Violations v = RunCheck(check, *WorkloadKit::GetParam());
  EXPECT_TRUE(v.empty()) << ::testing::PrintToString(v);
}

TEST_P(WorkloadKit, BuildsFromItsExamples) { ExpectNone(CheckExamples); }
TEST_P(WorkloadKit, BuildsFromItsRequiredRowsAlone) { ExpectNone(CheckRequiredAlone); }
TEST_P(WorkloadKit, KeysAtEqualsKeyAt) { ExpectNone(CheckKeysAtEqualsKeyAt); }
TEST_P(WorkloadKit, KeyUnitsAreDistinctKeys) { ExpectNone(CheckDistinctKeys); }

INSTANTIATE_TEST_SUITE_P(Registry, WorkloadKit, ::testing::ValuesIn(AllWorkloads()),
                         [](const auto& info) { return std::string(info.param->name); });

// --- The kit catches a workload that breaks its spec -----------------------

// "k" and the number u.
void NumberedKey(uint64_t u, std::string* out) {
  char buf[24] = {'k'};
  const auto end = std::to_chars(buf + 1, buf + sizeof buf, u).ptr;
  out->assign(buf, end);
}

// Keys "k0", "k1", ...: the workload of the mutants, whose factories differ.
class Numbered final : public Workload {
 public:
  explicit Numbered(uint64_t keys) : keys_(keys) {}
  bool indexed() const noexcept override { return true; }
  uint64_t units() const noexcept override { return keys_; }
  void KeyAt(uint64_t, uint64_t u, std::string* out) const override {
    NumberedKey(u, out);
  }

 private:
  uint64_t keys_;
};

// "keys" and an optional "limit" without a default.
constexpr FieldSpec kMutantFields[] = {
    KeysField(0),
    {.name = "limit",
     .type = FieldType::kInteger,
     .doc = "optional, no default",
     .min = 1,
     .max = 100,
     .example_json = "5"},
};

WorkloadSpec Mutant(std::string_view name,
                    std::shared_ptr<const Workload> (*make)(const FieldValues&)) {
  return WorkloadSpec{.name = name,
                      .doc = "a kit test's workload",
                      .unit = "key",
                      .fields = kMutantFields,
                      .make = make};
}

// Expects `check` to report a violation that mentions each of `what`.
void ExpectCaught(Check check, const WorkloadSpec& spec, std::vector<std::string> what) {
  const Violations v = RunCheck(check, spec);
  for (const std::string& w : what) {
    EXPECT_TRUE(std::any_of(v.begin(), v.end(),
                            [&](const std::string& m) { return m.find(w) != std::string::npos; }))
        << "expected a violation mentioning '" << w << "', got " << ::testing::PrintToString(v);
  }
}

TEST(WorkloadKitCatches, AnOptionalRowReadWithoutItsDefault) {
  const WorkloadSpec bad = Mutant("unlimited", [](const FieldValues& f) {
    return std::shared_ptr<const Workload>(
        std::make_shared<Numbered>(std::min(f.Integer("keys"), f.Integer("limit"))));
  });
  ExpectCaught(CheckRequiredAlone, bad, {"workload \"unlimited\"", "\"limit\"", "no default"});
  EXPECT_EQ(RunCheck(CheckExamples, bad), Violations{}) << "given, it reads fine";
  const WorkloadSpec good = Mutant("limited", [](const FieldValues& f) {
    const uint64_t limit = f.Has("limit") ? f.Integer("limit") : UINT64_MAX;
    return std::shared_ptr<const Workload>(
        std::make_shared<Numbered>(std::min(f.Integer("keys"), limit)));
  });
  EXPECT_EQ(RunCheck(CheckRequiredAlone, good), Violations{});
}

// A default its own row refuses (min 1, default 0) is the spec's defect: the
// message says so, rather than blame a "limit" the scenario never wrote.
TEST(WorkloadKitCatches, ADefaultItsOwnRowRefuses) {
  static constexpr FieldSpec kFields[] = {
      KeysField(0),
      {.name = "limit", .type = FieldType::kInteger, .doc = "default below its range",
       .min = 1, .max = 100, .default_json = "0", .example_json = "5"},
  };
  WorkloadSpec spec = Mutant("low", [](const FieldValues& f) {
    return std::shared_ptr<const Workload>(std::make_shared<Numbered>(f.Integer("limit")));
  });
  spec.fields = kFields;
  ExpectCaught(CheckRequiredAlone, spec,
               {"/workload: the default of \"limit\", 0, is refused by its own row",
                "give it a default_json it accepts"});
}

TEST(WorkloadKitCatches, ARowReadAsAnotherTypeOrNotDeclared) {
  ExpectCaught(
      CheckExamples,
      Mutant("typo",
             [](const FieldValues& f) {
               return std::shared_ptr<const Workload>(std::make_shared<Numbered>(f.Integer("key")));
             }),
      {"workload \"typo\"", "\"key\"", "none of its rows declares"});
  ExpectCaught(CheckExamples,
               Mutant("as_number",
                      [](const FieldValues& f) {
                        return std::shared_ptr<const Workload>(
                            std::make_shared<Numbered>(static_cast<uint64_t>(f.Number("keys"))));
                      }),
               {"workload \"as_number\"", "\"keys\" as a number"});
}

TEST(WorkloadKitCatches, KeyUnitsThatRepeat) {
  static constexpr FieldSpec kKeys[] = {KeysField(0)};
  class Thirty final : public Workload {
   public:
    explicit Thirty(uint64_t keys) : keys_(keys) {}
    bool indexed() const noexcept override { return true; }
    uint64_t units() const noexcept override { return keys_; }
    void KeyAt(uint64_t, uint64_t u, std::string* out) const override {
      NumberedKey(u % 30, out);
    }

   private:
    uint64_t keys_;
  };
  WorkloadSpec thirty{
      .name = "thirty",
      .doc = "30 keys over and over",
      .unit = "key",
      .fields = kKeys,
      .make = [](const FieldValues& f) {
        return std::shared_ptr<const Workload>(std::make_shared<Thirty>(f.Integer("keys")));
      }};
  ExpectCaught(CheckDistinctKeys, thirty,
               {"workload \"thirty\" says its unit is a key", "hold 30 distinct keys"});
  thirty.unit = "request";  // requests may repeat keys
  EXPECT_EQ(RunCheck(CheckDistinctKeys, thirty), Violations{});
}

// The product end: a factory's defect reaches the user as one line naming
// the file and the workload's pointer, a UsageError (exit 2), never as a bare
// JSON exception.
TEST(WorkloadKitCatches, FactoryDefectsAsOneLineNamingFileAndPointer) {
  const WorkloadSpec unread = Mutant("unlimited", [](const FieldValues& f) {
    return std::shared_ptr<const Workload>(std::make_shared<Numbered>(f.Integer("limit")));
  });
  const WorkloadSpec mistyped = Mutant("mistyped", [](const FieldValues& f) {
    const auto list = f.Value("keys").get<std::vector<uint64_t>>();  // a number, not a list
    return std::shared_ptr<const Workload>(std::make_shared<Numbered>(list.size()));
  });
  for (const WorkloadSpec* spec : {&unread, &mistyped}) {
    try {
      Build(*spec, {{"type", spec->name}, {"keys", 10}});
      ADD_FAILURE() << spec->name << " built";
    } catch (const UsageError& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.rfind(kAnchor + ": /workload: workload \"" + std::string(spec->name) + "\"", 0),
                0u)
          << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  }
}

}  // namespace
}  // namespace chsim::sim
