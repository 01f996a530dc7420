// SPDX-License-Identifier: Apache-2.0
// chsim.Algorithm and chsim.Ring: a registered algorithm (or a client's Ketama
// ring) over a node list, with single and batched lookups, add and remove.
//
// Node ids are the algorithm's: the nodes given get 0..n-1 in order, each add
// the next id, and ids are never reused, so the `labels` of a batch (one per
// id ever issued) stay valid after any add or remove.
//
// Thread-safety: every method may be called from any thread. Lookups share a
// lock and run without the GIL; add, remove and the lookups of a stateful
// algorithm (bounded_load places keys one by one) take it exclusively. No
// thread waits for the lock while holding the GIL (ReadLock, WriteLock), so
// a batch may hold the lock and take the GIL back to read a list's block.
#include <chrono>
#include <shared_mutex>
#include <unordered_map>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "chsim/replica.h"
#include "chsim/ring.h"
#include "sim/python/bind.h"
#include "sim/results/results.h"

namespace chsim::python {
namespace {

using namespace pybind11::literals;

PyObject* g_indices_type = nullptr;  // chsim.NodeIndices (set by the package; kept alive)

// The strategy named (None: the first that applies to `spec`, and places by
// domain when a domain is asked), refused with chsim locate's reasons.
const ReplicaStrategy& PickStrategy(const AlgorithmSpec& spec, py::handle name, bool domain) {
  if (!name.is_none()) {
    const ReplicaStrategy& s = GetReplicaStrategy(ReadString(name, "strategy"));
    if (!s.AppliesTo(spec)) {
      std::string fit;
      for (const ReplicaStrategy* r : ReplicaStrategiesFor(spec))
        fit += (fit.empty() ? "" : ", ") + std::string(r->name);
      // Appended piece by piece: GCC 12 warns on the + chain at LTO
      // (-Wstringop-overflow, a false positive).
      std::string m = "strategy ";
      m.append(s.name).append(" does not apply to ").append(spec.name);
      m.append("; strategies for it: ").append(fit.empty() ? "none" : fit);
      throw std::invalid_argument(m);
    }
    return s;
  }
  for (const ReplicaStrategy* r : ReplicaStrategiesFor(spec)) {
    if (!domain || r->UsesDomains()) return *r;
  }
  throw std::invalid_argument("no replica strategy " +
                              std::string(domain ? "that places by domain " : "") + "applies to " +
                              std::string(spec.name));
}

class Placement {
 public:
  Placement(const AlgorithmSpec& spec, NodeList list, chsim::Params given,
            std::optional<Profile> profile)
      : spec_(&spec),
        nodes_(std::move(list.nodes)),
        weighted_(list.weighted),
        topology_(std::move(list.topology)),
        profile_(std::move(profile)) {
    given.weighted_list = weighted_;
    try {
      resolved_ = spec.Resolve(given);
      key_hasher_ = &GetHasher(spec.KeyHasher(resolved_));
      py::gil_scoped_release release;  // a large table or ring takes a while
      algo_ = spec.Make(nodes_, given);
    } catch (const Unsupported& e) {  // as chsim locate says it: the list cannot be built
      throw std::invalid_argument(list.source + ": " + e.what());
    }
    stateful_ = algo_->capabilities().stateful;
    for (uint32_t id = 0; id < nodes_.size(); ++id) live_[nodes_[id].label] = id;
  }
  virtual ~Placement() = default;

  std::string_view name() const { return spec_->name; }
  std::string_view key_hasher() const { return key_hasher_->name; }

  py::dict ParamsDict() const {
    py::dict out;
    for (const auto& [name, value] : resolved_.values()) {
      if (const uint64_t* u = std::get_if<uint64_t>(&value)) out[py::str(name)] = *u;
      if (const double* d = std::get_if<double>(&value)) out[py::str(name)] = *d;
      if (const std::string* s = std::get_if<std::string>(&value)) out[py::str(name)] = Text(*s);
    }
    return out;
  }

  py::object Capabilities() const {
    auto lock = ReadLock();
    return ToPython(sim::CapabilitiesJson(algo_->capabilities()));
  }

