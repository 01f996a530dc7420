// SPDX-License-Identifier: Apache-2.0
#include "sim/tune/tune.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_set>

#include "chsim/algorithm.h"
#include "chsim/algorithms/maglev.h"
#include "chsim/ring.h"
#include "sim/base/errors.h"
#include "sim/base/rng.h"
#include "sim/base/thread_pool.h"

namespace chsim::sim {
namespace {

// Draws for the tuner's model: uniform, normal, gamma and Poisson variates
// from a seeded SplitMix64 stream (rng.h), so results never depend on the
// standard library.
struct Sampler {
  SplitMix64 gen;
  uint64_t Next() { return gen.Next(); }
  double Uniform() { return Unit(Next()); }  // (0,1)
  double Normal() {                          // Box & Muller (1958)
    double u1 = Uniform(), u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  // Marsaglia & Tsang (2000), "A simple method for generating gamma variables". REQUIRES: a >= 1.
  double Gamma(double a) {
    const double d = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      double x, v;
      do {
        x = Normal();
        v = 1.0 + c * x;
      } while (v <= 0);
      v = v * v * v;
      double u = Uniform();
      if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
      if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
    }
  }
  // Poisson(lambda): inversion for small lambda, normal approximation above 50.
  double Poisson(double lambda) {
    if (lambda > 50) return std::max(0.0, std::round(lambda + std::sqrt(lambda) * Normal()));
    double l = std::exp(-lambda), p = 1.0;
    int k = 0;
    do {
      ++k;
      p *= Uniform();
    } while (p > l);
    return k - 1;
  }
};

volatile uint64_t g_sink;

double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// Draw `draw` of n distinct node names "10.a.b.c:11211" (24 random bits each).
std::vector<Node> DrawNodeNames(uint64_t seed, uint32_t n, uint32_t draw) {
  Sampler rng{SplitMix64(Derive(Derive(seed, Tag("tune-names")), draw))};
  std::unordered_set<uint32_t> used;
  std::vector<Node> nodes;
  nodes.reserve(n);
  while (nodes.size() < n) {
    uint32_t x = static_cast<uint32_t>(rng.Next() >> 40);
    if (!used.insert(x).second) continue;
    Node node;
    node.host = "10." + std::to_string(x >> 16) + "." + std::to_string((x >> 8) & 255) + "." +
                std::to_string(x & 255);
    node.port_given = true;
    node.label = node.host + ":11211";
    nodes.push_back(std::move(node));
  }
  return nodes;
}

struct Draws {
  std::vector<double> max_over_mean;  // per draw
  uint32_t successes = 0;
};

TuneEstimate Summarize(uint32_t points, const std::string& method, const Draws& d, double target) {
  TuneEstimate e;
  e.points = points;
  e.method = method;
  e.draws = static_cast<uint32_t>(d.max_over_mean.size());
  e.successes = 0;
  for (double m : d.max_over_mean) e.successes += m <= target ? 1 : 0;
  e.probability = e.draws ? double(e.successes) / e.draws : 0;
  WilsonInterval(e.successes, e.draws, &e.ci_low, &e.ci_high);
  std::vector<double> s = d.max_over_mean;
  std::sort(s.begin(), s.end());
  if (!s.empty()) {
    e.median_max_over_mean = s[s.size() / 2];
    e.p95_max_over_mean = s[std::min(s.size() - 1, size_t(std::ceil(0.95 * s.size())) - 1)];
  }
  return e;
}

// Runs f(i) for i in [0, count) on `threads` threads; f writes only slot i.
template <typename F>
void ParallelFor(uint32_t count, int threads, F&& f) {
  sim::ParallelFor(count, static_cast<unsigned>(std::max(1, threads)),
                   [&f](unsigned, uint64_t i) { f(static_cast<uint32_t>(i)); });
}

class Tuner {
 public:
  Tuner(const TuneRequest& r, const TuneProgress& progress) : r_(r), progress_(progress) {
    if (!(r.target > 1.0) || !std::isfinite(r.target)) {
      throw UsageError("--max-over-mean must be a number > 1 (got " + std::to_string(r.target) +
                       ")");
    }
    if (!(r.confidence > 0.0 && r.confidence < 1.0)) {
      throw UsageError("--confidence must be in (0, 1) (got " + std::to_string(r.confidence) + ")");
    }
    if (!(r.time_budget_seconds > 0.0)) {
      throw UsageError(
          "--time-budget must be a number of seconds > 0, or inf to let --draws "
          "alone bound the work (got " +
          std::to_string(r.time_budget_seconds) + ")");
    }
    given_ = !r.nodes.empty();
    n_ = given_ ? static_cast<uint32_t>(r.nodes.size()) : r.n;
    if (n_ < 2) throw UsageError("tuning needs at least 2 nodes (got " + std::to_string(n_) + ")");
    weights_.assign(n_, 1);
    if (given_) {
      for (uint32_t i = 0; i < n_; ++i) weights_[i] = r.nodes[i].weight;
    }
    total_weight_ = 0;
    for (uint32_t w : weights_) total_weight_ += w;
    const Profile& p = r.profile;
    granularity_ =
        (p.points_per_hash == 4 || ((r.weighted || given_weighted()) && p.weighted_uses_md5)) ? 4
                                                                                              : 1;
  }

