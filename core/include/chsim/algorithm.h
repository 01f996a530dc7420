// Algorithm: one consistent-hashing scheme behind a common interface, so the
// simulator and the benchmarks can compare Ketama rings with jump, rendezvous,
// maglev, multi-probe, bounded loads, anchor, memento and modulo.
//
// Node identity: Locate returns a node id. The nodes given at construction get
// ids 0..n-1 in list order; each Add gets the next unused id (n, n+1, ...); ids
// are never reused, so results stay comparable across add/remove events.
//
// Each algorithm declares its Capabilities; asking for an unsupported
// operation throws Unsupported (never a silent wrong answer). The simulator
// asks first.
//
// Thread-safety: const methods may run concurrently; Add/Remove/Assign need
// exclusive access. Locate/LocateBatch are noexcept and allocation-free.
#ifndef CHSIM_ALGORITHM_H_
#define CHSIM_ALGORITHM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "chsim/node.h"

namespace chsim {

// Thrown when an algorithm is asked for something it does not support.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Capabilities {
  bool weights = false;            // honours node weights
  bool arbitrary_removal = false;  // Remove(any live id)
  bool lifo_removal = false;       // Remove(last added live id) only
  bool incremental = false;        // Add/Remove without a full rebuild
  bool exact_shares = false;       // StructuralShares() is exact
  bool stateful = false;           // answers depend on arrival order (use Assign)
  // Adding a node moves keys only to it; removing one moves only its keys.
  // (Added after the first version of this interface; false by default.)
  bool minimal_disruption = false;
  // Answers depend only on the live nodes' labels and weights (up to ties
  // between hash values), not on the order of adds and removes: nodes that
  // fail and are restored (Add with the same Node) in any order get every key
  // back. False for jump, anchor and memento, whose Add restores the most
  // recently removed bucket (Lamping & Veach; Mendelson et al. ADDBUCKET;
  // Coluzzi et al.): restored in reverse removal order every key comes back; in
  // any other order the restored node takes over the key space of the bucket
  // removed last, so keys come back only to the nodes whose own bucket they got.
  // Also false for maglev and modulo (answers depend on node order).
  bool history_free = false;
};

// Parameters an algorithm may read; each ignores what it does not use.
struct AlgorithmParams {
  std::string hasher = "xxh3";   // ring/multi_probe point hasher (registry name)
  uint32_t points_per_node = 160;  // ring, bounded_load
  uint64_t table_size = 65537;     // maglev (prime)
  uint32_t probes = 21;            // multi_probe
  double balance_factor = 1.25;    // bounded_load (c > 1)
  uint32_t capacity = 0;           // anchor: 0 means 2 x initial nodes
  uint64_t seed = 0;               // algorithms that need one
};

class Algorithm {
 public:
  virtual ~Algorithm() = default;

  virtual std::string_view name() const noexcept = 0;
  virtual Capabilities capabilities() const noexcept = 0;

  // Node id for a 64-bit key hash. REQUIRES: num_nodes() > 0.
  virtual uint32_t Locate(uint64_t key_hash) const noexcept = 0;
  // out[i] = Locate(hashes[i]). REQUIRES: out.size() >= hashes.size().
  virtual void LocateBatch(std::span<const uint64_t> hashes, std::span<uint32_t> out) const noexcept {
    for (size_t i = 0; i < hashes.size(); ++i) out[i] = Locate(hashes[i]);
  }
  // For stateful algorithms (bounded loads): place one more key and return its
  // node. Default: Locate.
  virtual uint32_t Assign(uint64_t key_hash) { return Locate(key_hash); }
  // Forget all assignments (stateful algorithms only).
  virtual void ResetAssignments() {}

  // Live nodes.
  virtual size_t num_nodes() const noexcept = 0;
  // Live node ids, ascending.
  virtual std::vector<uint32_t> live_ids() const = 0;

  // Returns the new node's id. Throws Unsupported if not supported.
  virtual uint32_t Add(const Node& node) = 0;
  // Throws Unsupported (e.g. a middle node of jump) or std::invalid_argument
  // (unknown or dead id).
  virtual void Remove(uint32_t id) = 0;

  virtual size_t MemoryBytes() const noexcept = 0;
  // Exact share of the key space per node id (size = ids ever issued; dead ids
  // 0), when capabilities().exact_shares.
  virtual std::optional<std::vector<double>> StructuralShares() const { return std::nullopt; }
};

struct AlgorithmInfo {
  std::string_view name;
  std::string_view description;  // one line, cites the paper
  std::string_view parameters;   // e.g. "table_size (prime, default 65537)"
  Capabilities capabilities;
};

std::span<const AlgorithmInfo> AllAlgorithms() noexcept;

// Throws std::invalid_argument for an unknown name (listing the valid ones) or
// bad parameters; Unsupported for weights on an algorithm without them.
// REQUIRES: !nodes.empty().
std::unique_ptr<Algorithm> MakeAlgorithm(std::string_view name, std::span<const Node> nodes,
                                         const AlgorithmParams& params = {});

}  // namespace chsim

#endif  // CHSIM_ALGORITHM_H_
