// SPDX-License-Identifier: Apache-2.0
// Trace files: each format read plain and zstd-compressed gives the same
// requests; keys with commas, CRLF, repeat counts, summed size columns; and
// every bad input is one RuntimeError naming the file and line or record.
#include "sim/workload/trace.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zstd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "chsim/splitmix.h"
#include "sim/base/errors.h"
#include "sim/workload/workload.h"

namespace chsim::sim {
namespace {

std::string TempPath(const std::string& name) {
  return testing::TempDir() + "chsim_trace_" + std::to_string(::getpid()) + "_" + name;
}

std::string Write(const std::string& name, const std::string& bytes) {
  const std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string Zstd(const std::string& bytes) {
  std::string out(ZSTD_compressBound(bytes.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), 3));
  return out;
}

struct Req {
  std::string key;
  uint32_t size;
  RequestOp op;
  bool operator==(const Req&) const = default;
};

std::vector<Req> ReadAll(const TraceSpec& spec, size_t block = 3) {
  std::vector<Req> out;
  auto r = OpenTrace(spec);
  RequestBlock b;
  for (r->Next(block, &b); b.size() > 0; r->Next(block, &b)) {
    EXPECT_LE(b.size(), block);
    // Ids a reader makes on the way are the library's XXH3 of its keys.
    if (!b.ids.empty()) {
      EXPECT_EQ(b.ids.size(), b.size());
    }
    for (size_t j = 0; j < b.size(); ++j) {
      out.push_back({std::string(b.keys.keys[j]), b.sizes[j], b.ops[j]});
      if (j < b.ids.size()) {
        EXPECT_EQ(b.ids[j], ObjectId(b.keys.keys[j])) << b.keys.keys[j];
      }
    }
  }
  return out;
}

TraceSpec Spec(const std::string& path, TraceFormat f) {
  TraceSpec s;
  s.path = path;
  s.format = f;
  return s;
}

// The message of the RuntimeError reading `spec` throws ("" if none).
std::string ReadError(const TraceSpec& spec) {
  try {
    ReadAll(spec);
  } catch (const RuntimeError& e) {
    return e.what();
  }
  return "";
}

const std::vector<Req> kTwitterRequests = {{"nz:u:ab,c", 3 + 100, RequestOp::kRead},
                                           {"k2", 2 + 0, RequestOp::kWrite},
                                           {"k3", 2 + 7, RequestOp::kDelete},
                                           {"nz:u:ab,c", 3 + 100, RequestOp::kRead}};
const char kTwitterText[] =
    "0,nz:u:ab,c,3,100,9,get,0\n1,k2,2,0,9,SET,3600\r\n2,k3,2,7,1,delete,0\n3,nz:u:ab,c,3,100,9,"
    "gets,0";

TEST(TraceTest, TwitterPlainAndZstd) {
  const std::string plain = Write("tw.csv", kTwitterText);
  const std::string packed = Write("tw.csv.zst", Zstd(kTwitterText));
  EXPECT_EQ(ReadAll(Spec(plain, TraceFormat::kTwitter)), kTwitterRequests);
  EXPECT_EQ(ReadAll(Spec(packed, TraceFormat::kTwitter), 1), kTwitterRequests);
  EXPECT_TRUE(TraceSized(Spec(plain, TraceFormat::kTwitter)));
}

TEST(TraceTest, CsvWithColumnsCountsAndSummedSizes) {
  const std::string text =
      "op_time,key,key_size,op,op_count,size\n1,a,1,GET,2,10\n2,b,1,SET,1,5\n3,c,1,GET,0,9\n"
      "4,a,1,get,1,10\n";
  TraceSpec s = Spec(Write("kv.csv", text), TraceFormat::kCsv);
  s.columns.explicit_columns = true;
  s.columns.size = {"key_size", "size"};
  s.columns.op = "op";
  s.columns.count = "op_count";
  const std::vector<Req> want = {{"a", 11, RequestOp::kRead},
                                 {"a", 11, RequestOp::kRead},
                                 {"b", 6, RequestOp::kWrite},
                                 {"a", 11, RequestOp::kRead}};
  EXPECT_EQ(ReadAll(s, 1), want);
  EXPECT_EQ(ReadAll(s, 100), want);
  s.path = Write("kv.csv.zst", Zstd(text));
  EXPECT_EQ(ReadAll(s), want);
}

TEST(TraceTest, CsvDefaultColumns) {
  TraceSpec s = Spec(Write("d.csv", "size,key\n5,x\n6,y\n"), TraceFormat::kCsv);
  EXPECT_TRUE(TraceSized(s));
  EXPECT_EQ(ReadAll(s), (std::vector<Req>{{"x", 5, RequestOp::kRead}, {"y", 6, RequestOp::kRead}}));
  TraceSpec k = Spec(Write("k.csv", "key\nx\n"), TraceFormat::kCsv);
  EXPECT_FALSE(TraceSized(k));
  EXPECT_EQ(ReadAll(k), (std::vector<Req>{{"x", 0, RequestOp::kRead}}));
}

std::string OracleRecords(const std::vector<std::pair<uint64_t, uint32_t>>& records) {
  std::string out;
  for (size_t i = 0; i < records.size(); ++i) {
    char r[24] = {};
    const uint32_t ts = static_cast<uint32_t>(i);
    const int64_t next = -1;
    std::memcpy(r, &ts, 4);
    std::memcpy(r + 4, &records[i].first, 8);
    std::memcpy(r + 12, &records[i].second, 4);
    std::memcpy(r + 16, &next, 8);
    out.append(r, 24);
  }
  return out;
}

TEST(TraceTest, OracleGeneralPlainAndZstdAcrossChunks) {
  std::vector<std::pair<uint64_t, uint32_t>> recs;
  std::vector<Req> want;
  for (uint64_t i = 0; i < 50000; ++i) {  // more than one read buffer
    const uint64_t id = (i * 7919) % 1013 + (i % 3 == 0 ? UINT64_MAX - 5 : 0);
    recs.push_back({id, static_cast<uint32_t>(i % 300)});
    want.push_back({std::to_string(id), static_cast<uint32_t>(i % 300), RequestOp::kRead});
  }
  const std::string bytes = OracleRecords(recs);
  EXPECT_EQ(ReadAll(Spec(Write("o.bin", bytes), TraceFormat::kOracleGeneral), 1000), want);
  EXPECT_EQ(ReadAll(Spec(Write("o.bin.zst", Zstd(bytes)), TraceFormat::kOracleGeneral), 777), want);
}

// Keys are the ids in decimal, as std::to_string writes them, at every digit
// count and on both sides of each power of ten.
TEST(TraceTest, OracleGeneralKeysAreDecimalIds) {
  std::vector<std::pair<uint64_t, uint32_t>> recs;
  std::vector<Req> want;
  auto add = [&](uint64_t id) {
    recs.push_back({id, 1});
    want.push_back({std::to_string(id), 1, RequestOp::kRead});
  };
  add(0);
  add(UINT64_MAX);
  add(UINT64_MAX - 1);
  for (uint64_t p = 1, k = 0; k < 20; ++k, p *= 10) {
    add(p - 1);
    add(p);
    add(p + 1);
    add(p * 5 + 7);
  }
  SplitMix64 rng(3);
  for (int i = 0; i < 2000; ++i) add(rng.Next() >> (i % 64));
  EXPECT_EQ(ReadAll(Spec(Write("dec.bin", OracleRecords(recs)), TraceFormat::kOracleGeneral), 64),
            want);
}

// The oracle reader makes each request's object id as it renders the key:
// XXH3 of the decimal key (ReadAll checks each against the library's), for
// every id below 10^6 and ids of every digit count.
TEST(TraceTest, OracleGeneralMakesObjectIds) {
  std::vector<std::pair<uint64_t, uint32_t>> recs;
  for (uint64_t id = 0; id < 1000000; ++id) recs.push_back({id, 1});
  SplitMix64 rng(5);
  for (int i = 0; i < 20000; ++i) recs.push_back({rng.Next() >> (i % 64), 1});
  const std::string path = Write("ids.bin", OracleRecords(recs));
  EXPECT_EQ(ReadAll(Spec(path, TraceFormat::kOracleGeneral), 4096).size(), recs.size());
  RequestBlock b;
  OpenTrace(Spec(path, TraceFormat::kOracleGeneral))->Next(10, &b);
  EXPECT_EQ(b.ids.size(), 10u);
}

// A consumer that takes raw ids gets the records' integers, no keys, the same
// sizes; DecimalKeyObjectIds then gives each the ObjectId of its decimal key
// (the id the reader would have made), at every digit count.
TEST(TraceTest, OracleGeneralRawIdsAndTheirObjectIds) {
  std::vector<std::pair<uint64_t, uint32_t>> recs;
  for (uint64_t p = 1, k = 0; k < 20; ++k, p *= 10) {
    for (uint64_t id : {p - 1, p, p + 1}) recs.push_back({id, static_cast<uint32_t>(k + 1)});
  }
  recs.push_back({UINT64_MAX, 7});
  SplitMix64 rng(9);
  for (int i = 0; i < 5000; ++i) recs.push_back({rng.Next() >> (i % 64), 3});
  const std::string path = Write("raw.bin", OracleRecords(recs));
  auto r = OpenTrace(Spec(path, TraceFormat::kOracleGeneral));
  RequestBlock b;
  b.keys_wanted = false;
  b.raw_ids_wanted = true;
  size_t at = 0;
  for (r->Next(100, &b); b.size() > 0; r->Next(100, &b)) {
    ASSERT_TRUE(b.ids_raw);
    EXPECT_TRUE(b.keys.keys.empty());
    std::vector<uint64_t> made(b.size());
    DecimalKeyObjectIds(b.ids, made);
    for (size_t j = 0; j < b.size(); ++j, ++at) {
      ASSERT_EQ(b.ids[j], recs[at].first);
      EXPECT_EQ(b.sizes[j], recs[at].second);
      EXPECT_EQ(made[j], ObjectId(std::to_string(recs[at].first))) << recs[at].first;
    }
  }
  EXPECT_EQ(at, recs.size());
  b.raw_ids_wanted = false;  // not asked: ObjectIds, as before
  OpenTrace(Spec(path, TraceFormat::kOracleGeneral))->Next(10, &b);
  EXPECT_FALSE(b.ids_raw);
  EXPECT_EQ(b.ids[0], ObjectId(std::to_string(recs[0].first)));
}

// Counting a stream gives what reading it gives, with the same errors.
TEST(TraceTest, OracleGeneralCountEqualsRead) {
  std::vector<std::pair<uint64_t, uint32_t>> recs;
  for (uint64_t i = 0; i < 9000; ++i) recs.push_back({i * 31, 1});
  const std::string bytes = OracleRecords(recs);
  for (const std::string& path : {Write("c.bin", bytes), Write("c.bin.zst", Zstd(bytes))}) {
    uint64_t requests = 0, reads = 0;
    OpenTrace(Spec(path, TraceFormat::kOracleGeneral))->CountRest(&requests, &reads);
    EXPECT_EQ(requests, recs.size()) << path;
    EXPECT_EQ(reads, recs.size()) << path;
    auto half = OpenTrace(Spec(path, TraceFormat::kOracleGeneral));  // counting after a read
    RequestBlock b;
    half->Next(5000, &b);
    requests = reads = 0;
    half->CountRest(&requests, &reads);
    EXPECT_EQ(requests + b.size(), recs.size()) << path;
  }
  auto count_error = [](const std::string& path) {
    uint64_t requests = 0, reads = 0;
    try {
      OpenTrace(Spec(path, TraceFormat::kOracleGeneral))->CountRest(&requests, &reads);
    } catch (const RuntimeError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  for (const std::string& path : {Write("cut.bin", bytes.substr(0, bytes.size() - 5)),
                                  Write("cut.bin.zst", Zstd(bytes.substr(0, bytes.size() - 5))),
                                  Write("e.bin", ""), Write("e.bin.zst", Zstd(""))}) {
    const std::string error = ReadError(Spec(path, TraceFormat::kOracleGeneral));
    EXPECT_FALSE(error.empty()) << path;
    EXPECT_EQ(count_error(path), error);
  }
}

TEST(TraceTest, BadInputNamesFileAndLine) {
  const std::string bad_line = Write("bad1.csv", "0,k,1,2,3,get,0\nnonsense\n");
  EXPECT_EQ(ReadError(Spec(bad_line, TraceFormat::kTwitter)),
            bad_line +
                ":2: found 'nonsense'; accepted: timestamp,key,key_size,value_size,client_id,"
                "operation,ttl (Twitter's cache-trace format)");
  const std::string bad_size = Write("bad2.csv", "0,k,1,2,3,get,0\n1,k,1,x2,3,get,0\n");
  EXPECT_NE(ReadError(Spec(bad_size, TraceFormat::kTwitter)).find(bad_size + ":2: found key_size"),
            std::string::npos);
  const std::string bad_op = Write("bad3.csv", "0,k,1,2,3,peek,0\n");
  EXPECT_NE(ReadError(Spec(bad_op, TraceFormat::kTwitter)).find(":1: found operation 'peek'"),
            std::string::npos);
  TraceSpec csv = Spec(Write("bad4.csv", "key,size\na,1\nb,one\n"), TraceFormat::kCsv);
  EXPECT_NE(ReadError(csv).find(":3: found size 'one'"), std::string::npos);
  csv.path = Write("bad5.csv", "key,size\na,1,2\n");
  EXPECT_NE(ReadError(csv).find(":2: found 3 fields"), std::string::npos);
}

TEST(TraceTest, EmptyAndTruncated) {
  const std::string empty = Write("empty.csv", "");
  EXPECT_EQ(ReadError(Spec(empty, TraceFormat::kTwitter)),
            empty + ": empty trace (0 lines, no request); accepted: a twitter trace");
  const std::string header_only = Write("h.csv", "key,size\n");
  EXPECT_NE(ReadError(Spec(header_only, TraceFormat::kCsv)).find("empty trace"), std::string::npos);
  const std::string packed = Zstd(std::string(kTwitterText) + "\n" + kTwitterText);
  const std::string cut = Write("cut.csv.zst", packed.substr(0, packed.size() - 6));
  EXPECT_NE(ReadError(Spec(cut, TraceFormat::kTwitter)).find(cut + ": truncated zstd frame"),
            std::string::npos);
  const std::string o = OracleRecords({{1, 2}, {3, 4}});
  const std::string short_rec = Write("short.bin", o.substr(0, 40));
  EXPECT_EQ(ReadError(Spec(short_rec, TraceFormat::kOracleGeneral)),
            short_rec +
                ": record 2: truncated (16 of 24 bytes); accepted: 24-byte oracleGeneral "
                "records");
  const std::string no_rec = Write("none.bin", "");
  EXPECT_NE(ReadError(Spec(no_rec, TraceFormat::kOracleGeneral)).find("empty trace"),
            std::string::npos);
}

TEST(TraceTest, MissingColumnIsUsageError) {
  TraceSpec s = Spec(Write("mc.csv", "key,bytes\na,1\n"), TraceFormat::kCsv);
  s.columns.explicit_columns = true;
  s.columns.size = {"size"};
  EXPECT_THROW(OpenTrace(s), UsageError);
}

TEST(TraceTest, WorkloadStatsCountAndUnique) {
  const std::string path = Write("stats.csv", kTwitterText);
  auto w = MakeWorkload("trace", {{"path", path}, {"format", "twitter"}});
  EXPECT_FALSE(w->indexed());
  EXPECT_TRUE(w->sized());
  EXPECT_EQ(w->StreamLength(0), 4u);
  StreamStats st = w->Stats(0, true);
  EXPECT_EQ(st.reads, 2u);
  EXPECT_EQ(st.unique_objects, 1u);
  EXPECT_EQ(st.unique_bytes, 103u);
  EXPECT_TRUE(st.exact);
}

}  // namespace
}  // namespace chsim::sim
