// SPDX-License-Identifier: Apache-2.0
// Varnish VCL: a shard director (`new NAME = directors.shard();`) and the
// calls `sub vcl_init` makes on it, replayed as Varnish 7.1 replays them
// (vmod/vmod_directors_shard.c, vmod_directors_shard_cfg.c):
// add_backend(backend, [ident], [rampup], [weight]), remove_backend(backend |
// ident), clear() and reconfigure([replicas]) queue and apply changes in call
// order; changes left when vcl_init ends are applied with replicas 67
// (shard_change_fini). A backend is added with (uint32_t)(replicas x weight)
// points, replicas those of the reconfigure that applies the add; a weight
// below 1 is ignored (weight 1); an add whose ident (else backend name) is
// already there is skipped; a removal by backend alone removes every entry of
// that backend. Removals leave holes that later adds fill and that are
// closed by moving the last entries in (shardcfg_backend_finalize): the
// order decides which of two equal points wins.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iterator>

#include "sim/base/errors.h"
#include "sim/base/text_file.h"
#include "sim/scenario/server_config_internal.h"

namespace chsim::sim::internal {
namespace {

struct Token {
  enum Kind { kWord, kString, kPunct } kind;
  std::string text;
  size_t line;
  const std::string* file;  // the file it is in
};

// "FILE:LINE: message" where the token is.
UsageError At(const Token& t, const std::string& message) {
  return LineError(*t.file, t.line, message);
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string* path) : t_(text), path_(*path), file_(path) {}
  std::vector<Token> All();

 private:
  bool Word(char c) const {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  }
  void SkipComment();
  std::string_view t_;
  const std::string& path_;
  const std::string* file_;
  size_t i_ = 0, line_ = 1;
};

void Lexer::SkipComment() {
  if (t_[i_] == '#' || t_.compare(i_, 2, "//") == 0) {
    while (i_ < t_.size() && t_[i_] != '\n') ++i_;
    return;
  }
  const size_t start = line_, end = t_.find("*/", i_ + 2);
  if (end == std::string_view::npos) throw LineError(path_, start, "unterminated /* comment");
  for (; i_ < end + 2; ++i_) line_ += t_[i_] == '\n';
}

std::vector<Token> Lexer::All() {
  std::vector<Token> out;
  while (i_ < t_.size()) {
    const char c = t_[i_];
    if (c == '\n' || c == ' ' || c == '\t' || c == '\r') {
      line_ += c == '\n';
      ++i_;
    } else if (c == '#' || t_.compare(i_, 2, "//") == 0 || t_.compare(i_, 2, "/*") == 0) {
      SkipComment();
    } else if (c == '"' || t_.compare(i_, 2, "{\"") == 0) {
      const bool long_string = c == '{';
      const size_t from = i_ + (long_string ? 2 : 1);
      const size_t end = t_.find(long_string ? "\"}" : "\"", from);
      const size_t nl = t_.find('\n', from);
      if (end == std::string_view::npos || (!long_string && nl < end))
        throw LineError(path_, line_, "unterminated string");
      out.push_back({Token::kString, std::string(t_.substr(from, end - from)), line_, file_});
      for (size_t k = from; k < end; ++k) line_ += t_[k] == '\n';
      i_ = end + (long_string ? 2 : 1);
    } else if (Word(c)) {
      const size_t from = i_;
      while (i_ < t_.size() && Word(t_[i_])) ++i_;
      out.push_back({Token::kWord, std::string(t_.substr(from, i_ - from)), line_, file_});
    } else {
      out.push_back({Token::kPunct, std::string(1, c), line_, file_});
      ++i_;
    }
  }
  return out;
}

// One entry of a director's backend array (a hole when `backend` is empty).
struct Entry {
  std::string backend, ident;
  uint32_t points = 0;
  long long replicas = 0;  // of the reconfigure that added it
  double weight = 1;
  const Token* at = nullptr;  // the add_backend call
  std::string Key() const { return ident.empty() ? backend : ident; }
};

struct Task {
  enum Kind { kAdd, kRemove, kClear } kind;
  Entry entry;
  double weight = 1;
};

// A shard director as Varnish keeps it: its array and the pending changes.
struct Director {
  std::string name;
  std::vector<Entry> array;  // live entries and `holes` holes
  size_t holes = 0, hole_i = SIZE_MAX;
  std::vector<Task> pending;
  size_t line = 0;                 // of `new`
  std::vector<std::string> notes;  // what reading its calls noted
  ServerSource calls;              // its ignored methods (calls.ignored)
  void Apply(long long replicas);