  bool given_weighted() const {
    for (uint32_t w : weights_)
      if (w != 1) return true;
    return false;
  }

  uint32_t RoundUp(double v) const {
    double g = granularity_;
    double x = std::ceil(std::max(v, g) / g) * g;
    return static_cast<uint32_t>(std::min<double>(x, kTuneMaxPoints));
  }

  Profile ProfileWith(uint32_t points) const {
    Profile p = r_.profile;
    p.points_per_node = points;
    return p;
  }

  std::vector<uint32_t> PointsPerNode(uint32_t v) const {
    Profile p = ProfileWith(v);
    bool weighted = r_.weighted || given_weighted();
    std::vector<uint32_t> out(n_);
    for (uint32_t i = 0; i < n_; ++i)
      out[i] = PointsForNode(p, weighted, weights_[i], total_weight_, n_);
    return out;
  }

  // Max over nodes of (share / expected share), from loads.
  double MaxOverExpected(const std::vector<double>& load) const {
    double total = 0;
    for (double x : load) total += x;
    double m = 0;
    for (uint32_t i = 0; i < n_; ++i) {
      double expected = total * double(weights_[i]) / double(total_weight_);
      m = std::max(m, load[i] / expected);
    }
    return m;
  }

  Draws ModelDraws(uint32_t v) const {
    std::vector<uint32_t> pts = PointsPerNode(v);
    Draws d;
    d.max_over_mean.resize(r_.model_draws);
    ParallelFor(r_.model_draws, r_.threads, [&](uint32_t i) {
      Sampler rng{SplitMix64(
          Derive(Derive(r_.seed, Tag("tune-model")), i))};  // common random numbers across v
      std::vector<double> load(n_);
      double sum = 0;
      for (uint32_t k = 0; k < n_; ++k) sum += load[k] = pts[k] ? rng.Gamma(pts[k]) : 0.0;
      if (r_.metric == TuneMetric::kSampled) {
        for (uint32_t k = 0; k < n_; ++k) load[k] = rng.Poisson(double(r_.keys) * load[k] / sum);
      }
      d.max_over_mean[i] = MaxOverExpected(load);
    });
    return d;
  }

  std::vector<Node> DrawNames(uint32_t draw) const { return DrawNodeNames(r_.seed, n_, draw); }

  // Exact max/mean of one ring (structural, or sampled with r_.keys keys).
  double ExactOne(const std::vector<Node>& nodes, uint32_t v, std::string* hottest) const {
    Ring ring = Ring::Build(ProfileWith(v), nodes, r_.weighted);
    std::vector<double> load(n_);
    if (r_.metric == TuneMetric::kStructural) {
      std::vector<uint64_t> arcs = ring.ArcLengths();
      for (uint32_t i = 0; i < n_; ++i) load[i] = double(arcs[i]);
    } else {
      std::string key;
      for (uint64_t k = 0; k < r_.keys; ++k) {
        key = "key:" + std::to_string(k);
        load[ring.Locate(key)] += 1;
      }
    }
    if (hottest) {
      double best = -1;
      for (uint32_t i = 0; i < n_; ++i) {
        double ratio = load[i] / double(weights_[i]);
        if (ratio > best) best = ratio, *hottest = nodes[i].label;
      }
    }
    return MaxOverExpected(load);
  }

