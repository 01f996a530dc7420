// SPDX-License-Identifier: Apache-2.0
// Every hasher against the reference libraries' own answers:
// tests/compat/golden/hashers.tsv, written by tests/compat/generate from
// libhashkit 1.1, zlib, libxxhash, OpenSSL, Guava 31.1 (murmur3) and
// spymemcached 2.12.3 itself, plus the published FNV test vectors
// (draft-eastlake-fnv); tests/compat/golden/MANIFEST.txt says which row comes
// from where. Rows named *_low32 hold the low 32 bits of a 64-bit hash.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "chsim/hasher.h"
#include "chsim_source_dir.h"

namespace chsim {
namespace {

std::string Unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

TEST(HasherGolden, MatchesReferenceLibraries) {
  // Golden row name -> chsim hasher. Rows of libhashkit functions that chsim
  // does not offer (its sign-extending FNVs, seeded murmur3) are skipped.
  const std::map<std::string, std::string> names = {
      {"md5", "md5"},
      {"md5_64", "md5_64"},
      {"crc32", "crc32"},
      {"fnv1_32", "fnv1_32"},
      {"fnv1a_32", "fnv1a_32"},
      {"fnv1_64", "fnv1_64"},
      {"fnv1a_64", "fnv1a_64"},
      {"fnv1_64_low32", "fnv1_64"},
      {"fnv1a_64_low32", "fnv1a_64"},
      {"one_at_a_time", "one_at_a_time"},
      {"murmur3_32", "murmur3_32"},
      {"xxh32", "xxh32"},
      {"xxh64", "xxh64"},
      {"xxh3", "xxh3"},
      {"hashkit_md5", "md5"},
      {"hashkit_one_at_a_time", "hashkit_one_at_a_time"},
      {"hashkit_crc32", "crc_spy"},
      {"spy_KETAMA_HASH", "md5"},
      {"spy_NATIVE_HASH", "java_string"},
      {"spy_CRC_HASH", "crc_spy"},
      {"spy_FNV1_64_HASH", "spy_fnv1_64"},
      {"spy_FNV1A_64_HASH", "spy_fnv1a_64"},
      {"spy_FNV1_32_HASH", "spy_fnv1_32"},
      {"spy_FNV1A_32_HASH", "spy_fnv1a_32"}};
  std::ifstream in(CHSIM_SOURCE_DIR "/tests/compat/golden/hashers.tsv");
  ASSERT_TRUE(in) << "missing tests/compat/golden/hashers.tsv";
  std::string line;
  std::map<std::string, int> checked;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name, hex, value;
    std::getline(fields, name, '\t');
    std::getline(fields, hex, '\t');
    std::getline(fields, value, '\t');
    auto it = names.find(name);
    if (it == names.end()) continue;
    const std::string key = Unhex(hex);
    const bool low32 = name.size() > 6 && name.compare(name.size() - 6, 6, "_low32") == 0;
    EXPECT_EQ(GetHasher(it->second)(key) & (low32 ? 0xffffffffULL : ~0ULL), std::stoull(value))
        << name << " (chsim " << it->second << ") key hex '" << hex << "'";
    ++checked[name];
  }
  for (const auto& [name, hasher] : names) EXPECT_GT(checked[name], 0) << name << " has no rows";
}

}  // namespace
}  // namespace chsim
