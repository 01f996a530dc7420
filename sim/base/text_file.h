// SPDX-License-Identifier: Apache-2.0
// Reading whole input files with errors that name the file.
#ifndef CHSIM_SIM_BASE_TEXT_FILE_H_
#define CHSIM_SIM_BASE_TEXT_FILE_H_

#include <cstddef>
#include <string>

namespace chsim::sim {

// Reads a file ("-" = stdin) into memory. Throws UsageError naming the file if
// it cannot be opened or read, or is larger than max_bytes.
std::string ReadFileOrStdin(const std::string& path, size_t max_bytes = size_t{1} << 32);

// Quotes a value for an error message: printable ASCII as is (truncated to 60
// bytes), anything else as \xNN.
std::string Quote(std::string_view value);

// `path` as given when absolute, else relative to the folder of the file
// `anchor` (a scenario naming its node list or key file), normalised.
std::string ResolveBeside(const std::string& anchor, const std::string& path);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_BASE_TEXT_FILE_H_
