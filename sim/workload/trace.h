// SPDX-License-Identifier: Apache-2.0
// Cache trace files, read as request streams (requests.h), plain or
// zstd-compressed (recognized by the zstd frame magic, not the name), a
// block at a time: memory does not grow with the trace (about 2 MiB of
// buffers).
//
// Formats (docs/cache.md has their sources):
//   twitter         Twitter's cache traces (twitter/cache-trace):
//                   timestamp,key,key_size,value_size,client_id,operation,ttl
//                   per line, no header; size = key_size + value_size. The
//                   key is everything between the first comma and the fifth
//                   comma from the end, so keys may hold commas.
//   csv             a header line names the columns; "columns" maps the
//                   roles key (required), size (a column or a list of columns
//                   summed), op and count (a repeat count, as CacheLib's
//                   op_count) to column names. Fields are split at commas,
//                   quotes are not interpreted. Without "columns": key, size
//                   and op by those names, when the header has them.
//   oracle_general  libCacheSim's oracleGeneral binary: 24-byte little-endian
//                   records of uint32 timestamp, uint64 object id, uint32
//                   size, int64 next access; the key is the id in decimal.
//   key lines       (the `file` workload) one key a line, bytes verbatim, all
//                   reads without sizes; an empty file is an empty stream.
//
// Operations: get, gets, read, get_lease (any case) are reads; set, add,
// replace, cas, append, prepend, incr, decr, write, update, set_lease are
// writes; delete, del, remove are deletes. A trace without an op column
// (oracle_general, csv without op) is all reads.
//
// Errors (RuntimeError, exit 1), each naming the file and the line (or
// record): a malformed line, a size that is not a number, an unknown
// operation, a truncated record or zstd frame, a file with no request.
//
// Thread-safety: a reader is used by one thread.
#ifndef CHSIM_SIM_WORKLOAD_TRACE_H_
#define CHSIM_SIM_WORKLOAD_TRACE_H_

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/workload/requests.h"

namespace chsim::sim {

enum class TraceFormat { kTwitter, kCsv, kOracleGeneral, kKeyLines };

struct TraceColumns {
  std::string key = "key";
  std::vector<std::string> size;  // empty: the column "size" if the header has it
  std::string op, count;          // empty: "op" if the header has it; no count
  bool explicit_columns = false;  // given by "columns": a missing one is an error
};

struct TraceSpec {
  std::string path;  // resolved
  TraceFormat format = TraceFormat::kTwitter;
  TraceColumns columns;
};

// "twitter", "csv", "oracle_general", "key_lines".
const char* TraceFormatName(TraceFormat f) noexcept;

// Opens the trace. Throws UsageError "PATH: cannot open: REASON".
std::unique_ptr<RequestReader> OpenTrace(const TraceSpec& spec);

// out[i] = ObjectId of the decimal text of ids[i] (an oracleGeneral key).
// REQUIRES: out.size() >= ids.size().
void DecimalKeyObjectIds(std::span<const uint64_t> ids, std::span<uint64_t> out) noexcept;

// Whether the trace's requests carry sizes (csv: a size column mapped or
// found; reads the header).
bool TraceSized(const TraceSpec& spec);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_WORKLOAD_TRACE_H_
