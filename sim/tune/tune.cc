// SPDX-License-Identifier: Apache-2.0
#include "sim/tune/tune.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_set>

#include "chsim/algorithm.h"
#include "chsim/profile_map.h"
#include "chsim/replica.h"
#include "chsim/ring.h"
#include "chsim/topology.h"
#include "sim/base/errors.h"
#include "sim/base/rng.h"
#include "sim/base/thread_pool.h"
#include "sim/run/copysets.h"

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

// A string from printf-style arguments, whatever its length.
__attribute__((format(printf, 1, 2))) std::string Format(const char* fmt, ...) {
  va_list args, again;
  va_start(args, fmt);
  va_copy(again, args);
  const int size = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  std::string out(static_cast<size_t>(std::max(size, 0)) + 1, '\0');
  std::vsnprintf(out.data(), out.size(), fmt, again);
  va_end(again);
  out.pop_back();
  return out;
}

// The candidates of a tuned parameter: the multiples of `step` in
// [min, max] (ring points come in steps of 4 for MD5 digests), those that
// pass `rule` (a prime table size).
struct Grid {
  uint32_t min = 1, max = 1, step = 1;
  bool (*rule)(uint64_t) = nullptr;
  // A step down lands on the candidate below its target (else above).
  bool floor_down = false;

  // The least candidate >= v (the largest there is when none).
  uint32_t AtLeast(double v) const {
    const double s = step;
    uint64_t c = static_cast<uint64_t>(std::ceil(std::max(v, double(min)) / s) * s);
    while (rule && c <= max && !rule(c)) c += step;
    return c <= max ? static_cast<uint32_t>(c) : AtMost(max);
  }
  // The largest candidate <= v (0 when none).
  uint32_t AtMost(double v) const {
    if (v < min) return 0;
    uint64_t c = static_cast<uint64_t>(std::floor(std::min(v, double(max)) / step) * step);
    while (rule && c >= min && !rule(c)) c -= step;
    return c >= min ? static_cast<uint32_t>(c) : 0;
  }
};

// What one search found: the highest failing and the least passing candidate
// checked (0: none), and whether it stopped early (a budget ran out).
struct Bracket {
  uint32_t lo = 0, hi = 0;
  bool stopped = false;
};

// The one search of tune (docs/design.md#tune): from `start`, steps down while
// candidates pass and up while they fail, the first `step` (x (1 + step))
// and each next `widen` times larger (1, 1: halving or doubling; 0.04, 2:
// 4%, 8%, 16%, ...), until a pass and a fail bracket the answer; then
// bisection. `passes(v)` returns nullopt to stop the search.
template <typename Passes>
Bracket Search(const Grid& g, uint32_t start, double step, double widen, Passes&& passes) {
  Bracket b;
  auto check = [&](uint32_t v) {
    const std::optional<bool> pass = passes(v);
    if (!pass) b.stopped = true;
    if (pass) (*pass ? b.hi : b.lo) = v;
    return pass;
  };
  std::optional<bool> pass = check(start);
  for (uint32_t v = start; pass;) {
    const bool down = *pass;
    uint32_t next = !down          ? g.AtLeast(v * (1 + step))
                    : g.floor_down ? g.AtMost(v / (1 + step))
                                   : g.AtLeast(v / (1 + step));
    // A step finer than the grid (4% of 640 on a grid of 160s) takes the
    // neighbour below.
    if (down && next >= v) next = g.AtMost(v - 1.0);
    if (down ? next >= v || next == 0 : next <= v) break;
    pass = check(next);
    if (pass && *pass != down) break;
    v = next;
    step *= widen;
  }
  while (!b.stopped && b.lo != 0 && b.hi != 0) {
    uint32_t mid = g.AtLeast((double(b.lo) + b.hi) / 2);
    if (mid >= b.hi) mid = g.AtMost(b.hi - 1);
    if (mid <= b.lo || !check(mid)) break;
  }
  return b;
}

