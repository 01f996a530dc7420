// SPDX-License-Identifier: Apache-2.0
// The envoy-ring, envoy-maglev and jedis profiles against the vectors of
// Envoy's and Jedis' own tests, and MurmurHash64A against libstdc++'s
// std::_Hash_bytes: tests/compat/golden-upstream/, written by
// tests/compat/generate-upstream (each vector names its repository, commit,
// file and line). Envoy and Jedis are not in Debian, so these are what their
// tests assert, not answers of a running program.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "chsim/profile_map.h"
#include "chsim_source_dir.h"

namespace chsim {
namespace {

using nlohmann::json;

json Load(const std::string& name) {
  std::ifstream in(CHSIM_SOURCE_DIR "/tests/compat/golden-upstream/" + name);
  EXPECT_TRUE(in) << name;
  return json::parse(in);
}

std::string Where(const json& c, const json& v) {
  return c["repository"].get<std::string>() + "@" + c["commit"].get<std::string>() + " " +
         c["file"].get<std::string>() + ":" + std::to_string(v["line"].get<int>()) + " (" +
         c["test"].get<std::string>() + ")";
}

// The hosts as chsim's nodes: label "addr:port", NAME what Envoy hashes
// instead (the hash_key, or the hostname under use_hostname_for_hashing).
std::vector<Node> EnvoyNodes(const json& hosts, bool use_hostname) {
  std::vector<Node> nodes;
  for (const json& h : hosts) {
    Node n;
    n.label = h["label"];
    n.host = n.label.substr(0, n.label.rfind(':'));
    n.port = static_cast<uint32_t>(std::stoul(n.label.substr(n.label.rfind(':') + 1)));
    n.weight = h["weight"];
    if (h["hash_key"].get<bool>() || use_hostname) n.name = h["name"];
    nodes.push_back(n);
  }
  return nodes;
}

Profile EnvoyProfile(const json& c) {
  const json& s = c["settings"];
  ProfileOptions o;
  o.min_ring_size = s.value("minimum_ring_size", 0);
  o.max_ring_size = s.value("maximum_ring_size", 0);
  o.table_size = s.value("table_size", 0);
  if (s.value("hash_function", "") == "MURMUR_HASH_2") o.hasher = "envoy_murmur2";
  return MakeProfile(c["profile"].get<std::string>(), o);
}

// Hashes per host: the ring's points or the table's entries.
std::vector<uint64_t> PerHost(const ProfileMap& m) {
  std::vector<uint64_t> n(m.num_nodes(), 0);
  for (uint32_t o : m.point_owners()) ++n[o];
  for (uint32_t o : m.table()) ++n[o];
  return n;
}

void CheckStat(const ProfileMap& m, const json& v, const std::string& where) {
  const std::string stat = v["stat"];
  const uint64_t want = v["value"];
  const std::vector<uint64_t> per = PerHost(m);
  if (stat == "size") {
    EXPECT_EQ(m.points().size(), want) << where;
  } else if (stat.rfind("min_", 0) == 0) {
    EXPECT_EQ(*std::min_element(per.begin(), per.end()), want) << where;
  } else {
    EXPECT_EQ(*std::max_element(per.begin(), per.end()), want) << where;
  }
}

void CheckVector(const ProfileMap& m, const json& v, const std::string& where, size_t& point) {
  const std::string kind = v["kind"];
  if (kind == "point") {
    ASSERT_LT(point, m.points().size()) << where;
    EXPECT_EQ(m.points()[point], v["hash"].get<uint64_t>()) << where;
    EXPECT_EQ(m.point_owners()[point], v["host"].get<uint32_t>()) << where;
    ++point;
  } else if (kind == "probe") {
    EXPECT_EQ(m.LocateHash(v["hash"].get<uint64_t>()), v["host"].get<uint32_t>()) << where;
  } else if (kind == "stat") {
    CheckStat(m, v, where);
  } else if (kind == "count") {
    const uint64_t n = v["probes"];
    uint64_t count = 0;
    for (uint64_t i = 0; i < n; ++i) {
      count += m.LocateHash(i * (std::numeric_limits<uint64_t>::max() / n)) == v["host"];
    }
    EXPECT_EQ(count, v["value"].get<uint64_t>()) << where;
  } else if (kind == "table") {
    const std::vector<uint32_t> want = v["hosts"];
    for (uint64_t i = 0; i < 3 * want.size(); ++i)  // chooseHost(i) for i < 3 x size
      EXPECT_EQ(m.LocateHash(i), want[i % want.size()]) << where << " hash " << i;
  } else {
    ADD_FAILURE() << where << ": unknown vector kind " << kind;
  }
}

TEST(UpstreamGolden, EnvoyRingHashAndMaglevTests) {
  size_t vectors = 0;
  std::map<std::string, size_t> per_profile;
  for (const json& c : Load("envoy.json")) {
    const Profile p = EnvoyProfile(c);
    const bool by_name = c["settings"].value("use_hostname_for_hashing", false);
    for (const json& seg : c["segments"]) {
      const ProfileMap m = ProfileMap::Build(p, EnvoyNodes(seg["hosts"], by_name));
      size_t point = 0;
      for (const json& v : seg["vectors"]) {
        CheckVector(m, v, Where(c, v), point);
        ++vectors;
        ++per_profile[p.name];
      }
    }
  }
  EXPECT_GE(per_profile["envoy-ring"], 100u);
  EXPECT_GE(per_profile["envoy-maglev"], 15u);
}

std::vector<Node> JedisNodes(const json& shards) {
  std::vector<Node> nodes;
  for (size_t i = 0; i < shards.size(); ++i) {
    Node n;
    n.label = "localhost:" + std::to_string(6379 + i);
    n.host = "localhost";
    n.port = static_cast<uint32_t>(6379 + i);
    n.name = shards[i]["name"];
    nodes.push_back(n);
  }
  return nodes;
}

TEST(UpstreamGolden, JedisShardedTests) {
  const Profile p = MakeProfile("jedis");
  size_t vectors = 0;
  for (const json& c : Load("jedis.json")) {
    const std::vector<Node> nodes = JedisNodes(c["shards"]);
    const ProfileMap m = ProfileMap::Build(p, nodes);
    for (const json& v : c["vectors"]) {
      const std::string where = Where(c, v), kind = v["kind"];
      ++vectors;
      if (kind == "key") {
        EXPECT_EQ(m.Locate(v["key"].get<std::string>()), v["host"].get<uint32_t>()) << where;
      } else if (kind == "count_range") {
        uint64_t count = 0;
        for (int i = 0; i < v["keys"].get<int>(); ++i)
          count += m.Locate(std::to_string(i)) == v["host"].get<uint32_t>();
        EXPECT_GT(count, v["above"].get<uint64_t>()) << where;
        EXPECT_LT(count, v["below"].get<uint64_t>()) << where;
      } else if (kind == "same_by_name") {  // other shards, other order, the same names
        std::vector<Node> other = nodes;
        const std::vector<std::string> names = v["other_names"];
        for (size_t i = 0; i < other.size(); ++i) other[i].name = names[i];
        const ProfileMap m2 = ProfileMap::Build(p, other);
        for (int i = 0; i < v["keys"].get<int>(); ++i) {
          const std::string key = std::to_string(i);
          EXPECT_EQ(nodes[m.Locate(key)].name, other[m2.Locate(key)].name) << where;
        }
      } else {
        ADD_FAILURE() << where << ": unknown vector kind " << kind;
      }
    }
  }
  EXPECT_GE(vectors, 6u);
}

std::string Unhex(const std::string& hex) {
  std::string s;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    s += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return s;
}

TEST(UpstreamGolden, HashVectors) {
  size_t rows = 0;
  for (const json& r : Load("hashes.json")) {
    const std::string key = Unhex(r["key_hex"]);
    EXPECT_EQ(GetHasher(r["hasher"].get<std::string>())(key), r["value"].get<uint64_t>())
        << r.dump();
    ++rows;
  }
  EXPECT_GE(rows, 70u);
}

// Envoy's and Jedis' rules on tiny rings, probed at 0, the largest hash, a
// point p and p + 1 (the golden vectors above come from the programs' tests).
TEST(UpstreamRules, TinyRingsAtTheEdges) {
  std::vector<Node> nodes(3);
  for (size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].label = "10.0.0." + std::to_string(i + 1) + ":80";
    nodes[i].host = "10.0.0." + std::to_string(i + 1);
    nodes[i].port = 80;
  }
  ProfileOptions o;
  o.min_ring_size = 6;
  o.max_ring_size = 6;
  for (const Profile& p : {MakeProfile("envoy-ring", o), MakeProfile("jedis")}) {
    const ProfileMap m = ProfileMap::Build(p, nodes);
    const auto pts = m.points();
    const auto own = m.point_owners();
    ASSERT_GE(pts.size(), 2u);
    const uint64_t flip = p.engine == Engine::kJedis ? uint64_t{1} << 63 : 0;
    EXPECT_EQ(m.LocateHash(flip ^ 0), own[0]) << p.name;  // the smallest
    EXPECT_EQ(m.LocateHash(flip ^ std::numeric_limits<uint64_t>::max()), own[0]) << p.name;
    for (size_t i = 0; i + 1 < pts.size(); ++i) {
      EXPECT_EQ(m.LocateHash(flip ^ pts[i]), own[i]) << p.name;            // p
      EXPECT_EQ(m.LocateHash(flip ^ (pts[i] + 1)), own[i + 1]) << p.name;  // p + 1
    }
    EXPECT_EQ(m.LocateHash(flip ^ (pts.back() + 1)), own[0]) << p.name;  // wraps
  }
}

TEST(UpstreamRules, JedisLaterShardWinsAnEqualPoint) {
  std::vector<Node> nodes(2);
  nodes[0].label = "a:1";
  nodes[1].label = "b:1";
  nodes[0].name = nodes[1].name = "same";  // every point of b equals one of a
  const ProfileMap m = ProfileMap::Build(MakeProfile("jedis"), nodes);
  EXPECT_EQ(m.points().size(), 160u);
  for (uint32_t o : m.point_owners()) EXPECT_EQ(o, 1u);
}

TEST(UpstreamRules, RefusesWhatEnvoyRefuses) {
  ProfileOptions o;
  o.table_size = 65536;
  EXPECT_THROW(MakeProfile("envoy-maglev", o), std::invalid_argument);
  o = {};
  o.min_ring_size = 20;
  o.max_ring_size = 10;
  EXPECT_THROW(MakeProfile("envoy-ring", o), std::invalid_argument);
  o = {};
  o.max_ring_size = kEnvoyMaxRingSize + 1;
  EXPECT_THROW(MakeProfile("envoy-ring", o), std::invalid_argument);
  o = {};
  o.hasher = "md5";
  EXPECT_THROW(MakeProfile("envoy-ring", o), std::invalid_argument);
  o = {};
  o.table_size = 7;
  EXPECT_THROW(MakeProfile("envoy-ring", o), std::invalid_argument);
  EXPECT_THROW(MakeProfile("jedis", o), std::invalid_argument);
  std::vector<Node> heavy(2);
  heavy[0].label = "a:1";
  heavy[1].label = "b:1";
  heavy[0].weight = heavy[1].weight = 3000000000u;
  EXPECT_THROW(ProfileMap::Build(MakeProfile("envoy-maglev"), heavy), std::invalid_argument);
}

}  // namespace
}  // namespace chsim
