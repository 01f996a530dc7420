// SPDX-License-Identifier: Apache-2.0
// ProfileMap, the pymemcache profile's rendezvous hashing: its murmur3 over
// code points and its tie rule. The mapping itself is proven key for key
// against the installed pymemcache (tests/compat/golden-proxies,
// check_golden.py).
#include "chsim/profile_map.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "chsim/hasher.h"
#include "chsim/profile.h"
#include "test_nodes.h"

namespace chsim {
namespace {

Node Server(const std::string& host) {
  Node n = TestNode(host + ":11211");
  n.host = host;  // port 11211: '%s:%s' % (host, port)
  return n;
}

// pymemcache's murmur3 over code points: each code point's low 8 bits and
// the length in code points; "\u0161" (0x161) hashes as "a" (0x61).
TEST(PymemcacheProfile, CodePointMurmur3) {
  const Hasher& m3 = GetHasher("murmur3_32");
  EXPECT_EQ(PymemcacheMurmur3("abc"), m3("abc"));
  EXPECT_EQ(PymemcacheMurmur3("\xc5\xa1"), m3("a"));
  EXPECT_EQ(PymemcacheMurmur3("caf\xc3\xa9"), m3("caf\xe9"));
  EXPECT_EQ(PymemcacheMurmur3("\xf0\x9f\x98\x80!"), m3(std::string("\x00!", 2)));
  EXPECT_EQ(PymemcacheMurmur3("\xff"), m3("\xff"));  // not UTF-8: the byte itself
}

// The highest score of "host:port-KEY" wins, every prefix length (0-3 bytes
// left after its whole blocks) and keys long enough to leave the stack
// buffer.
TEST(PymemcacheProfile, HighestScoreWins) {
  const std::vector<Node> nodes = {Server("127.0.0.1"), Server("10.0.0.2"), Server("h"),
                                   Server("hh"), Server("hhh")};
  const ProfileMap m = ProfileMap::Build(MakeProfile("pymemcache"), nodes);
  std::vector<std::string> keys = {"", "a", "user:1", "caf\xc3\xa9", std::string(5000, 'k')};
  for (int i = 0; i < 200; ++i) keys.push_back("key" + std::to_string(i));
  for (const std::string& key : keys) {
    uint32_t want = 0, best = 0;
    for (uint32_t i = 0; i < nodes.size(); ++i) {
      const uint32_t s = PymemcacheMurmur3(nodes[i].host + ":11211-" + key);
      if (i == 0 || s > best) {  // no ties among these
        want = i;
        best = s;
      }
    }
    EXPECT_EQ(m.Locate(key), want) << key;
  }
  EXPECT_EQ(m.LocateHash(12345), m.Locate("12345"));
}

// rendezvous.py: equal scores go to max(str(node), str(winner)). "a" and
// "\u0161" hash alike (low 8 bits), so every key ties; "\u0161" is greater,
// in either list order.
TEST(PymemcacheProfile, TieToGreaterName) {
  const Profile p = MakeProfile("pymemcache");
  const ProfileMap ab = ProfileMap::Build(p, std::vector<Node>{Server("a"), Server("\xc5\xa1")});
  const ProfileMap ba = ProfileMap::Build(p, std::vector<Node>{Server("\xc5\xa1"), Server("a")});
  for (const std::string key : {"", "x", "user:1", "caf\xc3\xa9"}) {
    EXPECT_EQ(ab.Locate(key), 1u) << key;
    EXPECT_EQ(ba.Locate(key), 0u) << key;
  }
}

TEST(PymemcacheProfile, Refusals) {
  const Profile p = MakeProfile("pymemcache");
  EXPECT_THROW(ProfileMap::Build(p, std::vector<Node>{}), std::invalid_argument);
  EXPECT_THROW(ProfileMap::Build(p, std::vector<Node>{TestNode("a:1", 2)}), std::invalid_argument);
  EXPECT_THROW(MakeProfile("pymemcache", ProfileOptions{"", "md5"}), std::invalid_argument);
}

}  // namespace
}  // namespace chsim
