// SPDX-License-Identifier: Apache-2.0
// Topology: the failure domains of a deployment's nodes. A node may sit in a
// host (a machine that runs several nodes), a rack and a zone (a datacenter,
// an availability zone): any subset of these levels, nested in that order.
// Replica strategies (chsim/replica.h) read it to spread copies, CRUSH walks
// it as its hierarchy zone > rack > host > node, and the simulator fails whole
// domains at once.
//
// Domain ids: per level, dense 0..Count(level)-1 in order of first appearance
// over the node ids, so appending a node never renumbers a domain. Names are
// as given (a server list's "rack=r1") or generated ("rack1").
//
// Invariants (Append refuses what breaks them, changing nothing):
//  - every node gives the same levels (the first node fixes them);
//  - nesting: a host lies in one rack and one zone, a rack in one zone, as
//    far as those levels are given;
//  - no name is empty.
// A topology made by Select may hold nodes without domains (kNoDomain at
// every level): the ids of an algorithm that no longer has them.
//
// Thread-safety: const methods may run concurrently; Append needs exclusive
// access. Stability: level names and their order are part of the scenario
// and server-list formats.
#ifndef CHSIM_TOPOLOGY_H_
#define CHSIM_TOPOLOGY_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace chsim {

// Failure-domain levels, lowest (innermost) first.
enum class DomainLevel : uint8_t { kHost = 0, kRack = 1, kZone = 2 };
inline constexpr size_t kDomainLevels = 3;
inline constexpr DomainLevel kAllDomainLevels[kDomainLevels] = {
    DomainLevel::kHost, DomainLevel::kRack, DomainLevel::kZone};
// The levels' names, by DomainLevel: scenarios, server lists, messages.
inline constexpr std::string_view kDomainLevelNames[kDomainLevels] = {"host", "rack", "zone"};
// A node's domain at a level it has none at (Select's dead ids).
inline constexpr uint32_t kNoDomain = UINT32_MAX;

// "host", "rack", "zone".
std::string_view DomainLevelName(DomainLevel level) noexcept;
// The plural as scenarios spell the generated counts: "hosts", "racks", "zones".
std::string_view DomainLevelPlural(DomainLevel level) noexcept;
// nullopt for any other name.
std::optional<DomainLevel> FindDomainLevel(std::string_view name) noexcept;
// "host, rack, zone".
std::string DomainLevelNames();

class Topology {
 public:
  // One node's domain names by level (index: the level's value); "" where
  // the node has no domain at that level.
  using Path = std::array<std::string, kDomainLevels>;

  Topology() = default;

  // Adds the next node (id size()) with its domains. Throws
  // std::invalid_argument, changing nothing, when the node breaks an
  // invariant; the message names the level, the domains and the node
  // ("rack 'r1' lies in zone 'z1' (node 0) and in zone 'z2'").
  uint32_t Append(const Path& path);

  // Whether the nodes carry domains at `level`.
  bool Has(DomainLevel level) const noexcept { return given_[Index(level)]; }
  // Whether no level is given.
  bool empty() const noexcept { return !given_[0] && !given_[1] && !given_[2]; }
  // The levels given, lowest first.
  std::vector<DomainLevel> levels() const;
  // "rack, zone" (the levels given), "none" when empty.
  std::string LevelNames() const;
  // Nodes described (ids 0..size()-1).
  size_t size() const noexcept { return size_; }

  // Domain id per node id at `level` (empty when the level is not given).
  std::span<const uint32_t> Of(DomainLevel level) const noexcept { return of_[Index(level)]; }
  // Domains at `level` (0 when not given).
  uint32_t Count(DomainLevel level) const noexcept {
    return static_cast<uint32_t>(names_[Index(level)].size());
  }
  // The name of a domain. REQUIRES: domain < Count(level).
  const std::string& Name(DomainLevel level, uint32_t domain) const {
    return names_[Index(level)][domain];
  }
  // The domain id of a name at `level`, or kNoDomain.
  uint32_t Find(DomainLevel level, std::string_view name) const;
  // The domain at the higher level `up` that holds `domain` of `level`
  // (nesting makes it unique). REQUIRES: level < up, both given,
  // domain < Count(level).
  uint32_t Parent(DomainLevel level, uint32_t domain, DomainLevel up) const noexcept {
    return parents_[Index(level)][domain][Index(up)];
  }
  // The node ids in a domain, ascending (O(size()) per call).
  std::vector<uint32_t> Members(DomainLevel level, uint32_t domain) const;

  // The same topology over other node ids: node i of the result is node
  // ids[i] here; an id past size() (kNoDomain, a dead id) gets no domain.
  // Domain ids, names and parents are unchanged.
  Topology Select(std::span<const uint32_t> ids) const;

 private:
  static size_t Index(DomainLevel level) noexcept { return static_cast<size_t>(level); }
  // The id of `name` at level l, made when new (its parents set from `ids`).
  uint32_t Intern(size_t l, const std::string& name);

  std::array<bool, kDomainLevels> given_ = {};
  size_t size_ = 0;
  std::array<std::vector<uint32_t>, kDomainLevels> of_;
  std::array<std::vector<std::string>, kDomainLevels> names_;
  std::array<std::unordered_map<std::string, uint32_t>, kDomainLevels> ids_;
  // parents_[l][d][u]: the domain at level u holding domain d of level l.
  std::array<std::vector<std::array<uint32_t, kDomainLevels>>, kDomainLevels> parents_;
};

}  // namespace chsim

#endif  // CHSIM_TOPOLOGY_H_
