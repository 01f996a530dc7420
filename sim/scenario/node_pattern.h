// SPDX-License-Identifier: Apache-2.0
// NodePattern: node labels from a template, e.g. "10.0.{i/256}.{i%256}:11211"
// or "cache-{i}.example.com:11211".
//
// Placeholders: {EXPR}, where EXPR is `i` followed by any number of
// `OP INTEGER` with OP one of + - * / % applied left to right (no
// precedence: {i/256%256} is (i/256)%256), printed in decimal; and {hex:N},
// N (1..64) hex digits drawn from the node seed and i. "{{" and "}}" are
// literal braces. A label must have no whitespace (server-list syntax).
//
// Thread-safety: immutable after Compile.
#ifndef CHSIM_SIM_SCENARIO_NODE_PATTERN_H_
#define CHSIM_SIM_SCENARIO_NODE_PATTERN_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace chsim::sim {

// What a pattern may be, for refusals ("accepted: ...").
inline constexpr char kNodePatternAccepted[] =
    "text with no whitespace and placeholders {i}, {i/256%256}, {i+11211} (i first, then ops "
    "+ - * / % left to right) or {hex:N} (N random hex digits, 1..64), such as "
    "\"10.0.{i/256}.{i%256}:11211\"";

class NodePattern {
 public:
  // Throws UsageError "<where>: ..." for a malformed pattern.
  static NodePattern Compile(std::string_view pattern, const std::string& where);

  // The label of node number i. `seed` feeds {hex:N}.
  std::string Render(uint64_t i, uint64_t seed) const;

 private:
  struct Op {
    char op;
    int64_t value;
  };
  struct Part {
    std::string literal;  // when !expr && hex == 0
    bool expr = false;
    std::vector<Op> ops;
    uint32_t hex = 0;
  };
  std::vector<Part> parts_;
};

}  // namespace chsim::sim

#endif  // CHSIM_SIM_SCENARIO_NODE_PATTERN_H_
