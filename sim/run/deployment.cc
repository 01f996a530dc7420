// SPDX-License-Identifier: Apache-2.0
#include "sim/run/deployment.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "sim/base/errors.h"
#include "sim/base/rng.h"
#include "sim/run/timing.h"
#include "sim/scenario/node_pattern.h"
#include "sim/scenario/server_list.h"

namespace chsim::sim {
namespace {

constexpr uint32_t kDead = UINT32_MAX;

// k of `pool` drawn without replacement (a partial Fisher-Yates), in draw order.
std::vector<uint32_t> Draw(std::vector<uint32_t> pool, size_t k, uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<uint32_t> out;
  for (size_t j = 0; j < k; ++j) {
    const size_t r = j + rng.Below(pool.size() - j);
    std::swap(pool[j], pool[r]);
    out.push_back(pool[j]);
  }
  return out;
}

}  // namespace

TrialSeeds SeedsForTrial(uint64_t master_seed, uint32_t trial) noexcept {
  TrialSeeds t;
  t.trial = Derive(master_seed, trial);
  t.nodes = Derive(t.trial, Tag("nodes"));
  t.weights = Derive(t.trial, Tag("weights"));
  t.keys = Derive(t.trial, Tag("keys"));
  t.events = Derive(t.trial, Tag("events"));
  return t;
}

namespace {

uint64_t FirstIndex(const Scenario& s, const CaseSpec& c, uint32_t trial) {
  // Trial 0 uses the names as written; trial t shifts i by t blocks of
  // (nodes + every node the events may add), so each trial has its own,
  // equally realistic names ({hex:N} parts are also reseeded per trial).
  uint64_t stride = c.nodes;
  for (const EventSpec& e : s.events) {
    if (e.op == EventSpec::Op::kAdd) stride += std::max<size_t>(e.count, e.nodes.size());
  }
  return s.first_index + uint64_t{trial} * stride;
}

// Parses labels as server-list lines so that host/port follow the foundation's rules.
std::vector<Node> ParseLabels(const std::vector<std::string>& labels,
                              const std::vector<uint32_t>& weights, const std::string& where) {
  std::string text;
  for (size_t i = 0; i < labels.size(); ++i) {
    text += labels[i] + " " + std::to_string(weights[i]) + "\n";
  }
  return ParseServerList(text, where).nodes;
}

}  // namespace

std::vector<uint32_t> InitialWeights(const Scenario& s, const CaseSpec& c, uint32_t trial) {
  std::vector<uint32_t> weights(c.nodes, 1);
  if (!s.file_nodes.empty()) {
    for (size_t k = 0; k < weights.size(); ++k) weights[k] = s.file_nodes[k].weight;
    return weights;
  }
  const uint64_t seed = SeedsForTrial(s.seed, trial).weights;
  for (uint32_t k = 0; k < c.nodes; ++k) {
    switch (s.weights.kind) {
      case WeightSpec::Kind::kUniform:
        break;
      case WeightSpec::Kind::kExplicit:
        weights[k] = s.weights.values[k];
        break;
      case WeightSpec::Kind::kRandomUniform:
        weights[k] = s.weights.min + static_cast<uint32_t>(Bounded(
                                         Derive(seed, k), s.weights.max - s.weights.min + 1ULL));
        break;
      case WeightSpec::Kind::kChoice:
        weights[k] = s.weights.values[Bounded(Derive(seed, k), s.weights.values.size())];
        break;
    }
  }
  return weights;
}

Topology InitialTopology(const Scenario& s, const CaseSpec& c) {
  if (!s.file_topology.empty()) return s.file_topology;
  if (s.domains.any()) return MakeDomains(s.domains, c.nodes);
  return {};
}

std::vector<Node> InitialNodes(const Scenario& s, const CaseSpec& c, uint32_t trial) {
  if (!s.file_nodes.empty()) return s.file_nodes;
  const NodePattern& pattern = *c.compiled_pattern;
  const uint64_t first = FirstIndex(s, c, trial), name_seed = SeedsForTrial(s.seed, trial).nodes;
  std::vector<std::string> labels(c.nodes);
  for (uint32_t k = 0; k < c.nodes; ++k) labels[k] = pattern.Render(first + k, name_seed);
  return ParseLabels(labels, InitialWeights(s, c, trial), s.path + ": /nodes/pattern " + c.pattern);
}

namespace {

// Runs `build` and turns the algorithm's refusals into the run's: UsageError
// for std::invalid_argument (naming the case) and for Unsupported under
// "error", CaseSkipped for Unsupported otherwise.
template <typename F>
auto AsCaseRefusal(const Scenario& s, const CaseSpec& c, F&& build) {
  try {
    return build();
  } catch (const chsim::Unsupported& e) {
    if (s.on_unsupported == OnUnsupported::kError) {
      throw UsageError(s.path + ": " + c.pointer + ": " + e.what());
    }
    throw CaseSkipped(e.what());
  } catch (const std::invalid_argument& e) {
    throw UsageError(s.path + ": " + c.pointer + ": case " + c.id + ": " + e.what());
  }
}

}  // namespace

void AdmitCaseSize(const Scenario& s, const CaseSpec& c, std::span<const uint32_t> weights) {
  const AlgorithmSpec& spec = *c.algorithm.spec;
  if (spec.admit == nullptr) return;
  std::vector<Node> anonymous(weights.size());
  for (size_t k = 0; k < weights.size(); ++k) anonymous[k].weight = weights[k];
  Params params = c.algorithm.params;
  params.weighted_list = s.weighted();
  AsCaseRefusal(s, c, [&] {
    spec.admit(params, {TimelineStep::Op::kBuild, anonymous.size(), anonymous});
    return 0;
  });
}

std::unique_ptr<Algorithm> BuildCaseAlgorithm(const Scenario& s, const CaseSpec& c,
                                              std::span<const Node> nodes, Build build) {
  Params params = c.algorithm.params;
  params.weighted_list = s.weighted();
  return AsCaseRefusal(s, c, [&] {
    return build == Build::kShadow ? c.algorithm.spec->MakeShadow(nodes, params)
                                   : c.algorithm.spec->Make(nodes, params);
  });
}

Deployment::Deployment(const Scenario& s, const CaseSpec& c, uint32_t trial, Build build)
    : scenario_(&s), case_(&c), seeds_(SeedsForTrial(s.seed, trial)), build_(build) {
  AdmitCaseSize(s, c, InitialWeights(s, c, trial));  // before a million labels are made
  nodes_ = InitialNodes(s, c, trial);
  topology_ = InitialTopology(s, c);
  weighted_ = s.weighted();
  live_.assign(nodes_.size(), true);
  live_count_ = nodes_.size();
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    order_.push_back(i);
    order_pos_.push_back(i);
    to_global_.push_back(i);
    to_alg_.push_back(i);
    by_label_.emplace(nodes_[i].label, i);
  }
  next_index_ = s.file_nodes.empty() ? FirstIndex(s, c, trial) + c.nodes : 1;
  alg_ = BuildCaseAlgorithm(s, c, nodes_, build);
  built_weighted_ = weighted_;
  if (!weighted_) ring_points_ = alg_->RingPointsPerNode();
  NoteIds();
}

