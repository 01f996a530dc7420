// SPDX-License-Identifier: Apache-2.0
// Key shapes and node naming patterns: rendering, determinism, and one-line
// errors for malformed templates.
#include "sim/workload/key_shape.h"

#include <gtest/gtest.h>

#include <charconv>
#include <set>
#include <string>
#include <vector>

#include "sim/base/errors.h"
#include "sim/base/rng.h"
#include "sim/scenario/node_pattern.h"

namespace chsim::sim {
namespace {

TEST(KeyShapeTest, RendersPlaceholders) {
  std::string out;
  KeyShape::Compile("user:{i}", "t").Render(42, 1, &out);
  EXPECT_EQ(out, "user:42");
  KeyShape::Compile("k{i:06}", "t").Render(42, 1, &out);
  EXPECT_EQ(out, "k000042");
  KeyShape::Compile("{{x}}-{hex:8}", "t").Render(0, 5, &out);
  ASSERT_EQ(out.size(), 12u);
  EXPECT_EQ(out.substr(0, 4), "{x}-");
  EXPECT_EQ(out.find_first_not_of("0123456789abcdef", 4), std::string::npos);
  KeyShape s = KeyShape::Compile("{alnum:8-32}", "t");
  std::set<size_t> lengths;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    s.Render(0, seed, &out);
    ASSERT_GE(out.size(), 8u);
    ASSERT_LE(out.size(), 32u);
    lengths.insert(out.size());
  }
  EXPECT_EQ(lengths.size(), 25u);  // every length 8..32 occurs
  KeyShape::Compile("{bytes:16}", "t").Render(0, 3, &out);
  EXPECT_EQ(out.size(), 16u);
}

TEST(KeyShapeTest, RandomPartsDependOnSeedOnly) {
  KeyShape s = KeyShape::Compile("user:{n}", "t");
  std::string a, b, c;
  s.Render(1, 77, &a);
  s.Render(1, 77, &b);
  s.Render(1, 78, &c);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_TRUE(s.random());
  EXPECT_FALSE(KeyShape::Compile("user:{i}", "t").random());
}

TEST(KeyShapeTest, BadShapesAreOneLineErrors) {
  for (const char* bad : {"user:{x}", "user:{i", "user}", "{hex:0}", "{hex:2-3}", "{alnum:9-3}",
                          "{bytes:99999}", "{n:3}", "{i:7}"}) {
    try {
      KeyShape::Compile(bad, "file.json: /workload/shape");
      ADD_FAILURE() << bad;
    } catch (const UsageError& e) {
      std::string m = e.what();
      EXPECT_EQ(m.find('\n'), std::string::npos);
      EXPECT_NE(m.find("file.json: /workload/shape"), std::string::npos) << m;
      EXPECT_NE(m.find("accepted"), std::string::npos) << m;
    }
  }
}

// The distinct keys a shape can render: unbounded with {i}, else the random
// parts' counts multiplied, saturating.
TEST(KeyShapeTest, MaxDistinctCountsTheRandomParts) {
  const auto distinct = [](std::string_view shape) {
    return KeyShape::Compile(shape, "s").max_distinct();
  };
  EXPECT_EQ(distinct("k"), 1u);
  EXPECT_EQ(distinct("k{hex:1}"), 16u);
  EXPECT_EQ(distinct("{hex:2}-{alnum:1-2}"), 256u * (62u + 62u * 62u));
  EXPECT_EQ(distinct("{bytes:3}"), 256u * 256u * 256u);
  EXPECT_EQ(distinct("{n}"), uint64_t{1} << 63);
  EXPECT_EQ(distinct("{n}{n}"), UINT64_MAX);
  EXPECT_EQ(distinct("{alnum:16-4096}"), UINT64_MAX);
  EXPECT_EQ(distinct("k{hex:1}{i}"), UINT64_MAX);
  EXPECT_EQ(distinct("{i:08}"), UINT64_MAX);
}

TEST(NodePatternTest, ArithmeticLeftToRight) {
  NodePattern p = NodePattern::Compile("10.0.{i/256}.{i%256}:11211", "t");
  EXPECT_EQ(p.Render(1, 0), "10.0.0.1:11211");
  EXPECT_EQ(p.Render(258, 0), "10.0.1.2:11211");
  EXPECT_EQ(NodePattern::Compile("h:{i+11210}", "t").Render(3, 0), "h:11213");
  EXPECT_EQ(NodePattern::Compile("{i/256%256}", "t").Render(70000, 0), "17");  // (70000/256)%256
  EXPECT_EQ(NodePattern::Compile("n{i*2-1}", "t").Render(5, 0), "n9");
  std::string a = NodePattern::Compile("node-{hex:12}", "t").Render(1, 9);
  EXPECT_EQ(a.size(), 17u);
  EXPECT_NE(a, NodePattern::Compile("node-{hex:12}", "t").Render(2, 9));
}

TEST(NodePatternTest, BadPatterns) {
  for (const char* bad : {"fixed", "a b{i}", "{j}", "{i/0}", "{i^2}", "{i", "x}{i}"}) {
    EXPECT_THROW(NodePattern::Compile(bad, "t"), UsageError) << bad;
  }
}

}  // namespace
}  // namespace chsim::sim

