// SPDX-License-Identifier: Apache-2.0
// Fuzz target: ring build and lookup under every profile. The input is split
// into a profile selector, a server list (parsed by the real parser) and a
// stream of 32-bit probes. Checks: rings are sorted, lookups never return an
// index out of range and agree with std::lower_bound (or upper_bound), and
// structural shares sum to 1. Probes are masked to the profile's key space,
// as LocateHash requires.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "chsim/profile.h"
#include "chsim/ring.h"
#include "sim/base/errors.h"
#include "sim/scenario/server_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static const std::vector<chsim::ProfileInfo> profiles = [] {  // the 32-bit rings
    std::vector<chsim::ProfileInfo> rings;
    for (const chsim::ProfileInfo& p : chsim::AllProfiles()) {
      if (chsim::MakeProfile(p.name).engine == chsim::Engine::kRing) rings.push_back(p);
    }
    return rings;
  }();
  const chsim::ProfileInfo& info = profiles[data[0] % profiles.size()];
  static const char* kSpyAlgs[] = {"",
                                   "NATIVE_HASH",
                                   "CRC_HASH",
                                   "FNV1_64_HASH",
                                   "FNV1A_64_HASH",
                                   "FNV1_32_HASH",
                                   "FNV1A_32_HASH"};
  chsim::ProfileOptions opt;
  if (info.name == "spymemcached") opt.hash_algorithm = kSpyAlgs[data[1] % 7];
  if (info.name == "libmemcached-ketama" && (data[1] & 1)) opt.hasher = "md5";
  chsim::Profile profile = chsim::MakeProfile(info.name, opt);
  std::string_view rest(reinterpret_cast<const char*>(data + 2), size - 2);
  size_t split = rest.find('\x01');
  std::string_view list_text = rest.substr(0, split);
  std::string_view probes = split == std::string_view::npos ? "" : rest.substr(split + 1);
  chsim::sim::ServerList list;
  try {
    list = chsim::sim::ParseServerList(list_text, "fuzz.txt");
  } catch (const chsim::sim::UsageError&) {
    return 0;
  }
  if (list.nodes.size() > 64) return 0;  // keep each run fast
  chsim::Ring ring;
  try {
    ring = chsim::Ring::Build(profile, list.nodes, list.weighted);
  } catch (const std::invalid_argument& e) {
    // Any list the parser accepts must build, but for what the programs
    // refuse: varnish two servers with one ident (a NAME equal to another's
    // label or NAME), haproxy a NAME that is no id or an id twice, and a
    // weight above a program's limit (haproxy 256, groupcache 1).
    const std::string_view m = e.what();
    auto has = [&](std::string_view part) { return m.find(part) != std::string_view::npos; };
    if ((profile.point_rule == chsim::PointRule::kIdentDecimal && has("the same ident")) ||
        (profile.point_rule == chsim::PointRule::kServerIdMix && has(" id")) ||
        (profile.max_weight != 0 && (has("takes no weights") || has("is above what")))) {
      return 0;
    }
    std::abort();
  }
  auto pts = ring.points();
  if (pts.empty() || !std::is_sorted(pts.begin(), pts.end())) std::abort();
  for (uint32_t o : ring.owners()) {
    if (o >= list.nodes.size()) std::abort();
  }
  std::vector<double> shares = ring.StructuralShares();
  double sum = 0;
  for (double s : shares) sum += s;
  if (sum < 1 - 1e-9 || sum > 1 + 1e-9) std::abort();
  const bool greater = profile.edge == chsim::LookupEdge::kGreater;
  // LocateHash takes hashes in the profile's key space (its precondition).
  const uint32_t mask = ring.space_mask();
  auto check = [&](uint32_t h) {
    h &= mask;
    auto it = greater ? std::upper_bound(pts.begin(), pts.end(), h)
                      : std::lower_bound(pts.begin(), pts.end(), h);
    // Past the last point: the first (the wrap), or the last (varnish).
    const size_t past = profile.past_last == chsim::PastLastPoint::kWrap ? 0 : pts.size() - 1;
    size_t i = it == pts.end() ? past : static_cast<size_t>(it - pts.begin());
    if (ring.LocateHash(h) != ring.owners()[i]) std::abort();
  };
  check(0);
  check(UINT32_MAX);
  for (size_t i = 0; i + 4 <= probes.size(); i += 4) {
    uint32_t h;
    std::memcpy(&h, probes.data() + i, 4);
    check(h);
    check(pts[h % pts.size()]);
    check(pts[h % pts.size()] + 1);
  }
  if (ring.Locate(probes) >= list.nodes.size()) std::abort();
  return 0;
}