void Deployment::NoteIds() noexcept {
  ids_are_global_ = true;
  for (uint32_t a = 0; a < to_global_.size(); ++a) {
    if (to_global_[a] != a && to_global_[a] != kDead) ids_are_global_ = false;
  }
}

size_t Deployment::num_live() const noexcept { return live_count_; }

std::vector<uint32_t> Deployment::LiveIds() const {
  std::vector<uint32_t> ids;
  for (uint32_t g = 0; g < live_.size(); ++g) {
    if (live_[g]) ids.push_back(g);
  }
  return ids;
}

std::optional<std::vector<double>> Deployment::StructuralShares() const {
  if (!alg_->capabilities().exact_shares) return std::nullopt;
  std::optional<std::vector<double>> by_alg = alg_->StructuralShares();
  if (!by_alg) return std::nullopt;
  std::vector<double> out(nodes_.size(), 0.0);
  for (size_t a = 0; a < by_alg->size() && a < to_global_.size(); ++a) {
    uint32_t g = to_global_[a];
    if (g != kDead && live_[g]) out[g] += (*by_alg)[a];
  }
  return out;
}

void Deployment::Unsupported(const std::string& why, const EventSpec& e) {
  const std::string where = scenario_->path + ": " + e.pointer + ": ";
  switch (scenario_->on_unsupported) {
    case OnUnsupported::kError:
      throw UsageError(where + std::string(case_->algorithm.name()) + " cannot " + e.label + " (" +
                       why + "); accepted: \"on_unsupported\": \"rebuild\" or \"skip\"");
    case OnUnsupported::kSkip:
      throw CaseSkipped("at " + e.pointer + " (" + e.label + "): " + why);
    case OnUnsupported::kRebuild:
      Rebuild(why);
      return;
  }
}