namespace chsim::sim {
namespace {

// The renderer as first written (one SplitMix64 draw at a time, std::to_chars,
// character tables): the fast RenderTo/RenderBlock must give the same bytes,
// since keys feed every sampled metric.
std::string ReferenceRender(std::string_view shape, uint64_t index, uint64_t seed) {
  static constexpr char kHex[] = "0123456789abcdef";
  static constexpr char kAlnum[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::string out;
  SplitMix64 rng(seed);
  auto decimal = [&](uint64_t v, size_t width) {
    char buf[24];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
    size_t len = static_cast<size_t>(p - buf);
    if (len < width) out.append(width - len, '0');
    out.append(buf, len);
  };
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != '{' && shape[i] != '}') {
      out += shape[i];
      continue;
    }
    if (shape[i + 1] == shape[i]) {  // "{{" or "}}"
      out += shape[i++];
      continue;
    }
    size_t close = shape.find('}', i);
    std::string body(shape.substr(i + 1, close - i - 1));
    i = close;
    std::string name = body.substr(0, body.find(':'));
    std::string arg = body.find(':') == std::string::npos ? "" : body.substr(name.size() + 1);
    if (name == "i") {
      decimal(index, arg.empty() ? 0 : std::stoul(arg.substr(1)));
    } else if (name == "n") {
      decimal(rng.Next() >> 1, 0);
    } else {
      size_t dash = arg.find('-');
      uint32_t lo = std::stoul(arg.substr(0, dash));
      uint32_t hi = dash == std::string::npos ? lo : std::stoul(arg.substr(dash + 1));
      uint32_t len = lo == hi ? lo : lo + static_cast<uint32_t>(rng.Below(hi - lo + 1));
      uint64_t bits = 0;
      int left = 0;
      for (uint32_t j = 0; j < len; ++j) {
        if (left < 8) {
          bits = rng.Next();
          left = 64;
        }
        unsigned byte = static_cast<unsigned>(bits & 0xff);
        bits >>= 8;
        left -= 8;
        out += name == "hex"     ? kHex[byte & 15]
               : name == "alnum" ? kAlnum[(byte * 62) >> 8]
                                 : static_cast<char>(byte);
      }
    }
  }
  return out;
}

// Shapes with every part kind, literals longer than 16 bytes, ranges and
// fixed lengths, escapes, and no placeholder at all.
constexpr const char* kShapes[] = {"user:{n}",
                                   "{alnum:16-32}",
                                   "{alnum:1-70}",
                                   "k{hex:13}:{i:07}-{alnum:3}",
                                   "{bytes:1-100}",
                                   "{hex:64}x{bytes:9}{hex:1}",
                                   "{{{i}}}-{n}{n}",
                                   "a-literal-longer-than-sixteen-bytes:{i:020}/{alnum:33-40}",
                                   "{i}",
                                   "fixed"};

TEST(KeyShapeTest, FastRenderEqualsTheReference) {
  std::vector<uint64_t> indexes = {0,
                                   1,
                                   9,
                                   10,
                                   99,
                                   100,
                                   UINT64_MAX,
                                   10000000000000000000ULL,
                                   9999999999999999999ULL,
                                   99999999,
                                   100000000};
  for (uint64_t p = 1; p != 0 && p <= UINT64_MAX / 10; p *= 10) {
    indexes.push_back(p - 1);
    indexes.push_back(p);
    indexes.push_back(p + 1);
  }
  SplitMix64 draw(42);
  for (int k = 0; k < 300; ++k) indexes.push_back(draw.Next() >> (draw.Next() % 64));
  std::string out;
  for (const char* shape : kShapes) {
    KeyShape s = KeyShape::Compile(shape, "t");
    for (uint64_t index : indexes) {
      const uint64_t seed = draw.Next();
      s.Render(index, seed, &out);
      ASSERT_EQ(out, ReferenceRender(shape, index, seed)) << shape << " index " << index;
    }
  }
}

// SplitMix64's Mix64 undone (each step is a bijection): a stream value whose
// derived seed has a chosen first draw.
uint64_t InverseMultiply(uint64_t a) {  // a odd: a * x == 1 (mod 2^64), Newton
  uint64_t x = a;
  for (int i = 0; i < 6; ++i) x *= 2 - a * x;
  return x;
}
uint64_t UnXorShift(uint64_t y, int k) {
  uint64_t x = y;
  for (int i = 0; i < 64 / k + 1; ++i) x = y ^ (x >> k);
  return x;
}
uint64_t UnMix64(uint64_t y) {
  y = UnXorShift(y, 31) * InverseMultiply(0x94d049bb133111ebULL);
  y = UnXorShift(y, 27) * InverseMultiply(0xbf58476d1ce4e5b9ULL);
  return UnXorShift(y, 30) - kSplitMixGamma;
}

class KeyShapeIsaTest : public testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    saved_ = KeyShape::Isa();
    if (!KeyShape::SetIsa(GetParam())) GTEST_SKIP() << GetParam() << " not supported by this CPU";
  }
  void TearDown() override { ASSERT_TRUE(KeyShape::SetIsa(saved_)); }
  std::string saved_;
};

