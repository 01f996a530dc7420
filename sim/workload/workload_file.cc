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
#include "sim/workload/workload.h"

namespace chsim::sim {
namespace {

class File final : public Workload {
 public:
  explicit File(const Json& f)
      : path_(f["path"].get<std::string>()), weighted_(f.value("weighted", false)) {}

  bool indexed() const noexcept override { return false; }
  uint64_t units() const noexcept override { return 1'000'000; }  // unknown until read
  void ForEachLine(const std::function<bool(std::string_view, uint64_t)>& f) const override;
  void Check() const override {
    ForEachLine([](std::string_view, uint64_t) { return true; });
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

std::string ResolvePath(const std::string& scenario_path, const std::string& file) {
  std::filesystem::path p(file);
  if (p.is_absolute()) return file;
  std::filesystem::path base = std::filesystem::path(scenario_path).parent_path();
  return (base / p).lexically_normal().string();
}

WorkloadFields Read(const JsonReader& w, const std::string& scenario_path) {
  w.Object({"type", "path", "weighted"});
  WorkloadFields f;
  w.Require("path", "a key file, one key per line");
  const std::string given = w.At("path").String("a file path");
  const std::string path = ResolvePath(scenario_path, given);
  if (!std::filesystem::is_regular_file(path)) {
    w.At("path").FailMessage("found " + Quote(given) +
                             ", which is not a readable file (resolved to " + Quote(path) +
                             "); accepted: a key file");
  }
  f.fixed["path"] = path;
  if (w.Has("weighted")) f.fixed["weighted"] = w.At("weighted").Bool();
  return f;
}

}  // namespace

extern const WorkloadSpec kFileWorkload{
    .name = "file",
    .doc = "one key per line (bytes verbatim), or KEY WEIGHT with \"weighted\": true",
    .schema = R"({"type": "object", "additionalProperties": false, "required": ["type", "path"],
 "properties": {"type": {"const": "file"}, "path": {"type": "string", "minLength": 1},
  "weighted": {"type": "boolean"}}})",
    .read = Read,
    .make = [](const Json& f) -> std::shared_ptr<const Workload> {
      return std::make_shared<File>(f);
    },
};

}  // namespace chsim::sim