void Deployment::Rebuild(const std::string& why) {
  std::vector<uint32_t> ids = LiveIds();
  std::vector<Node> live_nodes;
  for (uint32_t g : ids) live_nodes.push_back(nodes_[g]);
  Params params = case_->algorithm.params;
  params.weighted_list = weighted_;
  try {
    alg_ = build_ == Build::kShadow ? case_->algorithm.spec->MakeShadow(live_nodes, params)
                                    : case_->algorithm.spec->Make(live_nodes, params);
  } catch (const std::exception& e) {
    throw CaseSkipped("rebuild after '" + why + "' failed: " + e.what());
  }
  to_global_ = ids;
  std::fill(to_alg_.begin(), to_alg_.end(), kDead);
  for (uint32_t a = 0; a < ids.size(); ++a) to_alg_[ids[a]] = a;
  built_weighted_ = weighted_;
  rebuilt_ = true;
}

template <typename F>
void Deployment::Timed(bool add, F&& call) {
  if (times_ == nullptr) {
    call();
    return;
  }
  const double t0 = ThreadCpuNs();
  call();  // a throw counts nothing
  const double ns = ThreadCpuNs() - t0 - times_->clock_ns;
  (add ? times_->add_ns : times_->remove_ns) += ns;
  ++(add ? times_->adds : times_->removes);
}

std::vector<uint32_t> Deployment::AlgorithmOrder() const {
  std::vector<uint32_t> out;
  for (uint32_t g : to_global_) {
    if (g != kDead) out.push_back(g);
  }
  return out;
}

bool Deployment::BuildOver(const std::vector<uint32_t>& globals, bool add) {
  std::vector<Node> list;
  for (uint32_t g : globals) list.push_back(nodes_[g]);
  Params params = case_->algorithm.params;
  params.weighted_list = built_weighted_;
  std::unique_ptr<Algorithm> next;
  try {
    Timed(add, [&] {
      next = build_ == Build::kShadow ? case_->algorithm.spec->MakeShadow(list, params)
                                      : case_->algorithm.spec->Make(list, params);
    });
  } catch (const std::exception&) {
    return false;
  }
  alg_ = std::move(next);
  to_global_ = globals;
  std::fill(to_alg_.begin(), to_alg_.end(), kDead);
  for (uint32_t a = 0; a < globals.size(); ++a) to_alg_[globals[a]] = a;
  return true;
}

uint32_t Deployment::GlobalFor(const Node& node, std::vector<uint32_t>& fill) {
  const auto [it, added] = by_label_.emplace(node.label, static_cast<uint32_t>(nodes_.size()));
  if (!added) {
    nodes_[it->second] = node;  // weight may change
    return it->second;
  }
  if (!topology_.empty()) topology_.Append(PathForNewNode(fill));
  nodes_.push_back(node);
  live_.push_back(false);
  to_alg_.push_back(kDead);
  order_pos_.push_back(kDead);
  return it->second;
}

