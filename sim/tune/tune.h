// SPDX-License-Identifier: Apache-2.0
// Tuning: the least value of an algorithm's tuned parameter (its spec's
// tuned_param: ring points per node, a maglev table size, multi-probe probes)
// that keeps the hottest node's load over the mean at or under a target, with
// a stated confidence over node-name draws; or, for a given server list,
// exactly. The parameter's range, grid rule (e.g. primes) and default come from
// the spec.
//
// Method (docs/design.md#tune). Every search below is one bracket-and-bisect
// (from a start, widening steps down while candidates pass or up while they
// fail, until a pass and a fail bracket the answer; then bisection):
//  1. Analytic first guess (rings). A node's share of a ring with v random
//     points per node is Gamma(v)/sum (its arcs are v exponential spacings),
//     so share/mean ~ Gamma(v, 1/v); by Wilson & Hilferty (1931),
//     (X/v)^(1/3) ~ Normal(1 - a, a), a = 1/(9v). Treating nodes as
//     independent, P(max/mean <= t) ~ Phi(((t^(1/3)) - 1 + a) / sqrt(a))^n.
//  2. Model search (rings): Monte Carlo of that Gamma model (normalised, so it
//     is the exact Dirichlet law of shares for uniform points), common random
//     numbers across candidates, steps of x2 from the analytic guess.
//  3. Exact check: real instances over drawn node names (rings: built with the
//     profile's hashers; others: built from the spec), exact structural shares
//     (or sampled keys where the algorithm has none). Rings start at the
//     model's answer with steps of 4%, 8%, 16%, ...; others start at a first
//     guess with steps of x2. Every candidate sees the same name draws (rings:
//     as many as the time budget allows for about six candidates, at most
//     `max_exact_draws`).
//
// The rule: a candidate meets the target when the observed share of its
// exact draws with max/mean <= target is >= the confidence. The answer is the
// least candidate that meets it whose lower neighbour on the grid (points come
// in steps of 4 for MD5 digests; table sizes are primes) was checked and does
// not, so the line printed and the exact-check figure it quotes always agree.
// If the next candidate would overrun the time budget, the search stops
// unsettled: `answer` is the least candidate seen to meet the target (safe,
// perhaps too large) and [doubt_low, doubt_high] the candidates the check has
// not decided. A given server list is deterministic (one draw: its own names),
// settled always. Probabilities carry Wilson score intervals.
//
// The 64-bit profiles (docs/design.md#tune): envoy-ring and jedis are rings
// as above, their exact shares the 2^64 key hashes of each node's arcs
// (ProfileMap::KeyHashCounts); envoy-ring is searched in the lightest host's
// points and answers the least min_ring_size giving them, up to its
// max_ring_size. envoy-maglev is the ketama algorithm's maglev_table_size
// over primes from n, as a maglev table is, its shares exact too.
//
// With copies (--replicas K): the figure is the hottest node's share of all K
// copies of every key (chsim/replica.h's strategy over each candidate
// instance), not of primaries alone, over the parameter's grid from K times
// fewer points than the analytic one-copy guess, with exact draws only (no
// model). It is exact over a ring's arcs when the strategy's copies depend
// only on the arc a key falls in (checked at both ends of every arc: walk is;
// a salted strategy is not and is sampled with `keys` keys). The same run
// reports what the answer costs in availability: Lynch and Snyder's expected
// replica neighbours per node beside the measured scatter width, and the
// Copysets loss probability when 1% of the nodes fail (every arc holding
// keys), both over draw 0 (sim/run/copysets.h).
//
// Thread-safety: Tune is reentrant; it runs `threads` worker threads itself.
// Determinism: the same request and seed give the same answer and the same
// estimates on any thread count (timings aside).
#ifndef CHSIM_SIM_TUNE_TUNE_H_
#define CHSIM_SIM_TUNE_TUNE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "chsim/algorithm.h"
#include "chsim/node.h"
#include "chsim/profile.h"
#include "chsim/replica.h"
#include "sim/base/stats.h"  // WilsonInterval

