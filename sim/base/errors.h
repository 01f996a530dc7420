// SPDX-License-Identifier: Apache-2.0
// Errors at chsim's boundaries (files, flags, scenarios). Each carries one
// line that names the input (file and line, or JSON pointer), what was found
// and what is accepted. UsageError maps to exit status 2, RuntimeError to 1.
#ifndef CHSIM_SIM_BASE_ERRORS_H_
#define CHSIM_SIM_BASE_ERRORS_H_

#include <stdexcept>
#include <string>

namespace chsim::sim {

inline constexpr int kExitUsage = 2;
inline constexpr int kExitRuntime = 1;

// Bad input: a malformed file, an unknown name, a flag out of range.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The input was fine but the run failed (I/O error, out of memory, interrupt).
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "FILE:LINE: message".
inline UsageError LineError(const std::string& file, size_t line, const std::string& message) {
  return UsageError(file + ":" + std::to_string(line) + ": " + message);
}

}  // namespace chsim::sim

#endif  // CHSIM_SIM_BASE_ERRORS_H_
