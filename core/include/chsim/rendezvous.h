// SPDX-License-Identifier: Apache-2.0
// Rendezvous (highest random weight) scores, shared by the rendezvous
// algorithm's Locate and the replica strategies that rank by them (topk), so
// that both read one definition (Thaler & Ravishankar, IEEE/ACM ToN 1998;
// weighted by the logarithmic method, Schindelhauer & Schomaker, SPAA 2005).
//
// For a key hash h and node seed s: the draw is x = Mix64(Mix64(h) ^ s) (the
// key's mix is hoisted out of the node loop: MixKey), u = UnitOpen(x) in
// (0, 1), and the weighted score -w / ln(u). With equal weights the score is
// monotone in x, so rankings compare draws (no logarithm). Ties between equal
// scores go to the node listed first (the lower id).
#ifndef CHSIM_RENDEZVOUS_H_
#define CHSIM_RENDEZVOUS_H_

#include <cmath>
#include <cstdint>
#include <span>

#include "chsim/splitmix.h"

namespace chsim {

// A rendezvous instance's nodes as its Locate scores them
// (Algorithm::ViewRendezvous): parallel spans, live nodes in ascending id.
struct RendezvousView {
  std::span<const uint64_t> seeds;
  std::span<const double> weights;
  std::span<const uint32_t> ids;
  bool uniform = true;  // every weight equal: compare draws
};

inline uint64_t RendezvousMixKey(uint64_t key_hash) noexcept { return Mix64(key_hash); }
inline uint64_t RendezvousDraw(uint64_t mixed_key, uint64_t seed) noexcept {
  return Mix64(mixed_key ^ seed);
}
// -w / ln(u): ln(u) < 0, so the score is positive.
inline double RendezvousScore(uint64_t draw, double weight) noexcept {
  return -weight / std::log(UnitOpen(draw));
}

}  // namespace chsim

#endif  // CHSIM_RENDEZVOUS_H_
