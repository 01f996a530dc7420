// SPDX-License-Identifier: Apache-2.0
// The readers behind LoadServers (server_config.h), one per program, and
// what they share. Private to sim/scenario.
#ifndef CHSIM_SIM_SCENARIO_SERVER_CONFIG_INTERNAL_H_
#define CHSIM_SIM_SCENARIO_SERVER_CONFIG_INTERNAL_H_

#include <cstdint>
#include <deque>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/scenario/server_config.h"

namespace chsim::sim::internal {

// Each reader takes the file's text, its path and the BLOCK asked for (""
// when none was: the file's only block), and fills a ServerSource.
ServerSource ReadNginx(std::string_view text, const std::string& path, const std::string& block);
ServerSource ReadHaproxy(std::string_view text, const std::string& path, const std::string& block);
ServerSource ReadVarnish(std::string_view text, const std::string& path, const std::string& block);
ServerSource ReadEnvoy(std::string_view text, const std::string& path, const std::string& block);

// The index of the block called `wanted` among `names` (the blocks of `kind`
// in file order), or of the only one when `wanted` is empty. Throws
// UsageError naming the file and the blocks there are.
size_t PickBlock(const std::vector<std::string>& names, const std::string& wanted,
                 const std::string& path, std::string_view kind);

// A decimal integer in [lo, hi] (leading zeros allowed); false otherwise.
bool ParseDecimal(std::string_view s, uint64_t lo, uint64_t hi, uint64_t* out);

// Adds a directive name to `ignored` once.
void Ignore(ServerSource& s, std::string_view directive);

// Where a line is, for notes about a read that may span files: "line N"
// in `main` (the file given), else "FILE:N".
std::string WhereIn(const std::string& file, size_t line, const std::string& main);

// Where each server of a list was read: its label, its file (null: the
// main file, s.path) and line.
using ServerLines = std::unordered_map<std::string, std::pair<const std::string*, size_t>>;

// Appends a server read at `line` of `file` (null: s.path), refusing a label
// the list has already ("FILE:LINE: ... first on line N" or "on FILE:N").
void AddServer(ServerSource& s, Node node, size_t line, ServerLines& lines,
               const std::string* file = nullptr);

// The files of one read that follows includes: the main file, those it has
// included, and which are open now (an include of an open one is a cycle).
class IncludedFiles {
 public:
  explicit IncludedFiles(const std::string& main) : main_(main) {}

  // Reads `file`, included at `at`:`line`, into *text and marks it open;
  // its name stays valid as long as *this. Throws "AT:LINE: include: ..."
  // when it cannot be read, includes itself, or is past kMaxFiles files or
  // kMaxDepth deep.
  const std::string* Open(const std::string& file, const std::string& at, size_t line,
                          std::string* text);
  // Marks the file last opened closed.
  void Close() { open_.pop_back(); }
  const std::string& main() const { return main_; }

 private:
  static constexpr size_t kMaxFiles = 4096, kMaxDepth = 64;
  std::string main_;
  std::deque<std::string> names_;
  std::vector<std::filesystem::path> open_;
};

// The list is complete: refuses an empty one ("FILE: BLOCK has no servers ...").
void FinishList(ServerSource& s, std::string_view kind);

}  // namespace chsim::sim::internal

#endif  // CHSIM_SIM_SCENARIO_SERVER_CONFIG_INTERNAL_H_
