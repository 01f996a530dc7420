// SPDX-License-Identifier: Apache-2.0
// Envoy: a cluster's endpoints in YAML or JSON (yaml-cpp reads both), as
// Envoy's config.cluster.v3.Cluster and config.endpoint.v3 describe them:
// a bootstrap (`static_resources.clusters`), a `clusters` list, a CDS
// response (`resources`), or one cluster. Read: `lb_policy` (RING_HASH,
// MAGLEV), `ring_hash_lb_config` (minimum_ring_size, maximum_ring_size,
// hash_function), `maglev_lb_config` (table_size), the same in
// `load_balancing_policy`'s typed RingHash / Maglev config,
// `consistent_hashing_lb_config.use_hostname_for_hashing`, and
// `load_assignment.endpoints`: priority 0 (the others take keys only when it
// fails), `lb_endpoints` with their socket address, hostname,
// load_balancing_weight (>= 1) and `envoy.lb` hash_key metadata. A server's
// label is its address as Envoy writes it ("10.0.0.1:80", "[::1]:80"); its
// NAME is what Envoy hashes instead when it hashes something else (the
// hash_key, or the hostname with use_hostname_for_hashing).
#include <yaml-cpp/yaml.h>

#include "sim/base/errors.h"
#include "sim/base/text_file.h"
#include "sim/scenario/server_config_internal.h"