  // Appends draws first..first+count-1 (the same name sets for every v) to `d`.
  void ExactDraws(uint32_t v, uint32_t first, uint32_t count, Draws& d) const {
    d.max_over_mean.resize(first + count);
    ParallelFor(count, r_.threads, [&](uint32_t i) {
      d.max_over_mean[first + i] = ExactOne(DrawNames(first + i), v, nullptr);
    });
  }

  TuneCost Cost(uint32_t v) const {
    TuneCost c;
    c.points = v;
    std::vector<Node> nodes = given_ ? r_.nodes : DrawNames(0);
    auto t0 = std::chrono::steady_clock::now();
    Ring ring = Ring::Build(ProfileWith(v), nodes, r_.weighted);
    auto t1 = std::chrono::steady_clock::now();
    c.build_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    c.ring_points = ring.size();
    c.memory_bytes = ring.MemoryBytes();
    std::vector<std::string> keys(100000);
    for (size_t i = 0; i < keys.size(); ++i) keys[i] = "user:" + std::to_string(i * 7919);
    uint64_t sink = 0;
    auto t2 = std::chrono::steady_clock::now();
    for (const std::string& k : keys) sink += ring.Locate(k);
    auto t3 = std::chrono::steady_clock::now();
    c.lookup_ns = std::chrono::duration<double, std::nano>(t3 - t2).count() / keys.size();
    g_sink = sink;  // keeps the timed loop from being optimised away
    return c;
  }

  // The least candidate in (lo, hi] that passes, given hi passes and lo fails
  // (lo = 0: nothing below hi was tried), on the granularity grid.
  template <typename Passes>
  uint32_t Bisect(uint32_t lo, uint32_t hi, Passes&& passes) const {
    while (hi - lo > granularity_) {
      uint32_t mid = RoundUp((double(lo) + hi) / 2.0);
      if (mid >= hi) mid = hi - granularity_;
      if (mid <= lo) break;
      if (passes(mid))
        hi = mid;
      else
        lo = mid;
    }
    return hi;
  }

  void Say(const std::string& s) const {
    if (progress_) progress_(s);
  }

  TuneResult Run() {
    TuneResult res;
    const double keys_per_node = r_.metric == TuneMetric::kSampled ? double(r_.keys) / n_ : 0;
    res.analytic = AnalyticPoints(n_, r_.target, r_.confidence, keys_per_node);
    const uint32_t current = r_.profile.points_per_node;
    if (given_) return RunGiven(std::move(res), current);
    res.model_answer = ModelSearch(res);
    if (res.model_answer != 0) ExactSearch(res.model_answer, res);
    res.current = Summarize(current, "model", ModelDraws(current), r_.target);
    res.cost_current = Cost(current);
    if (res.met) res.cost_answer = Cost(res.answer);
    res.summary = Summary(res);
    return res;
  }

  // Step 2 of tune.h: the least v the Gamma model passes (0 if none up to
  // kTuneMaxPoints does), by doubling from the analytic guess, then bisection.
  uint32_t ModelSearch(TuneResult& res) const {
    auto model = [&](uint32_t v) {
      TuneEstimate e = Summarize(v, "model", ModelDraws(v), r_.target);
      res.estimates.push_back(e);
      Say("model v=" + std::to_string(v) +
          ": P(max/mean <= target) = " + std::to_string(e.probability));
      return e.probability >= r_.confidence;
    };
    // Bracket: lo fails (0: nothing below hi was tried), hi passes.
    const uint32_t start = RoundUp(std::isfinite(res.analytic) ? res.analytic : kTuneMaxPoints);
    uint32_t lo = 0, hi = 0;
    if (model(start)) {
      hi = start;
      for (uint32_t v = RoundUp(start / 2.0); v < hi; v = RoundUp(v / 2.0)) {
        if (!model(v)) {
          lo = v;
          break;
        }
        hi = v;
      }
    } else {
      for (lo = start; lo < kTuneMaxPoints;) {
        const uint32_t next = RoundUp(lo * 2.0);
        if (model(next)) {
          hi = next;
          break;
        }
        lo = next;
      }
    }
    return hi == 0 ? 0 : Bisect(lo, hi, model);
  }

