// SPDX-License-Identifier: Apache-2.0
// The replicas metric group: each key's copies (the scenario's "replication":
// K distinct nodes chosen by a replica strategy, chsim/replica.h) at every
// step of every trial. How evenly the copies load the nodes, beside the
// binomial baseline of independent uniform K-subsets; where they sit (two in
// one domain, short results); what each event changes, beside the least any
// scheme must change; and what failures cost: copysets, scatter width and
// the loss of every copy or of a quorum when F random nodes or one whole
// domain fail (copysets.h). Copies, not points per node: an algorithm's
// points are its own parameter.
//
// The group runs its own pass over the workload at each step (a trial hook):
// each key's copies under this step's nodes and, after an event, under the
// previous step's, counted in integer tallies per worker and merged, so its
// rows are the same on any thread count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "sim/base/interrupt.h"
#include "sim/base/progress.h"
#include "sim/base/rng.h"
#include "sim/base/stats.h"
#include "sim/base/thread_pool.h"
#include "sim/run/copysets.h"
#include "sim/run/metric_group.h"
#include "sim/run/replication.h"
#include "sim/run/runner_internal.h"

namespace chsim::sim {
namespace {

constexpr MetricSpec kRows[] = {
    {"replicas.copies", "count", "replicas", true,
     "copies asked per key (the replication factor K; not points per node)"},
    {"replicas.units", "count", "replicas", true,
     "load units placed (keys; requests for a request stream; weights for a weighted file)"},
    {"replicas.balance.copies_max_over_mean", "ratio", "replicas", true,
     "largest node's copies / expected (K x units x its weight share)"},
    {"replicas.balance.copies_min_over_mean", "ratio", "replicas", true,
     "smallest node's copies / expected"},
    {"replicas.balance.copies_cv", "ratio", "replicas", true,
     "coefficient of variation of copies / expected across live nodes"},
    {"replicas.balance.copies_baseline_cv", "ratio", "replicas", true,
     "equal weights: the CV of independent uniform K-subsets per key (binomial: stddev "
     "sqrt(avg (1 - K/n)), avg = K x units / n), the noise floor of copies_cv"},
    {"replicas.balance.copies_baseline_max_over_mean", "ratio", "replicas", true,
     "equal weights: 1 + sqrt(2 ln n) x copies_baseline_cv"},
    {"replicas.balance.primaries_max_over_mean", "ratio", "replicas", true,
     "largest node's primaries (first copies) / expected (units x weight share)"},
    {"replicas.balance.primaries_cv", "ratio", "replicas", true,
     "coefficient of variation of primaries / expected"},
    {"replicas.balance.primaries_baseline_cv", "ratio", "replicas", true,
     "equal weights: sqrt((1 - 1/n) / (units / n)), the binomial floor of primaries_cv"},
    {"replicas.balance.domain_copies_max_over_mean", "ratio", "replicas", true,
     "with domains (the case's replication.domain, else the nodes' racks, zones or hosts): "
     "largest domain's copies / expected (its weight share)"},
    {"replicas.balance.domain_copies_cv", "ratio", "replicas", true,
     "with domains: coefficient of variation of copies / expected across live domains"},
    {"replicas.placement.short", "fraction", "replicas", true,
     "units given fewer than K copies (a strategy that may answer short)"},
    {"replicas.placement.same_domain", "fraction", "replicas", true,
     "with domains: units with two copies in one domain"},
    {"replicas.churn.sets_changed", "fraction", "replicas", true,
     "units whose set of copies changed in this step"},
    {"replicas.churn.sets_minimal", "fraction", "replicas", true,
     "units with a copy on a node that left (before) or joined (after): those no scheme keeps "
     "as they were (a minimal strategy changes exactly these)"},
    {"replicas.churn.sets_ideal", "fraction", "replicas", true,
     "min(1, K x copies_ideal): K/n for one of n equal nodes leaving, K/(n+1) for one joining"},
    {"replicas.churn.sets_excess", "fraction", "replicas", true,
     "replicas.churn.sets_changed - replicas.churn.sets_minimal"},
    {"replicas.churn.primaries_changed", "fraction", "replicas", true,
     "units whose primary (first copy) changed"},
    {"replicas.churn.copies_moved", "fraction", "replicas", true,
     "copies placed on a node that did not hold them before / (K x units)"},
    {"replicas.churn.copies_minimal", "fraction", "replicas", true,
     "least copies any scheme must move to reach this step's copies per node / (K x units)"},
    {"replicas.churn.copies_ideal", "fraction", "replicas", true,
     "least share of copies moved between the ideal weight shares before and after (1/n for "
     "one of n equal nodes leaving)"},
    {"replicas.churn.fan_in_mean", "nodes", "replicas", true,
     "nodes that joined: distinct nodes whose copies each took over (the peers it recovers "
     "from), mean over them"},
    {"replicas.churn.fan_in_max", "nodes", "replicas", true, "the largest such fan-in"},
    {"replicas.churn.fan_out_mean", "nodes", "replicas", true,
     "nodes that left: distinct nodes their copies went to (recovery fan-out), mean"},
    {"replicas.churn.fan_out_max", "nodes", "replicas", true, "the largest such fan-out"},
    {"replicas.durability.copysets", "count", "replicas", true,
     "distinct copysets: sets of nodes holding every copy of some unit (Cidon et al., ATC "
     "2013)"},
    {"replicas.durability.copysets_share", "fraction", "replicas", true,
     "copysets of K nodes / C(n, K): the share of possible copysets in use"},
    {"replicas.durability.scatter_width_mean", "nodes", "replicas", true,
     "distinct other nodes sharing a copyset with a node (its scatter width), mean over nodes"},
    {"replicas.durability.scatter_width_min", "nodes", "replicas", true,
     "the smallest scatter width"},
    {"replicas.durability.scatter_width_max", "nodes", "replicas", true,
     "the largest scatter width"},
    {"replicas.loss.failed_nodes", "nodes", "replicas", true,
     "F: nodes failing at once, max(1, round(replication.failed x live nodes))"},
    {"replicas.loss.formula", "probability", "replicas", true,
     "the Copysets paper's P(some unit loses every copy) when F random nodes fail: 1 - (1 - "
     "M/C(n,K))^C(F,K), M the copysets of K nodes"},
    {"replicas.loss.keys_expected", "fraction", "replicas", true,
     "exact expected share of units losing every copy when F random nodes fail (C(F,K)/C(n,K) "
     "with K copies each: the same for every placement)"},
    {"replicas.loss.p", "probability", "replicas", true,
     "share of the failure sets of F nodes in which some unit loses every copy: every set "
     "when replicas.loss.exhaustive, else failure_sets drawn at random"},
    {"replicas.loss.p_low", "probability", "replicas", true,
     "Wilson 95% lower bound of replicas.loss.p (equal to it when exhaustive)"},
    {"replicas.loss.p_high", "probability", "replicas", true,
     "Wilson 95% upper bound of replicas.loss.p (equal to it when exhaustive)"},
    {"replicas.loss.keys_lost", "fraction", "replicas", true,
     "units losing every copy, mean over the failure sets / units"},
    {"replicas.loss.quorum_p", "probability", "replicas", true,
     "share of the failure sets in which some unit keeps fewer than floor(K/2) + 1 live copies"},
    {"replicas.loss.quorum_keys_lost", "fraction", "replicas", true,
     "units losing their quorum, mean over the failure sets / units"},
    {"replicas.loss.exhaustive", "count", "replicas", true,
     "1 when every failure set of F live nodes was evaluated (C(n,F) <= failure_sets): the "
     "loss figures are exact; 0 when drawn"},
    {"replicas.loss.failure_sets", "count", "replicas", true, "failure sets evaluated"},
    {"replicas.domain_loss.p", "fraction", "replicas", true,
     "with domains: share of the live domains whose failure loses every copy of some unit"},
    {"replicas.domain_loss.keys_lost_max", "fraction", "replicas", true,
     "with domains: units losing every copy when the worst domain fails / units"},
    {"replicas.domain_loss.keys_lost_mean", "fraction", "replicas", true,
     "with domains: the same, mean over the live domains"},
    {"replicas.domain_loss.quorum_p", "fraction", "replicas", true,
     "with domains: share of the live domains whose failure costs some unit its quorum"},
    {"replicas.domain_loss.quorum_keys_lost_max", "fraction", "replicas", true,
     "with domains: units losing their quorum when the worst domain fails / units"},
};

consteval MetricRef Metric(std::string_view name) { return MetricIn(kRows, name); }

constexpr size_t kBlock = 1024;                 // units per parallel block
constexpr uint64_t kWorkPerFailureSet = 64;     // progress units per failure set
constexpr size_t kPairsBeforeDedupe = 1 << 16;  // fan pairs a worker keeps before deduping

void Dedupe(std::vector<uint64_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// What a pass counts, per worker and then merged: integer tallies only.
struct Counts {
  std::vector<uint64_t> copies, primaries;  // by global id, this step
  std::vector<uint64_t> prev_copies;        // by global id, the previous step
  uint64_t units = 0, placed = 0, short_sets = 0, same_domain = 0;
  uint64_t sets_changed = 0, sets_forced = 0, primaries_changed = 0, copies_moved = 0;
  std::vector<uint64_t> joins, leaves;  // (node << 32 | peer): fan-in and fan-out pairs
  CopysetTable copysets;

  explicit Counts(size_t nodes) : copies(nodes, 0), primaries(nodes, 0), prev_copies(nodes, 0) {}
  void Merge(Counts& o) {
    for (size_t i = 0; i < copies.size(); ++i) {
      copies[i] += o.copies[i];
      primaries[i] += o.primaries[i];
      prev_copies[i] += o.prev_copies[i];
    }
    units += o.units;
    placed += o.placed;
    short_sets += o.short_sets;
    same_domain += o.same_domain;
    sets_changed += o.sets_changed;
    sets_forced += o.sets_forced;
    primaries_changed += o.primaries_changed;
    copies_moved += o.copies_moved;
    joins.insert(joins.end(), o.joins.begin(), o.joins.end());
    leaves.insert(leaves.end(), o.leaves.begin(), o.leaves.end());
    Dedupe(joins);
    Dedupe(leaves);
    copysets.Merge(o.copysets);
  }
};

// This step's copies, the previous step's (null at step 0) and who was live.
struct PassState {
  const CaseReplicas* cur;
  const CaseReplicas* prev;
  const std::vector<bool>* live_cur;
  const std::vector<bool>* live_prev;
};

bool Live(const std::vector<bool>& live, uint32_t id) { return id < live.size() && live[id]; }

bool SharesDomain(const uint32_t* c, uint32_t n, std::span<const uint32_t> domains) {
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t j = i + 1; j < n; ++j) {
      if (domains[c[i]] == domains[c[j]]) return true;
    }
  }
  return false;
}

// A unit's churn: `c` (ascending, nc) now, `q` (ascending, np) before.
void CountChurn(const PassState& p, const uint32_t* c, uint32_t nc, const uint32_t* q, uint32_t np,
                uint64_t w, Counts& t) {
  uint32_t added[kMaxReplicas], dropped[kMaxReplicas];
  const uint32_t na =
      static_cast<uint32_t>(std::set_difference(c, c + nc, q, q + np, added) - added);
  const uint32_t nd =
      static_cast<uint32_t>(std::set_difference(q, q + np, c, c + nc, dropped) - dropped);
  if (na + nd == 0) return;
  t.sets_changed += w;
  t.copies_moved += na * w;
  bool forced = false;
  for (uint32_t i = 0; i < np; ++i) forced = forced || !Live(*p.live_cur, q[i]);
  for (uint32_t i = 0; i < nc; ++i) forced = forced || !Live(*p.live_prev, c[i]);
  if (forced) t.sets_forced += w;
  for (uint32_t i = 0; i < na; ++i) {
    if (Live(*p.live_prev, added[i])) continue;  // a node that joined takes it over
    for (uint32_t j = 0; j < nd; ++j) t.joins.push_back(uint64_t{added[i]} << 32 | dropped[j]);
  }
  for (uint32_t i = 0; i < nd; ++i) {
    if (Live(*p.live_cur, dropped[i])) continue;  // a node that left hands it over
    for (uint32_t j = 0; j < na; ++j) t.leaves.push_back(uint64_t{dropped[i]} << 32 | added[j]);
  }
}

void CountUnit(const PassState& p, uint64_t h, uint64_t w, Counts& t) {
  uint32_t c[kMaxReplicas], q[kMaxReplicas];
  const uint32_t k = p.cur->copies();
  const uint32_t nc = p.cur->Select(h, {c, k});
  t.units += w;
  t.placed += nc * w;
  if (nc < k) t.short_sets += w;
  if (nc > 0) t.primaries[c[0]] += w;
  for (uint32_t i = 0; i < nc; ++i) t.copies[c[i]] += w;
  const std::span<const uint32_t> domains = p.cur->domains();
  if (!domains.empty() && SharesDomain(c, nc, domains)) t.same_domain += w;
  const uint32_t primary = nc > 0 ? c[0] : UINT32_MAX;
  std::sort(c, c + nc);
  if (nc > 0) t.copysets.Add({c, nc}, w);
  if (!p.prev) return;
  const uint32_t np = p.prev->Select(h, {q, k});
  for (uint32_t i = 0; i < np; ++i) t.prev_copies[q[i]] += w;
  if ((np > 0 ? q[0] : UINT32_MAX) != primary) t.primaries_changed += w;
  std::sort(q, q + np);
  CountChurn(p, c, nc, q, np, w, t);
}

void CountHashes(const PassState& p, std::span<const uint64_t> hashes,
                 std::span<const uint64_t> weights, Counts& t) {
  for (size_t i = 0; i < hashes.size(); ++i) {
    CountUnit(p, hashes[i], weights.empty() ? 1 : weights[i], t);
  }
  if (t.joins.size() > kPairsBeforeDedupe) Dedupe(t.joins);
  if (t.leaves.size() > kPairsBeforeDedupe) Dedupe(t.leaves);
}

// An indexed workload: blocks over the workers.
Counts PassIndexed(const PassState& p, const Workload& w, uint64_t seed, const Hasher& hasher,
                   size_t nodes, unsigned threads, Progress* progress) {
  const uint64_t units = w.units(), blocks = (units + kBlock - 1) / kBlock;
  const unsigned workers = static_cast<unsigned>(
      std::min<uint64_t>(std::max(1u, threads), std::max<uint64_t>(blocks, 1)));
  std::vector<Counts> counts(workers, Counts(nodes));
  std::vector<KeyBlock> keys(workers);
  std::vector<std::vector<uint64_t>> hashes(workers, std::vector<uint64_t>(kBlock));
  ParallelFor(blocks, workers, [&](unsigned k, uint64_t b) {
    ThrowIfStopped();
    const uint64_t begin = b * kBlock;
    const size_t m = static_cast<size_t>(std::min(units, begin + kBlock) - begin);
    w.KeysAt(seed, begin, m, &keys[k]);
    HashBatch(hasher, keys[k].keys, {hashes[k].data(), m});
    CountHashes(p, {hashes[k].data(), m}, {}, counts[k]);
    if (progress) progress->Add(m * (p.prev ? 2 : 1));
  });
  for (unsigned k = 1; k < workers; ++k) counts[0].Merge(counts[k]);
  return std::move(counts[0]);
}

// A streamed workload (a key file, a trace), or a weighted key file: in
// order, on this thread.
Counts PassLines(const PassState& p, const Workload& w, uint64_t seed, const Hasher& hasher,
                 size_t nodes, Progress* progress) {
  Counts t(nodes);
  std::vector<uint64_t> hashes(kBlock), weights(kBlock);
  if (w.streams()) {
    auto reader = w.OpenRequests(seed);
    RequestBlock block;
    for (reader->Next(kBlock, &block); block.size() > 0; reader->Next(kBlock, &block)) {
      ThrowIfStopped();
      HashBatch(hasher, block.keys.keys, {hashes.data(), block.size()});
      CountHashes(p, {hashes.data(), block.size()}, {}, t);
      if (progress) progress->Add(block.size() * (p.prev ? 2 : 1));
    }
    return t;
  }
  size_t m = 0;
  auto flush = [&] {
    CountHashes(p, {hashes.data(), m}, {weights.data(), m}, t);
    m = 0;
    ThrowIfStopped();
  };
  w.ForEachLine([&](std::string_view key, uint64_t weight) {
    hashes[m] = hasher(key);
    weights[m] = weight;
    if (++m == kBlock) flush();
    return true;
  });
  if (m > 0) flush();
  return t;
}

// Emits rows of one trial and step into the trial's rows.
struct Emit {
  std::vector<MetricRow>* rows;
  uint32_t trial, step;
  void operator()(MetricRef m, double v) const { rows->push_back(MetricRow{trial, step, m, v}); }
};

double Fraction(uint64_t a, uint64_t b) {
  return b ? static_cast<double>(a) / static_cast<double>(b)
           : std::numeric_limits<double>::quiet_NaN();
}

std::vector<uint32_t> LiveIds(const Deployment& d) {
  std::vector<uint32_t> out;
  for (uint32_t g = 0; g < d.live().size(); ++g) {
    if (d.live()[g]) out.push_back(g);
  }
  return out;
}

// Ratios count / (total x p) over the live ids, with the ids' weight shares p.
BalanceFigures Balance(const std::vector<uint64_t>& count, const std::vector<double>& p,
                       std::span<const uint32_t> live, double total, double epsilon) {
  std::vector<double> ratios;
  for (uint32_t g : live) ratios.push_back(static_cast<double>(count[g]) / (total * p[g]));
  return BalanceFromRatios(ratios, epsilon);
}

void EmitDomainBalance(const Emit& emit, const Counts& t, const Deployment& d,
                       std::span<const uint32_t> domains, double epsilon) {
  const uint32_t count = *std::max_element(domains.begin(), domains.end()) + 1;
  std::vector<uint64_t> copies(count, 0);
  std::vector<double> weight(count, 0.0), p(count, 0.0);
  std::vector<uint32_t> live;
  double total_weight = 0;
  for (uint32_t g : LiveIds(d)) {
    copies[domains[g]] += t.copies[g];
    weight[domains[g]] += d.nodes()[g].weight;
    total_weight += d.nodes()[g].weight;
    live.push_back(domains[g]);
  }
  std::sort(live.begin(), live.end());
  live.erase(std::unique(live.begin(), live.end()), live.end());
  for (uint32_t x : live) p[x] = weight[x] / total_weight;
  const BalanceFigures b = Balance(copies, p, live, static_cast<double>(t.placed), epsilon);
  emit(Metric("replicas.balance.domain_copies_max_over_mean"), b.max_over_mean);
  emit(Metric("replicas.balance.domain_copies_cv"), b.cv);
}

void EmitBalance(const Emit& emit, const Scenario& s, const Counts& t, const Deployment& d,
                 uint32_t k, std::span<const uint32_t> domains) {
  const std::vector<double> p = WeightShares(d);
  const std::vector<uint32_t> live = LiveIds(d);
  const double n = static_cast<double>(live.size()), units = static_cast<double>(t.units);
  const BalanceFigures copies =
      Balance(t.copies, p, live, static_cast<double>(t.placed), s.epsilon);
  const BalanceFigures primaries = Balance(t.primaries, p, live, units, s.epsilon);
  emit(Metric("replicas.balance.copies_max_over_mean"), copies.max_over_mean);
  emit(Metric("replicas.balance.copies_min_over_mean"), copies.min_over_mean);
  emit(Metric("replicas.balance.copies_cv"), copies.cv);
  if (!d.weighted()) {
    const double avg = k * units / n;
    const double baseline = std::sqrt(std::max(0.0, 1 - k / n) / avg);
    emit(Metric("replicas.balance.copies_baseline_cv"), baseline);
    emit(Metric("replicas.balance.copies_baseline_max_over_mean"),
         1 + std::sqrt(2 * std::log(std::max(n, 2.0))) * baseline);
    emit(Metric("replicas.balance.primaries_baseline_cv"), std::sqrt((1 - 1 / n) / (units / n)));
  }
  emit(Metric("replicas.balance.primaries_max_over_mean"), primaries.max_over_mean);
  emit(Metric("replicas.balance.primaries_cv"), primaries.cv);
  if (!domains.empty()) EmitDomainBalance(emit, t, d, domains, s.epsilon);
  emit(Metric("replicas.placement.short"), Fraction(t.short_sets, t.units));
  if (!domains.empty()) {
    emit(Metric("replicas.placement.same_domain"), Fraction(t.same_domain, t.units));
  }
}

// Per node of `nodes`, the distinct peers its pairs (node << 32 | peer,
// deduplicated) name: their mean and max.
std::pair<double, double> Fan(const std::vector<uint64_t>& pairs, std::span<const uint32_t> nodes) {
  uint64_t sum = 0, max = 0;
  for (uint32_t x : nodes) {
    const uint64_t lo = uint64_t{x} << 32, hi = lo | 0xffffffffull;
    const auto n = static_cast<uint64_t>(std::upper_bound(pairs.begin(), pairs.end(), hi) -
                                         std::lower_bound(pairs.begin(), pairs.end(), lo));
    sum += n;
    max = std::max(max, n);
  }
  return {static_cast<double>(sum) / static_cast<double>(nodes.size()), static_cast<double>(max)};
}

void EmitChurn(const Emit& emit, const Counts& t, const Deployment& prev, const Deployment& cur,
               uint32_t k) {
  const double copies = static_cast<double>(k) * static_cast<double>(t.units);
  const size_t g = cur.nodes().size();
  std::vector<double> before(g, 0.0), after(g, 0.0);
  for (size_t i = 0; i < g; ++i) {
    before[i] = static_cast<double>(t.prev_copies[i]);
    after[i] = static_cast<double>(t.copies[i]);
  }
  std::vector<double> p_prev = WeightShares(prev);
  p_prev.resize(g, 0.0);
  const double ideal = MinimalMoves(p_prev, WeightShares(cur));
  emit(Metric("replicas.churn.sets_changed"), Fraction(t.sets_changed, t.units));
  emit(Metric("replicas.churn.sets_minimal"), Fraction(t.sets_forced, t.units));
  emit(Metric("replicas.churn.sets_ideal"), std::min(1.0, k * ideal));
  emit(Metric("replicas.churn.sets_excess"),
       Fraction(t.sets_changed, t.units) - Fraction(t.sets_forced, t.units));
  emit(Metric("replicas.churn.primaries_changed"), Fraction(t.primaries_changed, t.units));
  emit(Metric("replicas.churn.copies_moved"), static_cast<double>(t.copies_moved) / copies);
  emit(Metric("replicas.churn.copies_minimal"), MinimalMoves(before, after) / copies);
  emit(Metric("replicas.churn.copies_ideal"), ideal);
  std::vector<uint32_t> joined, left;
  for (uint32_t i = 0; i < g; ++i) {
    const bool was = Live(prev.live(), i), is = Live(cur.live(), i);
    if (is && !was) joined.push_back(i);
    if (was && !is) left.push_back(i);
  }
  if (!joined.empty()) {
    const auto [mean, max] = Fan(t.joins, joined);
    emit(Metric("replicas.churn.fan_in_mean"), mean);
    emit(Metric("replicas.churn.fan_in_max"), max);
  }
  if (!left.empty()) {
    const auto [mean, max] = Fan(t.leaves, left);
    emit(Metric("replicas.churn.fan_out_mean"), mean);
    emit(Metric("replicas.churn.fan_out_max"), max);
  }
}

// What the durability figures of one step need.
struct DurabilityInput {
  const Scenario& s;
  const Counts& t;
  std::span<const uint32_t> live, domains;
  uint32_t k;
  uint64_t seed;
  unsigned threads;
  Progress* progress;
};

void EmitLoss(const Emit& emit, const DurabilityInput& in) {
  const double n = static_cast<double>(in.live.size());
  LossRequest r;
  r.live = in.live;
  r.copies = in.k;
  r.failed = static_cast<uint32_t>(std::clamp(std::round(in.s.replication.failed * n), 1.0, n));
  r.sets = in.s.replication.failure_sets;
  r.seed = in.seed;
  r.threads = in.threads;
  if (in.progress)
    r.progress = [p = in.progress](uint64_t done) { p->Add(done * kWorkPerFailureSet); };
  const LossFigures l = EvaluateLoss(in.t.copysets, r);
  const double units = static_cast<double>(l.keys), sets = static_cast<double>(l.sets);
  emit(Metric("replicas.durability.copysets"), static_cast<double>(l.copysets));
  emit(Metric("replicas.durability.copysets_share"),
       static_cast<double>(l.full_copysets) / std::exp(LogChoose(n, in.k)));
  emit(Metric("replicas.loss.failed_nodes"), r.failed);
  emit(Metric("replicas.loss.formula"), l.formula);
  emit(Metric("replicas.loss.keys_expected"), l.keys_expected);
  if (l.sets == 0) return;
  double lo = Fraction(l.sets_with_loss, l.sets), hi = lo;
  if (!l.exhaustive) WilsonInterval(l.sets_with_loss, l.sets, &lo, &hi);
  emit(Metric("replicas.loss.p"), Fraction(l.sets_with_loss, l.sets));
  emit(Metric("replicas.loss.p_low"), lo);
  emit(Metric("replicas.loss.p_high"), hi);
  emit(Metric("replicas.loss.keys_lost"), static_cast<double>(l.keys_lost) / sets / units);
  emit(Metric("replicas.loss.quorum_p"), Fraction(l.sets_with_quorum_loss, l.sets));
  emit(Metric("replicas.loss.quorum_keys_lost"),
       static_cast<double>(l.keys_quorum_lost) / sets / units);
  emit(Metric("replicas.loss.exhaustive"), l.exhaustive ? 1 : 0);
  emit(Metric("replicas.loss.failure_sets"), sets);
}

void EmitDurability(const Emit& emit, const DurabilityInput& in) {
  const ScatterWidthFigures w = ScatterWidths(in.t.copysets, in.live);
  emit(Metric("replicas.durability.scatter_width_mean"), w.mean);
  emit(Metric("replicas.durability.scatter_width_min"), w.min);
  emit(Metric("replicas.durability.scatter_width_max"), w.max);
  EmitLoss(emit, in);
  if (in.domains.empty()) return;
  const DomainLossFigures d = EvaluateDomainLoss(in.t.copysets, in.live, in.domains, in.k);
  const double units = static_cast<double>(d.keys), domains = d.domains;
  emit(Metric("replicas.domain_loss.p"), d.domains_with_loss / domains);
  emit(Metric("replicas.domain_loss.keys_lost_max"), static_cast<double>(d.max_keys_lost) / units);
  emit(Metric("replicas.domain_loss.keys_lost_mean"),
       static_cast<double>(d.sum_keys_lost) / domains / units);
  emit(Metric("replicas.domain_loss.quorum_p"), d.domains_with_quorum_loss / domains);
  emit(Metric("replicas.domain_loss.quorum_keys_lost_max"),
       static_cast<double>(d.max_quorum_lost) / units);
}

// One step: the pass, then its rows.
void RunStep(const Scenario& s, const CaseSpec& c, uint32_t trial, uint32_t step,
             const Deployment& cur, const Deployment* prev, unsigned threads, Progress* progress,
             std::vector<MetricRow>* rows) {
  const Emit emit{rows, trial, step};
  const CaseReplicas now(s, c, cur, step);
  std::optional<CaseReplicas> before;
  if (prev) before.emplace(s, c, *prev, step - 1);
  emit(Metric("replicas.copies"), c.replicas);
  const Workload& w = *c.workload;
  if (!w.samples()) return;
  const PassState p{&now, before ? &*before : nullptr, &cur.live(), prev ? &prev->live() : nullptr};
  const uint64_t seed = SeedsForTrial(s.seed, trial).keys;
  const size_t nodes = cur.nodes().size();
  Counts t = w.indexed() ? PassIndexed(p, w, seed, cur.key_hasher(), nodes, threads, progress)
                         : PassLines(p, w, seed, cur.key_hasher(), nodes, progress);
  if (t.units == 0) return;
  Dedupe(t.joins);  // sorted and distinct, as Fan reads them
  Dedupe(t.leaves);
  emit(Metric("replicas.units"), static_cast<double>(t.units));
  EmitBalance(emit, s, t, cur, c.replicas, now.domains());
  if (prev) EmitChurn(emit, t, *prev, cur, c.replicas);
  const std::vector<uint32_t> live = LiveIds(cur);
  const uint64_t seed_f =
      Derive(Derive(SeedsForTrial(s.seed, trial).trial, Tag("replicas-failures")), step);
  EmitDurability(emit, {s, t, live, now.domains(), c.replicas, seed_f, threads, progress});
}

TrialRows ReplicasTrial(const Scenario& s, const CaseSpec& c, uint32_t trial, unsigned threads,
                        Progress* progress, CaseResult&) {
  TrialRows rows(s.events.size() + 1);
  Deployment cur(s, c, trial);
  std::optional<Deployment> prev;
  if (!s.events.empty()) prev.emplace(s, c, trial);
  for (uint32_t step = 0; step <= s.events.size(); ++step) {
    if (step > 0) cur.Apply(s.events[step - 1], step);
    RunStep(s, c, trial, step, cur, step > 0 ? &*prev : nullptr, threads, progress, &rows[step]);
    if (step > 0) prev->Apply(s.events[step - 1], step);
  }
  return rows;
}

// The units of every pass, and the failure sets of every step (all of them
// when the initial nodes have fewer, as EvaluateLoss does).
uint64_t ReplicasWork(const Scenario& s, const CaseSpec& c) {
  const uint64_t steps = s.events.size() + 1;
  const uint64_t units = c.workload->samples() ? c.workload->units() : 0;
  const double n = c.nodes, f = std::clamp(std::round(s.replication.failed * n), 1.0, n);
  const double all = std::round(std::exp(LogChoose(n, f)));
  const uint64_t sets =
      all < s.replication.failure_sets ? static_cast<uint64_t>(all) : s.replication.failure_sets;
  return s.trials * (units * (1 + 2 * s.events.size()) + steps * sets * kWorkPerFailureSet);
}

constexpr std::string_view kNotebooks[] = {"replicas.ipynb"};

}  // namespace

extern const MetricGroup kReplicasGroup;
constexpr MetricGroup kReplicasGroup{
    .name = "replicas",
    .doc =
        "each key's copies (the scenario's replication): their balance, placement, churn "
        "per event, copysets and the loss of every copy or a quorum when nodes or a domain "
        "fail",
    .needs = {.trials = true},
    .rows = kRows,
    .notebooks = kNotebooks,
    .trial = ReplicasTrial,
    .work = ReplicasWork,
};

}  // namespace chsim::sim