namespace chsim::sim::internal {
namespace {

size_t LineOf(const YAML::Node& n) { return static_cast<size_t>(n.Mark().line) + 1; }

// n[k0][k1]...: undefined (false) when a step is missing or not a map (yaml-cpp
// throws on a lookup in a missing node).
template <typename... Keys>
YAML::Node Get(const YAML::Node& n, const char* key, Keys... more) {
  if (!n || !n.IsMap() || !n[key]) return YAML::Node(YAML::NodeType::Undefined);
  if constexpr (sizeof...(more) == 0) {
    return n[key];
  } else {
    return Get(n[key], more...);
  }
}

// The clusters of a document, in order.
std::vector<YAML::Node> Clusters(const YAML::Node& doc) {
  std::vector<YAML::Node> out;
  auto add = [&out](const YAML::Node& list) {
    if (list && list.IsSequence())
      for (const YAML::Node& c : list) out.push_back(c);
  };
  add(Get(doc, "static_resources", "clusters"));
  add(Get(doc, "clusters"));
  add(Get(doc, "resources"));
  if (out.empty() && Get(doc, "name") && (Get(doc, "load_assignment") || Get(doc, "lb_policy")))
    out.push_back(doc);
  return out;
}

std::string Text(const YAML::Node& n, const std::string& path, std::string_view what) {
  if (!n.IsScalar()) throw LineError(path, LineOf(n), std::string(what) + ": expected a string");
  return n.Scalar();
}

// An unsigned integer field (proto3 JSON writes 64-bit ones as strings).
uint64_t Integer(const YAML::Node& n, uint64_t lo, uint64_t hi, const std::string& path,
                 std::string_view what) {
  uint64_t v = 0;
  std::string s = n.IsScalar() ? n.Scalar() : "";
  if (!ParseDecimal(s, lo, hi, &v)) {
    throw LineError(path, LineOf(n),
                    std::string(what) + ": found " + Quote(s) + "; accepted: an integer " +
                        std::to_string(lo) + ".." + std::to_string(hi));
  }
  return v;
}

// The consistent-hashing settings: the policy, ring sizes or table size,
// hash function, hostname flag; from the cluster's fields or its
// load_balancing_policy's typed config.
struct Policy {
  std::string kind;   // "RING_HASH", "MAGLEV" or another lb_policy
  YAML::Node config;  // ring_hash_lb_config, maglev_lb_config or the typed config
  bool use_hostname = false;
};

Policy ReadPolicy(const YAML::Node& c, const std::string& path) {
  Policy p;
  p.kind = Get(c, "lb_policy") ? Text(c["lb_policy"], path, "lb_policy") : "ROUND_ROBIN";
  p.config = Get(c, p.kind == "RING_HASH" ? "ring_hash_lb_config" : "maglev_lb_config");
  YAML::Node hashing = Get(c, "common_lb_config", "consistent_hashing_lb_config");
  if (const YAML::Node pols = Get(c, "load_balancing_policy", "policies");
      pols && pols.IsSequence()) {
    for (const YAML::Node& pol : pols) {
      const YAML::Node typed = Get(pol, "typed_extension_config", "typed_config");
      const YAML::Node at = Get(typed, "@type");
      const std::string type = at && at.IsScalar() ? at.Scalar() : "";
      const bool ring = type.find(".RingHash") != std::string::npos;
      if (!ring && type.find(".Maglev") == std::string::npos) continue;
      p.kind = ring ? "RING_HASH" : "MAGLEV";
      p.config = typed;
      if (Get(typed, "consistent_hashing_lb_config"))
        hashing = typed["consistent_hashing_lb_config"];
      break;
    }
  }
  if (const YAML::Node h = Get(hashing, "use_hostname_for_hashing"); h && h.IsScalar())
    p.use_hostname = h.Scalar() == "true";
  return p;
}

// One lb_endpoint as a node; false when it takes no keys (a health status
// other than healthy or unknown).
bool ReadEndpoint(const YAML::Node& e, const Policy& p, ServerSource& s, Node& node) {
  const YAML::Node ep = Get(e, "endpoint");
  const YAML::Node sa = Get(ep, "address", "socket_address");
  if (!Get(sa, "address")) {
    throw LineError(s.path, LineOf(e),
                    "an lb_endpoint without endpoint.address.socket_address.address");
  }
  node.host = Text(sa["address"], s.path, "socket_address.address");
  node.port = Get(sa, "port_value")
                  ? static_cast<uint32_t>(Integer(sa["port_value"], 0, 65535, s.path, "port_value"))
                  : 0;
  node.port_given = true;
  const bool v6 = node.host.find(':') != std::string::npos;
  node.label = (v6 ? "[" + node.host + "]" : node.host) + ":" + std::to_string(node.port);
  if (Get(e, "load_balancing_weight")) {
    node.weight = static_cast<uint32_t>(
        Integer(e["load_balancing_weight"], 1, UINT32_MAX, s.path, "load_balancing_weight"));
    s.list.weighted = true;
  }
  const YAML::Node meta = Get(e, "metadata", "filter_metadata", "envoy.lb", "hash_key");
  if (meta) {
    node.name = Text(meta, s.path, "envoy.lb hash_key");
  } else if (p.use_hostname && Get(ep, "hostname")) {
    node.name = Text(ep["hostname"], s.path, "hostname");
  }
  const YAML::Node hs = Get(e, "health_status");
  const std::string health = hs ? Text(hs, s.path, "health_status") : "UNKNOWN";
  if (health == "UNKNOWN" || health == "HEALTHY") return true;
  s.notes.push_back("line " + std::to_string(LineOf(e)) + ": endpoint " + node.label + " is " +
                    health + ": left out (Envoy builds the ring from healthy hosts)");
  return false;
}

bool Prime(uint64_t n) {
  if (n < 2) return false;
  for (uint64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

// The profile for the policy and the settings its options take: ring sizes
// and hash function (RING_HASH, ring_hash_lb.cc), table size (MAGLEV).
void ChooseEnvoyProfile(const Policy& p, ServerSource& s) {
  constexpr uint64_t kMaxRing = 8388608;  // the protos' lte, ring_hash_lb.h DefaultMaxRingSize
  const YAML::Node& c = p.config;
  if (p.kind == "RING_HASH") {
    s.profile = "envoy-ring";
    const uint64_t lo = Get(c, "minimum_ring_size") ? Integer(c["minimum_ring_size"], 1, kMaxRing,
                                                              s.path, "minimum_ring_size")
                                                    : 1024;
    const uint64_t hi = Get(c, "maximum_ring_size") ? Integer(c["maximum_ring_size"], 1, kMaxRing,
                                                              s.path, "maximum_ring_size")
                                                    : kMaxRing;
    if (lo > hi) {
      throw LineError(s.path, LineOf(c),
                      "ring hash: minimum_ring_size (" + std::to_string(lo) +
                          ") > maximum_ring_size (" + std::to_string(hi) + ")");
    }
    const std::string fn =
        Get(c, "hash_function") ? Text(c["hash_function"], s.path, "hash_function") : "XX_HASH";
    if (fn != "XX_HASH" && fn != "MURMUR_HASH_2") {
      throw LineError(s.path, LineOf(c["hash_function"]),
                      "hash_function " + Quote(fn) + "; accepted: XX_HASH, MURMUR_HASH_2");
    }
    s.settings = {{"min_ring_size", std::to_string(lo)},
                  {"max_ring_size", std::to_string(hi)},
                  {"hash_function", fn}};
    s.options.min_ring_size = lo;
    s.options.max_ring_size = hi;
    if (fn == "MURMUR_HASH_2") s.options.hasher = "envoy_murmur2";
  } else if (p.kind == "MAGLEV") {
    s.profile = "envoy-maglev";
    const uint64_t size =
        Get(c, "table_size") ? Integer(c["table_size"], 2, 5000011, s.path, "table_size") : 65537;
    if (!Prime(size)) {
      throw LineError(s.path, LineOf(c["table_size"]),
                      "table_size " + std::to_string(size) +
                          " is not a prime; Envoy refuses it (accepted: a prime up to 5000011)");
    }
    s.settings = {{"table_size", std::to_string(size)}};
    s.options.table_size = size;
  } else {
    s.why_no_profile = "cluster " + Quote(s.block) + " balances with lb_policy " + p.kind +
                       ", not by a key hash (RING_HASH or MAGLEV)";
  }
  if (p.use_hostname) s.settings.emplace_back("use_hostname_for_hashing", "true");
}

void ReadEndpoints(const YAML::Node& c, const Policy& p, ServerSource& s) {
  const YAML::Node eps = Get(c, "load_assignment", "endpoints");
  if (!eps || !eps.IsSequence()) return;
  ServerLines lines;
  for (const YAML::Node& locality : eps) {
    const uint64_t priority =
        Get(locality, "priority") ? Integer(locality["priority"], 0, 128, s.path, "priority") : 0;
    if (priority != 0) {
      s.notes.push_back("line " + std::to_string(LineOf(locality)) + ": priority " +
                        std::to_string(priority) +
                        " endpoints left out (they take keys only "
                        "when priority 0 fails)");
      continue;
    }
    if (Get(locality, "load_balancing_weight")) Ignore(s, "locality load_balancing_weight");
    const YAML::Node lbe = Get(locality, "lb_endpoints");
    if (!lbe || !lbe.IsSequence()) continue;
    for (const YAML::Node& e : lbe) {
      Node node;
      if (ReadEndpoint(e, p, s, node)) AddServer(s, std::move(node), LineOf(e), lines);
    }
  }
}

}  // namespace

ServerSource ReadEnvoy(std::string_view text, const std::string& path, const std::string& block) {
  ServerSource s;
  s.format = ServerFormat::kEnvoy;
  s.path = path;
  YAML::Node doc;
  try {
    doc = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw LineError(path, static_cast<size_t>(e.mark.line) + 1,
                    e.msg + "; expected YAML or JSON (an Envoy cluster)");
  }
  const std::vector<YAML::Node> clusters = Clusters(doc);
  std::vector<std::string> names;
  for (const YAML::Node& c : clusters)
    names.push_back(Get(c, "name") ? Text(c["name"], path, "cluster name") : "");
  const YAML::Node& c = clusters[PickBlock(names, block, path, "cluster")];
  s.block = names[&c - clusters.data()];
  try {
    const Policy p = ReadPolicy(c, path);
    ReadEndpoints(c, p, s);
    ChooseEnvoyProfile(p, s);
  } catch (const YAML::Exception& e) {
    throw LineError(path, static_cast<size_t>(e.mark.line) + 1, e.msg);
  }
  FinishList(s, "cluster");
  return s;
}

}  // namespace chsim::sim::internal
