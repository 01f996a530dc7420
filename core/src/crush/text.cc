// SPDX-License-Identifier: Apache-2.0
// The reader and writer of crushtool's text form (chsim/crush_text.h), in
// named stages: Lex (words and braces with their lines, comments dropped),
// then one parser per section (tunable, device, type, bucket, rule), in the
// order crushtool's grammar (Ceph's src/crush/grammar.h) requires:
// tunables, devices and types first, then buckets and rules, each item and
// take naming something defined above it (CrushCompiler's single pass).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "chsim/crush_text.h"

namespace chsim::crush {
namespace {

constexpr uint32_t kMaxDeviceWeight = 100 * kWeightOne;    // Ceph's CRUSH_MAX_DEVICE_WEIGHT
constexpr uint32_t kMaxBucketWeight = 65535 * kWeightOne;  // CRUSH_MAX_BUCKET_WEIGHT
constexpr int64_t kMaxIds = int64_t{1} << 24;              // devices or buckets chsim holds

struct Token {
  std::string_view text;
  int line;
};

bool NameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '+';
}

// Words (runs of name characters) and single-character tokens, with their
// lines; '#' starts a comment to the end of the line.
std::vector<Token> Lex(std::string_view text) {
  std::vector<Token> out;
  int line = 1;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '\n') {
      ++line, ++i;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (NameChar(c)) {
      size_t j = i;
      while (j < text.size() && NameChar(text[j])) ++j;
      out.push_back({text.substr(i, j - i), line});
      i = j;
    } else {
      out.push_back({text.substr(i, 1), line});
      ++i;
    }
  }
  return out;
}

std::string Quote(std::string_view s) { return "'" + std::string(s) + "'"; }

class Parser {
 public:
  Parser(std::string_view text, std::string_view file) : tokens_(Lex(text)), file_(file) {
    end_ = {"end of file", tokens_.empty() ? 1 : tokens_.back().line};
  }

  Map Parse() {
    PrescanBucketIds();
    map_.tunables = Tunables{2, 5, 19, 0, 0, 0, 0, 22};  // Ceph's legacy (argonaut) defaults
    bool tunables_given = false;
    while (!AtEnd() && (Is("tunable") || Is("device") || Is("type"))) {
      if (Is("tunable")) {
        ParseTunable();
        tunables_given = true;
      } else if (Is("device")) {
        ParseDevice();
      } else {
        ParseType();
      }
    }
    while (!AtEnd()) {
      if (Is("rule")) {
        ParseRule();
      } else if (Is("choose_args")) {
        Fail(Peek(), "choose_args (weight sets) are not modelled by chsim; remove them");
      } else if (Is("tunable") || Is("device") || Is("type")) {
        Fail(Peek(), Quote(Peek().text) + " after the first bucket or rule; crushtool reads " +
                         "tunables, devices and types before buckets and rules");
      } else {
        ParseBucket();
      }
    }
    CheckTunables(tunables_given);
    return std::move(map_);
  }

 private:
  // --- the cursor -----------------------------------------------------
  bool AtEnd() const { return pos_ >= tokens_.size(); }
  // The next token, or "end of file" on the last line.
  const Token& Peek() const { return AtEnd() ? end_ : tokens_[pos_]; }
  bool Is(std::string_view word) const { return !AtEnd() && tokens_[pos_].text == word; }
  const Token& Next(std::string_view what) {
    if (AtEnd()) Fail(Peek(), "the file ends where " + std::string(what) + " should follow");
    return tokens_[pos_++];
  }
  void Expect(std::string_view word, std::string_view context) {
    const Token& t = Next(Quote(word));
    if (t.text != word) {
      Fail(t, "found " + Quote(t.text) + " " + std::string(context) + "; expected " + Quote(word));
    }
  }
  [[noreturn]] void Fail(const Token& at, const std::string& what) const {
    throw std::invalid_argument(std::string(file_) + ":" + std::to_string(at.line) + ": " + what);
  }

