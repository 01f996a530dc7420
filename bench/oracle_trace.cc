// SPDX-License-Identifier: Apache-2.0
// chsim_oracle_trace: writes a synthetic request trace in libCacheSim's
// oracleGeneral format (24-byte little-endian records: uint32 timestamp,
// uint64 object id, uint32 size, int64 next access), the input that
// bench/replay-vs-libcachesim gives both simulators when the user brings no
// trace of their own.
//
//   chsim_oracle_trace OUT [--requests N] [--objects M] [--exponent S] [--seed X]
//                          [--size B] [--hashed-ids]
//
// Requests draw ranks 1..M from Zipf(S) (sim/workload/zipf.h; defaults 2 x
// 10^7 requests, 10^6 objects, S = 1.0, seed 1). As libCacheSim's own
// generator (scripts/data_gen.py) writes them: the object id is the rank
// from 0 (with --hashed-ids, Mix64(rank): 64-bit ids, as in traces whose keys
// were hashed), every size is B bytes (default 4000), timestamps spread the
// requests over a week; next access is the index of the object's next
// request (-1 when none). Deterministic: the same flags write the same bytes.
// Memory: 12 bytes per request while writing (the next-access pass).
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "chsim/splitmix.h"
#include "sim/workload/zipf.h"

namespace {

struct Flags {
  std::string out;
  uint64_t requests = 20'000'000, objects = 1'000'000, seed = 1, size = 4000;
  double exponent = 1.0;
  bool hashed_ids = false;
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "chsim_oracle_trace: %s\nusage: chsim_oracle_trace OUT [--requests N] "
               "[--objects M] [--exponent S] [--seed X] [--size B] [--hashed-ids]\n",
               why);
  std::exit(2);
}

Flags Parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--hashed-ids") {
      f.hashed_ids = true;
      continue;
    }
    if (a.rfind("--", 0) != 0) {
      if (!f.out.empty()) Usage(("found a second output " + a).c_str());
      f.out = a;
      continue;
    }
    if (i + 1 == argc) Usage((a + " needs a value").c_str());
    const char* v = argv[++i];
    char* end = nullptr;
    errno = 0;
    if (a == "--exponent") {
      f.exponent = std::strtod(v, &end);
    } else {
      const uint64_t x = std::strtoull(v, &end, 10);
      if (a == "--requests") {
        f.requests = x;
      } else if (a == "--objects") {
        f.objects = x;
      } else if (a == "--seed") {
        f.seed = x;
      } else if (a == "--size") {
        f.size = x;
      } else {
        Usage(("unknown flag " + a).c_str());
      }
    }
    if (errno != 0 || end == v || *end != '\0') Usage(("found " + a + " " + v).c_str());
  }
  if (f.out.empty()) Usage("no output file");
  if (f.objects == 0 || f.requests == 0 || f.requests > INT32_MAX || !(f.exponent > 0) ||
      f.size > UINT32_MAX) {
    Usage("accepted: --requests 1..2147483647, --objects >= 1, --exponent > 0, --size < 2^32");
  }
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = Parse(argc, argv);
  chsim::sim::ZipfSampler zipf(f.objects, f.exponent);
  chsim::SplitMix64 rng(f.seed);
  std::vector<uint64_t> ids(f.requests);
  for (uint64_t& id : ids) {
    const uint64_t rank = zipf.Sample(rng);
    id = f.hashed_ids ? chsim::Mix64(rank) : rank - 1;
  }
  std::vector<int32_t> next(f.requests, -1);  // distance to the next request; -1: none
  {
    std::unordered_map<uint64_t, uint64_t> last;  // id -> its latest request so far
    last.reserve(f.objects);
    for (uint64_t j = 0; j < f.requests; ++j) {
      auto [it, fresh] = last.try_emplace(ids[j], j);
      if (!fresh) {
        next[it->second] = static_cast<int32_t>(j - it->second);
        it->second = j;
      }
    }
  }
  FILE* out = std::fopen(f.out.c_str(), "wb");
  if (out == nullptr) {
    std::fprintf(stderr, "chsim_oracle_trace: %s: cannot open: %s\n", f.out.c_str(),
                 std::strerror(errno));
    return 1;
  }
  std::vector<unsigned char> buf;
  buf.reserve(24 * 4096);
  for (uint64_t j = 0; j < f.requests; ++j) {
    unsigned char r[24];
    constexpr uint64_t kWeek = 7 * 86400;
    const uint32_t time = static_cast<uint32_t>(j * kWeek / f.requests);
    const uint32_t size = static_cast<uint32_t>(f.size);
    const int64_t at = next[j] < 0 ? -1 : static_cast<int64_t>(j) + next[j];
    std::memcpy(r, &time, 4);  // little-endian host, as the format
    std::memcpy(r + 4, &ids[j], 8);
    std::memcpy(r + 12, &size, 4);
    std::memcpy(r + 16, &at, 8);
    buf.insert(buf.end(), r, r + 24);
    if (buf.size() == buf.capacity() || j + 1 == f.requests) {
      if (std::fwrite(buf.data(), 1, buf.size(), out) != buf.size()) {
        std::fprintf(stderr, "chsim_oracle_trace: %s: write error\n", f.out.c_str());
        std::fclose(out);
        return 1;
      }
      buf.clear();
    }
  }
  if (std::fclose(out) != 0) {
    std::fprintf(stderr, "chsim_oracle_trace: %s: write error\n", f.out.c_str());
    return 1;
  }
  return 0;
}
