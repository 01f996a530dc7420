// SPDX-License-Identifier: Apache-2.0
// The one tokenizer of chsim's brace templates: key shapes ("user:{i}",
// key_shape.h) and node patterns ("10.0.{i/256}.{i%256}:11211",
// node_pattern.h). Each caller gives the placeholders their meaning and words
// its own errors; the syntax is this file's:
//   "{{" and "}}" are a literal '{' and '}';
//   "{BODY}" is a placeholder, BODY running to the next '}' (it may hold '{');
//   any other byte is literal text.
//
// Thread-safety: a pure function.
#ifndef CHSIM_SIM_BASE_BRACE_TEMPLATE_H_
#define CHSIM_SIM_BASE_BRACE_TEMPLATE_H_

#include <string_view>

namespace chsim::sim {

enum class BraceError {
  kNone,
  kLoneClose,  // a '}' not doubled and outside a placeholder
  kUnclosed,   // a '{' (not doubled) with no '}' after it
};

// Calls literal(text) for each piece of literal text (escapes already
// resolved) and placeholder(body) for each placeholder, in template order.
// Stops at the first error and returns it: the pieces before it have been
// delivered. Exceptions from the callbacks pass through.
template <typename OnLiteral, typename OnPlaceholder>
BraceError ScanBraces(std::string_view text, OnLiteral&& literal, OnPlaceholder&& placeholder) {
  size_t run = 0;  // start of the literal run not yet delivered
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '{' && c != '}') continue;
    if (i > run) literal(text.substr(run, i - run));
    if (i + 1 < text.size() && text[i + 1] == c) {  // "{{" or "}}"
      literal(text.substr(i, 1));
      run = ++i + 1;
      continue;
    }
    if (c == '}') return BraceError::kLoneClose;
    const size_t close = text.find('}', i);
    if (close == std::string_view::npos) return BraceError::kUnclosed;
    placeholder(text.substr(i + 1, close - i - 1));
    i = close;
    run = close + 1;
  }
  if (run < text.size()) literal(text.substr(run));
  return BraceError::kNone;
}

}  // namespace chsim::sim

#endif  // CHSIM_SIM_BASE_BRACE_TEMPLATE_H_