  // --- values ---------------------------------------------------------
  int64_t Integer(std::string_view what, bool allow_negative) {
    const Token& t = Next(what);
    std::string_view s = t.text;
    int64_t v = 0;
    const bool neg = !s.empty() && s[0] == '-';
    const auto [end, ec] = std::from_chars(s.data() + (neg ? 1 : 0), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || (neg && !allow_negative) ||
        s.size() == (neg ? 1u : 0u) || v > (int64_t{1} << 31)) {
      Fail(t,
           std::string(what) + " " + Quote(s) + " is not " +
               (allow_negative ? "an integer" : "a whole number 0.." + std::to_string(INT32_MAX)));
    }
    return neg ? -v : v;
  }
  std::string_view Name(std::string_view what) {
    const Token& t = Next(what);
    if (!NameChar(t.text[0]))
      Fail(t, "found " + Quote(t.text) + " where " + std::string(what) + " should be");
    return t.text;
  }

  // --- sections -------------------------------------------------------
  void ParseTunable();
  void ParseDevice();
  void ParseType();
  void ParseBucket();
  void ParseBucketHead(Bucket& b);
  void ParseItem(Bucket& b, std::vector<int64_t>& positions, const Token& at);
  void PlaceItems(Bucket& b, const std::vector<int64_t>& positions, const Token& at);
  void ParseRule();
  void ParseRuleHead(Rule& r);
  Step ParseStep(const Rule& r);
  void PrescanBucketIds();
  void CheckTunables(bool given) const;
  uint32_t Weight(const Token& t, std::string_view item, std::string_view bucket, bool device);

  std::vector<Token> tokens_;
  Token end_;
  std::string_view file_;
  size_t pos_ = 0;
  Map map_;
  std::map<std::string, int32_t, std::less<>> ids_;  // item names -> ids
  std::set<int32_t> bucket_ids_;                     // explicit and assigned
  std::unordered_map<int32_t, uint32_t> item_weight_;
  std::set<int32_t> device_ids_, type_ids_, rule_ids_;
  std::set<std::string, std::less<>> rule_names_;
};

void Parser::ParseTunable() {
  Next("tunable");
  const Token& name = Next("a tunable's name");
  const int64_t v = Integer("the tunable's value", false);
  Tunables& t = map_.tunables;
  const std::pair<std::string_view, uint32_t*> known[] = {
      {"choose_local_tries", &t.choose_local_tries},
      {"choose_local_fallback_tries", &t.choose_local_fallback_tries},
      {"choose_total_tries", &t.choose_total_tries},
      {"chooseleaf_descend_once", &t.chooseleaf_descend_once},
      {"chooseleaf_vary_r", &t.chooseleaf_vary_r},
      {"chooseleaf_stable", &t.chooseleaf_stable},
      {"straw_calc_version", &t.straw_calc_version},
      {"allowed_bucket_algs", &t.allowed_bucket_algs}};
  for (const auto& [n, field] : known) {
    if (n == name.text) {
      *field = static_cast<uint32_t>(v);
      if (n == "choose_local_fallback_tries" && v != 0) {
        Fail(name, "choose_local_fallback_tries " + std::to_string(v) +
                       " is not modelled by chsim (accepted: 0, the modern value)");
      }
      return;
    }
  }
  Fail(name, "tunable " + Quote(name.text) +
                 " not recognized; accepted: choose_local_tries, choose_local_fallback_tries, "
                 "choose_total_tries, chooseleaf_descend_once, chooseleaf_vary_r, "
                 "chooseleaf_stable, straw_calc_version, allowed_bucket_algs");
}

void Parser::ParseDevice() {
  const Token& at = Next("device");
  const int64_t id = Integer("a device id", false);
  const std::string_view name = Name("a device name");
  if (Is("class")) Next("class"), Name("a device class");
  if (id >= kMaxIds) Fail(at, "device id " + std::to_string(id) + " above chsim's limit");
  if (!device_ids_.insert(static_cast<int32_t>(id)).second) {
    Fail(at, "device id " + std::to_string(id) + " defined twice");
  }
  if (!ids_.emplace(std::string(name), static_cast<int32_t>(id)).second) {
    Fail(at, "item " + std::string(name) + " defined twice");
  }
  if (map_.devices.size() <= static_cast<size_t>(id))
    map_.devices.resize(static_cast<size_t>(id) + 1);
  map_.devices[static_cast<size_t>(id)] = std::string(name);
}