  py::str Locate(py::handle key) {
    const std::string_view bytes = KeyBytes(key, "key");
    const uint64_t h = (*key_hasher_)(bytes);
    std::string label;
    uint32_t id = 0;
    if (!stateful_) {  // an algorithm that reads the key's bytes (LocateKeys)
      auto lock = ReadLock();
      if (algo_->LocateKeys({&bytes, 1}, {&id, 1})) return Text(nodes_[id].label);
    }
    if (stateful_) {
      auto lock = WriteLock();
      label = nodes_[algo_->Assign(h)].label;
    } else {
      auto lock = ReadLock();
      label = nodes_[algo_->Locate(h)].label;
    }
    return Text(label);
  }

  py::object LocateBatch(py::handle keys) {
    const Keys k(keys);
    py::array_t<uint32_t> out(static_cast<py::ssize_t>(k.size()));
    uint32_t* o = out.mutable_data();
    size_t issued = 0;
    {
      py::gil_scoped_release release;
      auto run = [&] {
        std::vector<uint64_t> hashes(kBlockKeys);
        ForEachBlock(k, [&](size_t begin, std::span<const std::string_view> block) {
          if (!stateful_ && algo_->LocateKeys(block, {o + begin, block.size()})) return;
          HashBatch(*key_hasher_, block, hashes);
          if (!stateful_)
            return algo_->LocateBatch({hashes.data(), block.size()}, {o + begin, block.size()});
          for (size_t i = 0; i < block.size(); ++i) o[begin + i] = algo_->Assign(hashes[i]);
        });
        issued = nodes_.size();
      };
      if (stateful_) {  // keys placed in order, by one caller at a time
        std::unique_lock lock(mu_);
        run();
      } else {
        std::shared_lock lock(mu_);
        run();
      }
    }
    return Wrap(std::move(out), issued);
  }

  uint32_t Add(py::handle label, py::handle weight, py::handle host, py::handle rack,
               py::handle zone) {
    const std::string l = ReadLabel(label, "label");
    const uint64_t w = ReadUint(weight, "weight", 1, INT32_MAX);
    const std::string what = "add('" + l + "')";
    bool spelled = false;
    Node node = ReadServerLine(w == 1 ? l : l + " " + std::to_string(w), what, &spelled);
    if (node.label != l) {
      throw std::invalid_argument(what +
                                  ": found a label with spaces or '#'; accepted: one "
                                  "token HOST[:PORT] (the weight goes in `weight`)");
    }
    Topology::Path path;
    const py::handle given[kDomainLevels] = {host, rack, zone};
    for (size_t i = 0; i < kDomainLevels; ++i) {
      if (!given[i].is_none()) path[i] = ReadLabel(given[i], std::string(kDomainLevelNames[i]));
    }
    py::gil_scoped_release release;
    std::unique_lock lock(mu_);
    Topology topology = topology_;  // checked before the algorithm changes
    if (!topology.empty() || path != Topology::Path{}) {
      try {
        topology.Append(path);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(what + ": " + e.what());
      }
    }
    uint32_t id = 0;
    try {
      id = algo_->Add(node);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(what + ": " + e.what());
    } catch (const Unsupported& e) {
      throw std::invalid_argument(what + ": " + e.what());
    }
    nodes_.resize(std::max<size_t>(nodes_.size(), id + size_t{1}));
    nodes_[id] = std::move(node);
    live_[l] = id;
    topology_ = std::move(topology);
    return id;
  }

  // {level: [domain name of every id ever issued]}, for the levels given.
  py::dict Domains() const {
    auto lock = ReadLock();
    py::dict out;
    for (DomainLevel l : topology_.levels()) {
      py::list names;
      for (uint32_t d : topology_.Of(l)) names.append(Text(topology_.Name(l, d)));
      out[py::str(std::string(DomainLevelName(l)))] = names;
    }
    return out;
  }

