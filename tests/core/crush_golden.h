// SPDX-License-Identifier: Apache-2.0
// Test helpers for CRUSH: the goldens Ceph's own tools wrote
// (tests/compat/golden-crush/, by tests/compat/generate-crush) and Ceph's ln
// tables read, as an oracle at test time only, from the installed
// libceph-common (Debian 12 ceph-base); chsim never copies them
// (core/src/crush/ln.cc).
#ifndef CHSIM_TESTS_CORE_CRUSH_GOLDEN_H_
#define CHSIM_TESTS_CORE_CRUSH_GOLDEN_H_

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "chsim/crush.h"
#include "chsim/crush_text.h"
#include "chsim_source_dir.h"

namespace chsim::testing {

inline const std::string kCrushGolden = CHSIM_SOURCE_DIR "/tests/compat/golden-crush";

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline crush::Map GoldenMap(const std::string& name) {
  return crush::ParseMap(ReadText(kCrushGolden + "/maps/" + name + ".txt"), name + ".txt");
}

// "3,1,4" -> {3, 1, 4}; "" -> {}.
inline std::vector<int32_t> ParseItems(const std::string& s) {
  std::vector<int32_t> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(static_cast<int32_t>(std::stol(item)));
  return out;
}

// One line of cases.tsv.
struct CrushCase {
  std::string name, map;
  int32_t rule = 0;
  uint32_t num_rep = 0;
  std::vector<std::pair<int32_t, std::string>> reweights;  // device, weight as written
};

inline std::vector<CrushCase> GoldenCases() {
  std::vector<CrushCase> cases;
  std::stringstream lines(ReadText(kCrushGolden + "/cases.tsv"));
  std::string line;
  while (std::getline(lines, line)) {
    std::stringstream f(line);
    CrushCase c;
    std::string rule, k, rw;
    std::getline(f, c.name, '\t'), std::getline(f, c.map, '\t'), std::getline(f, rule, '\t');
    std::getline(f, k, '\t'), std::getline(f, rw, '\t');
    c.rule = std::stoi(rule);
    c.num_rep = static_cast<uint32_t>(std::stoul(k));
    std::stringstream r(rw);
    std::string item;
    while (rw != "-" && std::getline(r, item, ',')) {
      const size_t eq = item.find('=');
      c.reweights.emplace_back(std::stoi(item.substr(0, eq)), item.substr(eq + 1));
    }
    cases.push_back(c);
  }
  return cases;
}

// One line of objects.tsv: what osdmaptool printed for an object name.
struct GoldenObject {
  std::string name;
  uint32_t pg_num = 0, ps = 0;
  std::vector<int32_t> osds;
};

inline std::vector<GoldenObject> GoldenObjects() {
  std::vector<GoldenObject> out;
  std::stringstream lines(ReadText(kCrushGolden + "/objects.tsv"));
  std::string line;
  while (std::getline(lines, line)) {
    std::stringstream f(line);
    std::string pg_num, ps, osds;
    GoldenObject o;
    std::getline(f, o.name, '\t'), std::getline(f, pg_num, '\t'), std::getline(f, ps, '\t');
    std::getline(f, osds, '\t');
    o.pg_num = static_cast<uint32_t>(std::stoul(pg_num));
    o.ps = static_cast<uint32_t>(std::stoul(ps));
    o.osds = ParseItems(osds);
    out.push_back(std::move(o));
  }
  return out;
}

// crushtool --weight DEV W: W parsed as a float, times 0x10000, truncated.
inline uint32_t CrushtoolReweight(const std::string& w) {
  return static_cast<uint32_t>(std::strtof(w.c_str(), nullptr) * static_cast<float>(0x10000));
}

// Ceph's own ln tables from the installed libceph-common, found by the first
// entries chsim's tables share with them (every entry of rh_lh, the first two
// of ll); nullopt when the library is not installed. The path can be given in
// CHSIM_LIBCEPH_COMMON.
inline std::optional<crush::LnTables> CephLnTables() {
  std::vector<std::string> paths = {"/usr/lib/x86_64-linux-gnu/ceph/libceph-common.so.2",
                                    "/usr/lib/aarch64-linux-gnu/ceph/libceph-common.so.2"};
  if (const char* p = std::getenv("CHSIM_LIBCEPH_COMMON")) paths.insert(paths.begin(), p);
  const crush::LnTables& mine = crush::GeneratedLnTables();
  for (const std::string& path : paths) {
    const std::string lib = ReadText(path);
    if (lib.empty()) continue;
    const auto* rh = reinterpret_cast<const char*>(mine.rh_lh.data());
    const auto* ll = reinterpret_cast<const char*>(mine.ll.data());
    const size_t a = lib.find(std::string(rh, 3 * sizeof(int64_t)));
    const size_t b = lib.find(std::string(ll, 2 * sizeof(int64_t)));
    if (a == std::string::npos || b == std::string::npos) continue;
    if (a + sizeof(mine.rh_lh) > lib.size() || b + sizeof(mine.ll) > lib.size()) continue;
    crush::LnTables ceph;
    std::memcpy(ceph.rh_lh.data(), lib.data() + a, sizeof(ceph.rh_lh));
    std::memcpy(ceph.ll.data(), lib.data() + b, sizeof(ceph.ll));
    return ceph;
  }
  return std::nullopt;
}

}  // namespace chsim::testing

#endif  // CHSIM_TESTS_CORE_CRUSH_GOLDEN_H_
