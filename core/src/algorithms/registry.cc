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
    Entry{{"ring",
           "Ketama ring (Karger et al. 1997; libketama) with any hasher and points per node",
           "points (per node, default 160), hasher (default xxh3)", kRingCapabilities},
          NewRing},
    Entry{{"modulo", "non-consistent baseline: node = live[hash mod n]", "none",
           kModuloCapabilities},
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
