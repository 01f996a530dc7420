// The algorithm registry: AllAlgorithms() and MakeAlgorithm().
#include <array>
#include <string>

#include "internal.h"

namespace chsim {
namespace {

using Factory = std::unique_ptr<Algorithm> (*)(std::span<const Node>, const AlgorithmParams&);

struct Entry {
  AlgorithmInfo info;
  Factory make;
};

using namespace algorithms_internal;

constexpr std::array kEntries{
    Entry{
        {"ring", "Ketama ring (Karger et al. 1997; libketama) with any hasher and points per node",
         "points (per node, default 160), hasher (default xxh3)", kRingCapabilities},
        NewRing},
    Entry{{"jump", "jump consistent hash (Lamping & Veach 2014), equal to Guava's consistentHash",
           "none", kJumpCapabilities},
          NewJump},
    Entry{{"rendezvous",
           "highest random weight (Thaler & Ravishankar 1998); weighted: Schindelhauer & "
           "Schomaker 2005, score -w/ln(u)",
           "hasher (node seeds, default xxh3)", kRendezvousCapabilities},
          NewRendezvous},
    Entry{{"maglev", "Maglev lookup table (Eisenbud et al. NSDI 2016), rebuilt on change",
           "table-size (prime, default 65537; the paper advises > 100 n), hasher",
           kMaglevCapabilities},
          NewMaglev},
    Entry{{"multi_probe",
           "multi-probe consistent hashing (Appleton & O'Reilly 2015), one point per node",
           "probes (default 21), hasher", kMultiProbeCapabilities},
          NewMultiProbe},
    Entry{{"bounded_load",
           "consistent hashing with bounded loads (Mirrokni, Thorup & Zadimoghaddam 2018); "
           "stateful: use Assign",
           "balance-factor c (> 1, default 1.25), points (default 160), hasher",
           kBoundedLoadCapabilities},
          NewBoundedLoad},
    Entry{{"anchor", "AnchorHash (Mendelson et al. 2020), Algorithm 3",
           "capacity (max nodes, default 2 x initial)", kAnchorCapabilities},
          NewAnchor},
    Entry{{"memento", "MementoHash (Coluzzi et al. 2023): jump plus a replacement map", "none",
           kMementoCapabilities},
          NewMemento},
    Entry{
        {"modulo", "non-consistent baseline: node = live[hash mod n]", "none", kModuloCapabilities},
        NewModulo},
};

constexpr std::array<AlgorithmInfo, kEntries.size()> MakeInfos() {
  std::array<AlgorithmInfo, kEntries.size()> infos{};
  for (size_t i = 0; i < kEntries.size(); ++i) infos[i] = kEntries[i].info;
  return infos;
}
constexpr std::array kInfos = MakeInfos();

}  // namespace

std::span<const AlgorithmInfo> AllAlgorithms() noexcept { return kInfos; }

std::unique_ptr<Algorithm> MakeAlgorithm(std::string_view name, std::span<const Node> nodes,
                                         const AlgorithmParams& params) {
  for (const Entry& e : kEntries) {
    if (e.info.name == name) {
      GetHasher(params.hasher);  // throws std::invalid_argument naming the valid hashers
      return e.make(nodes, params);
    }
  }
  std::string valid;
  for (const Entry& e : kEntries) {
    if (!valid.empty()) valid += ", ";
    valid += e.info.name;
  }
  throw std::invalid_argument("unknown algorithm '" + std::string(name) + "'; valid: " + valid);
}

}  // namespace chsim