void Deployment::LeaveLive(uint32_t g) {
  live_[g] = false;
  --live_count_;
  order_pos_[g] = kDead;  // its entry in order_ is stale from now on
  if (order_.size() > 2 * live_count_ + 64) CompactOrder();
}

void Deployment::EnterLive(uint32_t g) {
  live_[g] = true;
  ++live_count_;
  order_pos_[g] = static_cast<uint32_t>(order_.size());
  order_.push_back(g);
}

void Deployment::MarkRemoved(uint32_t g) {
  LeaveLive(g);
  const uint32_t a = to_alg_[g];
  to_alg_[g] = kDead;
  if (a != kDead) to_global_[a] = kDead;
}

void Deployment::RemoveNodes(const std::vector<uint32_t>& targets, const EventSpec& e) {
  std::vector<bool> gone(nodes_.size(), false);
  for (uint32_t g : targets) gone[g] = true;
  if (targets.size() > 1 && !alg_->capabilities().incremental) {
    std::vector<uint32_t> keep;
    for (uint32_t g : AlgorithmOrder()) {
      if (!gone[g]) keep.push_back(g);
    }
    if (BuildOver(keep, false)) {
      for (uint32_t g : targets) LeaveLive(g);
      return;
    }
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    try {
      Timed(false, [&] { alg_->Remove(to_alg_[targets[i]]); });
    } catch (const chsim::Unsupported& ex) {
      // The event's remaining targets leave too: one rebuild over the survivors.
      for (size_t j = i; j < targets.size(); ++j) MarkRemoved(targets[j]);
      Unsupported(ex.what(), e);
      return;
    }
    MarkRemoved(targets[i]);
  }
}

void Deployment::AddNodes(const std::vector<uint32_t>& globals, const EventSpec& e) {
  if (globals.size() > 1 && !alg_->capabilities().incremental) {
    std::vector<uint32_t> list = AlgorithmOrder();
    list.insert(list.end(), globals.begin(), globals.end());
    if (BuildOver(list, true)) {
      for (uint32_t g : globals) EnterLive(g);
      return;
    }
  }
  for (uint32_t g : globals) AddNode(g, e);
}

void Deployment::AddNode(uint32_t g, const EventSpec& e) {
  EnterLive(g);
  try {
    uint32_t a = 0;
    Timed(true, [&] { a = alg_->Add(nodes_[g]); });
    if (to_global_.size() <= a) to_global_.resize(a + 1, kDead);
    to_global_[a] = g;
    to_alg_[g] = a;
  } catch (const chsim::Unsupported& ex) {
    Unsupported(ex.what(), e);
  } catch (const std::invalid_argument& ex) {
    throw UsageError(scenario_->path + ": " + e.pointer + ": " + ex.what());
  }
}

std::vector<uint32_t> Deployment::PickRandom(size_t k, uint32_t step, const std::string& where,
                                             const EventSpec& e) const {
  std::vector<uint32_t> ids = LiveIds();
  if (k >= ids.size()) {
    throw UsageError(where + "found " + e.label + " with " + std::to_string(ids.size()) +
                     " live nodes; accepted: fewer than the live nodes (one must stay)");
  }
  return Draw(std::move(ids), k, Derive(seeds_.events, step));
}

