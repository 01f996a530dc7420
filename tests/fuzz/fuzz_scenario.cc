// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the scenario parser (JSON parse, the reader made from the rows
// of the format, sweep expansion). Any input must either load into a
// scenario that holds its invariants or raise UsageError with one line that
// names the file; nothing else may escape, crash, hang or exhaust memory.
//
// Invariants of a loaded scenario: 1..1,000,000 cases with unique ids and
// indexes 0..n-1; every case has 1..1,000,000 nodes and at most 10^12 keys;
// the input and the resolved scenario (every default filled in) validate
// against scenarios/schema.json (made from the same rows: what the reader
// accepts, the schema accepts), and the resolved one loads again into the
// same case ids and seeds.
//
// Inputs that name device or proc files are skipped: a scenario may name a
// node or key file, and reading /dev/stdin would block the fuzzer. The
// scenario's path is in a directory that does not exist, so relative file
// names fail to open (with a proper error) instead of touching the disk.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_set>

#include "sim/base/errors.h"
#include "sim/scenario/scenario.h"

namespace {

constexpr const char* kPath = "/nonexistent-chsim-fuzz/fuzz.json";

void CheckMessage(std::string_view msg) {
  if (msg.rfind(kPath, 0) != 0 || msg.find('\n') != std::string_view::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (std::string_view bad : {"/dev", "/proc", "/sys", "\"-\""}) {
    if (text.find(bad) != std::string_view::npos) return 0;
  }
  chsim::sim::Scenario s;
  try {
    s = chsim::sim::ParseScenario(text, kPath);
  } catch (const chsim::sim::UsageError& e) {
    CheckMessage(e.what());
    return 0;
  }
  if (s.cases.empty() || s.cases.size() > 1'000'000) std::abort();
  std::unordered_set<std::string> ids;
  for (size_t i = 0; i < s.cases.size(); ++i) {
    const chsim::sim::CaseSpec& c = s.cases[i];
    if (c.index != i || c.id.empty() || !ids.insert(c.id).second) std::abort();
    if (c.nodes < 1 || c.nodes > 1'000'000) std::abort();
    if (c.workload->indexed() && c.workload->units() > 1'000'000'000'000ULL) std::abort();
  }
  if (!chsim::sim::ValidateAgainstSchema(nlohmann::json::parse(text)).empty()) std::abort();
  // The resolved scenario is itself a valid scenario with the same cases.
  std::string resolved = s.resolved.dump();
  if (!chsim::sim::ValidateAgainstSchema(nlohmann::json::parse(resolved)).empty()) std::abort();
  chsim::sim::Scenario again;
  try {
    again = chsim::sim::ParseScenario(resolved, kPath);
  } catch (const chsim::sim::UsageError& e) {
    std::abort();  // the resolved form of a valid scenario must load
  }
  if (again.cases.size() != s.cases.size()) std::abort();
  for (size_t i = 0; i < s.cases.size(); ++i) {
    if (again.cases[i].id != s.cases[i].id || again.cases[i].seed != s.cases[i].seed) std::abort();
  }
  return 0;
}
