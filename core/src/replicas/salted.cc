// SPDX-License-Identifier: Apache-2.0
// `salted`: the naive baseline any algorithm gets: k lookups of salted key
// hashes, a draw that collides with a copy already placed drawn again with
// the next salt. Draw 0 is the key hash itself (so the primary is Locate's
// answer); draw s >= 1 looks up Mix64(Mix64(h) ^ s). The salts run on across
// the copies (0, 1, 2, ... for the whole key). Each copy gets at most `tries`
// draws; when all of them collide the selection stops there and answers
// short, as CRUSH does when it runs out of tries (Weil et al., "CRUSH:
// Controlled, Scalable, Decentralized Placement of Replicated Data", SC 2006,
// section 3.2.2: collisions and failures retried with r' = r + f). This is
// the k-salted-hashes scheme with retry that jump-hash users adopt (the
// background in graphite-project/carbon#485); no paper proves it minimal.
//
// Failure domains: while fewer than min(k, D) copies are placed (D: the
// distinct domains of the live nodes), a draw whose node's domain holds a
// copy collides too; after that only a node already chosen does. The domain
// draws share the same per-copy bound, so with domains a selection can be
// short where one without would not.
//
// Minimal (without domains, over a minimally disruptive algorithm, barring
// short results): removing X moves only the draws that landed on X; a key
// without a copy on X had no draw on X (a colliding draw lands on a copy),
// so its draws and its set stay.
#include "internal.h"

namespace chsim::replicas_internal {

extern const ReplicaStrategy kSaltedStrategy;

namespace {

class Salted final : public ReplicaSelector {
 public:
  Salted(const ReplicaInput& in, uint64_t tries)
      : ReplicaSelector(in.k), algorithm_(*in.algorithm), domains_(in), tries_(tries) {}

  uint32_t Select(uint64_t key_hash, std::span<uint32_t> out) const noexcept override {
    const uint32_t k = this->k();
    const uint32_t spread = domains_.Spread(k);
    const uint64_t mixed = Mix64(key_hash);
    uint64_t salt = 0;
    uint32_t placed = 0;
    while (placed < k) {
      uint64_t t = 0;
      for (; t < tries_; ++t, ++salt) {
        const uint32_t id = algorithm_.Locate(salt == 0 ? key_hash : Mix64(mixed ^ salt));
        if (Holds(out.data(), placed, id)) continue;
        if (placed < spread && domains_.Taken(out.data(), placed, id)) continue;
        out[placed++] = id;
        ++salt;
        break;
      }
      if (t == tries_) break;  // this copy's draws all collided: short
    }
    return placed;
  }

 private:
  const Algorithm& algorithm_;
  DomainRule domains_;
  uint64_t tries_;
};

constexpr ParamSpec kParams[] = {
    {.name = "tries",
     .type = ParamType::kInteger,
     .doc = "draws per copy before the selection stops short",
     .default_number = 50,
     .min = 1,
     .max = 1000000,
     .sweepable = true},
};

}  // namespace

constinit const ReplicaStrategy kSaltedStrategy{
    .name = "salted",
    .summary = "k lookups of salted key hashes, redrawn on collision; short after `tries`",
    .paper = "",
    .year = 0,
    .applies_doc = "every algorithm whose Locate does not depend on the keys placed before",
    .applies = [](const AlgorithmSpec& a) noexcept { return !a.capabilities.stateful; },
    .domain_rule =
        "a draw into a domain holding a copy collides until min(k, D) copies are placed (D: the "
        "live nodes' domains); then only a node already chosen does",
    .minimal = true,
    .short_results = true,
    .first_is_locate = true,
    .params = kParams,
    .make = [](const ReplicaInput& in, const Params& p) -> std::unique_ptr<ReplicaSelector> {
      return std::make_unique<Salted>(in, p.Integer("tries"));
    },
};

}  // namespace chsim::replicas_internal
