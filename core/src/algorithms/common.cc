// SPDX-License-Identifier: Apache-2.0
// What every algorithm shares (internal.h): the base class with the node
// rules, the shadow instance, the shared parameter rows and ring admission.
#include <string>
#include <unordered_set>

#include "chsim/ring.h"
#include "internal.h"

namespace chsim::algorithms_internal {
namespace {

[[noreturn]] void Refuse(std::string_view algorithm, const std::string& what) {
  throw std::invalid_argument(std::string(algorithm) + ": " + what);
}

// "ring, ketama, rendezvous or maglev": the registered algorithms with weights.
std::string WeightedAlgorithms() {
  std::vector<std::string_view> names;
  for (const AlgorithmSpec* spec : AllAlgorithms()) {
    if (spec->capabilities.weights) names.push_back(spec->name);
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

void RequireUnweighted(std::string_view algorithm, const Node& n) {
  if (n.weight != 1) {
    throw Unsupported(std::string(algorithm) + " does not support weights (node '" + n.label +
                      "' has weight " + std::to_string(n.weight) + "); use " +
                      WeightedAlgorithms() + ", or drop the weights");
  }
}

}  // namespace

void AlgorithmBase::AdmitBuild(const AlgorithmSpec& spec, std::span<const Node> nodes,
                               const Params& params) {
  const std::string_view name = spec.name;
  if (nodes.empty()) Refuse(name, "needs at least one node");
  if (nodes.size() > kMaxNodes) Refuse(name, "at most 2^31 - 1 nodes");
  std::unordered_set<std::string_view> seen;
  for (const Node& n : nodes) {
    if (n.weight == 0) Refuse(name, "node '" + n.label + "' has weight 0");
    if (!seen.insert(n.label).second) {
      Refuse(name, "node '" + n.label + "' appears twice; labels must be unique");
    }
  }
  if (!spec.capabilities.weights) {
    for (const Node& n : nodes) RequireUnweighted(name, n);
  }
  if (spec.admit) spec.admit(params, {TimelineStep::Op::kBuild, nodes.size(), nodes});
}

AlgorithmBase::AlgorithmBase(const AlgorithmSpec& spec, std::span<const Node> nodes,
                             const Params& params, LiveList order)
    : nodes_(nodes.begin(), nodes.end()),
      next_id_(static_cast<uint32_t>(nodes.size())),
      spec_(&spec),
      params_(params),
      built_(nodes.size()),
      order_(order) {
  ids_.resize(nodes.size());
  for (uint32_t i = 0; i < ids_.size(); ++i) ids_[i] = i;
  if (order_ == LiveList::kUnordered) slot_ = ids_;
}

std::string_view AlgorithmBase::name() const noexcept { return spec_->name; }
Capabilities AlgorithmBase::capabilities() const noexcept { return spec_->capabilities; }

std::vector<uint32_t> AlgorithmBase::live_ids() const {
  if (order_ == LiveList::kInOrder) return ids_;
  std::vector<uint32_t> ids;
  ids.reserve(ids_.size());
  for (uint32_t id = 0; id < slot_.size(); ++id) {
    if (slot_[id] != kNoSlot) ids.push_back(id);
  }
  return ids;
}

void AlgorithmBase::Admit(TimelineStep::Op op) const {
  if (spec_->admit) spec_->admit(params_, {op, built_, nodes_});
}

bool AlgorithmBase::LabelIsLive(const std::string& label) {
  if (!labels_built_) {  // the first Add: O(n) once
    std::unordered_set<std::string> labels(nodes_.size() + 1);
    for (const Node& n : nodes_) labels.insert(n.label);
    labels_ = std::move(labels);
    labels_built_ = true;
  }
  return labels_.contains(label);
}

void AlgorithmBase::Link(const Node& node, uint32_t id) {
  Node copy = node;  // every allocation before the first change
  ReserveOneMore(nodes_);
  ReserveOneMore(ids_);
  if (order_ == LiveList::kUnordered) ReserveOneMore(slot_);
  labels_.insert(node.label);  // the last step that may throw
  if (order_ == LiveList::kUnordered) slot_.push_back(static_cast<uint32_t>(ids_.size()));
  nodes_.push_back(std::move(copy));
  ids_.push_back(id);
}

void AlgorithmBase::Unlink() {
  labels_.erase(nodes_.back().label);
  if (order_ == LiveList::kUnordered) slot_.pop_back();
  nodes_.pop_back();
  ids_.pop_back();
}

uint32_t AlgorithmBase::Add(const Node& node) {
  if (node.weight == 0) Refuse(name(), "node '" + node.label + "' has weight 0");
  if (LabelIsLive(node.label)) {
    Refuse(name(), "node '" + node.label + "' is already live; labels must be unique");
  }
  if (!spec_->capabilities.weights) RequireUnweighted(name(), node);
  if (ids_.size() >= kMaxNodes || next_id_ == UINT32_MAX) {
    throw Unsupported(std::string(name()) + ": at most 2^31 - 1 nodes, and 2^32 - 1 adds");
  }
  Link(node, next_id_);
  try {
    Admit(TimelineStep::Op::kAdd);
    OnAdd(nodes_.back(), next_id_);
  } catch (...) {
    Unlink();
    throw;
  }
  return next_id_++;
}

size_t AlgorithmBase::LiveIndex(uint32_t id) const {
  size_t i = kNoSlot;
  if (order_ == LiveList::kUnordered) {
    if (id < slot_.size()) i = slot_[id];
  } else {
    auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
    if (it != ids_.end() && *it == id) i = static_cast<size_t>(it - ids_.begin());
  }
  if (i == kNoSlot) {
    Refuse(name(), "node id " + std::to_string(id) +
                       (id < next_id_ ? " was already removed" : " was never issued"));
  }
  return i;
}

Node AlgorithmBase::Detach(size_t index, uint32_t id) {
  Node node = std::move(nodes_[index]);
  const auto at = static_cast<std::ptrdiff_t>(index);
  if (order_ == LiveList::kInOrder) {
    nodes_.erase(nodes_.begin() + at);  // O(1) for the last one
    ids_.erase(ids_.begin() + at);
    return node;
  }
  if (index + 1 != ids_.size()) {  // the last entry fills the hole
    nodes_[index] = std::move(nodes_.back());
    ids_[index] = ids_.back();
    slot_[ids_[index]] = static_cast<uint32_t>(index);
  }
  nodes_.pop_back();
  ids_.pop_back();
  slot_[id] = kNoSlot;
  return node;
}

void AlgorithmBase::Reattach(size_t index, uint32_t id, Node node) noexcept {
  const auto at = static_cast<std::ptrdiff_t>(index);
  if (order_ == LiveList::kInOrder) {
    nodes_.insert(nodes_.begin() + at, std::move(node));
    ids_.insert(ids_.begin() + at, id);
    return;
  }
  if (index < ids_.size()) {  // the entry that filled the hole goes back last
    slot_[ids_[index]] = static_cast<uint32_t>(ids_.size());
    nodes_.push_back(std::move(nodes_[index]));
    ids_.push_back(ids_[index]);
    nodes_[index] = std::move(node);
    ids_[index] = id;
  } else {
    nodes_.push_back(std::move(node));
    ids_.push_back(id);
  }
  slot_[id] = static_cast<uint32_t>(index);
}

void AlgorithmBase::Remove(uint32_t id) {
  const size_t i = LiveIndex(id);
  if (ids_.size() <= 1) {
    throw Unsupported(std::string(name()) + ": cannot remove the only live node");
  }
  if (!spec_->capabilities.arbitrary_removal && i + 1 != ids_.size()) {
    throw Unsupported(std::string(name()) +
                      ": can only remove the most recently added live node (id " +
                      std::to_string(ids_.back()) + "), not node " + std::to_string(id) +
                      "; use an algorithm with arbitrary removal (chsim list)");
  }
  Node node = Detach(i, id);
  try {
    Admit(TimelineStep::Op::kRemove);
    OnRemove(i, id);
  } catch (...) {
    Reattach(i, id, std::move(node));
    throw;
  }
  labels_.erase(node.label);  // no allocation: after the last step that may throw
}

namespace {

class Shadow final : public AlgorithmBase {
 public:
  // The cheaper live list whenever the spec allows it: its refusals are the same.
  Shadow(const AlgorithmSpec& spec, std::span<const Node> nodes, const Params& params)
      : AlgorithmBase(
            spec, nodes, params,
            spec.capabilities.arbitrary_removal ? LiveList::kUnordered : LiveList::kInOrder) {}
  uint32_t Locate(uint64_t) const noexcept override { return 0; }
  size_t MemoryBytes() const noexcept override { return 0; }

 private:
  void OnAdd(const Node&, uint32_t) override {}
  void OnRemove(size_t, uint32_t) override {}
};

}  // namespace

std::unique_ptr<Algorithm> NewShadow(const AlgorithmSpec& spec, std::span<const Node> nodes,
                                     const Params& params) {
  return std::make_unique<Shadow>(spec, nodes, params);
}

std::vector<std::string_view> HasherNames() {
  std::vector<std::string_view> names;
  for (const Hasher& h : AllHashers()) names.push_back(h.name);
  return names;
}

std::string_view KeyHasherOrPointHasher(const Params& p) {
  const std::string& k = p.Text("key_hasher");
  return k.empty() ? std::string_view(p.Text("hasher")) : std::string_view(k);
}

std::string_view KeyHasherOrXxh3(const Params& p) {
  const std::string& k = p.Text("key_hasher");
  return k.empty() ? std::string_view("xxh3") : std::string_view(k);
}

uint64_t RingPointCount(const Profile& profile, std::span<const Node> nodes, bool weighted) {
  // As Ring::Build decides whether the list is weighted and counts points.
  weighted = (weighted && !profile.weighted_only_above_one) || HasWeights(nodes);
  const uint64_t total_weight = TotalWeight(nodes);
  uint64_t total = 0;
  for (const Node& n : nodes) {
    total += PointsForNode(profile, weighted, n.weight, total_weight, nodes.size());
  }
  return total;
}

void AdmitRing(const Profile& profile, std::span<const Node> nodes, bool weighted) {
  if (nodes.size() > Ring::kMaxNodes) {
    throw std::invalid_argument("a ring takes at most " + std::to_string(Ring::kMaxNodes) +
                                " nodes (got " + std::to_string(nodes.size()) + ")");
  }
  for (const Node& n : nodes) CheckWeight(profile, n.weight, "");
  const uint64_t points = RingPointCount(profile, nodes, weighted);
  if (points > Ring::kMaxPoints) {
    throw std::invalid_argument("ring would have " + std::to_string(points) +
                                " points; the limit is " + std::to_string(Ring::kMaxPoints));
  }
  if (points == 0) throw std::invalid_argument("ring would have no points");
}

uint64_t CapacityOf(const Params& p, size_t built) {
  const uint64_t c = p.Integer("capacity");
  return c == 0 ? 2 * uint64_t{built} : c;
}

void AdmitCapacity(std::string_view algorithm, const Params& p, const TimelineStep& step) {
  const uint64_t capacity = CapacityOf(p, step.built);
  const size_t n = step.live.size();
  if (step.op == TimelineStep::Op::kBuild) {
    if (capacity < n || capacity >= UINT32_MAX) {
      Refuse(algorithm, "capacity " + std::to_string(capacity) + " must be at least the " +
                            std::to_string(n) + " initial nodes (0 means twice that)");
    }
  } else if (n > capacity) {
    throw Unsupported(std::string(algorithm) + ": capacity " + std::to_string(capacity) +
                      " reached; build with a larger capacity");
  }
}

}  // namespace chsim::algorithms_internal
