// Workload: the stream of load units a case measures. A unit is one key (or
// one request, for Zipf) with a weight; loads count unit weights.
//
//   uniform     unit u = key u: shape rendered with random parts seeded by (seed, u)
//   sequential  unit u = key number start + u*step rendered into the shape
//   zipf        unit u = a request: rank r ~ Zipf(s, keys) drawn from (seed, u);
//               key = shape rendered for number r-1 with parts seeded by (seed, r)
//   file        unit = a line of the file, key bytes verbatim, weight from the
//               last token when "weighted" (streamed, never held in memory)
//
// Generated workloads are indexed: unit u is a pure function of (seed, u), so
// any thread can make any range and memory never grows with the key count.
//
// Thread-safety: immutable after construction; KeyAt and ForEachLine may run
// concurrently (each caller passes its own buffer).
#ifndef CHSIM_SIM_WORKLOAD_H_
#define CHSIM_SIM_WORKLOAD_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "chsim/sim/key_shape.h"
#include "chsim/sim/scenario.h"
#include "chsim/sim/zipf.h"

namespace chsim::sim {

class Workload {
 public:
  Workload(const WorkloadConfig& config, uint64_t seed);

  // Whether units are indexed (all but file).
  bool indexed() const noexcept { return config_.type != WorkloadConfig::Type::kFile; }
  // Number of units of an indexed workload.
  uint64_t units() const noexcept;
  // Writes the key of unit u into *out (weight 1). REQUIRES: indexed().
  void KeyAt(uint64_t u, std::string* out) const;
  // Fills *block with the keys of units [begin, begin + count), each equal to
  // KeyAt's. REQUIRES: indexed().
  void KeysAt(uint64_t begin, size_t count, KeyBlock* block) const;

  // File workloads: calls f(key, weight) for every line, in file order; stops
  // early when f returns false. Throws UsageError "FILE:LINE: ..." for a bad
  // weight, RuntimeError for a read error.
  void ForEachLine(const std::function<bool(std::string_view, uint64_t)>& f) const;

  const WorkloadConfig& config() const noexcept { return config_; }

 private:
  WorkloadConfig config_;
  uint64_t seed_;
  KeyShape shape_;
  std::optional<ZipfSampler> zipf_;
};

}  // namespace chsim::sim

#endif  // CHSIM_SIM_WORKLOAD_H_