 private:
  void Add(const Task& task, long long replicas);
  void Remove(const Task& task);
  void Finalize();
};

bool SameEntry(const Entry& task, const Entry& b) {  // shardcfg_backend_cmp
  if (task.ident.empty() && b.ident.empty()) return task.backend == b.backend;
  return task.Key() == b.Key();
}

void Director::Add(const Task& task, long long replicas) {
  for (const Entry& e : array)
    if (!e.backend.empty() && SameEntry(task.entry, e)) return;  // "already exists - skipping"
  Entry e = task.entry;
  e.replicas = replicas;
  e.weight = task.weight;
  const double points = static_cast<double>(replicas) * task.weight;
  e.points = points > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(points);
  if (holes == 0) {
    array.push_back(std::move(e));
    return;
  }
  size_t i = hole_i;
  while (!array[i].backend.empty()) ++i;
  array[i] = std::move(e);
  hole_i = i + 1;
  --holes;
}

void Director::Remove(const Task& task) {
  for (size_t i = 0; i < array.size(); ++i) {
    Entry& e = array[i];
    const bool match =
        task.entry.ident.empty() ? e.backend == task.entry.backend : SameEntry(task.entry, e);
    if (e.backend.empty() || !match) continue;
    if (i + 1 < array.size()) {
      e = Entry();
      ++holes;
      hole_i = std::min(hole_i, i);
    } else {
      array.pop_back();
    }
  }
}

// shardcfg_backend_finalize: the last entries move into the holes.
void Director::Finalize() {
  for (size_t i = 0; holes > 0;) {
    while (holes > 0 && array.back().backend.empty()) array.pop_back(), --holes;
    if (holes == 0) break;
    while (!array[i].backend.empty()) ++i;
    array[i] = std::move(array.back());
    array.pop_back();
    --holes;
  }
  hole_i = SIZE_MAX;
}

void Director::Apply(long long replicas) {
  size_t first = 0;
  for (size_t i = 0; i < pending.size(); ++i)
    if (pending[i].kind == Task::kClear) first = i + 1;
  if (first > 0) array.clear();
  for (size_t t = first; t < pending.size(); ++t) {
    if (pending[t].kind == Task::kAdd) Add(pending[t], replicas);
    if (pending[t].kind == Task::kRemove) Remove(pending[t]);
  }
  Finalize();
  pending.clear();
}

// The parts of a VCL that decide a shard director's ring.
struct Vcl {
  std::string alias;                  // the directors vmod's name ("" when not imported)
  std::vector<std::string> backends;  // declared backends
  std::vector<const Token*> init;     // the tokens of every `sub vcl_init`, in order
  std::vector<Director> directors;
};

// The index after the block or statement that starts at i: a `{ }` block
// (balanced), else up to and including the next `;`.
size_t SkipStatement(const std::vector<Token>& t, size_t i) {
  int depth = 0;
  const size_t start = i;
  for (; i < t.size(); ++i) {
    if (t[i].kind != Token::kPunct) continue;
    if (t[i].text == "{") ++depth;
    if (t[i].text == "}" && --depth == 0) return i + 1;
    if (t[i].text == ";" && depth == 0) return i + 1;
    if (depth < 0) break;
  }
  throw At(t[start], "unbalanced block or missing ';' after " + Quote(t[start].text));
}

bool Is(const std::vector<Token>& t, size_t i, std::string_view text) {
  return i < t.size() && t[i].text == text && t[i].kind != Token::kString;
}

void ReadTop(const std::vector<Token>& t, Vcl& v) {
  for (size_t i = 0; i < t.size();) {
    const size_t next = SkipStatement(t, i);
    const std::string& w = t[i].text;
    if (w == "import" && Is(t, i + 1, "directors")) {
      v.alias = Is(t, i + 2, "as") && i + 3 < next ? t[i + 3].text : "directors";
    } else if (w == "backend" && i + 1 < next) {
      v.backends.push_back(t[i + 1].text);
    } else if (w == "sub" && Is(t, i + 1, "vcl_init") && Is(t, i + 2, "{")) {
      for (size_t k = i + 3; k + 1 < next; ++k) v.init.push_back(&t[k]);
    }
    i = next;
  }
}

// The arguments of a call whose '(' is at i: name -> value (positional ones
// named from `params`, in order); `end` gets the index after ')'.
std::vector<std::pair<std::string, const Token*>> Args(const std::vector<const Token*>& t, size_t i,
                                                       const std::vector<std::string>& params,
                                                       size_t* end) {
  std::vector<std::pair<std::string, const Token*>> out;
  std::vector<const Token*> arg;
  size_t positional = 0;
  auto flush = [&](const Token& at) {
    if (arg.empty()) return;
    const bool named = arg.size() == 3 && arg[1]->text == "=";
    if (arg.size() != 1 && !named)
      throw At(at,
               "an argument that is not a literal; chsim reads names, strings and numbers only");
    if (!named && positional >= params.size()) throw At(at, "too many arguments");
    out.emplace_back(named ? arg[0]->text : params[positional++], named ? arg[2] : arg[0]);
    arg.clear();
  };
  int depth = 0;
  for (size_t k = i + 1; k < t.size(); ++k) {
    const std::string& x = t[k]->text;
    const bool punct = t[k]->kind == Token::kPunct;
    if (punct && x == "(") ++depth;
    if (punct && x == ")" && depth-- == 0) {
      flush(*t[k]);
      *end = k + 1;
      return out;
    }
    if (punct && x == "," && depth == 0) {
      flush(*t[k]);
      continue;
    }
    arg.push_back(t[k]);
  }
  throw At(*t[i], "unclosed '('");
}

Director* Find(Vcl& v, std::string_view name) {
  for (Director& d : v.directors)
    if (d.name == name) return &d;
  return nullptr;
}

double Number(const Token& t) {
  char* end = nullptr;
  const double x = std::strtod(t.text.c_str(), &end);
  if (t.kind != Token::kWord || end != t.text.c_str() + t.text.size() || !std::isfinite(x))
    throw At(t, "found " + Quote(t.text) + "; expected a number");
  return x;
}

// add_backend(backend, [ident], [rampup], [weight]) as a pending task.
Task AddTask(const std::vector<std::pair<std::string, const Token*>>& args, const Vcl& v,
             const ServerSource& s, Director& d, const Token& at) {
  Task task{Task::kAdd, {}, 1};
  task.entry.at = &at;
  for (const auto& [name, tok] : args) {
    if (name == "backend") {
      task.entry.backend = tok->text;
    } else if (name == "ident") {
      task.entry.ident = tok->text;
    } else if (name == "weight") {
      task.weight = Number(*tok);
      if (task.weight < 1) {  // vmod_shard_add_backend: ".add_backend(weight=...) ignored"
        d.notes.push_back(WhereIn(*at.file, at.line, s.path) + ": weight " + tok->text +
                          " is below 1: Varnish ignores it (weight 1)");
        task.weight = 1;
      }
    } else if (name == "rampup") {
      Ignore(d.calls, "add_backend rampup");
    } else {
      throw At(at, "add_backend has no argument " + Quote(name));
    }
  }
  if (task.entry.backend.empty()) throw At(at, "add_backend without a backend");
  if (std::find(v.backends.begin(), v.backends.end(), task.entry.backend) == v.backends.end())
    throw At(at, "backend " + Quote(task.entry.backend) + " is not declared");
  return task;
}

// A call NAME.METHOD(...) on a shard director.
void Call(Director& d, std::string_view method, const std::vector<const Token*>& t, size_t i,
          Vcl& v, ServerSource& s, size_t* end) {
  const Token& at = *t[i];
  if (method == "add_backend") {
    d.pending.push_back(
        AddTask(Args(t, i + 1, {"backend", "ident", "rampup", "weight"}, end), v, s, d, at));
  } else if (method == "remove_backend") {
    Task task{Task::kRemove, {}, 1};
    for (const auto& [name, tok] : Args(t, i + 1, {"backend", "ident"}, end))
      (name == "ident" ? task.entry.ident : task.entry.backend) = tok->text;
    if (task.entry.backend.empty() && task.entry.ident.empty())
      throw At(at, "remove_backend: either backend or ident is required");
    d.pending.push_back(task);
  } else if (method == "clear") {
    Args(t, i + 1, {}, end);
    d.pending.push_back({Task::kClear, {}, 1});
  } else if (method == "reconfigure") {
    long long replicas = 67;
    for (const auto& [name, tok] : Args(t, i + 1, {"replicas"}, end)) {
      const double r = Number(*tok);
      if (r < 1 || r > (1u << 28) || r != std::floor(r))
        throw At(at, "reconfigure(replicas=" + tok->text +
                         "): Varnish refuses it (.reconfigure() invalid replicas argument); "
                         "accepted: an integer 1..2^28");
      replicas = static_cast<long long>(r);
    }
    d.Apply(replicas);
  } else {
    Ignore(d.calls, std::string(method));
    *end = i + 1;
  }
}

void ReadInit(Vcl& v, ServerSource& s) {
  const std::vector<const Token*>& t = v.init;
  for (size_t i = 0; i < t.size();) {
    const std::string& w = t[i]->text;
    if (w == "new" && i + 4 < t.size() && t[i + 2]->text == "=" && !v.alias.empty() &&
        t[i + 3]->text == v.alias + ".shard" && t[i + 4]->text == "(") {
      v.directors.emplace_back();
      v.directors.back().name = t[i + 1]->text;
      v.directors.back().line = t[i]->line;
      i += 4;
      continue;
    }
    const size_t dot = w.rfind('.');
    Director* d = t[i]->kind == Token::kWord && dot != std::string::npos && i + 1 < t.size() &&
                          t[i + 1]->text == "("
                      ? Find(v, std::string_view(w).substr(0, dot))
                      : nullptr;
    if (d == nullptr) {
      ++i;
      continue;
    }
    size_t end = i + 1;
    Call(*d, std::string_view(w).substr(dot + 1), t, i, v, s, &end);
    i = end;
  }
  for (Director& d : v.directors)
    if (!d.pending.empty()) d.Apply(67);  // shard_change_fini
}

// The director's backends as nodes: replicas x weight points each, as
// (replicas, weight) when every backend has the same replicas and a whole
// weight, else as (1, points).
void Fill(const Director& d, ServerSource& s) {
  bool natural = true;
  for (const Entry& e : d.array) {
    natural = natural && e.replicas == d.array[0].replicas && e.weight == std::floor(e.weight) &&
              e.replicas * e.weight == e.points;
  }
  std::unordered_map<std::string, size_t> count;
  ServerLines lines;
  for (const Entry& e : d.array) ++count[e.backend];
  for (const Entry& e : d.array) {
    Node n;
    n.label = count[e.backend] > 1 ? e.backend + "/" + e.Key() : e.backend;
    n.host = n.label;
    n.name = e.ident;
    n.weight = natural ? static_cast<uint32_t>(e.weight) : e.points;
    s.list.weighted = s.list.weighted || n.weight != 1;
    AddServer(s, std::move(n), e.at->line, lines, e.at->file);
  }
  if (!d.array.empty())
    s.options.replicas = natural ? static_cast<uint32_t>(d.array[0].replicas) : 1;
}

// The file `include "NAME";` reads (vcc_resolve_includes, VFIL_searchpath):
// "./NAME" beside the including file; an absolute NAME as it is; else the
// first of the main file's folder and Varnish's default vcl_path
// (/etc/varnish, /usr/share/varnish/vcl) that has it.
std::string IncludePath(const Token& name, const IncludedFiles& files) {
  const std::string& n = name.text;
  if (n.compare(0, 2, "./") == 0) return ResolveBeside(*name.file, n);
  if (!n.empty() && n[0] == '/') return n;
  const std::string main_dir = files.main() == "-" ? "." : ResolveBeside(files.main(), ".");
  std::string searched;
  for (const std::string& dir :
       {main_dir, std::string("/etc/varnish"), std::string("/usr/share/varnish/vcl")}) {
    const std::string candidate = (std::filesystem::path(dir) / n).lexically_normal().string();
    std::error_code ec;
    if (std::filesystem::exists(candidate, ec)) return candidate;
    searched += (searched.empty() ? "" : ", ") + dir;
  }
  throw At(name, "include: no file " + Quote(n) + " in " + searched);
}

// The tokens of a VCL file with its includes replaced by the tokens of the
// files they name, as Varnish resolves them before compiling.
std::vector<Token> Tokens(std::string_view text, const std::string* file, IncludedFiles& files) {
  const std::vector<Token> in = Lexer(text, file).All();
  std::vector<Token> out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i].kind != Token::kWord || in[i].text != "include") {
      out.push_back(in[i]);
      continue;
    }
    if (i + 1 == in.size() || in[i + 1].kind != Token::kString)
      throw At(in[std::min(i + 1, in.size() - 1)], "include not followed by string constant");
    if (i + 2 == in.size() || in[i + 2].kind != Token::kPunct || in[i + 2].text != ";")
      throw At(in[i + 1], "include <string> not followed by semicolon");
    std::string sub_text;
    const std::string* name =
        files.Open(IncludePath(in[i + 1], files), *file, in[i].line, &sub_text);
    std::vector<Token> sub = Tokens(sub_text, name, files);
    files.Close();
    out.insert(out.end(), std::make_move_iterator(sub.begin()), std::make_move_iterator(sub.end()));
    i += 2;
  }
  return out;
}

}  // namespace

ServerSource ReadVarnish(std::string_view text, const std::string& path, const std::string& block) {
  ServerSource s;
  s.format = ServerFormat::kVarnish;
  s.path = path;
  IncludedFiles files(path);
  const std::vector<Token> tokens = Tokens(text, &files.main(), files);
  Vcl v;
  ReadTop(tokens, v);
  ReadInit(v, s);
  std::vector<std::string> names;
  for (const Director& d : v.directors) names.push_back(d.name);
  const Director& d = v.directors[PickBlock(names, block, path, "shard director")];
  s.block = d.name;
  s.profile = "varnish";
  for (const std::string& m : d.calls.ignored) Ignore(s, m);
  s.notes.insert(s.notes.end(), d.notes.begin(), d.notes.end());
  Fill(d, s);
  FinishList(s, "shard director");
  return s;
}

}  // namespace chsim::sim::internal