// The checks every request gets; `n` nodes, `churn` the objective.
void CheckRequest(const TuneRequest& r, const AlgorithmSpec& spec, uint32_t n) {
  const bool churn = r.objective == TuneObjective::kExcessChurn;
  if (churn && r.algorithm.empty() && r.profile.knob != PointsKnob::kTableSize) {
    throw UsageError(
        "--max-excess-churn tunes a maglev table (--profile envoy-maglev, "
        "--algorithm maglev); give --profile " +
        r.profile.name + " a --max-over-mean target");
  }
  if (churn && spec.capabilities.minimal_disruption) {
    throw UsageError("--max-excess-churn: " + std::string(spec.name) +
                     " is minimally disruptive (no excess churn to tune)");
  }
  if (!(r.target > (churn ? 0.0 : 1.0)) || !std::isfinite(r.target)) {
    throw UsageError(
        churn ? "--max-excess-churn must be a number > 0 (got " + std::to_string(r.target) + ")"
              : "--max-over-mean must be a number > 1 (got " + std::to_string(r.target) + ")");
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
  if (n < 2) throw UsageError("tuning needs at least 2 nodes (got " + std::to_string(n) + ")");
  if (r.algorithm.empty() && r.profile.knob == PointsKnob::kNone) {
    throw UsageError("--profile " + r.profile.name + ": its servers have no points to add (" +
                     (r.profile.engine == Engine::kRing
                          ? "a modulo over the key space: max/mean is at most ceil(space / total "
                            "weight) / (space / total weight))"
                          : "rendezvous hashing: every server scores every key)"));
  }
  for (const Node& node : r.nodes) {
    if (node.weight != 1 && !spec.capabilities.weights) {
      throw UsageError(std::string(spec.name) + " has no weights; use an unweighted list");
    }
  }
}

const TuneEstimate* FindEstimate(const TuneResult& res, uint32_t value, const char* method) {
  const TuneEstimate* found = nullptr;
  for (const TuneEstimate& e : res.estimates) {
    if (e.points == value && (method == nullptr || e.method == method)) found = &e;
  }
  return found;
}

// "108 points: 95.3% [94.3, 96.2] of 2000 rings" ("1009 entries: ... tables")
std::string Evidence(const TuneEstimate* e, const char* unit = "points",
                     const char* instances = "rings") {
  if (!e) return "";
  return Format("%u %s: %.1f%% [%.1f, %.1f] of %u %s", e->points, unit, 100 * e->probability,
                100 * e->ci_low, 100 * e->ci_high, e->draws, instances);
}

// Points per node of a Ketama ring (the profile's rules; a research ring or a
// client's): the Gamma model, then the exact check on real rings.
class RingTuner {
 public:
  RingTuner(const TuneRequest& r, const AlgorithmSpec& spec, const TuneProgress& progress)
      : r_(r), progress_(progress) {
    given_ = !r.nodes.empty();
    n_ = given_ ? static_cast<uint32_t>(r.nodes.size()) : r.n;
    CheckRequest(r, spec, n_);
    weights_.assign(n_, 1);
    if (given_) {
      for (uint32_t i = 0; i < n_; ++i) weights_[i] = r.nodes[i].weight;
    }
    total_weight_ = 0;
    for (uint32_t w : weights_) total_weight_ += w;
    const Profile& p = r.profile;
    const ParamSpec& points = TunedParam(spec);
    grid_.step =
        p.knob == PointsKnob::kWeight ? p.points_per_node  // weight x m: m x the fixed points
        : (p.points_per_hash == 4 || ((r.weighted || given_weighted()) && p.weighted_uses_md5)) ? 4
                                                                                                : 1;
    grid_.min = grid_.step;
    grid_.max = static_cast<uint32_t>(points.max);
    map_ = p.engine != Engine::kRing;
    if (p.knob == PointsKnob::kMinRingSize) {
      // Envoy ring_hash: the lightest host gets ceil(min_w x min_ring_size)
      // points (min_w its normalized weight, in double as Envoy has it), the
      // others in proportion; min_ring_size goes up to max_ring_size.
      min_w_ = 1.0;
      for (uint32_t w : weights_) min_w_ = std::min(min_w_, w * 1.0 / double(total_weight_));
      grid_.max = EnvoyPoints(p.max_ring_size);
    } else if (map_ && p.max_weight != 0) {  // Jedis: 160 x weight stays a Java int
      uint32_t heaviest = 1;
      for (uint32_t w : weights_) heaviest = std::max(heaviest, w);
      grid_.max = std::min<uint64_t>(grid_.max, uint64_t{p.max_weight} / heaviest * grid_.step);
    }
  }

  TuneResult Run() {
    TuneResult res;
    const double keys_per_node = r_.metric == TuneMetric::kSampled ? double(r_.keys) / n_ : 0;
    res.analytic = AnalyticPoints(n_, r_.target, r_.confidence, keys_per_node);
    const uint32_t current = r_.profile.knob == PointsKnob::kMinRingSize
                                 ? EnvoyPoints(r_.profile.min_ring_size)
                                 : r_.profile.points_per_node;
    if (given_) return RunGiven(std::move(res), current);
    res.model_answer = ModelSearch(res);
    if (res.model_answer != 0) ExactSearch(res.model_answer, res);
    res.current = Summarize(current, "model", ModelDraws(current), r_.target);
    if (r_.profile.engine == Engine::kJedis) {  // one ring whatever the names: its own figure
      Draws one;
      one.max_over_mean = {ExactOne(DrawNames(0), current, nullptr)};
      res.current = Summarize(current, "exact", one, r_.target);
    }
    res.cost_current = Cost(current);
    if (res.met) res.cost_answer = Cost(res.answer);
    if (res.met) res.setting = Setting(res.answer);
    res.summary = Summary(res);
    return res;
  }

 private:
  bool given_weighted() const {
    for (uint32_t w : weights_)
      if (w != 1) return true;
    return false;
  }

  uint32_t Start(double v) const { return grid_.AtLeast(std::isfinite(v) ? v : grid_.max); }

  // Envoy ring_hash: the lightest host's points at min_ring_size m
  // (ring_hash_lb.cc, Ring::Ring: ceil(min_w x m)), and the least m giving it
  // v points (ceil(min_w x m) grows by at most 1 as m does).
  uint32_t EnvoyPoints(uint64_t m) const {
    return static_cast<uint32_t>(std::ceil(min_w_ * static_cast<double>(m)));
  }
  uint64_t MinRingSize(uint32_t v) const {
    uint64_t m = std::max<uint64_t>(1, static_cast<uint64_t>(std::floor((v - 1.0) / min_w_)));
    while (EnvoyPoints(m) < v) ++m;
    while (m > 1 && EnvoyPoints(m - 1) >= v) --m;
    return m;
  }

  Profile ProfileWith(uint32_t points) const {
    Profile p = r_.profile;
    if (p.knob == PointsKnob::kMinRingSize) {
      p.min_ring_size = MinRingSize(points);
    } else {
      p.points_per_node = points;
    }
    return p;
  }

  std::vector<uint32_t> PointsPerNode(uint32_t v) const {
    if (r_.profile.knob == PointsKnob::kMinRingSize) {  // in proportion to the weights
      std::vector<uint32_t> out(n_);
      for (uint32_t i = 0; i < n_; ++i) {
        const double w = weights_[i] * 1.0 / double(total_weight_);
        out[i] = static_cast<uint32_t>(std::llround(v * w / min_w_));
      }
      return out;
    }
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

  // Each node's keys out of r_.keys sampled ones on a ring or 64-bit map.
  template <typename Placement>
  std::vector<double> SampledLoad(const Placement& ring) const {
    std::vector<double> load(n_);
    std::string key;
    for (uint64_t k = 0; k < r_.keys; ++k) {
      key = "key:" + std::to_string(k);
      load[ring.Locate(key)] += 1;
    }
    return load;
  }

  // Each node's load on one ring: its exact arcs (a 32-bit ring's arc lengths,
  // a 64-bit ring's KeyHashCounts), or sampled with r_.keys keys.
  std::vector<double> Load(const std::vector<Node>& nodes, uint32_t v) const {
    std::vector<double> load(n_);
    if (map_) {
      const ProfileMap map = ProfileMap::Build(ProfileWith(v), nodes);
      if (r_.metric == TuneMetric::kSampled) return SampledLoad(map);
      std::vector<HashCount> counts(n_);
      map.KeyHashCounts(counts);
      for (uint32_t i = 0; i < n_; ++i) load[i] = static_cast<double>(counts[i]);
      return load;
    }
    Ring ring = Ring::Build(ProfileWith(v), nodes, r_.weighted);
    if (r_.metric == TuneMetric::kSampled) return SampledLoad(ring);
    std::vector<uint64_t> arcs = ring.ArcLengths();
    for (uint32_t i = 0; i < n_; ++i) load[i] = double(arcs[i]);
    return load;
  }

  // Exact max/mean of one ring (structural, or sampled with r_.keys keys).
  double ExactOne(const std::vector<Node>& nodes, uint32_t v, std::string* hottest) const {
    const std::vector<double> load = Load(nodes, v);
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
    std::vector<Node> nodes = given_ ? r_.nodes : DrawNames(0);
    auto t0 = std::chrono::steady_clock::now();
    if (map_) {
      const ProfileMap map = ProfileMap::Build(ProfileWith(v), nodes);
      return Timed(v, map, map.points().size(), t0);
    }
    const Ring ring = Ring::Build(ProfileWith(v), nodes, r_.weighted);
    return Timed(v, ring, ring.size(), t0);
  }

  // A ring's costs: built since t0, `points` points, and its lookup time.
  template <typename Placement>
  TuneCost Timed(uint32_t v, const Placement& ring, uint64_t points,
                 std::chrono::steady_clock::time_point t0) const {
    TuneCost c;
    c.points = v;
    auto t1 = std::chrono::steady_clock::now();
    c.build_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    c.ring_points = points;
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

  void Say(const std::string& s) const {
    if (progress_) progress_(s);
  }

  // Step 2 of tune.h: the least v the Gamma model passes (0 if none up to the
  // parameter's limit does), in steps of x2 from the analytic guess.
  uint32_t ModelSearch(TuneResult& res) const {
    auto model = [&](uint32_t v) -> std::optional<bool> {
      TuneEstimate e = Summarize(v, "model", ModelDraws(v), r_.target);
      res.estimates.push_back(e);
      Say("model v=" + std::to_string(v) +
          ": P(max/mean <= target) = " + std::to_string(e.probability));
      return e.probability >= r_.confidence;
    };
    return Search(grid_, Start(res.analytic), 1, 1, model).hi;
  }

  // The name draws of the exact check: batches doubling in size at `start`
  // until about 1/6 of the budget is spent (the expected number of
  // candidates) or max_exact_draws are done.
  Draws SizeDraws(uint32_t start, double* seconds_per_ring) const {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    const int threads = std::max(1, r_.threads);
    constexpr double kExpectedCandidates = 6;
    // Jedis's unnamed shards make one ring whatever the names: one draw.
    const uint32_t most = r_.profile.engine == Engine::kJedis ? 1 : r_.max_exact_draws;
    Draws first;
    for (uint32_t done = 0, batch = uint32_t(threads); done < most; batch *= 2) {
      batch = std::min(batch, most - done);
      ExactDraws(start, done, batch, first);
      done += batch;
      if (done >= std::min<uint32_t>(most, 200) &&
          elapsed() * kExpectedCandidates > r_.time_budget_seconds) {
        break;
      }
    }
    *seconds_per_ring = std::max(elapsed(), 1e-9) * threads / first.max_over_mean.size();
    return first;
  }

  // Step 3 of tune.h: real rings, every candidate over the same name draws,
  // from the model's answer in steps of 4%, 8%, 16%, ...; stops when the least
  // passing candidate is found or when the next would overrun the budget.
  void ExactSearch(uint32_t start, TuneResult& res) const {
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    double ring_seconds = 0;
    const Draws first = SizeDraws(start, &ring_seconds);
    const uint32_t draws = static_cast<uint32_t>(first.max_over_mean.size());
    res.exact_draws = draws;
    auto exact = [&](uint32_t v) -> std::optional<bool> {
      const double predicted = ring_seconds * double(v) / start * draws / std::max(1, r_.threads);
      if (v != start && elapsed() + predicted > r_.time_budget_seconds) return std::nullopt;
      Say("exact check v=" + std::to_string(v) + " over " + std::to_string(draws) +
          " drawn name sets");
      Draws d = first;
      if (v != start) ExactDraws(v, 0, draws, d);
      TuneEstimate e = Summarize(v, "exact", d, r_.target);
      res.estimates.push_back(e);
      return e.probability >= r_.confidence;
    };
    const Bracket b = Search(grid_, start, 0.04, 2, exact);
    res.met = b.hi != 0;
    res.answer = b.hi;
    // Settled: the least passing candidate is known (no candidate between it
    // and a failing one), or nothing up to the limit passes.
    res.settled = b.hi != 0 ? grid_.AtMost(b.hi - 1) <= b.lo : b.lo >= grid_.max;
    if (!res.settled) {
      res.doubt_low = grid_.AtLeast(b.lo + 1);
      res.doubt_high = b.hi;
    }
  }

  // A given list is deterministic: its own names, one draw per candidate
  // (max/mean is not strictly monotone in v; the answer is the least checked
  // whose lower neighbour fails).
  TuneResult RunGiven(TuneResult res, uint32_t current) {
    std::string hottest;
    res.list_max_over_mean = ExactOne(r_.nodes, current, &hottest);
    res.hottest_label = hottest;
    Draws as_is;
    as_is.max_over_mean = {res.list_max_over_mean};
    res.current = Summarize(current, "given-list", as_is, r_.target);
    auto eval = [&](uint32_t v) -> std::optional<bool> {
      Draws d;
      d.max_over_mean = {ExactOne(r_.nodes, v, nullptr)};
      TuneEstimate e = Summarize(v, "given-list", d, r_.target);
      res.estimates.push_back(e);
      Say("list v=" + std::to_string(v) + ": max/mean " + std::to_string(d.max_over_mean[0]));
      return d.max_over_mean[0] <= r_.target;
    };
    const double start = std::isfinite(res.analytic) ? res.analytic / 2 : 1000;
    const Bracket b = Search(grid_, grid_.AtLeast(start), 1, 1, eval);
    res.met = b.hi != 0;
    res.answer = b.hi;
    if (res.met) res.cost_answer = Cost(b.hi);
    res.cost_current = Cost(current);
    if (res.met) res.setting = Setting(res.answer);
    res.summary = Summary(res);
    return res;
  }

  // The client's profile name, or a research ring's hasher.
  std::string Who() const {
    if (!r_.profile.key_hasher) return r_.profile.name;
    const bool research = r_.profile.name == ResearchProfile(*r_.profile.key_hasher, 1).name;
    return research ? std::string(r_.profile.key_hasher->name) : r_.profile.name;
  }

  // The answer in the program's own setting (Profile::knob): "" for points
  // per node themselves.
  std::string Setting(uint32_t points) const {
    const Profile& p = r_.profile;
    if (p.knob == PointsKnob::kWeight) {
      return Format("every weight x %u, at %u points per unit of weight",
                    points / p.points_per_node, p.points_per_node);
    }
    if (p.knob == PointsKnob::kReplicas) return Format("replicas=%u", points);
    if (p.knob == PointsKnob::kMinRingSize) {
      return Format("min_ring_size=%llu%s", static_cast<unsigned long long>(MinRingSize(points)),
                    given_weighted() ? ", points for the lightest host" : "");
    }
    return "";
  }

  std::string Spelled(uint32_t points) const {
    const std::string s = Setting(points);
    return s.empty() ? "" : " (" + s + ")";
  }

  // What bounds the search in the program's setting ("": the points' own).
  std::string Limit() const {
    if (r_.profile.knob != PointsKnob::kMinRingSize) return "";
    return Format(" (min_ring_size up to maximum_ring_size, %llu)",
                  static_cast<unsigned long long>(r_.profile.max_ring_size));
  }

  // The list's own setting, as its configuration has it.
  std::string AsConfigured() const {
    if (r_.profile.knob != PointsKnob::kMinRingSize) return "";
    return Format(" (min_ring_size=%llu)",
                  static_cast<unsigned long long>(r_.profile.min_ring_size));
  }

  std::string GivenSummary(const TuneResult& res) const {
    if (!res.met) {
      return Format(
          "n=%u, %s: as is max/mean %.3f (hottest %s); no points per node up to %u%s reach %.3f",
          n_, Who().c_str(), res.list_max_over_mean, res.hottest_label.c_str(), grid_.max,
          Limit().c_str(), r_.target);
    }
    const TuneEstimate* at = FindEstimate(res, res.answer, nullptr);
    return Format(
        "n=%u, %s: this list with %u points per node%s has max/mean %.3f (hottest %s); %u points "
        "per node%s bring it to %.3f <= %.3f",
        n_, Who().c_str(), res.current.points, AsConfigured().c_str(), res.list_max_over_mean,
        res.hottest_label.c_str(), res.answer, Spelled(res.answer).c_str(),
        at ? at->median_max_over_mean : 0.0, r_.target);
  }

  std::string Summary(const TuneResult& res) const {
    if (given_) return GivenSummary(res);
    const std::string who = Who();
    if (!res.met && res.settled) {
      return Format(
          "n=%u, %s: no points per node up to %u%s keep max/mean <= %.3f with %.0f%% confidence",
          n_, who.c_str(), grid_.max, Limit().c_str(), r_.target, 100 * r_.confidence);
    }
    std::string evidence = Evidence(FindEstimate(res, res.answer, "exact"));
    const uint32_t below = grid_.AtMost((res.settled ? res.answer : res.doubt_low) - 1.0);
    if (const TuneEstimate* e = FindEstimate(res, below, "exact")) {
      evidence += (evidence.empty() ? "" : "; ") + Evidence(e);
    }
    // Jedis hashes "SHARD-i-NODE-n": drawn (unnamed) shards make one ring.
    const char* same = r_.profile.engine == Engine::kJedis
                           ? "; Jedis hashes unnamed shards by position: one ring for any names"
                           : "";
    const std::string tail =
        Format("model %u, analytic %.0f%s); %u points give %.3f median", res.model_answer,
               res.analytic, same, res.current.points, res.current.median_max_over_mean);
    const double pct = 100 * r_.confidence;
    if (res.settled) {
      return Format(
          "n=%u, %s: %u points per node%s keep max/mean <= %.2f with %.0f%% confidence (exact "
          "check on real rings, rule: observed share >= %.0f%%: %s; %s",
          n_, who.c_str(), res.answer, Spelled(res.answer).c_str(), r_.target, pct, pct,
          evidence.c_str(), tail.c_str());
    }
    if (res.met) {
      const std::string range =
          res.doubt_low > grid_.min
              ? Format("lie in %u..%u", res.doubt_low, res.doubt_high)
              : Format("are at most %u (nothing smaller was checked)", res.doubt_high);
      return Format(
          "n=%u, %s: not settled within the %.3g s budget: the least points per node keeping "
          "max/mean <= %.2f with %.0f%% confidence %s; %u%s meets it (exact check: %s; raise "
          "--time-budget or lower --draws; %s",
          n_, who.c_str(), r_.time_budget_seconds, r_.target, pct, range.c_str(), res.answer,
          Spelled(res.answer).c_str(), evidence.c_str(), tail.c_str());
    }
    return Format(
        "n=%u, %s: not settled within the %.3g s budget: keeping max/mean <= %.2f with %.0f%% "
        "confidence takes more than %u points per node (exact check: %s; raise --time-budget; %s",
        n_, who.c_str(), r_.time_budget_seconds, r_.target, pct, below, evidence.c_str(),
        tail.c_str());
  }

  const TuneRequest& r_;
  const TuneProgress& progress_;
  bool given_ = false;
  uint32_t n_ = 0;
  std::vector<uint32_t> weights_;
  uint64_t total_weight_ = 0;
  Grid grid_;
  bool map_ = false;  // a 64-bit ring (ProfileMap): Envoy ring_hash, Jedis
  double min_w_ = 1;  // Envoy ring_hash: the least normalized weight
};

// --- Copies (--replicas) ---------------------------------------------------------

// The request's selector over `a`: its strategy, K copies, and racks dealt
// round-robin over the node ids when asked (`racks` keeps them alive).
std::unique_ptr<ReplicaSelector> CopySelector(const TuneRequest& r, const Algorithm& a,
                                              Topology& racks) {
  ReplicaInput in{.algorithm = &a, .k = r.replicas};
  if (r.racks > 0) {
    const std::vector<uint32_t> ids = a.live_ids();
    racks = Topology();
    for (uint32_t id = 0; id <= (ids.empty() ? 0 : ids.back()); ++id) {
      racks.Append({"", "rack" + std::to_string(id % r.racks + 1), ""});
    }
    in.topology = &racks;
    in.domain = DomainLevel::kRack;
  }
  return r.strategy->Make(in);
}

// Calls f(lo, hi) for the runs of a ring's hash space on which the walk's
// start is constant: each distinct point alone, and the gaps between them.
template <typename F>
void ForEachArc(const Ring& ring, F&& f) {
  const auto points = ring.points();
  uint64_t next = 0;  // the first hash not yet covered
  for (size_t i = 0; i < points.size(); ++i) {
    const uint64_t v = points[i];
    if (i > 0 && v == points[i - 1]) continue;
    if (v > next) f(next, v - 1);
    f(v, v);
    next = v + 1;
  }
  if (next <= ring.space_mask()) f(next, ring.space_mask());
}

// Each node's copies (by id) and the copysets: exact over a ring's arcs when
// the copies of both ends of every arc agree, else `keys` sampled hashes.
struct CopyLoads {
  std::vector<double> load;
  bool exact = false;
  CopysetTable copysets;
};

bool ArcLoads(const Algorithm& a, const ReplicaSelector& sel, bool tables, CopyLoads& out) {
  RingView view;
  if (!a.ViewRing(&view)) return false;
  uint32_t c[kMaxReplicas], d[kMaxReplicas];
  bool same = true;
  ForEachArc(*view.ring, [&](uint64_t lo, uint64_t hi) {
    if (!same) return;
    const uint32_t nc = sel.Select(lo, {c, sel.k()});
    std::sort(c, c + nc);
    if (hi != lo) {
      const uint32_t nd = sel.Select(hi, {d, sel.k()});
      std::sort(d, d + nd);
      same = nc == nd && std::equal(c, c + nc, d);
    }
    for (uint32_t i = 0; i < nc; ++i) out.load[c[i]] += static_cast<double>(hi - lo + 1);
    if (tables && nc > 0) out.copysets.Add({c, nc}, 1);
  });
  return same;
}

CopyLoads Copies(const Algorithm& a, const ReplicaSelector& sel, uint64_t keys, uint64_t seed,
                 bool tables) {
  const std::vector<uint32_t> ids = a.live_ids();
  CopyLoads out;
  out.load.assign(ids.empty() ? 0 : ids.back() + 1, 0.0);
  out.exact = ArcLoads(a, sel, tables, out);
  if (out.exact) return out;
  out = CopyLoads{};
  out.load.assign(ids.empty() ? 0 : ids.back() + 1, 0.0);
  SplitMix64 g(seed);
  uint32_t c[kMaxReplicas];
  for (uint64_t k = 0; k < keys; ++k) {
    const uint32_t nc = sel.Select(g.Next(), {c, sel.k()});
    for (uint32_t i = 0; i < nc; ++i) out.load[c[i]] += 1;
    std::sort(c, c + nc);
    if (tables && nc > 0) out.copysets.Add({c, nc}, 1);
  }
  return out;
}

// What the answer costs in availability, over `a` (draw 0's names).
TuneAvailability Availability(const TuneRequest& r, const Algorithm& a, uint64_t seed) {
  Topology racks;
  const std::unique_ptr<ReplicaSelector> sel = CopySelector(r, a, racks);
  const CopyLoads c = Copies(a, *sel, r.keys, seed, true);
  const std::vector<uint32_t> live = a.live_ids();
  const double n = static_cast<double>(live.size());
  TuneAvailability out;
  out.exact = c.exact;
  out.peers = r.racks > 0 ? n * (r.racks - 1) / r.racks : n - 1;
  if (a.RingPointsPerNode() > 0) {
    out.expected_neighbours =
        ExpectedReplicaNeighbours(out.peers, a.RingPointsPerNode(), r.replicas);
  }
  out.scatter_width = ScatterWidths(c.copysets, live).mean;
  LossRequest loss;
  loss.live = live;
  loss.copies = r.replicas;
  loss.failed = static_cast<uint32_t>(std::clamp(std::round(r.failed * n), 1.0, n));
  loss.seed = Derive(seed, Tag("tune-failures"));
  loss.threads = static_cast<unsigned>(std::max(1, r.threads));
  const LossFigures l = EvaluateLoss(c.copysets, loss);
  out.failed_nodes = loss.failed;
  out.copysets = l.copysets;
  out.loss_formula = l.formula;
  out.failure_sets = l.sets;
  out.loss_p = l.sets ? static_cast<double>(l.sets_with_loss) / static_cast<double>(l.sets) : 0;
  out.loss_low = out.loss_high = out.loss_p;
  if (!l.exhaustive) WilsonInterval(l.sets_with_loss, l.sets, &out.loss_low, &out.loss_high);
  return out;
}

// Whether the request tunes Envoy maglev's table_size (--profile
// envoy-maglev): the profiles' algorithm's maglev_table_size over it.
bool TunesEnvoyTable(const TuneRequest& r) {
  return r.algorithm.empty() && r.profile.knob == PointsKnob::kTableSize;
}

// The registered algorithm that builds a named profile (its parameters name
// the profile and the maglev table size).
const AlgorithmSpec& ProfileAlgorithm() {
  for (const AlgorithmSpec* spec : AllAlgorithms()) {
    if (spec->FindParam("profile") && spec->FindParam("maglev_table_size")) return *spec;
  }
  throw std::logic_error("no registered algorithm builds the named profiles");
}

// Any other algorithm's tuned parameter: exact Monte Carlo over drawn node
// names (no model), common names across candidates, the spec's grid (e.g.
// primes), from the spec's first guess in steps of x2. Envoy's maglev
// (TunesEnvoyTable) goes the same way over primes from the node count up to
// Envoy's largest table, its shares exact (ProfileMap::KeyHashCounts).
class ParamTuner {
 public:
  ParamTuner(const TuneRequest& r, const AlgorithmSpec& spec, const TuneProgress& progress)
      : r_(r),
        spec_(spec),
        envoy_(TunesEnvoyTable(r)),
        param_(envoy_ ? *spec.FindParam("maglev_table_size") : TunedParam(spec)),
        progress_(progress),
        n_(r.nodes.empty() ? r.n : static_cast<uint32_t>(r.nodes.size())),
        draws_(r.nodes.empty() ? std::max<uint32_t>(1, r.max_exact_draws) : 1) {
    CheckRequest(r, spec, n_);
    grid_.min = static_cast<uint32_t>(std::max(1.0, param_.min));
    grid_.max = static_cast<uint32_t>(param_.max);
    grid_.rule = param_.rule;
    grid_.floor_down = true;
    if (envoy_) {  // a table with fewer entries than hosts leaves some without keys
      grid_.rule = IsPrime;
      grid_.min = std::max<uint32_t>(2, n_);
      grid_.min = grid_.AtLeast(grid_.min);
    }
  }

  TuneResult Run() {
    // Maglev gives each host floor or ceil of its share of the M entries
    // (Eisenbud et al. 2016, section 3.4): max/mean <= 1 + n / M.
    const double guess = Churn()            ? 10.0 * n_  // a table 10x the nodes
                         : Copies()         ? CopiesGuess()
                         : envoy_           ? n_ / (r_.target - 1)
                         : spec_.tune_guess ? spec_.tune_guess(n_, r_.target)
                                            : double(DefaultValue());
    res_.analytic = guess;
    auto evaluate = [this](uint32_t v) -> std::optional<bool> { return Evaluate(v); };
    const Bracket b =
        Search(grid_, grid_.AtLeast(std::min<double>(guess, grid_.max)), 1, 1, evaluate);
    res_.met = b.hi != 0;
    res_.answer = b.hi;
    const uint32_t current = DefaultValue();
    if (const TuneEstimate* known = FindEstimate(res_, current, nullptr)) {
      res_.current = *known;
    } else {
      Evaluate(current);
      res_.current = res_.estimates.back();
    }
    if (Copies()) {
      const std::vector<Node> nodes = Names(0);
      const uint32_t at = res_.met ? res_.answer : current;
      res_.availability = Availability(r_, *spec_.Make(nodes, With(at)), Derive(r_.seed, 0));
    }
    res_.summary = Summary(current);
    return std::move(res_);
  }

 private:
  bool Churn() const { return r_.objective == TuneObjective::kExcessChurn; }
  bool Copies() const { return r_.replicas > 0; }
  // Rings: the analytic one-copy guess over K (a node's K copies come from
  // about K times as many arcs); others: the spec's guess.
  double CopiesGuess() const {
    if (TunesRings(spec_)) {
      const double v = AnalyticPoints(n_, r_.target, r_.confidence);
      return std::isfinite(v) ? std::max(1.0, v / r_.replicas) : double(grid_.max);
    }
    return spec_.tune_guess ? spec_.tune_guess(n_, r_.target) : double(DefaultValue());
  }
  uint32_t DefaultValue() const {
    return static_cast<uint32_t>(envoy_ ? r_.profile.table_size : param_.default_number);
  }
  // The algorithm and its parameter as the summary names them.
  std::string Shown() const { return envoy_ ? r_.profile.name : std::string(spec_.name); }
  std::string ParamShown() const { return envoy_ ? "table_size" : std::string(param_.name); }

  std::vector<Node> Names(uint32_t draw) const {
    return r_.nodes.empty() ? DrawNodeNames(r_.seed, n_, draw) : r_.nodes;
  }

  // The parameters of a candidate: the tuned one, and the node hasher when
  // the algorithm has one.
  Params With(uint32_t value) const {
    Params p{{std::string(param_.name), uint64_t{value}}};
    if (envoy_) {
      p.Set("profile", r_.profile.name);
    } else if (spec_.FindParam("hasher")) {
      p.Set("hasher", r_.hasher);
    }
    return p;
  }

  // Envoy maglev: each host's share of the 2^64 key hashes, exact.
  std::vector<double> EnvoyShares(const std::vector<Node>& nodes, uint32_t value) const {
    Profile p = r_.profile;
    p.table_size = value;
    const ProfileMap map = ProfileMap::Build(p, nodes);
    std::vector<HashCount> counts(n_);
    map.KeyHashCounts(counts);
    std::vector<double> load(n_);
    for (uint32_t i = 0; i < n_; ++i) load[i] = static_cast<double>(counts[i]);
    return load;
  }

  // Keys moved beyond the removed node's (node draw % n), over the hashes
  // 0..table-1: one key per entry of a table indexed by hash mod its size
  // (maglev, section 3.4), so the figure is exact.
  static double ExcessChurn(Algorithm& a, uint32_t table, uint32_t victim) {
    std::vector<uint64_t> hashes(table);
    for (uint32_t e = 0; e < table; ++e) hashes[e] = e;
    std::vector<uint32_t> before(table), after(table);
    a.LocateBatch(hashes, before);
    a.Remove(victim);
    a.LocateBatch(hashes, after);
    uint64_t moved = 0, minimal = 0;
    for (uint32_t e = 0; e < table; ++e) {
      minimal += before[e] == victim ? 1 : 0;
      moved += after[e] != before[e] ? 1 : 0;
    }
    return double(moved - minimal) / table;
  }

  // One draw's figure: max/mean over the nodes' weights (exact shares when the
  // algorithm has them, else r.keys sampled keys), or the excess churn.
  double Figure(uint32_t value, uint32_t draw) const {
    const std::vector<Node> nodes = Names(draw);
    const std::vector<double> load =
        envoy_ && !Churn() ? EnvoyShares(nodes, value) : Load(nodes, value, draw);
    if (load.empty()) return ExcessChurn(*spec_.Make(nodes, With(value)), value, draw % n_);
    uint64_t total_weight = 0;
    for (const Node& node : nodes) total_weight += node.weight;
    double total = 0, m = 0;
    for (double x : load) total += x;
    for (uint32_t i = 0; i < n_; ++i) {
      m = std::max(m, load[i] / (total * nodes[i].weight / double(total_weight)));
    }
    return m;
  }

  // One draw's loads of an instance built from the spec: copies, exact
  // shares or sampled keys; empty for the churn objective.
  std::vector<double> Load(const std::vector<Node>& nodes, uint32_t value, uint32_t draw) const {
    if (Churn()) return {};
    std::unique_ptr<Algorithm> a = spec_.Make(nodes, With(value));
    std::vector<double> load(n_, 0.0);
    if (Copies()) {
      Topology racks;
      const std::unique_ptr<ReplicaSelector> sel = CopySelector(r_, *a, racks);
      load = chsim::sim::Copies(*a, *sel, r_.keys, Derive(r_.seed, draw), false).load;
    } else if (spec_.capabilities.exact_shares) {
      std::vector<double> shares = *a->StructuralShares();
      for (uint32_t i = 0; i < n_; ++i) load[i] = shares[i];
    } else {
      SplitMix64 keys(Derive(Derive(r_.seed, Tag("tune-keys")), draw));
      for (uint64_t k = 0; k < r_.keys; ++k) load[a->Locate(keys.Next())] += 1;
    }
    return load;
  }

  // Whether the spec admits `value` over the nodes (a table smaller than the
  // nodes is refused); a candidate it refuses fails.
  bool Admitted(uint32_t value) const {
    try {
      spec_.MakeShadow(Names(0), With(value));
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }

  // Evaluates one candidate over every draw and records it; true when it meets
  // the target with the requested confidence.
  bool Evaluate(uint32_t value) {
    if (!Admitted(value)) return false;
    Draws d;
    d.max_over_mean.resize(draws_);
    ParallelFor(draws_, r_.threads, [&](uint32_t i) { d.max_over_mean[i] = Figure(value, i); });
    TuneEstimate e = Summarize(value, r_.nodes.empty() ? "exact" : "given-list", d, r_.target);
    res_.estimates.push_back(e);
    if (progress_) {
      progress_(Shown() + " " + ParamShown() + "=" + std::to_string(value) +
                ": P(within target) = " + std::to_string(e.probability));
    }
    return e.probability >= r_.confidence;
  }

  std::string Summary(uint32_t current) const {
    const std::string what = ParamShown();
    const char* goal = Churn()    ? "excess churn <= "
                       : Copies() ? "the hottest node's share of all copies <= "
                                  : "max/mean <= ";
    if (!res_.met) {
      return Format("n=%u, %s%s: no %s up to %u keeps %s%.4g with %.0f%% confidence%s", n_,
                    Shown().c_str(), CopiesText().c_str(), what.c_str(), grid_.max, goal, r_.target,
                    100 * r_.confidence, AvailabilityText().c_str());
    }
    const TuneEstimate* at = FindEstimate(res_, res_.answer, nullptr);
    if (envoy_) return EnvoySummary(current, goal, *at);
    return Format(
        "n=%u, %s%s: %s %u keeps %s%.4g with %.0f%% confidence (observed %.1f%% [%.1f, %.1f] "
        "over %u draws); %s %u gives %.4g median%s",
        n_, std::string(spec_.name).c_str(), CopiesText().c_str(), what.c_str(), res_.answer, goal,
        r_.target, 100 * r_.confidence, 100 * at->probability, 100 * at->ci_low, 100 * at->ci_high,
        at->draws, what.c_str(), current, res_.current.median_max_over_mean,
        AvailabilityText().c_str());
  }

  // The answer with the same evidence lines as a ring's: the answer's and
  // its lower neighbour's, each checked.
  std::string EnvoySummary(uint32_t current, const char* goal, const TuneEstimate& at) const {
    std::string evidence = Evidence(&at, "entries", "tables");
    if (const TuneEstimate* e = FindEstimate(res_, grid_.AtMost(res_.answer - 1.0), nullptr)) {
      evidence += "; " + Evidence(e, "entries", "tables");
    }
    const double pct = 100 * r_.confidence;
    return Format(
        "n=%u, %s: table_size=%u keeps %s%.4g with %.0f%% confidence (exact %s over %s, rule: "
        "observed share >= %.0f%%: %s); table_size=%u gives %.4g median",
        n_, r_.profile.name.c_str(), res_.answer, goal, r_.target, pct,
        Churn() ? "churn over the table's entries" : "shares of the 2^64 key hashes",
        r_.nodes.empty() ? "drawn names" : "the list's own names", pct, evidence.c_str(), current,
        res_.current.median_max_over_mean);
  }

  // ", 3 copies by walk over 3 racks".
  std::string CopiesText() const {
    if (!Copies()) return "";
    return Format(", %u copies by %s%s", r_.replicas, std::string(r_.strategy->name).c_str(),
                  r_.racks ? Format(" over %u racks", r_.racks).c_str() : "");
  }

  // "; at 120: 38.2 replica neighbours per node (Netflix model 39.1), P(loss) ...".
  std::string AvailabilityText() const {
    if (!Copies()) return "";
    const TuneAvailability& a = res_.availability;
    const std::string model = a.expected_neighbours > 0
                                  ? Format(" (Lynch-Snyder model %.1f)", a.expected_neighbours)
                                  : std::string();
    return Format(
        "; at %u: %.1f replica neighbours per node%s; with %u of %u nodes failed, P(some key "
        "loses every copy) %.3g (Copysets formula over %llu copysets %.3g; %s)",
        res_.met ? res_.answer : DefaultValue(), a.scatter_width, model.c_str(), a.failed_nodes, n_,
        a.loss_p, static_cast<unsigned long long>(a.copysets), a.loss_formula,
        a.exact ? "every arc holding keys" : "sampled keys");
  }

  const TuneRequest& r_;
  const AlgorithmSpec& spec_;
  const bool envoy_;  // TunesEnvoyTable
  const ParamSpec& param_;
  const TuneProgress& progress_;
  const uint32_t n_;
  const uint32_t draws_;
  Grid grid_;
  TuneResult res_;
};

}  // namespace

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

const AlgorithmSpec& TunedAlgorithm(std::string_view name) {
  std::string tunable;
  for (const AlgorithmSpec* spec : AllAlgorithms()) {
    if (spec->tuned_param.empty()) continue;
    if (name.empty() ? TunesRings(*spec) : spec->name == name) return *spec;
    tunable += (tunable.empty() ? "" : ", ") + std::string(spec->name) + " (" +
               std::string(spec->tuned_param) + ")";
  }
  throw UsageError("--algorithm '" + std::string(name) + "': tune searches " + tunable);
}

const ParamSpec& TunedParam(const AlgorithmSpec& spec) { return *spec.FindParam(spec.tuned_param); }

bool TunesRings(const AlgorithmSpec& spec) {
  const std::vector<Node> two = DrawNodeNames(1, 2, 0);
  return spec.Make(two, {})->RingPointsPerNode() > 0;
}

TuneResult Tune(const TuneRequest& request, const TuneProgress& progress) {
  const bool table = TunesEnvoyTable(request);
  const AlgorithmSpec& spec = table ? ProfileAlgorithm() : TunedAlgorithm(request.algorithm);
  // With copies, rings too take the exact draws of ParamTuner (no Gamma
  // model of copy shares).
  const bool rings = !table && TunesRings(spec) && request.replicas == 0;
  TuneResult res =
      rings ? RingTuner(request, spec, progress).Run() : ParamTuner(request, spec, progress).Run();
  res.algorithm = spec.name;
  res.parameter = table ? "maglev_table_size" : std::string(spec.tuned_param);
  if (table && res.met) res.setting = Format("table_size=%u", res.answer);
  res.ring_model = rings;
  return res;
}

}  // namespace chsim::sim