  // The k copies of every key (chsim/replica.h), as a (keys, k) uint32 array
  // of node ids; a short set (a strategy that may answer short) ends in
  // UINT32_MAX entries.
  py::object LocateReplicas(py::handle keys, py::handle k_arg, py::handle strategy_arg,
                            py::handle domain_arg) {
    const Keys keys_in(keys);
    const uint32_t k = static_cast<uint32_t>(ReadUint(k_arg, "k", 1, kMaxReplicas));
    std::optional<DomainLevel> domain;
    if (!domain_arg.is_none()) {
      const std::string d = ReadString(domain_arg, "domain");
      domain = FindDomainLevel(d);
      if (!domain) {
        throw std::invalid_argument("domain: found '" + d + "'; accepted: " + DomainLevelNames());
      }
    }
    const ReplicaStrategy& strategy = StrategyFor(strategy_arg, domain.has_value());
    py::array_t<uint32_t> out(
        std::vector<py::ssize_t>{static_cast<py::ssize_t>(keys_in.size()), k});
    uint32_t* o = out.mutable_data();
    std::fill(o, o + keys_in.size() * k, UINT32_MAX);
    size_t issued = 0;
    {
      py::gil_scoped_release release;
      std::shared_lock lock(mu_);
      const auto selector = strategy.Make(
          ReplicaInput{.algorithm = algo_.get(), .k = k, .topology = &topology_, .domain = domain});
      std::vector<uint64_t> hashes(kBlockKeys);
      std::vector<uint32_t> counts(kBlockKeys);
      ForEachBlock(keys_in, [&](size_t begin, std::span<const std::string_view> block) {
        HashBatch(*key_hasher_, block, hashes);
        selector->SelectBatch({hashes.data(), block.size()}, {o + begin * k, block.size() * k},
                              counts);
      });
      issued = nodes_.size();
    }
    return Wrap(std::move(out), issued);
  }

  void Remove(py::handle label) {
    const std::string l = ReadLabel(label, "label");
    const std::string what = "remove('" + l + "')";
    py::gil_scoped_release release;
    std::unique_lock lock(mu_);
    uint32_t id = 0;
    if (auto it = live_.find(l); it != live_.end()) {
      id = it->second;
    } else {  // removed before: the algorithm says so, as chsim locate --remove does
      auto dead =
          std::find_if(nodes_.rbegin(), nodes_.rend(), [&](const Node& n) { return n.label == l; });
      if (dead == nodes_.rend()) {
        throw std::invalid_argument(what +
                                    ": found no such node; accepted: the label of a "
                                    "live node");
      }
      id = static_cast<uint32_t>(nodes_.rend() - dead - 1);
    }
    try {
      algo_->Remove(id);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(what + ": " + e.what());
    } catch (const Unsupported& e) {
      throw std::invalid_argument(what + ": " + e.what());
    }
    live_.erase(l);
  }

  void Reset() {
    py::gil_scoped_release release;
    std::unique_lock lock(mu_);
    algo_->ResetAssignments();
  }

  size_t Size() const {
    auto lock = ReadLock();
    return algo_->num_nodes();
  }

  bool Contains(py::handle label) const {
    if (!PyUnicode_Check(label.ptr())) return false;
    const std::string l = ReadLabel(label, "label");
    auto lock = ReadLock();
    return live_.contains(l);
  }

  // Labels of the live nodes, in id order.
  py::list Nodes() const {
    std::vector<std::string> labels;
    {
      auto lock = ReadLock();
      for (uint32_t id : algo_->live_ids()) labels.push_back(nodes_[id].label);
    }
    py::list out;
    for (const std::string& l : labels) out.append(Text(l));
    return out;
  }

  py::array_t<uint32_t> LiveIds() const {
    std::vector<uint32_t> ids;
    {
      auto lock = ReadLock();
      ids = algo_->live_ids();
    }
    return py::array_t<uint32_t>(static_cast<py::ssize_t>(ids.size()), ids.data());
  }

  // The label of every id ever issued (removed nodes too), as a numpy object
  // array; cached until an add issues a new id.
  py::object Labels() {
    size_t issued = 0;
    {
      auto lock = ReadLock();
      issued = nodes_.size();
    }
    return LabelsUpTo(issued);
  }

