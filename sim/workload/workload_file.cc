// SPDX-License-Identifier: Apache-2.0
// `file`: one key per line, bytes verbatim (a final '\r' dropped), or "KEY
// WEIGHT" with "weighted": true (the last token after a space or tab is the
// request count). Streamed, never held in memory.
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "sim/base/errors.h"
#include "sim/base/text_file.h"
#include "sim/workload/trace.h"
#include "sim/workload/workload.h"

namespace chsim::sim {
namespace {

class File final : public Workload {
 public:
  explicit File(const FieldValues& f) : path_(f.String("path")), weighted_(f.Boolean("weighted")) {}

  bool indexed() const noexcept override { return false; }
  uint64_t units() const noexcept override { return 1'000'000; }  // unknown until read
  void ForEachLine(const std::function<bool(std::string_view, uint64_t)>& f) const override;
  // Reads the file as the run will: lines and weights, or requests.
  void Check() const override {
    if (weighted_) {
      ForEachLine([](std::string_view, uint64_t) { return true; });
    } else {
      StreamLength(0);
    }
  }
  bool streams() const noexcept override { return !weighted_; }
  std::unique_ptr<RequestReader> OpenRequests(uint64_t) const override {
    return OpenTrace(TraceSpec{path_, TraceFormat::kKeyLines, {}});
  }

 private:
  std::string path_;
  bool weighted_;
};

// The weight after the last space or tab of `text`; cuts it off.
bool SplitWeight(std::string_view* text, uint64_t* weight) {
  const size_t sep = text->find_last_of(" \t");
  if (sep == std::string_view::npos) return false;
  const std::string_view w = text->substr(sep + 1);
  auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), *weight);
  if (w.empty() || ec != std::errc() || p != w.data() + w.size()) return false;
  *text = text->substr(0, sep);
  return true;
}

void File::ForEachLine(const std::function<bool(std::string_view, uint64_t)>& f) const {
  FILE* in = std::fopen(path_.c_str(), "rb");
  if (in == nullptr) throw UsageError(path_ + ": cannot open: " + std::strerror(errno));
  std::unique_ptr<FILE, int (*)(FILE*)> closer(in, &std::fclose);
  struct LineBuffer {
    char* data = nullptr;
    size_t cap = 0;
    ~LineBuffer() { std::free(data); }
  } buf;
  ssize_t got;
  size_t line_no = 0;
  while ((got = getline(&buf.data, &buf.cap, in)) >= 0) {
    ++line_no;
    std::string_view text(buf.data, static_cast<size_t>(got));
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    uint64_t weight = 1;
    if (weighted_ && !SplitWeight(&text, &weight)) {
      throw LineError(path_, line_no,
                      "expected KEY WEIGHT (weight: an integer 0..2^64-1 after the last space "
                      "or tab), found no valid weight");
    }
    if (!f(text, weight)) break;
  }
  if (std::ferror(in)) throw RuntimeError(path_ + ": read error: " + std::strerror(errno));
}

// "path" is resolved against the scenario's folder, and must be a file.
void CheckKeyFile(const JsonReader& value, Json* checked) {
  const std::string given = value.value().get<std::string>();
  const std::string path = ResolveBeside(value.file(), given);
  if (!std::filesystem::is_regular_file(path)) {
    value.FailMessage("found " + Quote(given) + ", which is not a readable file (resolved to " +
                      Quote(path) + "); accepted: a key file");
  }
  *checked = path;
}

constexpr FieldSpec kFields[] = {
    {.name = "path",
     .type = FieldType::kString,
     .doc = "a key file, one key per line (relative to the scenario's folder)",
     .required = true,
     .min_length = 1,
     .example_json = "\"keys.txt\"",
     .accepted = "a file path",
     .check = CheckKeyFile},
    {.name = "weighted",
     .type = FieldType::kBoolean,
     .doc = "each line is KEY WEIGHT: the last token counts requests",
     .default_json = "false"},
};

}  // namespace

extern const WorkloadSpec kFileWorkload{
    .name = "file",
    .doc = "one key per line (bytes verbatim), or KEY WEIGHT with \"weighted\": true",
    .unit = "line",
    .fields = kFields,
    .make = MakeWorkloadAs<File>,
};

}  // namespace chsim::sim