namespace chsim::sim {

enum class TuneMetric { kStructural, kSampled };

enum class TuneObjective {
  kMaxOverMean,  // max load / expected load <= target
  // Keys moved beyond the removed node's, on removing one node, <= target:
  // for a lookup table indexed by hash mod its size that is not minimally
  // disruptive (maglev), counted exactly over its entries.
  kExcessChurn,
};

struct TuneRequest {
  // A registered algorithm whose spec names a tuned parameter; "" is a ring
  // of `profile` (its points per node tuned; envoy-maglev: its table size).
  std::string algorithm;
  TuneObjective objective = TuneObjective::kMaxOverMean;
  std::string hasher = "xxh3";  // node hasher of a non-ring algorithm
  Profile profile;              // the ring's rules; points_per_node is what is tuned
  std::vector<Node> nodes;      // given list (weights honoured), or empty: draw `n` names
  bool weighted = false;        // the given list spells weights
  uint32_t n = 0;               // node count when names are drawn
  double target = 1.10;         // max load / expected load <= target
  double confidence = 0.95;     // probability over name draws
  TuneMetric metric = TuneMetric::kStructural;
  uint64_t keys = 1'000'000;    // for kSampled
  uint32_t model_draws = 2000;  // Monte Carlo draws per candidate (model)
  uint32_t max_exact_draws = 2000;
  double time_budget_seconds = 20;  // for the exact check; > 0, +inf: no time limit
  uint64_t seed = 1;
  int threads = 1;
  // Copies per key (0: primaries only, the plain question), their strategy
  // and the racks nodes are dealt into round-robin (0: none).
  uint32_t replicas = 0;
  const ReplicaStrategy* strategy = nullptr;
  uint32_t racks = 0;
  double failed = 0.01;  // the share failing at once in the availability figures
};

struct TuneEstimate {
  uint32_t points = 0;  // the tuned value: points per node (the base for weighted
                        // lists), or the tuned parameter's value
  std::string method;   // "analytic", "model", "exact", "given-list"
  uint32_t draws = 0;
  uint32_t successes = 0;
  double probability = 0;          // successes / draws
  double ci_low = 0, ci_high = 0;  // Wilson 95% interval of probability
  double median_max_over_mean = 0;
  double p95_max_over_mean = 0;
};

struct TuneCost {
  uint32_t points = 0;
  uint64_t ring_points = 0;
  uint64_t memory_bytes = 0;
  double build_ms = 0;   // wall time, not deterministic
  double lookup_ns = 0;  // wall time, key hash included
};

// What the answer costs in availability (with copies), over draw 0's names.
struct TuneAvailability {
  bool exact = false;              // copy shares over the ring's arcs (else sampled keys)
  double peers = 0;                // eligible replica peers: n - 1, or n (R-1)/R with racks
  double expected_neighbours = 0;  // Lynch & Snyder's E at the answer (rings)
  double scatter_width = 0;        // measured: distinct peers per node, mean
  uint32_t failed_nodes = 0;       // F
  uint64_t copysets = 0;           // distinct copysets (every arc holding keys)
  double loss_formula = 0;         // the Copysets paper's P at F
  double loss_p = 0;               // share of failure sets losing some key's every copy
  double loss_low = 0, loss_high = 0;
  uint64_t failure_sets = 0;
};

struct TuneResult {
  std::string algorithm;                // the algorithm tuned (resolved: never "")
  std::string parameter;                // its tuned parameter
  bool ring_model = false;              // a Ketama ring: the model steps and ring costs apply
  uint32_t answer = 0;                  // least value meeting the target (see the rule above)
  bool met = false;                     // false if no candidate up to the limit met it
  bool settled = true;                  // false: the budget ran out before the answer was known
  uint32_t doubt_low = 0;               // unsettled: the candidates still in doubt are
  uint32_t doubt_high = 0;              //   doubt_low..doubt_high (doubt_high 0: above doubt_low)
  uint32_t model_answer = 0;            // the model search's answer (drawn names only)
  uint32_t exact_draws = 0;             // name draws per exact candidate
  double analytic = 0;                  // continuous analytic estimate
  std::vector<TuneEstimate> estimates;  // every candidate evaluated, in order
  TuneEstimate current;                 // the profile's own setting
  TuneCost cost_answer, cost_current;
  // Given list only: the list as is.
  double list_max_over_mean = 0;
  std::string hottest_label;
  TuneAvailability availability;  // with copies
  std::string summary;            // one line for humans, never cut short
  // The answer in the program's own setting (Profile::knob), e.g. "every
  // weight x 8, at 160 points per unit of weight" or "replicas=90"; "" when the
  // setting is the points per node themselves, or nothing met the target.
  std::string setting;
};

// The spec `name` tunes ("": the first registered algorithm that builds Ketama
// rings, which a profile's ring is); throws UsageError naming the algorithms
// tune accepts when it has no tuned parameter.
const AlgorithmSpec& TunedAlgorithm(std::string_view name);
// Its tuned parameter's spec (range, grid rule, default).
const ParamSpec& TunedParam(const AlgorithmSpec& spec);
// Whether its instances are Ketama rings: the Gamma model and ring costs apply,
// and `profile` gives the ring's rules.
bool TunesRings(const AlgorithmSpec& spec);

using TuneProgress = std::function<void(const std::string&)>;

// REQUIRES: 1 < target; 0 < confidence < 1; nodes non-empty or n >= 2.
TuneResult Tune(const TuneRequest& request, const TuneProgress& progress = {});

// Analytic least v (continuous) for n equal nodes; +inf when unreachable.
double AnalyticPoints(uint32_t n, double target, double confidence, double keys_per_node = 0);

}  // namespace chsim::sim

#endif  // CHSIM_SIM_TUNE_TUNE_H_
