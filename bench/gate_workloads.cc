// SPDX-License-Identifier: Apache-2.0
// Fixed workloads for the instruction-count regression gate (scripts/bench-gate
// callgrind). Each workload's inputs are made first; only the work inside
// chsim_gate_measure() is counted (valgrind --toggle-collect=chsim_gate_measure),
// so the count is exactly repeatable for a given binary and environment.
//
// Protocol (what scripts/bench-gate expects of any workloads binary):
//   chsim_gate_workloads --list     one workload name per line
//   chsim_gate_workloads --env      "key=value" lines: what changes counts
//                                   besides the code (the SIMD level in use,
//                                   pinned by the gate through CHSIM_SIMD)
//   chsim_gate_workloads NAME       runs NAME once, prints a checksum
// A CHSIM_SIMD level the CPU lacks is refused (exit 2) before anything runs.
//
// Built a second time as chsim_gate_workloads_plant3 with
// CHSIM_GATE_PLANT_PERMILLE=30: the lookup and hash workloads then do 3% more
// work in this object, the planted regression of the gate's self-test.
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_common.h"
#include "chsim/hasher.h"
#include "chsim/md5_batch.h"
#include "chsim/node.h"
#include "chsim/profile.h"
#include "chsim/ring.h"
#include "chsim/simd.h"

namespace {
uint64_t g_sink = 0;

#ifndef CHSIM_GATE_PLANT_PERMILLE
#define CHSIM_GATE_PLANT_PERMILLE 0
#endif
// `count` items of work, plus the planted extra of the self-test's variant.
constexpr size_t Planted(size_t count) { return count + count * CHSIM_GATE_PLANT_PERMILLE / 1000; }
}  // namespace

// The only counted function. noipa (no inlining, no cloning) + extern "C" keep
// its symbol stable for --toggle-collect.
extern "C" __attribute__((noipa, used)) void chsim_gate_measure(
    const std::function<uint64_t()>* f) {
  g_sink += (*f)();
}

namespace {

using chsim::bench::KeyPool;
using chsim::bench::MakeKeys;

struct Workload {
  const char* name;
  std::function<void()> run;  // sets up, then calls Measure once
};

void Measure(const std::function<uint64_t()>& f) { chsim_gate_measure(&f); }

chsim::Ring BuildRing(const char* profile, uint32_t n) {
  std::vector<chsim::Node> nodes = chsim::MakeNumberedNodes(n);
  return chsim::Ring::Build(chsim::MakeProfile(profile), nodes);
}

void LookupWorkload(const chsim::Ring& ring, size_t count) {
  KeyPool pool = MakeKeys(Planted(count), 16, 32);
  Measure([&] {
    uint64_t s = 0;
    for (std::string_view k : pool.keys) s += ring.Locate(k);
    return s;
  });
}

std::vector<Workload> Workloads() {
  std::vector<Workload> w;
  w.push_back({"build_ring_spymemcached_1000", [] {
                 std::vector<chsim::Node> nodes = chsim::MakeNumberedNodes(1000);
                 chsim::Profile p = chsim::MakeProfile("spymemcached");
                 Measure([&] { return uint64_t{chsim::Ring::Build(p, nodes).size()}; });
               }});
  w.push_back({"build_ring_libmemcached_100", [] {
                 std::vector<chsim::Node> nodes = chsim::MakeNumberedNodes(100);
                 chsim::Profile p = chsim::MakeProfile("libmemcached");
                 Measure([&] { return uint64_t{chsim::Ring::Build(p, nodes).size()}; });
               }});
  w.push_back({"build_ring_research_xxh3_1000", [] {
                 std::vector<chsim::Node> nodes = chsim::MakeNumberedNodes(1000);
                 chsim::Profile p = chsim::ResearchProfile(chsim::GetHasher("xxh3"), 160);
                 Measure([&] { return uint64_t{chsim::Ring::Build(p, nodes).size()}; });
               }});
  w.push_back(
      {"lookup_spymemcached_100", [] { LookupWorkload(BuildRing("spymemcached", 100), 1 << 15); }});
  w.push_back(
      {"lookup_uhashring_1000", [] { LookupWorkload(BuildRing("uhashring", 1000), 1 << 15); }});
  w.push_back({"lookup_research_xxh3_1000", [] {
                 std::vector<chsim::Node> nodes = chsim::MakeNumberedNodes(1000);
                 chsim::Ring ring = chsim::Ring::Build(
                     chsim::ResearchProfile(chsim::GetHasher("xxh3"), 160), nodes);
                 LookupWorkload(ring, 1 << 16);
               }});
  w.push_back({"lookup_batch_spymemcached_100", [] {
                 chsim::Ring ring = BuildRing("spymemcached", 100);
                 KeyPool pool = MakeKeys(1 << 16, 16, 32);
                 std::vector<uint32_t> out(pool.keys.size());
                 Measure([&] {
                   ring.LocateBatch(pool.keys, out);
                   uint64_t s = 0;
                   for (uint32_t o : out) s += o;
                   return s;
                 });
               }});
  w.push_back({"lookup_hash_spymemcached_2000", [] {
                 chsim::Ring ring = BuildRing("spymemcached", 2000);
                 std::vector<uint64_t> h = chsim::bench::MakeHashes(1 << 16);
                 Measure([&] {
                   uint64_t s = 0;
                   for (uint64_t x : h) s += ring.LocateHash(static_cast<uint32_t>(x));
                   return s;
                 });
               }});
  for (const char* hasher : {"md5", "xxh3", "fnv1a_64", "murmur3_32", "crc32", "spy_fnv1a_64"}) {
    std::string name = std::string("hash_") + hasher + "_32B";
    w.push_back({strdup(name.c_str()), [hasher] {
                   const chsim::Hasher& h = chsim::GetHasher(hasher);
                   KeyPool pool = MakeKeys(Planted(1 << 13), 32, 32);
                   Measure([&] {
                     uint64_t s = 0;
                     for (std::string_view k : pool.keys) s += h(k);
                     return s;
                   });
                 }});
  }
  return w;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: chsim_gate_workloads --list | --env | NAME\n");
    return 2;
  }
  std::vector<Workload> all = Workloads();
  if (std::strcmp(argv[1], "--list") == 0) {
    for (const Workload& w : all) std::printf("%s\n", w.name);
    return 0;
  }
  if (const char* error = chsim::SimdOverrideError()) {
    std::fprintf(stderr, "chsim_gate_workloads: error: %s\n", error);
    return 2;
  }
  if (std::strcmp(argv[1], "--env") == 0) {
    std::printf("simd=%s\nmd5_batch_isa=%s\n", chsim::SimdLevelName(chsim::MaxSimdLevel()),
                chsim::Md5BatchIsa());
    return 0;
  }
  for (const Workload& w : all) {
    if (std::strcmp(argv[1], w.name) == 0) {
      w.run();
      std::printf("%s checksum=%llu\n", w.name, static_cast<unsigned long long>(g_sink));
      return 0;
    }
  }
  std::fprintf(stderr, "chsim_gate_workloads: unknown workload '%s' (see --list)\n", argv[1]);
  return 2;
}