std::vector<uint32_t> Deployment::PickDomains(const EventSpec& e, uint32_t step,
                                              const std::string& where) const {
  const std::span<const uint32_t> of = topology_.Of(*e.domain);
  std::vector<bool> holds_live(topology_.Count(*e.domain), false);
  for (uint32_t g : LiveIds()) holds_live[of[g]] = true;
  std::vector<uint32_t> domains;
  for (uint32_t d = 0; d < holds_live.size(); ++d) {
    if (holds_live[d]) domains.push_back(d);
  }
  if (e.count >= domains.size()) {
    const std::string plural(DomainLevelPlural(*e.domain));
    throw UsageError(where + "found " + e.label + " with live nodes in " +
                     std::to_string(domains.size()) + " " +
                     std::string(domains.size() == 1 ? DomainLevelName(*e.domain) : plural) +
                     "; accepted: fewer " + plural +
                     " than hold live nodes (a live node must "
                     "stay)");
  }
  std::vector<bool> fails(holds_live.size(), false);
  for (uint32_t d : Draw(std::move(domains), e.count, Derive(seeds_.events, step))) fails[d] = true;
  std::vector<uint32_t> targets;
  for (uint32_t g : LiveIds()) {
    if (fails[of[g]]) targets.push_back(g);
  }
  return targets;
}

Topology::Path Deployment::PathForNewNode(std::vector<uint32_t>& fill) const {
  Topology::Path path;
  const std::vector<DomainLevel> levels = topology_.levels();
  if (levels.empty()) return path;
  const DomainLevel low = levels[0];
  const uint32_t d =
      static_cast<uint32_t>(std::min_element(fill.begin(), fill.end()) - fill.begin());
  ++fill[d];
  for (DomainLevel l : levels) {
    const uint32_t at = l == low ? d : topology_.Parent(low, d, l);
    path[static_cast<size_t>(l)] = topology_.Name(l, at);
  }
  return path;
}

std::vector<uint32_t> Deployment::LowestDomainFill() const {
  const std::vector<DomainLevel> levels = topology_.levels();
  if (levels.empty()) return {};
  std::vector<uint32_t> fill(topology_.Count(levels[0]), 0);
  const std::span<const uint32_t> of = topology_.Of(levels[0]);
  for (uint32_t g : LiveIds()) ++fill[of[g]];
  return fill;
}

std::vector<uint32_t> Deployment::PickNamed(const EventSpec& e, const std::string& where) const {
  std::vector<uint32_t> targets;
  for (const std::string& label : e.nodes) {
    const auto it = by_label_.find(label);
    const uint32_t g = it == by_label_.end() ? kDead : it->second;
    if (g == kDead || !live_[g]) {
      throw UsageError(where + "node '" + label +
                       "' is not live at this step; accepted: a live node's label (the first is '" +
                       nodes_[LiveIds()[0]].label + "')");
    }
    targets.push_back(g);
  }
  std::vector<uint32_t> sorted = targets;
  std::sort(sorted.begin(), sorted.end());
  if (auto twice = std::adjacent_find(sorted.begin(), sorted.end()); twice != sorted.end()) {
    throw UsageError(where + "node '" + nodes_[*twice].label +
                     "' is named twice; accepted: each label once");
  }
  if (targets.size() >= num_live()) {
    throw UsageError(where + "would remove every node; accepted: leave at least one");
  }
  return targets;
}

std::vector<uint32_t> Deployment::PickLast(const EventSpec& e, const std::string& where) const {
  if (e.count >= live_count_) {
    throw UsageError(where + "found " + e.label + " with " + std::to_string(live_count_) +
                     " live nodes; accepted: fewer than the live nodes");
  }
  std::vector<uint32_t> targets;
  for (size_t i = order_.size(); targets.size() < e.count;) {
    --i;
    if (order_pos_[order_[i]] == i) targets.push_back(order_[i]);  // skips stale entries
  }
  return targets;
}

void Deployment::CompactOrder() {
  size_t kept = 0;
  for (size_t i = 0; i < order_.size(); ++i) {
    const uint32_t g = order_[i];
    if (order_pos_[g] != i) continue;
    order_pos_[g] = static_cast<uint32_t>(kept);
    order_[kept++] = g;
  }
  order_.resize(kept);
}

