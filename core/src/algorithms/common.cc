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
                             const Params& params, LiveList list)
    : next_id_(static_cast<uint32_t>(nodes.size())),
      spec_(&spec),
      params_(params),
      built_(nodes.size()),
      list_(list),
      live_(nodes.size()) {
  if (list_ == LiveList::kById) {
    by_id_.assign(nodes.begin(), nodes.end());
    return;
  }
  nodes_.assign(nodes.begin(), nodes.end());
  ids_.resize(nodes.size());
  for (uint32_t i = 0; i < ids_.size(); ++i) ids_[i] = i;
}

std::string_view AlgorithmBase::name() const noexcept { return spec_->name; }
Capabilities AlgorithmBase::capabilities() const noexcept { return spec_->capabilities; }

std::vector<uint32_t> AlgorithmBase::live_ids() const {
  if (list_ == LiveList::kInOrder) return ids_;
  std::vector<uint32_t> ids;
  ids.reserve(live_);
  for (uint32_t id = 0; id < by_id_.size(); ++id) {
    if (by_id_[id].weight != 0) ids.push_back(id);
  }
  return ids;
}

void AlgorithmBase::Admit(TimelineStep::Op op) {
  if (!spec_->admit) return;
  if (list_ == LiveList::kInOrder) return spec_->admit(params_, {op, built_, nodes_});
  if (anonymous_.size() < live_) anonymous_.resize(live_);
  spec_->admit(params_, {op, built_, std::span<const Node>(anonymous_.data(), live_)});
}

bool AlgorithmBase::LabelIsLive(const std::string& label) {
  if (!labels_built_) {  // the first Add: O(n) once
    std::unordered_set<std::string> labels;
    labels.reserve(live_ + 1);
    for (const Node& n : list_ == LiveList::kInOrder ? nodes_ : by_id_) {
      if (n.weight != 0) labels.insert(n.label);
    }
    labels_ = std::move(labels);
    labels_built_ = true;
  }
  return labels_.contains(label);
}

void AlgorithmBase::Link(const Node& node, uint32_t id) {
  Node copy = node;  // every allocation before the first change
  if (list_ == LiveList::kInOrder) {
    ReserveOneMore(nodes_);
    ReserveOneMore(ids_);
  } else {
    ReserveOneMore(by_id_);
  }
  labels_.insert(node.label);  // the last step that may throw
  if (list_ == LiveList::kInOrder) {
    nodes_.push_back(std::move(copy));
    ids_.push_back(id);
  } else {
    by_id_.push_back(std::move(copy));
  }
  ++live_;
}

void AlgorithmBase::Unlink(uint32_t id) {
  const Node& node = list_ == LiveList::kInOrder ? nodes_.back() : by_id_[id];
  labels_.erase(node.label);
  if (list_ == LiveList::kInOrder) {
    nodes_.pop_back();
    ids_.pop_back();
  } else {
    by_id_.pop_back();
  }
  --live_;
}

uint32_t AlgorithmBase::Add(const Node& node) {
  if (node.weight == 0) Refuse(name(), "node '" + node.label + "' has weight 0");
  if (LabelIsLive(node.label)) {
    Refuse(name(), "node '" + node.label + "' is already live; labels must be unique");
  }
  if (!spec_->capabilities.weights) RequireUnweighted(name(), node);
  if (live_ >= kMaxNodes || next_id_ == UINT32_MAX) {
    throw Unsupported(std::string(name()) + ": at most 2^31 - 1 nodes, and 2^32 - 1 adds");
  }
  const uint32_t id = next_id_;
  Link(node, id);
  try {
    Admit(TimelineStep::Op::kAdd);
    OnAdd(list_ == LiveList::kInOrder ? nodes_.back() : by_id_.back(), id);
  } catch (...) {
    Unlink(id);
    throw;
  }
  return next_id_++;
}

// kInOrder: the position in ids_ (binary search); kById: the id itself.
size_t AlgorithmBase::LiveIndex(uint32_t id) const {
  bool live;
  size_t i = id;
  if (list_ == LiveList::kInOrder) {
    auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
    i = static_cast<size_t>(it - ids_.begin());
    live = it != ids_.end() && *it == id;
  } else {
    live = id < by_id_.size() && by_id_[id].weight != 0;
  }
  if (!live) {
    Refuse(name(), "node id " + std::to_string(id) +
                       (id < next_id_ ? " was already removed" : " was never issued"));
  }
  return i;
}

Node AlgorithmBase::Detach(size_t index, uint32_t id) {
  Node node;
  if (list_ == LiveList::kById) {
    node = std::move(by_id_[id]);
    by_id_[id] = Node();
    by_id_[id].weight = 0;  // dead
  } else if (index + 1 == ids_.size()) {
    node = std::move(nodes_.back());
    nodes_.pop_back();
    ids_.pop_back();
  } else {
    node = std::move(nodes_[index]);
    nodes_.erase(nodes_.begin() + static_cast<std::ptrdiff_t>(index));
    ids_.erase(ids_.begin() + static_cast<std::ptrdiff_t>(index));
  }
  --live_;
  return node;
}

void AlgorithmBase::Reattach(size_t index, uint32_t id, Node node) noexcept {
  // The lists have room: Detach just made it.
  if (list_ == LiveList::kById) {
    by_id_[id] = std::move(node);
  } else {
    nodes_.insert(nodes_.begin() + static_cast<std::ptrdiff_t>(index), std::move(node));
    ids_.insert(ids_.begin() + static_cast<std::ptrdiff_t>(index), id);
  }
  ++live_;
}

void AlgorithmBase::Remove(uint32_t id) {
  const size_t i = LiveIndex(id);
  if (live_ <= 1) {
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
      : AlgorithmBase(spec, nodes, params,
                      spec.capabilities.arbitrary_removal && !spec.capabilities.weights
                          ? LiveList::kById
                          : LiveList::kInOrder) {}
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