  py::object Shares() const {
    std::optional<std::vector<double>> shares;
    {
      auto lock = ReadLock();
      shares = algo_->StructuralShares();
    }
    if (!shares) return py::none();
    return py::array_t<double>(static_cast<py::ssize_t>(shares->size()), shares->data());
  }

  size_t MemoryBytes() const {
    auto lock = ReadLock();
    return algo_->MemoryBytes();
  }

  // The ring in order: (point, node id) for every point the profile keeps.
  py::array Points() const {
    if (!profile_) {
      throw py::value_error("profile '" + resolved_.Text("profile") +
                            "' builds no ring (pymemcache: rendezvous hashing)");
    }
    std::vector<uint32_t> ids;
    Ring ring;
    {
      py::gil_scoped_release release;
      std::shared_lock lock(mu_);
      ids = algo_->live_ids();
      std::vector<Node> live;
      live.reserve(ids.size());
      for (uint32_t id : ids) live.push_back(nodes_[id]);
      ring = Ring::Build(*profile_, live, weighted_);
    }
    py::object dtype = py::module_::import("numpy").attr("dtype")(
        py::list(py::make_tuple(py::make_tuple("point", "<u4"), py::make_tuple("node", "<u4"))));
    py::array out(py::reinterpret_borrow<py::dtype>(dtype),
                  std::vector<py::ssize_t>{static_cast<py::ssize_t>(ring.size())});
    auto* p = static_cast<uint32_t*>(out.mutable_data());
    for (size_t i = 0; i < ring.size(); ++i) {
      p[2 * i] = ring.points()[i];
      p[2 * i + 1] = ids[ring.owners()[i]];
    }
    return out;
  }

  // Benchmarks: the least seconds per key, over `repeats` passes, of the
  // C++ lookup of `keys` with their views made beforehand (untimed): a ring's
  // Ring::LocateBatch over the key bytes, else HashBatch and LocateBatch a
  // block at a time, as locate_batch runs them.
  double NativeSecondsPerKey(py::handle keys, int repeats) const {
    const Keys k(keys);
    std::vector<std::string_view> views(k.size());
    std::string scratch;
    k.Block(0, views, scratch);  // a list's keys: copied into scratch
    std::vector<uint32_t> out(k.size());
    py::gil_scoped_release release;
    std::shared_lock lock(mu_);
    Ring ring;
    if (profile_) {
      std::vector<Node> live;
      for (uint32_t id : algo_->live_ids()) live.push_back(nodes_[id]);
      ring = Ring::Build(*profile_, live, weighted_);
    }
    std::vector<uint64_t> hashes(kBlockKeys);
    double best = 1e300;
    for (int r = 0; r < std::max(1, repeats); ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      if (profile_) {
        ring.LocateBatch(views, out);
      } else {
        for (size_t begin = 0; begin < views.size(); begin += kBlockKeys) {
          const size_t m = std::min(kBlockKeys, views.size() - begin);
          HashBatch(*key_hasher_, {views.data() + begin, m}, hashes);
          algo_->LocateBatch({hashes.data(), m}, {out.data() + begin, m});
        }
      }
      const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
      best = std::min(best, dt.count());
    }
    return views.empty() ? 0 : best / static_cast<double>(views.size());
  }

  std::string Repr() const {
    std::string text = profile_ ? "<chsim.Ring" : "<chsim.Algorithm " + std::string(spec_->name);
    for (const auto& [name, value] : resolved_.values()) {
      const std::string v = FormatParamValue(value);
      if (!v.empty()) text += (profile_ && name == "profile" ? " " : ", ") + name + "=" + v;
    }
    return text + ", " + std::to_string(Size()) + " nodes>";
  }

 private:
  // The lock, taken by a caller that holds the GIL: it never waits for mu_
  // with the GIL held, since a lookup holding mu_ may be waiting for the GIL
  // (to read a list's next block).
  template <typename Lock>
  Lock LockWithGil() const {
    Lock lock(mu_, std::try_to_lock);
    if (!lock.owns_lock()) {
      py::gil_scoped_release release;
      lock.lock();
    }
    return lock;
  }
  std::shared_lock<std::shared_mutex> ReadLock() const {
    return LockWithGil<std::shared_lock<std::shared_mutex>>();
  }
  std::unique_lock<std::shared_mutex> WriteLock() const {
    return LockWithGil<std::unique_lock<std::shared_mutex>>();
  }