  // Step 3 of tune.h: bisection on real rings, every candidate checked over
  // the same `draws` name sets (common random numbers), starting at the model's
  // answer; stops when the least passing candidate is found or when the next
  // candidate would not fit in the time budget.
  void ExactSearch(uint32_t start, TuneResult& res) const {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    const int threads = std::max(1, r_.threads);
    // The first candidate sizes the draws: batches doubling in size until
    // about 1/kExpectedCandidates of the budget is spent or max_exact_draws reached.
    constexpr double kExpectedCandidates = 6;
    Draws first;
    for (uint32_t done = 0, batch = uint32_t(threads); done < r_.max_exact_draws; batch *= 2) {
      batch = std::min(batch, r_.max_exact_draws - done);
      ExactDraws(start, done, batch, first);
      done += batch;
      if (done >= std::min<uint32_t>(r_.max_exact_draws, 200) &&
          elapsed() * kExpectedCandidates > r_.time_budget_seconds) {
        break;
      }
    }
    const uint32_t draws = static_cast<uint32_t>(first.max_over_mean.size());
    const double ring_seconds = std::max(elapsed(), 1e-9) * threads / draws;
    res.exact_draws = draws;
    uint32_t lo = 0, hi = 0;  // highest failing, least passing candidate checked (0: none)
    bool out_of_time = false;
    int checked = 0;
    // Checks v; nullopt when its predicted time would overrun the budget.
    auto exact = [&](uint32_t v) -> std::optional<bool> {
      const double predicted = ring_seconds * double(v) / start * draws / threads;
      if (checked > 0 && elapsed() + predicted > r_.time_budget_seconds) {
        out_of_time = true;
        return std::nullopt;
      }
      Say("exact check v=" + std::to_string(v) + " over " + std::to_string(draws) +
          " drawn name sets");
      Draws d;
      if (v == start)
        d = first;
      else
        ExactDraws(v, 0, draws, d);
      TuneEstimate e = Summarize(v, "exact", d, r_.target);
      res.estimates.push_back(e);
      ++checked;
      const bool pass = e.probability >= r_.confidence;
      (pass ? hi : lo) = v;
      return pass;
    };
    // Bracket around the model's answer with widening steps (4%, 8%, 16%, ...).
    double step = 0.04;
    std::optional<bool> pass = exact(start);
    for (uint32_t v = start; pass.has_value();) {
      const bool down = *pass;
      const uint32_t next = down ? RoundUp(v / (1 + step)) : RoundUp(v * (1 + step));
      if (down ? (lo != 0 || next >= v) : (hi != 0 || next <= v)) break;
      pass = exact(next);
      if (pass.has_value() && *pass != down) break;
      v = next;
      step *= 2;
    }
    while (!out_of_time && hi != 0 && lo != 0 && hi - lo > granularity_) {
      uint32_t mid = RoundUp((double(lo) + hi) / 2.0);
      if (mid >= hi) mid = hi - granularity_;
      if (mid <= lo || !exact(mid).has_value()) break;
    }
    res.met = hi != 0;
    res.answer = hi;
    // Settled: the least passing candidate is known (its lower neighbour fails,
    // or it is the least candidate there is), or nothing up to the limit passes.
    const bool least = hi != 0 && (hi <= granularity_ || (lo != 0 && hi - lo <= granularity_));
    res.settled = least || (hi == 0 && lo >= kTuneMaxPoints);
    if (!res.settled) {
      res.doubt_low = lo == 0 ? granularity_ : lo + granularity_;
      res.doubt_high = hi;
    }
  }

  TuneResult RunGiven(TuneResult res, uint32_t current) {
    std::string hottest;
    res.list_max_over_mean = ExactOne(r_.nodes, current, &hottest);
    res.hottest_label = hottest;
    Draws as_is;
    as_is.max_over_mean = {res.list_max_over_mean};
    res.current = Summarize(current, "given-list", as_is, r_.target);
    // Deterministic for a given list: binary search for the least v that
    // meets the target (max/mean is not strictly monotone in v; the answer is
    // checked, and the next candidates above it are reported).
    auto eval = [&](uint32_t v) {
      Draws d;
      d.max_over_mean = {ExactOne(r_.nodes, v, nullptr)};
      TuneEstimate e = Summarize(v, "given-list", d, r_.target);
      res.estimates.push_back(e);
      Say("list v=" + std::to_string(v) + ": max/mean " + std::to_string(d.max_over_mean[0]));
      return d.max_over_mean[0] <= r_.target;
    };
    uint32_t lo = 0, hi = 0;
    uint32_t v = RoundUp(std::isfinite(res.analytic) ? res.analytic / 2 : 1000);
    while (v <= kTuneMaxPoints) {
      if (eval(v)) {
        hi = v;
        break;
      }
      lo = v;
      if (v == kTuneMaxPoints) break;
      v = RoundUp(v * 2.0);
    }
    res.met = hi != 0;
    if (res.met) {
      res.answer = Bisect(lo, hi, eval);
      res.cost_answer = Cost(hi);
    }
    res.cost_current = Cost(current);
    res.summary = Summary(res);
    return res;
  }