void Parser::ParseType() {
  const Token& at = Next("type");
  const int64_t id = Integer("a type id", false);
  const std::string_view name = Name("a type name");
  if (!type_ids_.insert(static_cast<int32_t>(id)).second) {
    Fail(at, "type id " + std::to_string(id) + " defined twice");
  }
  if (map_.TypeId(name) >= 0) Fail(at, "type " + Quote(name) + " defined twice");
  map_.types.emplace_back(static_cast<int32_t>(id), std::string(name));
}

// crushtool's first pass: the id on the first line of each bucket is taken
// before any bucket without one is given the highest free id.
void Parser::PrescanBucketIds() {
  for (size_t i = 0; i + 5 < tokens_.size(); ++i) {
    if (tokens_[i + 2].text == "{" && tokens_[i + 3].text == "id" && tokens_[i].text != "rule") {
      int32_t id = 0;
      const std::string_view s = tokens_[i + 4].text;
      if (std::from_chars(s.data(), s.data() + s.size(), id).ec == std::errc() && id < 0) {
        bucket_ids_.insert(id);
      }
    }
  }
}

uint32_t Parser::Weight(const Token& t, std::string_view item, std::string_view bucket,
                        bool device) {
  std::string_view s = t.text;
  const std::string where = " of item " + Quote(item) + " in bucket " + Quote(bucket);
  const std::string accepted = device ? "a decimal 0..100" : "a decimal 0..65535";
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  float f = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), f);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(f)) {
    Fail(t, "weight " + Quote(t.text) + where + " is not a number; accepted: " + accepted);
  }
  if (f < 0)
    Fail(t, "weight " + std::string(t.text) + where + " is negative; accepted: " + accepted);
  const float scaled = f * static_cast<float>(kWeightOne);
  if (scaled > static_cast<float>(device ? kMaxDeviceWeight : kMaxBucketWeight)) {
    Fail(t, "weight " + std::string(t.text) + where + " is above the limit; accepted: " + accepted);
  }
  return static_cast<uint32_t>(scaled);
}

void Parser::ParseBucket() {
  const Token& at = Peek();
  const std::string_view type = Name("a bucket type");
  const std::string_view name = Name("a bucket name");
  const int32_t type_id = map_.TypeId(type);
  if (type_id < 0) Fail(at, "bucket type " + Quote(type) + " is not defined");
  if (ids_.count(name)) Fail(at, "bucket or device " + Quote(name) + " is already defined");
  Expect("{", "after bucket " + Quote(name));
  Bucket b;
  b.type = type_id;
  b.name = std::string(name);
  ParseBucketHead(b);
  std::vector<int64_t> positions;
  while (Is("item")) ParseItem(b, positions, Next("item"));
  const Token& close = Next("'}'");
  if (close.text != "}")
    Fail(close,
         "found " + Quote(close.text) + " in bucket " + Quote(name) + "; expected item or '}'");
  PlaceItems(b, positions, at);
  if (b.id == 0) {
    for (b.id = -1; bucket_ids_.count(b.id); --b.id) {
    }
  } else if (map_.FindBucket(b.id)) {
    Fail(at, "Duplicate bucket id " + std::to_string(b.id));
  }
  if (-int64_t{b.id} > kMaxIds)
    Fail(at, "bucket id " + std::to_string(b.id) + " below chsim's limit");
  bucket_ids_.insert(b.id);
  uint64_t sum = 0;
  for (uint32_t w : b.weights) sum += w;
  if (sum > UINT32_MAX) Fail(at, "the weights of bucket " + Quote(name) + " overflow 32 bits");
  item_weight_[b.id] = static_cast<uint32_t>(sum);
  ids_.emplace(b.name, b.id);
  const size_t slot = static_cast<size_t>(-1 - int64_t{b.id});
  if (map_.buckets.size() <= slot) map_.buckets.resize(slot + 1);
  map_.buckets[slot] = std::move(b);
}

