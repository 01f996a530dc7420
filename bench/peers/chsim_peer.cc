// SPDX-License-Identifier: Apache-2.0
// chsim's side of the peer harness (bench/peers/run): times ring builds and
// lookups over the same server list and keys the peers get, the same way
// (whole passes over the key file, median of the passes). Time is the
// thread's CPU time (CLOCK_THREAD_CPUTIME_ID): on a shared, oversubscribed
// machine wall time also counts the time other jobs held the core.
//
// Usage: chsim_peer KEYS_FILE SERVERS_FILE PROFILE PASSES
//   KEYS_FILE: one key per '\n'-terminated line; SERVERS_FILE: host:port per line;
//   PROFILE: a compatibility profile or research-<hasher> (ResearchProfile, 160 points).
// Prints one JSON object per line: {"op", "ns", "samples", "checksum"}; checksum
// is h = h * 1000003 + owner (mod 2^64) over the keys in order, as every peer computes it.
// For a profile that hashes its points with MD5 (4 points per digest), op
// "build_md5_floor" is the build's floor in the same binary: the multi-buffer
// MD5 (Md5BatchDigests) of exactly the point keys the build hashes, made
// beforehand; its checksum is the number of digests.
#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../point_keys.h"
#include "chsim/hasher.h"
#include "chsim/md5_batch.h"
#include "chsim/node.h"
#include "chsim/profile.h"
#include "chsim/ring.h"

namespace {

double ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

std::string Slurp(const char* path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "chsim_peer: cannot open %s\n", path);
    std::exit(1);
  }
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::vector<std::string_view> Lines(const std::string& s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n') {
      out.emplace_back(s.data() + start, i - start);
      start = i + 1;
    }
  }
  return out;
}

uint64_t Checksum(const std::vector<uint32_t>& owners) {
  uint64_t h = 0;
  for (uint32_t o : owners) h = h * 1000003u + o;
  return h;
}

template <typename F>
void Time(const char* op, int passes, double items, F&& f) {
  std::vector<double> ns;
  uint64_t checksum = 0;
  for (int p = 0; p < passes; ++p) {
    const double t0 = ThreadCpuNs();
    checksum = f();
    ns.push_back((ThreadCpuNs() - t0) / items);
  }
  std::vector<double> sorted = ns;
  std::sort(sorted.begin(), sorted.end());
  std::printf("{\"op\": \"%s\", \"ns\": %.4f, \"samples\": [", op, sorted[sorted.size() / 2]);
  for (size_t i = 0; i < ns.size(); ++i) std::printf("%s%.4f", i ? ", " : "", ns[i]);
  std::printf("], \"checksum\": \"%llu\"}\n", static_cast<unsigned long long>(checksum));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: chsim_peer KEYS_FILE SERVERS_FILE PROFILE PASSES\n");
    return 2;
  }
  const std::string key_bytes = Slurp(argv[1]), server_bytes = Slurp(argv[2]);
  const std::vector<std::string_view> keys = Lines(key_bytes);
  std::vector<chsim::Node> nodes;
  for (std::string_view line : Lines(server_bytes)) {
    chsim::Node n;
    n.label = std::string(line);
    size_t colon = line.rfind(':');
    n.host = std::string(line.substr(0, colon));
    n.port = static_cast<uint32_t>(std::stoul(std::string(line.substr(colon + 1))));
    n.port_given = true;
    nodes.push_back(std::move(n));
  }
  const std::string profile_name = argv[3];
  const int passes = std::max(1, std::atoi(argv[4]));
  chsim::Profile profile;
  try {
    profile = profile_name.rfind("research-", 0) == 0
                  ? chsim::ResearchProfile(chsim::GetHasher(profile_name.substr(9)), 160)
                  : chsim::MakeProfile(profile_name);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "chsim_peer: %s\n", e.what());
    return 2;
  }

  // Builds: warm once, then enough passes for a stable median.
  chsim::Ring ring = chsim::Ring::Build(profile, nodes);
  Time("build", std::max(passes, 5), 1.0, [&] {
    ring = chsim::Ring::Build(profile, nodes);
    return uint64_t{ring.size()};
  });

  if (profile.points_per_hash == 4 && profile.point_hasher->fn == &chsim::HashMd5) {
    chsim::bench::PointKeys point_keys;
    chsim::bench::MakeMd5PointKeys(profile, nodes, &point_keys);
    std::vector<std::array<uint8_t, 16>> digests(point_keys.views.size());
    chsim::Md5BatchDigests(point_keys.views, digests);  // warm, as the build
    Time("build_md5_floor", std::max(passes, 5), 1.0, [&] {
      chsim::Md5BatchDigests(point_keys.views, digests);
      return uint64_t{digests.size()};
    });
  }

  std::vector<uint32_t> owners(keys.size());
  const double n = static_cast<double>(keys.size());
  Time("lookup", passes, n, [&] {
    for (size_t i = 0; i < keys.size(); ++i) owners[i] = ring.Locate(keys[i]);
    return Checksum(owners);
  });
  // Latency: the next key's index depends on the previous answer (an opaque
  // zero), so lookups cannot overlap.
  volatile uint32_t zero_src = 0;
  const uint32_t zero = zero_src;
  Time("lookup_latency", passes, n, [&] {
    uint32_t prev = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
      prev = ring.Locate(keys[i + (prev & zero)]);
      owners[i] = prev;
    }
    return Checksum(owners);
  });
  Time("lookup_batch", passes, n, [&] {
    ring.LocateBatch(keys, owners);
    return Checksum(owners);
  });
  return 0;
}