  std::string Summary(const TuneResult& res) const {
    char buf[640];
    std::string hasher(r_.profile.key_hasher ? r_.profile.key_hasher->name : "?");
    std::string who = r_.profile.name == "ring" ? hasher : r_.profile.name;
    if (given_) {
      if (!res.met) {
        std::snprintf(buf, sizeof buf,
                      "n=%u, %s: as is max/mean %.3f (hottest %s); no points per node up to %u "
                      "reach %.3f",
                      n_, who.c_str(), res.list_max_over_mean, res.hottest_label.c_str(),
                      kTuneMaxPoints, r_.target);
      } else {
        std::snprintf(buf, sizeof buf,
                      "n=%u, %s: this list with %u points per node has max/mean %.3f (hottest %s); "
                      "%u points per node bring it to %.3f <= %.3f",
                      n_, who.c_str(), r_.profile.points_per_node, res.list_max_over_mean,
                      res.hottest_label.c_str(), res.answer,
                      res.estimates.empty() ? 0.0 : [&] {
                        for (const auto& e : res.estimates)
                          if (e.points == res.answer) return e.median_max_over_mean;
                        return 0.0;
                      }(),
                      r_.target);
      }
      return buf;
    }
    const TuneEstimate* at_answer = ExactEstimate(res, res.answer);
    const TuneEstimate* below =
        ExactEstimate(res, res.settled ? res.answer - granularity_ : res.doubt_low - granularity_);
    if (!res.met && res.settled) {
      std::snprintf(buf, sizeof buf,
                    "n=%u, %s: no points per node up to %u keep max/mean <= %.3f with %.0f%% "
                    "confidence",
                    n_, who.c_str(), kTuneMaxPoints, r_.target, 100 * r_.confidence);
      return buf;
    }
    std::string evidence = Evidence(at_answer);
    if (below) evidence += (evidence.empty() ? "" : "; ") + Evidence(below);
    char tail[200];
    std::snprintf(tail, sizeof tail, "model %u, analytic %.0f); %u points give %.3f median",
                  res.model_answer, res.analytic, res.current.points,
                  res.current.median_max_over_mean);
    if (res.settled) {
      std::snprintf(buf, sizeof buf,
                    "n=%u, %s: %u points per node keep max/mean <= %.2f with %.0f%% confidence "
                    "(exact check on real rings, rule: observed share >= %.0f%%: %s; %s",
                    n_, who.c_str(), res.answer, r_.target, 100 * r_.confidence,
                    100 * r_.confidence, evidence.c_str(), tail);
    } else if (res.met) {
      char range[80];
      if (res.doubt_low > granularity_) {
        std::snprintf(range, sizeof range, "lie in %u..%u", res.doubt_low, res.doubt_high);
      } else {
        std::snprintf(range, sizeof range, "are at most %u (nothing smaller was checked)",
                      res.doubt_high);
      }
      std::snprintf(buf, sizeof buf,
                    "n=%u, %s: not settled within the %.3g s budget: the least points per node "
                    "keeping max/mean <= %.2f with %.0f%% confidence %s; %u meets it (exact "
                    "check: %s; raise --time-budget or lower --draws; %s",
                    n_, who.c_str(), r_.time_budget_seconds, r_.target, 100 * r_.confidence, range,
                    res.answer, evidence.c_str(), tail);
    } else {
      std::snprintf(buf, sizeof buf,
                    "n=%u, %s: not settled within the %.3g s budget: keeping max/mean <= %.2f "
                    "with %.0f%% confidence takes more than %u points per node (exact check: %s; "
                    "raise --time-budget; %s",
                    n_, who.c_str(), r_.time_budget_seconds, r_.target, 100 * r_.confidence,
                    res.doubt_low - granularity_, evidence.c_str(), tail);
    }
    return buf;
  }