// id lines, then alg (required), then hash (optional).
void Parser::ParseBucketHead(Bucket& b) {
  while (Is("id")) {
    const Token& at = Next("id");
    const int64_t id = Integer("a bucket id", true);
    if (id >= 0) Fail(at, "bucket id " + std::to_string(id) + " is not negative");
    if (Is("class")) {
      Next("class"), Name("a device class");  // a shadow bucket's id: not modelled
    } else {
      b.id = static_cast<int32_t>(id);
    }
  }
  const Token& alg_at = Peek();
  Expect("alg", "in bucket " + Quote(b.name));
  const std::string_view alg = Name("a bucket algorithm");
  if (alg == "uniform" || alg == "list" || alg == "tree" || alg == "straw") {
    Fail(alg_at, "bucket " + Quote(b.name) + " has alg " + std::string(alg) +
                     "; chsim models straw2 buckets only");
  }
  if (alg != "straw2") Fail(alg_at, "unknown bucket alg " + Quote(alg));
  if (Is("hash")) {
    const Token& at = Next("hash");
    const std::string_view h = Name("a hash");
    if (h != "0" && h != "rjenkins1") {
      Fail(at, "bucket " + Quote(b.name) + " has hash " + std::string(h) +
                   "; chsim models hash 0 (rjenkins1) only");
    }
  }
}

void Parser::ParseItem(Bucket& b, std::vector<int64_t>& positions, const Token& at) {
  const std::string_view name = Name("an item name");
  const auto it = ids_.find(name);
  if (it == ids_.end()) {
    Fail(at, "item " + Quote(name) + " in bucket " + Quote(b.name) + " is not defined");
  }
  const int32_t id = it->second;
  uint32_t weight = id < 0 ? item_weight_[id] : kWeightOne;
  if (Is("weight")) {
    Next("weight");
    weight = Weight(Next("a weight"), name, b.name, id >= 0);
  }
  int64_t pos = -1;
  if (Is("pos")) {
    Next("pos");
    pos = Integer("a position", false);
    if (std::find(positions.begin(), positions.end(), pos) != positions.end()) {
      Fail(at, "item " + Quote(name) + " in bucket " + Quote(b.name) + " has explicit pos " +
                   std::to_string(pos) + ", which is occupied");
    }
  }
  b.items.push_back(id);
  b.weights.push_back(weight);
  positions.push_back(pos);
}

// Items with an explicit pos go there, the others fill the free positions in
// order (CrushCompiler::parse_bucket).
void Parser::PlaceItems(Bucket& b, const std::vector<int64_t>& positions, const Token& at) {
  int64_t size = static_cast<int64_t>(b.items.size());
  for (int64_t p : positions) size = std::max(size, p);
  std::vector<int32_t> items(static_cast<size_t>(size), 0);
  std::vector<uint32_t> weights(static_cast<size_t>(size), 0);
  int64_t next = 0;
  for (size_t i = 0; i < b.items.size(); ++i) {
    int64_t p = positions[i];
    if (p >= size) {
      Fail(at, "an item in bucket " + Quote(b.name) + " has pos " + std::to_string(p) +
                   " >= size " + std::to_string(size));
    }
    if (p < 0) {
      while (std::find(positions.begin(), positions.end(), next) != positions.end()) ++next;
      p = next++;
    }
    items[static_cast<size_t>(p)] = b.items[i];
    weights[static_cast<size_t>(p)] = b.weights[i];
  }
  b.items = std::move(items);
  b.weights = std::move(weights);
}

void Parser::ParseRule() {
  const Token& at = Next("rule");
  Rule r;
  if (!Is("{")) r.name = std::string(Name("a rule name"));
  Expect("{", "after rule " + Quote(r.name));
  ParseRuleHead(r);
  if (!rule_ids_.insert(r.id).second) Fail(at, "rule " + std::to_string(r.id) + " already exists");
  if (!r.name.empty() && !rule_names_.insert(r.name).second) {
    Fail(at, "rule name " + Quote(r.name) + " already defined");
  }
  if (!Is("step")) Fail(Peek(), "rule " + Quote(r.name) + " has no step; expected 'step'");
  while (Is("step")) r.steps.push_back(ParseStep(r));
  Expect("}", "in rule " + Quote(r.name));
  map_.rules.push_back(std::move(r));
}

void Parser::ParseRuleHead(Rule& r) {
  const Token& id_at = Next("'id'");
  if (id_at.text != "id" && id_at.text != "ruleset") {
    Fail(id_at, "found " + Quote(id_at.text) + " in rule " + Quote(r.name) + "; expected 'id'");
  }
  r.id = static_cast<int32_t>(Integer("a rule id", false));
  Expect("type", "in rule " + Quote(r.name));
  const Token& type = Next("a rule type");
  if (type.text != "replicated" && type.text != "erasure") {
    Fail(type, "rule type " + Quote(type.text) + "; accepted: replicated, erasure");
  }
  r.erasure = type.text == "erasure";
  Expect("min_size", "in rule " + Quote(r.name));
  r.min_size = static_cast<int32_t>(Integer("min_size", false));
  Expect("max_size", "in rule " + Quote(r.name));
  r.max_size = static_cast<int32_t>(Integer("max_size", false));
}

