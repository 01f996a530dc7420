// SPDX-License-Identifier: Apache-2.0
// `trace`: the requests of a cache trace file (trace.h), streamed in order.
// Load counts requests of any operation.
#include <sys/stat.h>

#include <filesystem>

#include "sim/base/errors.h"
#include "sim/base/text_file.h"
#include "sim/workload/trace.h"
#include "sim/workload/workload.h"

namespace chsim::sim {
namespace {

TraceSpec SpecOf(const FieldValues& f) {
  TraceSpec spec;
  spec.path = f.String("path");
  const std::string format = f.String("format");
  spec.format = format == "csv"       ? TraceFormat::kCsv
                : format == "twitter" ? TraceFormat::kTwitter
                                      : TraceFormat::kOracleGeneral;
  if (!f.Has("columns")) return spec;
  const FieldValues c = f.Object("columns");
  spec.columns.explicit_columns = true;
  spec.columns.key = c.String("key");
  if (c.Has("size")) {
    const Json& size = c.Value("size");
    spec.columns.size =
        size.is_string() ? std::vector<std::string>{size} : size.get<std::vector<std::string>>();
  }
  spec.columns.op = c.Has("op") ? c.String("op") : std::string();
  spec.columns.count = c.Has("count") ? c.String("count") : std::string();
  return spec;
}

class Trace final : public Workload {
 public:
  explicit Trace(const FieldValues& f) : spec_(SpecOf(f)), sized_(TraceSized(spec_)) {
    struct stat st {};
    const uint64_t bytes = ::stat(spec_.path.c_str(), &st) == 0 ? st.st_size : 0;
    const uint64_t per = spec_.format == TraceFormat::kOracleGeneral ? 24 : 48;
    estimate_ = std::max<uint64_t>(1, bytes / per);
  }

  bool indexed() const noexcept override { return false; }
  uint64_t units() const noexcept override { return estimate_; }
  bool sized() const noexcept override { return sized_; }
  void ForEachLine(const std::function<bool(std::string_view, uint64_t)>& f) const override {
    auto reader = OpenRequests(0);
    RequestBlock block;
    for (reader->Next(4096, &block); block.size() > 0; reader->Next(4096, &block)) {
      for (std::string_view key : block.keys.keys) {
        if (!f(key, 1)) return;
      }
    }
  }
  void Check() const override { StreamLength(0); }
  std::unique_ptr<RequestReader> OpenRequests(uint64_t) const override { return OpenTrace(spec_); }

 private:
  TraceSpec spec_;
  bool sized_;
  uint64_t estimate_ = 1;
};

// "path" is resolved against the scenario's folder, and must be a file.
void CheckTraceFile(const JsonReader& value, Json* checked) {
  const std::string given = value.value().get<std::string>();
  const std::string path = ResolveBeside(value.file(), given);
  if (!std::filesystem::is_regular_file(path)) {
    value.FailMessage("found " + Quote(given) + ", which is not a readable file (resolved to " +
                      Quote(path) + "); accepted: a cache trace file");
  }
  *checked = path;
}

constexpr std::string_view kFormats[] = {"twitter", "csv", "oracle_general"};
constexpr FieldSpec kColumnName{.type = FieldType::kString, .min_length = 1};
constexpr FieldSpec kSizeColumns[] = {
    {.type = FieldType::kString, .min_length = 1},
    {.type = FieldType::kList, .items = &kColumnName, .min_items = 1},
};
constexpr FieldSpec kColumnFields[] = {
    {.name = "key",
     .type = FieldType::kString,
     .doc = "the column of the key",
     .min_length = 1,
     .default_json = "\"key\""},
    {.name = "size",
     .type = FieldType::kOneOf,
     .doc = "the column of the size in bytes, or columns whose values are summed",
     .alternatives = kSizeColumns,
     .accepted = "a column name, or a non-empty list of column names whose values are summed"},
    {.name = "op",
     .type = FieldType::kString,
     .doc = "the column of the operation",
     .min_length = 1},
    {.name = "count",
     .type = FieldType::kString,
     .doc = "the column of a repeat count (CacheLib's op_count)",
     .min_length = 1},
};
constexpr ObjectSpec kColumns{.name = "trace_columns",
                              .doc = "which header columns hold the key, size, op and count",
                              .fields = kColumnFields};

constexpr FieldSpec kFields[] = {
    {.name = "path",
     .type = FieldType::kString,
     .doc = "a cache trace file, plain or zstd-compressed (relative to the scenario's folder)",
     .required = true,
     .min_length = 1,
     .example_json = "\"trace.csv\"",
     .accepted = "a file path",
     .check = CheckTraceFile,
     .limit_doc = "read a block at a time, never stored: memory stays flat"},
    {.name = "format",
     .type = FieldType::kEnum,
     .doc = "twitter (Twitter's cache-trace CSV), csv (a header names the columns) or "
            "oracle_general (libCacheSim's 24-byte records)",
     .required = true,
     .choices = kFormats,
     .example_json = "\"twitter\""},
    {.name = "columns",
     .type = FieldType::kObject,
     .doc = "csv: the columns of key, size, op and count (default: those names when present)",
     .object = &kColumns},
};

// "columns" belongs to csv, and a csv header must name the columns mapped.
void Check(const JsonReader& w, const Json& checked) {
  if (checked.contains("columns") && checked["format"] != "csv") {
    w.At("columns").FailMessage("only a csv trace takes \"columns\"");
  }
  if (checked["format"] != "csv") return;
  try {
    OpenTrace(SpecOf(FieldValues("workload \"trace\"", kFields, checked)));
  } catch (const UsageError& e) {
    throw UsageError(w.where() + ": " + e.what());
  } catch (const RuntimeError&) {  // an empty or unreadable file: the plan's read says so
  }
}

}  // namespace

extern const WorkloadSpec kTraceWorkload{
    .name = "trace",
    .doc = "a cache trace file, streamed: twitter, csv (with a header; \"columns\" maps key, "
           "size, op, count) or oracle_general; plain or zstd",
    .unit = "request",
    .fields = kFields,
    .make = MakeWorkloadAs<Trace>,
    .check = Check,
};

}  // namespace chsim::sim