  static const TuneEstimate* ExactEstimate(const TuneResult& res, uint32_t points) {
    for (const TuneEstimate& e : res.estimates) {
      if (e.method == "exact" && e.points == points) return &e;
    }
    return nullptr;
  }

  // "108 points: 95.3% [94.3, 96.2] of 2000 rings"
  static std::string Evidence(const TuneEstimate* e) {
    if (!e) return "";
    char part[160];
    std::snprintf(part, sizeof part, "%u points: %.1f%% [%.1f, %.1f] of %u rings", e->points,
                  100 * e->probability, 100 * e->ci_low, 100 * e->ci_high, e->draws);
    return part;
  }

 private:
  const TuneRequest& r_;
  const TuneProgress& progress_;
  bool given_ = false;
  uint32_t n_ = 0;
  std::vector<uint32_t> weights_;
  uint64_t total_weight_ = 0;
  uint32_t granularity_ = 1;
};

// Refuses a maglev or multi_probe request tune cannot answer, naming the flag.
void CheckAlgorithmRequest(const TuneRequest& r, bool maglev, uint32_t n) {
  if (!maglev && r.algorithm != "multi_probe") {
    throw UsageError("--algorithm '" + r.algorithm + "': tune accepts ring, maglev, multi_probe");
  }
  const bool churn = r.objective == TuneObjective::kExcessChurn;
  if (churn && !maglev) throw UsageError("--max-excess-churn applies to --algorithm maglev only");
  if (!(r.target > (churn ? 0.0 : 1.0)) || !std::isfinite(r.target)) {
    throw UsageError(
        churn ? "--max-excess-churn must be a number > 0 (got " + std::to_string(r.target) + ")"
              : "--max-over-mean must be a number > 1 (got " + std::to_string(r.target) + ")");
  }
  if (!(r.confidence > 0.0 && r.confidence < 1.0)) {
    throw UsageError("--confidence must be in (0, 1) (got " + std::to_string(r.confidence) + ")");
  }
  if (n < 2) throw UsageError("tuning needs at least 2 nodes (got " + std::to_string(n) + ")");
  for (const Node& node : r.nodes) {
    if (node.weight != 1 && !maglev)
      throw UsageError("multi_probe has no weights; use an unweighted list");
  }
}

// Maglev table size and multi-probe probe count: exact Monte Carlo over drawn
// node names (no model), common names across candidates, and a search over
// the candidate values (primes for maglev, integers for probes) for the least
// whose observed share within the target reaches the confidence.
class AlgorithmTuner {
 public:
  AlgorithmTuner(const TuneRequest& r, const TuneProgress& progress)
      : r_(r),
        progress_(progress),
        maglev_(r.algorithm == "maglev"),
        n_(r.nodes.empty() ? r.n : static_cast<uint32_t>(r.nodes.size())),
        draws_(r.nodes.empty() ? std::max<uint32_t>(1, r.max_exact_draws) : 1),
        limit_(maglev_ ? kTuneMaxTableSize : kTuneMaxProbes) {
    CheckAlgorithmRequest(r, maglev_, n_);
  }

  TuneResult Run() {
    // First guess: maglev spreads entries to floor/ceil(M/n) per backend, so
    // max/mean ~ 1 + n/M; multi_probe's peak-to-mean falls roughly as 1 + 1/k
    // (Appleton & O'Reilly 2015 report 1.05 at k = 21); churn starts at 10 n.
    const double guess = Churn()   ? 10.0 * n_
                         : maglev_ ? n_ / (r_.target - 1.0)
                                   : 1.0 / (r_.target - 1.0);
    res_.analytic = guess;
    const uint32_t start = maglev_ ? NextCandidate(uint64_t(std::min<double>(guess, limit_)))
                                   : std::clamp<uint32_t>(uint32_t(std::ceil(guess)), 1, limit_);
    uint32_t lo = 0, hi = 0;
    Bracket(start, &lo, &hi);
    res_.met = hi != 0;
    if (res_.met) res_.answer = Bisect(lo, hi);
    const uint32_t current = maglev_ ? 65537 : 21;
    const TuneEstimate* known = Find(current);
    if (known) {
      res_.current = *known;
    } else {
      Evaluate(current);
      res_.current = res_.estimates.back();
    }
    res_.summary = Summary(current);
    return std::move(res_);
  }