Step Parser::ParseStep(const Rule& r) {
  Next("step");
  const Token& op = Next("a step");
  const std::string in = " in rule " + Quote(r.name);
  if (op.text == "emit") return {StepOp::kEmit, 0, 0};
  if (op.text == "take") {
    const std::string_view item = Name("the item to take");
    const auto it = ids_.find(item);
    if (it == ids_.end())
      Fail(op, "in rule " + Quote(r.name) + " item " + Quote(item) + " not defined");
    if (Is("class"))
      Fail(op, "step take " + std::string(item) + " class ..." + in +
                   ": device classes are not modelled by chsim");
    return {StepOp::kTake, it->second, 0};
  }
  if (op.text == "choose" || op.text == "chooseleaf") {
    const Token& mode = Next("firstn or indep");
    if (mode.text != "firstn" && mode.text != "indep") {
      Fail(mode, "found " + Quote(mode.text) + in + "; expected firstn or indep");
    }
    const int32_t n = static_cast<int32_t>(Integer("the number to choose", true));
    Expect("type", in);
    const std::string_view type = Name("a type");
    const int32_t t = map_.TypeId(type);
    if (t < 0) Fail(op, "in rule " + Quote(r.name) + " type " + Quote(type) + " not defined");
    const bool leaf = op.text == "chooseleaf", firstn = mode.text == "firstn";
    const StepOp o = leaf ? (firstn ? StepOp::kChooseLeafFirstN : StepOp::kChooseLeafIndep)
                          : (firstn ? StepOp::kChooseFirstN : StepOp::kChooseIndep);
    return {o, n, t};
  }
  const std::pair<std::string_view, StepOp> sets[] = {
      {"set_choose_tries", StepOp::kSetChooseTries},
      {"set_chooseleaf_tries", StepOp::kSetChooseLeafTries},
      {"set_choose_local_tries", StepOp::kSetChooseLocalTries},
      {"set_choose_local_fallback_tries", StepOp::kSetChooseLocalFallbackTries},
      {"set_chooseleaf_vary_r", StepOp::kSetChooseLeafVaryR},
      {"set_chooseleaf_stable", StepOp::kSetChooseLeafStable}};
  for (const auto& [word, o] : sets) {
    if (op.text != word) continue;
    const int32_t v = static_cast<int32_t>(Integer(word, false));
    if (o == StepOp::kSetChooseLocalFallbackTries && v != 0) {
      Fail(op, std::string(word) + " " + std::to_string(v) + in +
                   " is not modelled by chsim (accepted: 0)");
    }
    return {o, v, 0};
  }
  Fail(op, "unknown step " + Quote(op.text) + in +
               "; accepted: take, choose, chooseleaf, emit, set_choose_tries, "
               "set_chooseleaf_tries, set_choose_local_tries, set_choose_local_fallback_tries, "
               "set_chooseleaf_vary_r, set_chooseleaf_stable");
}

void Parser::CheckTunables(bool given) const {
  if (!given) {
    Fail(end_,
         "the map states no tunables, so Ceph gives it the legacy (argonaut) ones, whose "
         "choose_local_fallback_tries 5 chsim does not model; state the modern ones "
         "(tunable choose_local_fallback_tries 0, choose_total_tries 50, ...)");
  }
}

std::string WeightText(uint32_t w) {
  // w / 0x10000 exactly: at most 16 binary fraction digits, so at most 16
  // decimal ones.
  std::ostringstream os;
  os << (w >> 16);
  uint32_t frac = w & 0xffff;
  if (frac != 0) {
    os << '.';
    while (frac != 0) {
      frac *= 10;
      os << static_cast<char>('0' + (frac >> 16));
      frac &= 0xffff;
    }
  }
  return os.str();
}

