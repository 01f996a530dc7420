// Key shapes and node naming patterns: rendering, determinism, and one-line
// errors for malformed templates.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "chsim/sim/errors.h"
#include "chsim/sim/key_shape.h"
#include "chsim/sim/node_pattern.h"

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