 private:
  bool Churn() const { return r_.objective == TuneObjective::kExcessChurn; }

  std::vector<Node> Names(uint32_t draw) const {
    return r_.nodes.empty() ? DrawNodeNames(r_.seed, n_, draw) : r_.nodes;
  }

  // Maglev's excess churn on removing node draw % n: entries that moved
  // beyond those the removed node owned, over the table size.
  static double ExcessChurn(Algorithm& a, uint32_t table, uint32_t victim) {
    std::vector<uint32_t> before(table);
    for (uint32_t e = 0; e < table; ++e) before[e] = a.Locate(e);  // maglev: entry e
    a.Remove(victim);
    uint64_t moved = 0, minimal = 0;
    for (uint32_t e = 0; e < table; ++e) {
      minimal += before[e] == victim ? 1 : 0;
      moved += a.Locate(e) != before[e] ? 1 : 0;
    }
    return double(moved - minimal) / table;
  }

  // One draw's figure: max/mean (exact shares for maglev, r.keys sampled keys
  // for multi_probe), weighted by each node's weight, or maglev's excess churn.
  double Figure(uint32_t value, uint32_t draw) const {
    const std::vector<Node> nodes = Names(draw);
    const Params params{{"hasher", r_.hasher},
                        {maglev_ ? "table_size" : "probes", uint64_t{value}}};
    std::unique_ptr<Algorithm> a = MakeAlgorithm(r_.algorithm, nodes, params);
    if (Churn()) return ExcessChurn(*a, value, draw % n_);
    std::vector<double> load(n_, 0.0);
    if (maglev_) {
      std::vector<double> shares = *a->StructuralShares();
      for (uint32_t i = 0; i < n_; ++i) load[i] = shares[i];
    } else {
      SplitMix64 keys(Derive(Derive(r_.seed, Tag("tune-keys")), draw));
      for (uint64_t k = 0; k < r_.keys; ++k) load[a->Locate(keys.Next())] += 1;
    }
    uint64_t total_weight = 0;
    for (const Node& node : nodes) total_weight += node.weight;
    double total = 0, m = 0;
    for (double x : load) total += x;
    for (uint32_t i = 0; i < n_; ++i) {
      m = std::max(m, load[i] / (total * nodes[i].weight / double(total_weight)));
    }
    return m;
  }

  // Evaluates one candidate over every draw and records it; true when it meets
  // the target with the requested confidence.
  bool Evaluate(uint32_t value) {
    Draws d;
    d.max_over_mean.resize(draws_);
    ParallelFor(draws_, r_.threads, [&](uint32_t i) { d.max_over_mean[i] = Figure(value, i); });
    TuneEstimate e = Summarize(value, r_.nodes.empty() ? "exact" : "given-list", d, r_.target);
    res_.estimates.push_back(e);
    if (progress_) {
      progress_(r_.algorithm + " " + (maglev_ ? "M=" : "probes=") + std::to_string(value) +
                ": P(within target) = " + std::to_string(e.probability));
    }
    return e.probability >= r_.confidence;
  }

  uint32_t NextCandidate(uint64_t m) const {
    if (!maglev_) return static_cast<uint32_t>(m);
    m = std::max<uint64_t>(m, 2);
    while (!IsPrime(m)) ++m;
    return static_cast<uint32_t>(m);
  }
  uint32_t PrevCandidate(uint64_t m) const {
    if (maglev_) {
      while (m > 2 && !IsPrime(m)) --m;
    }
    return static_cast<uint32_t>(m);
  }

