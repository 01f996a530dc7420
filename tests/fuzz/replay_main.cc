// SPDX-License-Identifier: Apache-2.0
// Replays fuzz corpora without libFuzzer: each argument is a file or a
// directory (its regular files, recursively), each fed once to
// LLVMFuzzerTestOneInput. CTest runs it on the committed corpus, so every
// build checks the inputs the fuzzers found.
//
//   replay [--min-inputs N] PATH...
//
// Fails (exit 1, naming the path) on a path that does not exist, a directory
// with no file, a file that cannot be read whole, and fewer inputs replayed
// than --min-inputs (CTest passes the count of the committed corpus, so a
// corpus lost from the checkout cannot pass as one empty input).
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "replay: error: %s\n", what.c_str());
  std::exit(1);
}

std::vector<fs::path> Inputs(const char* arg) {
  std::error_code ec;
  const fs::file_status st = fs::status(arg, ec);
  if (ec || !fs::exists(st)) Fail(std::string(arg) + ": no such file or directory");
  if (fs::is_regular_file(st)) return {fs::path(arg)};
  if (!fs::is_directory(st)) Fail(std::string(arg) + ": not a file or a directory");
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(arg, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file()) files.push_back(it->path());
  }
  if (ec) Fail(std::string(arg) + ": cannot list: " + ec.message());
  if (files.empty()) Fail(std::string(arg) + ": an empty corpus directory");
  return files;
}

std::string ReadWhole(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  if (!in) Fail(f.string() + ": cannot open: " + std::strerror(errno));
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) Fail(f.string() + ": read error");
  std::error_code ec;
  const auto size = fs::file_size(f, ec);
  if (ec || size != data.size()) Fail(f.string() + ": read only part of the file");
  return data;
}

}  // namespace

int main(int argc, char** argv) {
  size_t min_inputs = 1;
  std::vector<const char*> paths;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--min-inputs") == 0 && i + 1 < argc) {
      min_inputs = std::strtoull(argv[++i], nullptr, 10);
    } else {
      paths.push_back(argv[i]);
    }
  }
  if (paths.empty()) Fail("usage: replay [--min-inputs N] PATH...");
  size_t runs = 0;
  for (const char* p : paths) {
    for (const fs::path& f : Inputs(p)) {
      const std::string data = ReadWhole(f);
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(data.data()), data.size());
      ++runs;
    }
  }
  if (runs < min_inputs) {
    Fail("replayed " + std::to_string(runs) + " inputs; the corpus holds at least " +
         std::to_string(min_inputs));
  }
  std::printf("replayed %zu inputs\n", runs);
  return 0;
}
