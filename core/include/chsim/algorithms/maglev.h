// SPDX-License-Identifier: Apache-2.0
// Maglev hashing (Eisenbud et al., "Maglev: A Fast and Reliable Software
// Network Load Balancer", NSDI 2016, section 3.4): the lookup-table population
// of the paper's Pseudocode 1, exposed so a test can build the paper's worked
// example from its explicit permutations.
//
// Backend i prefers table entries offset_i, offset_i + skip_i, ... (mod M);
// with M prime and 1 <= skip < M this visits every entry once. Backends take
// turns claiming their next preferred free entry until the table is full.
// Weights (the paper's "weighted backends" remark) are honoured by giving
// backend i a turn in round t when floor(t * w_i / w_max) increases, so the
// heaviest backends move every round, as in the unweighted algorithm, and the
// others in proportion to their weight.
//
// Pure functions; thread-safe. The result is stable across versions.
#ifndef CHSIM_ALGORITHMS_MAGLEV_H_
#define CHSIM_ALGORITHMS_MAGLEV_H_

#include <cstdint>
#include <span>
#include <vector>

#include "chsim/params.h"  // IsPrime

namespace chsim {

struct MaglevBackend {
  uint64_t offset = 0;  // first preferred entry, < M
  uint64_t skip = 1;    // step, in [1, M - 1]
  uint32_t weight = 1;  // >= 1
};

// The offset and skip chsim derives from a node seed: offset = h1 mod M,
// skip = h2 mod (M - 1) + 1, with h1, h2 two independent 64-bit mixes of the
// seed (the paper's two hash functions of the backend name). REQUIRES: M >= 2.
MaglevBackend MaglevBackendForSeed(uint64_t seed, uint64_t table_size) noexcept;

// Entry -> backend index (into `backends`) for a table of `table_size` entries.
// Throws std::invalid_argument if table_size is not prime, backends is empty,
// or an offset, skip or weight is out of range.
std::vector<uint32_t> MaglevPopulate(std::span<const MaglevBackend> backends, uint64_t table_size);

}  // namespace chsim

#endif  // CHSIM_ALGORITHMS_MAGLEV_H_