  py::object LabelsUpTo(size_t issued) {
    if (labels_size_ < issued || !labels_) {
      py::list list;
      auto lock = ReadLock();
      for (const Node& n : nodes_) list.append(Text(n.label));
      labels_size_ = nodes_.size();
      labels_ = py::module_::import("numpy").attr("array")(list, "dtype"_a = "object");
    }
    return labels_;
  }

  const ReplicaStrategy& StrategyFor(py::handle name, bool domain) const {
    return PickStrategy(*spec_, name, domain);
  }

  // The indices as chsim.NodeIndices (an ndarray with the labels beside it).
  py::object Wrap(py::array_t<uint32_t> indices, size_t issued) {
    if (g_indices_type == nullptr) return indices;
    py::object view = indices.attr("view")(py::handle(g_indices_type));
    view.attr("labels") = LabelsUpTo(issued);
    return view;
  }

  const AlgorithmSpec* spec_;
  chsim::Params resolved_;
  const Hasher* key_hasher_ = nullptr;
  std::vector<Node> nodes_;  // by id, every id ever issued
  bool weighted_;
  Topology topology_;               // by id; empty when the nodes carry no domains
  std::optional<Profile> profile_;  // rings: the client's profile
  std::unique_ptr<Algorithm> algo_;
  bool stateful_ = false;
  std::unordered_map<std::string, uint32_t> live_;  // label -> id of the live nodes
  mutable std::shared_mutex mu_;
  py::object labels_;  // LabelsUpTo's cache (GIL held)
  size_t labels_size_ = 0;
};

// A given value of a parameter, or of a ring option, as chsim's types.
chsim::Params ReadParams(const AlgorithmSpec& spec, const py::kwargs& kwargs, uint64_t nodes) {
  chsim::Params given;
  for (auto [key, value] : kwargs) {
    const std::string name = py::str(key);
    const ParamSpec* p = spec.FindParam(name);
    if (p == nullptr) {
      try {  // the spec's message, naming its parameters
        spec.Resolve(chsim::Params{{name, uint64_t{0}}});
      } catch (const std::invalid_argument& e) {
        throw TypeError(e.what());
      }
    }
    if (value.is_none()) continue;  // None: the default
    given.Set(name, ReadParam(*p, spec.name, value, nodes));
  }
  return given;
}

Placement* MakeAlgorithm(py::handle name, py::handle nodes, const py::kwargs& kwargs) {
  NodeList list = ReadNodes(nodes, "nodes");  // first, as chsim locate reads --servers first
  const AlgorithmSpec& spec = GetAlgorithm(ReadString(name, "name"));
  chsim::Params given = ReadParams(spec, kwargs, list.nodes.size());
  return new Placement(spec, std::move(list), std::move(given), std::nullopt);
}

class RingPlacement : public Placement {
 public:
  using Placement::Placement;
};

RingPlacement* MakeRing(py::handle servers, py::handle profile, py::handle hash_algorithm,
                        py::handle hasher) {
  auto option = [](py::handle v, const char* what) {
    return v.is_none() ? std::string() : ReadString(v, what);
  };
  NodeList list = ReadNodes(servers, "servers");  // first, as chsim locate does
  const std::string name = ReadString(profile, "profile");
  const ProfileOptions options{option(hash_algorithm, "hash_algorithm"), option(hasher, "hasher")};
  Profile p = MakeProfile(name, options);  // chsim locate's messages
  const AlgorithmSpec& spec = GetAlgorithm("ketama");
  chsim::Params given{{"profile", name}};
  if (!options.hash_algorithm.empty()) given.Set("hash_algorithm", options.hash_algorithm);
  if (!options.hasher.empty()) given.Set("hasher", options.hasher);
  std::optional<Profile> ring;  // Points and the ring benchmark: 32-bit rings only
  if (p.engine == Engine::kRing) ring = std::move(p);
  return new RingPlacement(spec, std::move(list), std::move(given), std::move(ring));
}

// Algorithm's failure domains and replica sets (chsim/topology.h, chsim/replica.h).
void BindReplicas(py::class_<Placement>& algorithm) {
  algorithm
      .def_property_readonly(
          "domains", &Placement::Domains,
          "The nodes' failure domains (chsim.topology()): {level: [domain name of every id]} "
          "for the levels the node list gives (host=, rack=, zone= columns); {} for none.")
      .def("locate_replicas", &Placement::LocateReplicas, py::arg("keys"), py::arg("k"),
           py::arg("strategy") = py::none(), py::arg("domain") = py::none(),
           R"(The k copies of every key, in replica order, as chsim.NodeIndices of shape
(keys, k): row i holds key i's node ids (the first is the primary), as `chsim locate
--replicas K [--strategy NAME] [--domain LEVEL]` prints them. strategy: a name of
chsim.replica_strategies() (None: the first that applies, and places by domain when a
domain is given); domain: "host", "rack" or "zone", a level of `domains`. A strategy that
may answer short leaves UINT32_MAX (4294967295) in the missing places. Runs without the
GIL.)");
}

// chsim.Algorithm: any registered algorithm over a node list.
void BindAlgorithm(py::module_& m) {
  auto algorithm = py::class_<Placement>(m, "Algorithm", R"(A registered algorithm over a node list.

Algorithm(name, nodes, **params)

name    an algorithm of chsim.algorithms() ("ring", "jump", "maglev", ...).
nodes   a server-list file path, a list of "HOST[:PORT] [WEIGHT [NAME]]" lines (failure
        domains as host=H rack=R zone=Z columns: `domains`, locate_replicas), a dict
        {label: weight}, or a node count (10.0.0.1:11211, 10.0.0.2:11211, ...).
params  the algorithm's parameters (chsim.algorithms() lists them with their ranges);
        None or absent: the default. An int parameter with an "auto" value takes "auto".

Node ids are 0..n-1 for the nodes given, then one more per add; ids are never reused.
Lookups hash the key with the algorithm's key hasher (key_hasher) and answer exactly as
`chsim locate --algorithm NAME` does. Raises ValueError (a value out of range, a refused
list) or TypeError (a wrong type or an unknown parameter) with chsim's one-line messages.
Thread-safe: lookups run in parallel without the GIL; add and remove wait for them.)");
  algorithm.def(py::init(&MakeAlgorithm), py::arg("name"), py::arg("nodes"))
      .def_property_readonly("name", &Placement::name, "The algorithm's registry name.")
      .def_property_readonly("params", &Placement::ParamsDict,
                             "Every parameter's value, defaults filled in (dict).")
      .def_property_readonly("key_hasher", &Placement::key_hasher,
                             "The hasher applied to key bytes before lookup (chsim.hashers()).")
      .def_property_readonly("capabilities", &Placement::Capabilities,
                             "What this instance supports (dict: weights, removal, incremental, "
                             "exact_shares, stateful, minimal_disruption, history_free).")
      .def("locate", &Placement::Locate, py::arg("key"),
           "The label of the node that key (str, encoded as UTF-8, or bytes) maps to. A stateful "
           "algorithm (bounded_load) places the key: later answers depend on it.")
      .def("locate_batch", &Placement::LocateBatch, py::arg("keys"),
           R"(The node id of every key, as chsim.NodeIndices: a numpy uint32 array whose
`labels` attribute holds the label of every id (idx.labels[idx] gives each key's label).

keys: a list or tuple of str (UTF-8) or bytes, or a 1-dimensional numpy array of bytes
(dtype S: trailing NUL bytes are dropped, as numpy does), str (dtype U) or objects.
Runs without the GIL: other Python threads run meanwhile, and several threads may call
it at once. A stateful algorithm places the keys in order.)")
      .def("add", &Placement::Add, py::arg("label"), py::arg("weight") = 1,
           py::arg("host") = py::none(), py::arg("rack") = py::none(), py::arg("zone") = py::none(),
           "Adds a node (HOST[:PORT]) of the given weight, in the given failure domains (the "
           "levels the nodes carry, see domains), and returns its id. Raises ValueError when "
           "the algorithm refuses (a live label, a capacity reached, weights unsupported) or "
           "the domains break the topology, with chsim's message; nothing changes then.")
      .def("remove", &Placement::Remove, py::arg("label"),
           "Removes the live node with this label. Raises ValueError when the algorithm refuses "
           "(jump and its kin remove only the most recently added node; never the last node), "
           "with chsim's message; nothing changes then.")
      .def("reset", &Placement::Reset,
           "Forgets the keys a stateful algorithm (bounded_load) has placed: the next lookups "
           "start from empty loads, as a fresh instance would. Nothing to do for the others.")
      .def_property_readonly("nodes", &Placement::Nodes,
                             "The labels of the live nodes, in id order.")
      .def_property_readonly("live_ids", &Placement::LiveIds,
                             "The ids of the live nodes, ascending (numpy uint32).")
      .def_property_readonly("labels", &Placement::Labels,
                             "The label of every id ever issued, removed nodes included (numpy "
                             "object array indexed by id).")
      .def("shares", &Placement::Shares,
           "The exact share of the key space each id owns (numpy float64 by id, 0 for removed "
           "ids), or None when the algorithm has no exact shares.")
      .def_property_readonly("memory_bytes", &Placement::MemoryBytes,
                             "The bytes the structure holds (the algorithm's own count).")
      .def("__len__", &Placement::Size, "The number of live nodes.")
      .def("__contains__", &Placement::Contains, py::arg("label"),
           "Whether a live node has this label.")
      .def("__repr__", &Placement::Repr)
      .def("_native_seconds_per_key", &Placement::NativeSecondsPerKey, py::arg("keys"),
           py::arg("repeats") = 3,
           "Benchmarks (bench/python_locate.py): the least seconds per key of the C++ lookup of "
           "keys, their views made beforehand; rings time Ring::LocateBatch.");
  BindReplicas(algorithm);
}

// chsim.Ring: a memcached client's Ketama ring, an Algorithm with points().
void BindRing(py::module_& m) {
  py::class_<RingPlacement, Placement>(m, "Ring", R"(A memcached client's Ketama ring.

Ring(servers, profile="spymemcached", hash_algorithm=None, hasher=None)

servers         a server-list file path, a list of "HOST[:PORT] [WEIGHT [NAME]]" lines
                (with host=H rack=R zone=Z columns), a dict {label: weight}, or a node count.
profile         the client reproduced (chsim.profiles()): spymemcached,
                spymemcached-libmemcached, libmemcached, libmemcached-spy,
                libmemcached-ketama, twemproxy, uhashring.
hash_algorithm  spymemcached's DefaultHashAlgorithm (KETAMA_HASH, FNV1A_64_HASH, ...).
hasher          the key hasher, where the client lets you choose.

Keys map exactly as the client maps them (`chsim locate --profile PROFILE`); add and
remove rebuild the ring over the live nodes in id order, as the clients do when their
server list changes. An Algorithm ("ketama") with points().)")
      .def(py::init(&MakeRing), py::arg("servers"), py::arg("profile") = "spymemcached",
           py::arg("hash_algorithm") = py::none(), py::arg("hasher") = py::none())
      .def("points", &RingPlacement::Points,
           "The ring in order as a numpy structured array of (point, node): every point the "
           "client keeps, duplicates included where it keeps them, with the id of its node "
           "(`chsim ring` prints the same).");
}

}  // namespace

void BindPlacement(py::module_& m) {
  m.def(
      "_set_indices_type",
      [](py::handle type) {
        Py_XDECREF(g_indices_type);
        g_indices_type = type.inc_ref().ptr();
      },
      "Sets the ndarray subclass locate_batch returns (the package sets chsim.NodeIndices).");

  BindAlgorithm(m);
  BindRing(m);
}

}  // namespace chsim::python