  // Halves or doubles from `start` until a failing lo and a passing hi
  // bracket the answer (lo 0: none smaller fails; hi 0: none up to the limit
  // passes).
  void Bracket(uint32_t start, uint32_t* lo, uint32_t* hi) {
    if (Evaluate(start)) {
      *hi = start;
      for (uint32_t v = start; v > 2;) {
        const uint32_t smaller = PrevCandidate(v / 2);
        if (smaller < (maglev_ ? n_ : 1) || smaller == v) break;
        if (!Evaluate(smaller)) {
          *lo = smaller;
          break;
        }
        *hi = v = smaller;
      }
      return;
    }
    *lo = start;
    while (*lo < limit_) {
      const uint32_t bigger = NextCandidate(std::min<uint64_t>(uint64_t(*lo) * 2, limit_));
      if (Evaluate(bigger)) {
        *hi = bigger;
        return;
      }
      *lo = bigger;
    }
  }

  // The least passing candidate in (lo, hi], hi passing.
  uint32_t Bisect(uint32_t lo, uint32_t hi) {
    while (true) {
      const uint32_t cand = NextCandidate((uint64_t(lo) + hi) / 2);
      if (cand <= lo || cand >= hi) return hi;
      if (Evaluate(cand))
        hi = cand;
      else
        lo = cand;
    }
  }

  const TuneEstimate* Find(uint32_t value) const {
    const TuneEstimate* found = nullptr;
    for (const TuneEstimate& e : res_.estimates)
      if (e.points == value) found = &e;
    return found;
  }

  std::string Summary(uint32_t current) const {
    char buf[512];
    const char* what = maglev_ ? "table size" : "probes";
    const char* goal = Churn() ? "excess churn <= " : "max/mean <= ";
    if (!res_.met) {
      std::snprintf(buf, sizeof buf, "n=%u, %s: no %s up to %u keeps %s%.4g with %.0f%% confidence",
                    n_, r_.algorithm.c_str(), what, limit_, goal, r_.target, 100 * r_.confidence);
      return buf;
    }
    const TuneEstimate* at = Find(res_.answer);
    std::snprintf(buf, sizeof buf,
                  "n=%u, %s: %s %u keeps %s%.4g with %.0f%% confidence (observed %.1f%% [%.1f, "
                  "%.1f] over %u draws); %s %u gives %.4g median",
                  n_, r_.algorithm.c_str(), what, res_.answer, goal, r_.target, 100 * r_.confidence,
                  100 * at->probability, 100 * at->ci_low, 100 * at->ci_high, at->draws, what,
                  current, res_.current.median_max_over_mean);
    return buf;
  }

  const TuneRequest& r_;
  const TuneProgress& progress_;
  const bool maglev_;
  const uint32_t n_;
  const uint32_t draws_;
  const uint32_t limit_;
  TuneResult res_;
};

}  // namespace

void WilsonInterval(uint32_t k, uint32_t m, double* lo, double* hi) {
  if (m == 0) {
    *lo = 0;
    *hi = 1;
    return;
  }
  // Wilson (1927) score interval, z = 1.96 (95%).
  const double z = 1.959963984540054, p = double(k) / m, z2 = z * z;
  const double denom = 1 + z2 / m;
  const double center = (p + z2 / (2 * m)) / denom;
  const double half = z * std::sqrt(p * (1 - p) / m + z2 / (4.0 * m * m)) / denom;
  *lo = std::max(0.0, center - half);
  *hi = std::min(1.0, center + half);
}

double AnalyticPoints(uint32_t n, double target, double confidence, double keys_per_node) {
  // Per-node probability needed so that all n stay under the target.
  const double per_node = std::pow(confidence, 1.0 / n);
  auto ok = [&](double v) {
    // Sampling adds Poisson noise: relative variance 1/v + 1/keys_per_node.
    double veff = keys_per_node > 0 ? 1.0 / (1.0 / v + 1.0 / keys_per_node) : v;
    double a = 1.0 / (9.0 * veff);
    double z = (std::cbrt(target) - (1.0 - a)) / std::sqrt(a);
    return NormalCdf(z) >= per_node;
  };
  if (!ok(1e12)) return std::numeric_limits<double>::infinity();
  double lo = 0.01, hi = 1e12;
  for (int i = 0; i < 200 && hi / lo > 1.0001; ++i) {
    double mid = std::sqrt(lo * hi);
    (ok(mid) ? hi : lo) = mid;
  }
  return hi;
}

TuneResult Tune(const TuneRequest& request, const TuneProgress& progress) {
  if (request.algorithm != "ring") return AlgorithmTuner(request, progress).Run();
  Tuner t(request, progress);
  return t.Run();
}

}  // namespace chsim::sim
