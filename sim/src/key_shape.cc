#include "chsim/sim/key_shape.h"

#include <charconv>

#include "chsim/sim/errors.h"
#include "chsim/sim/rng.h"
#include "chsim/sim/text_file.h"

namespace chsim::sim {
namespace {

constexpr uint32_t kMaxRandomLength = 4096;
constexpr char kAccepted[] =
    "accepted: {i}, {i:0W}, {n}, {hex:N}, {alnum:N}, {alnum:A-B}, {bytes:N}, {bytes:A-B}, "
    "{{, }}";

bool ParseUint(std::string_view s, uint32_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

void AppendDecimal(uint64_t v, uint32_t width, std::string* out) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  size_t len = static_cast<size_t>(p - buf);
  if (len < width) out->append(width - len, '0');
  out->append(buf, len);
}

}  // namespace

KeyShape KeyShape::Compile(std::string_view shape, const std::string& where) {
  KeyShape k;
  std::string literal;
  auto flush = [&] {
    if (!literal.empty()) {
      k.parts_.push_back(Part{Kind::kLiteral, literal});
      k.max_length_ += literal.size();
      literal.clear();
    }
  };
  for (size_t i = 0; i < shape.size(); ++i) {
    char c = shape[i];
    if (c == '}') {
      if (i + 1 < shape.size() && shape[i + 1] == '}') {
        literal += '}';
        ++i;
        continue;
      }
      throw UsageError(where + ": found a lone '}' in key shape " + Quote(shape) +
                       "; accepted: '}}' for a literal brace");
    }
    if (c != '{') {
      literal += c;
      continue;
    }
    if (i + 1 < shape.size() && shape[i + 1] == '{') {
      literal += '{';
      ++i;
      continue;
    }
    size_t close = shape.find('}', i);
    if (close == std::string_view::npos) {
      throw UsageError(where + ": unclosed '{' in key shape " + Quote(shape) + "; " + kAccepted);
    }
    std::string_view body = shape.substr(i + 1, close - i - 1);
    i = close;
    flush();
    auto bad = [&] {
      return UsageError(where + ": found placeholder {" + std::string(body) + "} in key shape " +
                        Quote(shape) + "; " + kAccepted);
    };
    Part part{Kind::kLiteral, {}};
    std::string_view name = body.substr(0, body.find(':'));
    std::string_view arg =
        body.find(':') == std::string_view::npos ? std::string_view() : body.substr(name.size() + 1);
    if (name == "i") {
      part.kind = Kind::kIndex;
      if (!arg.empty()) {
        if (arg.size() < 2 || arg[0] != '0' || !ParseUint(arg.substr(1), &part.min) ||
            part.min < 1 || part.min > 20) {
          throw bad();
        }
      }
      k.max_length_ += 20;
    } else if (name == "n") {
      if (!arg.empty()) throw bad();
      part.kind = Kind::kNumber;
      k.random_ = true;
      k.max_length_ += 19;
    } else if (name == "hex" || name == "alnum" || name == "bytes") {
      part.kind = name == "hex" ? Kind::kHex : name == "alnum" ? Kind::kAlnum : Kind::kBytes;
      size_t dash = arg.find('-');
      if (dash == std::string_view::npos) {
        if (!ParseUint(arg, &part.min)) throw bad();
        part.max = part.min;
      } else if (name == "hex" || !ParseUint(arg.substr(0, dash), &part.min) ||
                 !ParseUint(arg.substr(dash + 1), &part.max)) {
        throw bad();
      }
      if (part.min < 1 || part.max < part.min || part.max > kMaxRandomLength) {
        throw UsageError(where + ": found length " + std::string(arg) + " in {" +
                         std::string(body) + "}; accepted: 1.." +
                         std::to_string(kMaxRandomLength) + ", and A <= B in A-B");
      }
      k.random_ = true;
      k.max_length_ += part.max;
    } else {
      throw bad();
    }
    k.parts_.push_back(std::move(part));
  }
  flush();
  return k;
}

void KeyShape::Render(uint64_t index, uint64_t seed, std::string* out) const {
  static constexpr char kHex[] = "0123456789abcdef";
  static constexpr char kAlnum[] =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  out->clear();
  SplitMix64 rng(seed);
  for (const Part& p : parts_) {
    switch (p.kind) {
      case Kind::kLiteral:
        out->append(p.text);
        break;
      case Kind::kIndex:
        AppendDecimal(index, p.min, out);
        break;
      case Kind::kNumber:
        AppendDecimal(rng.Next() >> 1, 0, out);
        break;
      case Kind::kHex:
      case Kind::kAlnum:
      case Kind::kBytes: {
        uint32_t len = p.min == p.max ? p.min : p.min + static_cast<uint32_t>(
                                                            rng.Below(p.max - p.min + 1));
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
          if (p.kind == Kind::kHex) {
            out->push_back(kHex[byte & 15]);
          } else if (p.kind == Kind::kAlnum) {
            out->push_back(kAlnum[(byte * 62) >> 8]);
          } else {
            out->push_back(static_cast<char>(byte));
          }
        }
        break;
      }
    }
  }
}

}  // namespace chsim::sim
