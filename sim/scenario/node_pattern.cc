// SPDX-License-Identifier: Apache-2.0
#include "sim/scenario/node_pattern.h"

#include <charconv>

#include "sim/base/brace_template.h"
#include "sim/base/errors.h"
#include "sim/base/rng.h"
#include "sim/base/text_file.h"

namespace chsim::sim {

NodePattern NodePattern::Compile(std::string_view pattern, const std::string& where) {
  NodePattern np;
  auto fail = [&](const std::string& what) {
    return UsageError(where + ": " + what + " in node pattern " + Quote(pattern) +
                      "; accepted: " + kNodePatternAccepted);
  };
  std::string literal;
  auto flush = [&] {
    if (!literal.empty()) {
      Part part;
      part.literal = literal;
      np.parts_.push_back(std::move(part));
    }
    literal.clear();
  };
  bool has_index = false;
  auto on_literal = [&](std::string_view text) {
    if (text.find_first_of(" \t\n\r") != std::string_view::npos) throw fail("found whitespace");
    literal += text;
  };
  auto on_placeholder = [&](std::string_view body) {
    flush();
    Part part;
    if (body.substr(0, 4) == "hex:") {
      uint32_t n = 0;
      auto [p, ec] = std::from_chars(body.data() + 4, body.data() + body.size(), n);
      if (ec != std::errc() || p != body.data() + body.size() || n < 1 || n > 64) {
        throw fail("found {" + std::string(body) + "}");
      }
      part.hex = n;
    } else {
      if (body.empty() || body[0] != 'i') throw fail("found {" + std::string(body) + "}");
      part.expr = true;
      has_index = true;
      size_t j = 1;
      while (j < body.size()) {
        char op = body[j];
        if (op != '+' && op != '-' && op != '*' && op != '/' && op != '%') {
          throw fail("found {" + std::string(body) + "}");
        }
        ++j;
        int64_t v = 0;
        auto [p, ec] = std::from_chars(body.data() + j, body.data() + body.size(), v);
        if (ec != std::errc() || p == body.data() + j || v < 0) {
          throw fail("found {" + std::string(body) + "}");
        }
        if ((op == '/' || op == '%') && v == 0) throw fail("found a division by zero");
        j = static_cast<size_t>(p - body.data());
        part.ops.push_back(Op{op, v});
      }
    }
    np.parts_.push_back(std::move(part));
  };
  switch (ScanBraces(pattern, on_literal, on_placeholder)) {
    case BraceError::kLoneClose:
      throw fail("found a lone '}'");
    case BraceError::kUnclosed:
      throw fail("found an unclosed '{'");
    case BraceError::kNone:
      break;
  }
  flush();
  if (!has_index) {
    bool has_hex = false;
    for (const Part& p : np.parts_) has_hex |= p.hex > 0;
    if (!has_hex) throw fail("found no {i} or {hex:N} (every node would get the same label)");
  }
  return np;
}

std::string NodePattern::Render(uint64_t i, uint64_t seed) const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const Part& p : parts_) {
    if (p.expr) {
      int64_t v = static_cast<int64_t>(i);
      for (const Op& op : p.ops) {
        switch (op.op) {
          case '+':
            v += op.value;
            break;
          case '-':
            v -= op.value;
            break;
          case '*':
            v *= op.value;
            break;
          case '/':
            v /= op.value;
            break;
          default:
            v %= op.value;
            break;
        }
      }
      out += std::to_string(v);
    } else if (p.hex > 0) {
      SplitMix64 rng(Derive(seed, i));
      uint64_t bits = 0;
      for (uint32_t j = 0; j < p.hex; ++j) {
        if (j % 16 == 0) bits = rng.Next();
        out += kHex[bits & 15];
        bits >>= 4;
      }
    } else {
      out += p.literal;
    }
  }
  return out;
}

}  // namespace chsim::sim