void Deployment::ApplyAdd(const EventSpec& e, const std::string& where) {
  std::vector<uint32_t> added;
  std::vector<uint32_t> fill = LowestDomainFill();
  if (e.select == EventSpec::Select::kNamed) {
    for (const Node& n : e.added) {
      uint32_t g = GlobalFor(n, fill);
      if (live_[g] || std::find(added.begin(), added.end(), g) != added.end()) {
        throw UsageError(where + "node '" + n.label + "' is already live");
      }
      added.push_back(g);
    }
    return AddNodes(added, e);
  }
  const NodePattern& pattern = *case_->compiled_pattern;
  for (uint32_t k = 0; k < e.count; ++k) {
    std::string label;
    bool taken = true;
    // Skip labels already in use (node files, earlier adds). A pattern that
    // repeats its labels (h{i%3}) may have no new one: refused after as many
    // tries as an injective pattern could need, and a margin.
    const uint64_t first = next_index_, tries = nodes_.size() + 1000;
    while (taken) {
      if (next_index_ - first == tries) {
        throw UsageError(where + "count: the node pattern gives no unused label at indices " +
                         std::to_string(first) + ".." + std::to_string(next_index_ - 1) +
                         "; accepted: a pattern whose labels do not repeat, e.g. with {i}");
      }
      label = pattern.Render(next_index_++, seeds_.nodes);
      taken = by_label_.contains(label);
    }
    Node n = ParseLabels({label}, {e.weight}, where + "count")[0];
    added.push_back(GlobalFor(n, fill));
  }
  AddNodes(added, e);
}

void Deployment::ApplyFail(const EventSpec& e, uint32_t step, const std::string& where) {
  if (e.domain) {
    const std::vector<uint32_t> targets = PickDomains(e, step, where);
    RemoveNodes(targets, e);
    failed_.insert(failed_.end(), targets.begin(), targets.end());
    return;
  }
  const size_t live = num_live();
  size_t k = static_cast<size_t>(std::llround(e.fraction * static_cast<double>(live)));
  k = live <= 1 ? 1 : std::clamp<size_t>(k, 1, live - 1);  // one live node: refused below
  const std::vector<uint32_t> targets = PickRandom(k, step, where, e);
  RemoveNodes(targets, e);
  failed_.insert(failed_.end(), targets.begin(), targets.end());
}

void Deployment::Apply(const EventSpec& e, uint32_t step) {
  struct Noted {  // however the event ends, a throw included
    Deployment* d;
    ~Noted() { d->NoteIds(); }
  } noted{this};
  const std::string where = scenario_->path + ": " + e.pointer + ": ";
  switch (e.op) {
    case EventSpec::Op::kAdd:
      return ApplyAdd(e, where);
    case EventSpec::Op::kRemove: {
      const std::vector<uint32_t> targets =
          e.select == EventSpec::Select::kNamed    ? PickNamed(e, where)
          : e.select == EventSpec::Select::kRandom ? PickRandom(e.count, step, where, e)
                                                   : PickLast(e, where);
      return RemoveNodes(targets, e);
    }
    case EventSpec::Op::kFail:
      return ApplyFail(e, step, where);
    case EventSpec::Op::kReweight: {
      const std::vector<uint32_t> targets = e.select == EventSpec::Select::kNamed
                                                ? PickNamed(e, where)
                                                : PickRandom(e.count, step, where, e);
      for (uint32_t g : targets) {
        RemoveNodes({g}, e);
        nodes_[g].weight = e.weight;
        weighted_ = true;
        AddNode(g, e);
      }
      return;
    }
    case EventSpec::Op::kRestore: {
      // Last failed, first restored: the undo order. Anchor, memento and jump
      // re-add the most recently removed bucket, so only this order gives every
      // restored node its own keys back; history-free schemes do not care.
      std::vector<uint32_t> back;
      for (auto it = failed_.rbegin(); it != failed_.rend(); ++it) {
        if (!live_[*it]) back.push_back(*it);
      }
      failed_.clear();
      return AddNodes(back, e);
    }
  }
}

}  // namespace chsim::sim