// RenderBlock (the runner's path: keys in vector lanes) gives every key the
// bytes of the reference, on each lane width, for blocks of every size up to
// three groups of lanes and a long one, including a key whose length draw
// takes Below's rejection step (the lanes hand that group to the one-key path).
TEST_P(KeyShapeIsaTest, BlockEqualsTheReference) {
  SplitMix64 draw(43);
  KeyBlock block;
  for (const char* shape : kShapes) {
    const KeyShape s = KeyShape::Compile(shape, "t");
    for (size_t count : {size_t{1}, size_t{3}, size_t{4}, size_t{7}, size_t{8}, size_t{9},
                         size_t{17}, size_t{24}, size_t{1000}}) {
      const uint64_t seed = draw.Next();
      std::vector<uint64_t> index(count), stream(count);
      for (size_t j = 0; j < count; ++j) {
        index[j] = draw.Next() >> (draw.Next() % 64);
        stream[j] = draw.Next() >> (draw.Next() % 64);
      }
      if (count == 9) {
        // Key 5's first draw is 0: Below(range) then rejects (unless range is
        // a power of two) and draws again.
        stream[5] = UnMix64(Mix64(seed) ^ UnMix64(UnMix64(0))) ^ 0x6a09e667f3bcc909ULL;
        ASSERT_EQ(SplitMix64(DeriveSeed(seed, stream[5])).Next(), 0u);
      }
      s.RenderBlock(index, seed, stream, &block);
      ASSERT_EQ(block.keys.size(), count);
      for (size_t j = 0; j < count; ++j) {
        ASSERT_EQ(block.keys[j], ReferenceRender(shape, index[j], DeriveSeed(seed, stream[j])))
            << shape << " count " << count << " key " << j << " isa " << KeyShape::Isa();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Lanes, KeyShapeIsaTest, testing::Values("portable", "avx2", "avx512"));

}  // namespace
}  // namespace chsim::sim