void FormatBucket(const Map& map, const Bucket& b, std::ostream& os) {
  std::string type;
  for (const auto& [id, name] : map.types) {
    if (id == b.type) type = name;
  }
  os << type << ' ' << b.name << " {\n\tid " << b.id << "\n\talg straw2\n\thash 0\n";
  for (size_t i = 0; i < b.items.size(); ++i) {
    const int32_t item = b.items[i];
    const std::string& name =
        item >= 0 ? map.devices[static_cast<size_t>(item)] : map.FindBucket(item)->name;
    os << "\titem " << name << " weight " << WeightText(b.weights[i]) << '\n';
  }
  os << "}\n";
}

const char* StepText(StepOp op) {
  switch (op) {
    case StepOp::kTake:
      return "take";
    case StepOp::kChooseFirstN:
      return "choose firstn";
    case StepOp::kChooseIndep:
      return "choose indep";
    case StepOp::kChooseLeafFirstN:
      return "chooseleaf firstn";
    case StepOp::kChooseLeafIndep:
      return "chooseleaf indep";
    case StepOp::kEmit:
      return "emit";
    case StepOp::kSetChooseTries:
      return "set_choose_tries";
    case StepOp::kSetChooseLeafTries:
      return "set_chooseleaf_tries";
    case StepOp::kSetChooseLocalTries:
      return "set_choose_local_tries";
    case StepOp::kSetChooseLocalFallbackTries:
      return "set_choose_local_fallback_tries";
    case StepOp::kSetChooseLeafVaryR:
      return "set_chooseleaf_vary_r";
    case StepOp::kSetChooseLeafStable:
      return "set_chooseleaf_stable";
  }
  return "";
}

void FormatRule(const Map& map, const Rule& r, std::ostream& os) {
  os << "rule " << r.name << " {\n\tid " << r.id << "\n\ttype "
     << (r.erasure ? "erasure" : "replicated") << "\n\tmin_size " << r.min_size << "\n\tmax_size "
     << r.max_size << '\n';
  for (const Step& s : r.steps) {
    os << "\tstep " << StepText(s.op);
    if (s.op == StepOp::kTake) {
      os << ' '
         << (s.arg1 >= 0 ? map.devices[static_cast<size_t>(s.arg1)] : map.FindBucket(s.arg1)->name);
    } else if (s.op != StepOp::kEmit) {
      os << ' ' << s.arg1;
      if (s.op <= StepOp::kChooseLeafIndep) {
        for (const auto& [id, name] : map.types) {
          if (id == s.arg2) os << " type " << name;
        }
      }
    }
    os << '\n';
  }
  os << "}\n";
}

}  // namespace

Map ParseMap(std::string_view text, std::string_view file) { return Parser(text, file).Parse(); }

std::string FormatMap(const Map& map) {
  std::ostringstream os;
  const Tunables& t = map.tunables;
  os << "tunable choose_local_tries " << t.choose_local_tries
     << "\ntunable choose_local_fallback_tries " << t.choose_local_fallback_tries
     << "\ntunable choose_total_tries " << t.choose_total_tries
     << "\ntunable chooseleaf_descend_once " << t.chooseleaf_descend_once
     << "\ntunable chooseleaf_vary_r " << t.chooseleaf_vary_r << "\ntunable chooseleaf_stable "
     << t.chooseleaf_stable << "\ntunable straw_calc_version " << t.straw_calc_version
     << "\ntunable allowed_bucket_algs " << t.allowed_bucket_algs << '\n';
  for (size_t d = 0; d < map.devices.size(); ++d) {
    if (!map.devices[d].empty()) os << "device " << d << ' ' << map.devices[d] << '\n';
  }
  for (const auto& [id, name] : map.types) os << "type " << id << ' ' << name << '\n';
  // Children before parents: crushtool needs every item defined above.
  std::vector<bool> done(map.buckets.size(), false);
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t i = 0; i < map.buckets.size(); ++i) {
      const Bucket& b = map.buckets[i];
      if (b.id == 0 || done[i]) continue;
      const bool ready = std::all_of(b.items.begin(), b.items.end(), [&](int32_t item) {
        return item >= 0 || done[static_cast<size_t>(-1 - int64_t{item})];
      });
      if (!ready) continue;
      FormatBucket(map, b, os);
      done[i] = progress = true;
    }
  }
  for (const Rule& r : map.rules) FormatRule(map, r, os);
  return os.str();
}

}  // namespace chsim::crush
