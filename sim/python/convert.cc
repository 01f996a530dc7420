// SPDX-License-Identifier: Apache-2.0
// Readers of Python arguments (bind.h) and the exception translation.
#include <cstring>
#include <unordered_map>

#include "chsim/algorithm.h"
#include "sim/base/errors.h"
#include "sim/python/bind.h"
#include "sim/scenario/server_config.h"
#include "sim/scenario/server_list.h"

namespace chsim::python {
namespace {

PyObject* g_scenario_error = nullptr;  // chsim.ScenarioError (the module keeps it alive)

// An int's text for messages, cut when long ("1234567890...(400 digits)").
std::string IntText(py::handle value) {
  std::string text;
  try {
    text = py::str(value);
  } catch (const py::error_already_set&) {  // more digits than int -> str converts
    return "an integer of more than 4300 digits";
  }
  if (text.size() <= 40) return text;
  return text.substr(0, 20) + "...(" + std::to_string(text.size()) + " digits)";
}

// An int or a numpy integer (not a bool, not an array).
bool IsInteger(py::handle value) {
  if (PyBool_Check(value.ptr())) return false;
  return PyLong_Check(value.ptr()) ||
         py::isinstance(value, py::module_::import("numpy").attr("integer"));
}

// An int, a float, or a numpy integer or floating scalar.
bool IsNumber(py::handle value) {
  return IsInteger(value) || PyFloat_Check(value.ptr()) ||
         py::isinstance(value, py::module_::import("numpy").attr("floating"));
}

// An integer value as uint64_t; false when it is negative or too large.
bool AsUint64(py::handle value, uint64_t* out) {
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
  if (!index) throw py::error_already_set();
  const unsigned long long v = PyLong_AsUnsignedLongLong(index.ptr());
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();  // OverflowError: negative or above 2^64 - 1
    return false;
  }
  *out = v;
  return true;
}

// "servers[3]:1: bad port" -> "servers[3]: bad port": one entry is one line.
std::string DropLineOne(const std::string& message, const std::string& what) {
  const std::string prefix = what + ":1: ";
  if (message.compare(0, prefix.size(), prefix) == 0)
    return what + ": " + message.substr(prefix.size());
  return message;
}

std::string Utf8Error(const std::string& what) {
  return what +
         ": a str that is not valid Unicode (a lone surrogate); accepted: a str that "
         "encodes to UTF-8, or bytes";
}

// Appends the UTF-8 of code point c; false for a surrogate or a value above U+10FFFF.
bool AppendUtf8(uint32_t c, std::string& out) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    if (c >= 0xD800 && c <= 0xDFFF) return false;
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c <= 0x10FFFF) {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    return false;
  }
  return true;
}

// Raises `type` with a message that may hold bytes that are not UTF-8 (a
// path, a label): they are shown as \xNN.
void SetError(PyObject* type, const char* message) {
  PyObject* text = PyUnicode_DecodeUTF8(message, static_cast<Py_ssize_t>(std::strlen(message)),
                                        "backslashreplace");
  if (text == nullptr) return;  // MemoryError is set
  PyErr_SetObject(type, text);
  Py_DECREF(text);
}

// ParamSpec::Refuse's message as a TypeError: `value` is not of the spec's type.
[[noreturn]] void RefuseType(const ParamSpec& spec, std::string_view algorithm, py::handle value) {
  try {
    spec.Refuse(algorithm, TypeName(value));
  } catch (const std::invalid_argument& e) {
    throw TypeError(e.what());
  }
}

const char* kKeysAccepted =
    "accepted: a list or tuple of str or bytes, or a 1-dimensional numpy array of bytes (S), "
    "str (U) or objects";

}  // namespace

void RegisterExceptions(py::module_& m) {
  g_scenario_error = PyErr_NewExceptionWithDoc(
      "chsim.ScenarioError",
      "A scenario chsim refuses (chsim run / validate would exit 2): the message names the file "
      "(or <dict>), the JSON pointer, what was found and what is accepted.",
      PyExc_ValueError, nullptr);
  if (g_scenario_error == nullptr) throw py::error_already_set();
  m.add_object("ScenarioError", py::handle(g_scenario_error));  // the module holds a reference
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ScenarioError& e) {
      SetError(g_scenario_error, e.what());
    } catch (const TypeError& e) {
      SetError(PyExc_TypeError, e.what());
    } catch (const sim::UsageError& e) {
      SetError(PyExc_ValueError, e.what());
    } catch (const Unsupported& e) {
      SetError(PyExc_ValueError, e.what());
    } catch (const std::invalid_argument& e) {
      SetError(PyExc_ValueError, e.what());
    } catch (const sim::Interrupted& e) {
      SetError(PyExc_KeyboardInterrupt, e.what());
    } catch (const sim::RuntimeError& e) {
      SetError(PyExc_RuntimeError, e.what());
    }
  });
}

py::object ToPython(const sim::Json& doc) {
  return py::module_::import("json").attr("loads")(
      doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

py::object ToPython(const nlohmann::json& doc) {
  return py::module_::import("json").attr("loads")(
      doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string TypeName(py::handle value) { return Py_TYPE(value.ptr())->tp_name; }

py::str Text(std::string_view bytes) {
  PyObject* s =
      PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "surrogateescape");
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

std::string_view KeyBytes(py::handle key, const std::string& what) {
  if (PyBytes_Check(key.ptr())) {
    return {PyBytes_AS_STRING(key.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(key.ptr()))};
  }
  if (PyUnicode_Check(key.ptr())) {
    Py_ssize_t len = 0;
    const char* p = PyUnicode_AsUTF8AndSize(key.ptr(), &len);
    if (p == nullptr) {
      PyErr_Clear();
      throw std::invalid_argument(Utf8Error(what));
    }
    return {p, static_cast<size_t>(len)};
  }
  throw TypeError(what + ": found " + TypeName(key) + "; accepted: str or bytes");
}

Keys::Keys(py::handle keys) {
  if (PyUnicode_Check(keys.ptr()) || PyBytes_Check(keys.ptr())) {
    throw TypeError(std::string("keys: found one ") + TypeName(keys) + "; " + kKeysAccepted +
                    " (locate takes a single key)");
  }
  if (py::isinstance<py::array>(keys)) {
    py::array a = py::reinterpret_borrow<py::array>(keys);
    const char kind = a.dtype().kind();
    if (a.ndim() != 1) {
      throw std::invalid_argument("keys: found a " + std::to_string(a.ndim()) +
                                  "-dimensional array; " + kKeysAccepted);
    }
    if (kind == 'S' || kind == 'U') {
      if (!(a.flags() & py::array::c_style)) {
        a = py::module_::import("numpy").attr("ascontiguousarray")(a);
      }
      keep_ = a;
      kind_ = kind == 'S' ? Kind::kBytes : Kind::kUcs4;
      data_ = static_cast<const char*>(a.data());
      itemsize_ = static_cast<size_t>(a.itemsize());
      n_ = static_cast<size_t>(a.size());
      return;
    }
    if (kind != 'O') {
      throw TypeError("keys: found a numpy array of dtype " + std::string(py::str(a.dtype())) +
                      "; " + kKeysAccepted);
    }
  }
  // A list or tuple is read a block at a time, copied out of its items with
  // the GIL held (SequenceBlock); any other iterable through a tuple.
  keep_ = py::reinterpret_borrow<py::object>(keys);
  if (!PyList_CheckExact(keys.ptr()) && !PyTuple_CheckExact(keys.ptr())) {
    PyObject* tuple = PySequence_Tuple(keys.ptr());
    if (tuple == nullptr) {
      PyErr_Clear();
      throw TypeError("keys: found " + TypeName(keys) + "; " + kKeysAccepted);
    }
    keep_ = py::reinterpret_steal<py::object>(tuple);
  }
  n_ = static_cast<size_t>(PySequence_Fast_GET_SIZE(keep_.ptr()));
}

namespace {

// dst[0, n) = src[0, n), reading and writing only those bytes: keys are
// short, and a call to memcpy per key costs more than the copy. Sizes up to
// 32 are two loads that overlap, as needed.
inline void CopyKey(char* dst, const char* src, size_t n) noexcept {
  auto two = [&](auto word) {
    decltype(word) a, b;
    std::memcpy(&a, src, sizeof a);
    std::memcpy(&b, src + n - sizeof b, sizeof b);
    std::memcpy(dst, &a, sizeof a);
    std::memcpy(dst + n - sizeof b, &b, sizeof b);
  };
  struct Word16 {
    uint64_t w[2];
  };
  if (n >= 16 && n <= 32) return two(Word16{});
  if (n >= 8 && n < 16) return two(uint64_t{});
  if (n >= 4 && n < 8) return two(uint32_t{});
  if (n > 32) return static_cast<void>(std::memcpy(dst, src, n));
  for (size_t i = 0; i < n; ++i) dst[i] = src[i];
}

}  // namespace

// A list's block in two passes over its items: the views into each str's
// own bytes (a compact ASCII str's data, another str's cached UTF-8) or a
// bytes object's buffer, and their total size; then the bytes copied into
// `scratch`, one contiguous buffer sized once, and the views moved there, so
// that they outlive the GIL.
void Keys::SequenceBlock(size_t begin, std::span<std::string_view> out,
                         std::string& scratch) const {
  const size_t count = out.size();
  size_t total = 0;
  for (size_t i = 0; i < count; ++i) {
    // The size is read again each time: another thread may have changed the
    // list while the GIL was released between blocks.
    if (begin + i >= static_cast<size_t>(PySequence_Fast_GET_SIZE(keep_.ptr()))) {
      throw std::invalid_argument("keys: the list shrank while it was read");
    }
    PyObject* item = PySequence_Fast_GET_ITEM(keep_.ptr(), begin + i);
    const char* p = nullptr;
    Py_ssize_t len = 0;
    if (PyUnicode_Check(item)) {
      if (PyUnicode_IS_COMPACT_ASCII(item)) {  // the str's own bytes, no conversion
        p = static_cast<const char*>(PyUnicode_DATA(item));
        len = PyUnicode_GET_LENGTH(item);
      } else if ((p = PyUnicode_AsUTF8AndSize(item, &len)) == nullptr) {  // cached in the str
        PyErr_Clear();
        throw std::invalid_argument(Utf8Error("keys[" + std::to_string(begin + i) + "]"));
      }
    } else if (PyBytes_Check(item)) {
      p = PyBytes_AS_STRING(item);
      len = PyBytes_GET_SIZE(item);
    } else {
      throw TypeError("keys[" + std::to_string(begin + i) + "]: found " + TypeName(item) +
                      "; accepted: str or bytes");
    }
    out[i] = std::string_view(p, static_cast<size_t>(len));
    total += static_cast<size_t>(len);
  }
  if (scratch.size() < total) scratch.resize(total);
  char* at = scratch.data();
  for (std::string_view& key : out) {
    CopyKey(at, key.data(), key.size());
    key = std::string_view(at, key.size());
    at += key.size();
  }
}

void Keys::Block(size_t begin, std::span<std::string_view> out, std::string& scratch) const {
  const size_t count = out.size();
  if (kind_ == Kind::kSequence) return SequenceBlock(begin, out, scratch);
  if (kind_ == Kind::kBytes) {  // NUL-padded: numpy drops trailing NULs too
    const char* item = data_ + begin * itemsize_;
    for (size_t i = 0; i < count; ++i, item += itemsize_) {
      size_t len = itemsize_;
      while (len > 0 && item[len - 1] == '\0') --len;
      out[i] = {item, len};
    }
    return;
  }
  // UCS-4 code points, NUL-padded: encode to UTF-8, then point into scratch.
  std::vector<size_t> ends(count);
  scratch.clear();
  for (size_t i = 0; i < count; ++i) {
    const char* item = data_ + (begin + i) * itemsize_;
    size_t len = itemsize_ / 4;
    auto at = [item](size_t k) {
      uint32_t c;
      std::memcpy(&c, item + 4 * k, 4);
      return c;
    };
    while (len > 0 && at(len - 1) == 0) --len;
    for (size_t k = 0; k < len; ++k) {
      if (!AppendUtf8(at(k), scratch)) {
        throw std::invalid_argument(Utf8Error("keys[" + std::to_string(begin + i) + "]"));
      }
    }
    ends[i] = scratch.size();
  }
  for (size_t i = 0, start = 0; i < count; start = ends[i++]) {
    out[i] = std::string_view(scratch.data() + start, ends[i] - start);
  }
}

Node ReadServerLine(const std::string& line, const std::string& what, bool* weighted,
                    Topology::Path* path) {
  if (line.find_first_of("\n") != std::string::npos) {
    throw std::invalid_argument(what +
                                ": a line break inside one entry; accepted: one server "
                                "per entry, HOST[:PORT] [WEIGHT [NAME]]");
  }
  sim::ServerList one;
  try {
    one = sim::ParseServerList(line, what);
  } catch (const sim::UsageError& e) {
    throw std::invalid_argument(DropLineOne(e.what(), what));
  }
  *weighted = *weighted || one.weighted;
  if (path != nullptr) {
    for (DomainLevel l : one.topology.levels()) {
      (*path)[static_cast<size_t>(l)] = one.topology.Name(l, one.topology.Of(l)[0]);
    }
  }
  return std::move(one.nodes.front());
}

NodeList ReadNodes(py::handle servers, const std::string& what) {
  NodeList list;
  if (IsPath(servers)) {
    const std::string path = FsPath(servers);
    // A server list, or a proxy's configuration FILE[:BLOCK] (its servers;
    // the profile stays the caller's).
    sim::ServerList l = sim::LoadServers(path).list;
    return {std::move(l.nodes), l.weighted, path, std::move(l.topology)};
  }
  list.source = what;
  if (IsInteger(servers)) {
    const uint64_t n = ReadUint(servers, what, 1, sim::kMaxServers);
    list.nodes = MakeNumberedNodes(static_cast<uint32_t>(n));
    return list;
  }
  std::vector<std::pair<std::string, std::string>> lines;  // (name, line)
  if (PyDict_Check(servers.ptr())) {
    for (auto [label, weight] : py::reinterpret_borrow<py::dict>(servers)) {
      const std::string l = ReadLabel(label, what + " key");
      const std::string name = what + "['" + l + "']";
      lines.emplace_back(name, l + " " + std::to_string(ReadUint(weight, name, 1, INT32_MAX)));
    }
  } else {
    PyObject* tuple = PyBytes_Check(servers.ptr()) || PyByteArray_Check(servers.ptr())
                          ? nullptr
                          : PySequence_Tuple(servers.ptr());
    if (tuple == nullptr) {
      PyErr_Clear();
      throw TypeError(what + ": found " + TypeName(servers) +
                      "; accepted: a server-list path, a list of \"HOST[:PORT] [WEIGHT [NAME]]\" "
                      "lines, a dict {label: weight} or a node count");
    }
    py::object keep = py::reinterpret_steal<py::object>(tuple);
    for (size_t i = 0; i < static_cast<size_t>(PyTuple_GET_SIZE(tuple)); ++i) {
      const std::string name = what + "[" + std::to_string(i) + "]";
      lines.emplace_back(name, ReadLabel(PyTuple_GET_ITEM(tuple, i), name));
    }
  }
  if (lines.empty()) sim::ParseServerList("", what);  // throws its "no servers" message
  if (lines.size() > sim::kMaxServers) {
    throw std::invalid_argument(what + ": more than " + std::to_string(sim::kMaxServers) +
                                " servers");
  }
  std::unordered_map<std::string, size_t> seen;
  for (const auto& [name, line] : lines) {
    Topology::Path path;
    list.nodes.push_back(ReadServerLine(line, name, &list.weighted, &path));
    try {
      list.topology.Append(path);
    } catch (const std::invalid_argument& e) {  // "node N ...": N is the entry's index
      throw std::invalid_argument(name + ": " + e.what());
    }
    auto [it, inserted] = seen.try_emplace(list.nodes.back().label, list.nodes.size() - 1);
    if (!inserted) {
      throw std::invalid_argument(name + ": duplicate server '" + it->first + "' (first at " +
                                  lines[it->second].first + ")");
    }
  }
  return list;
}

uint64_t ReadUint(py::handle value, const std::string& what, uint64_t min, uint64_t max) {
  const std::string accepted =
      " must be an integer " + std::to_string(min) + ".." + std::to_string(max);
  if (!IsInteger(value)) throw TypeError(what + accepted + " (found " + TypeName(value) + ")");
  uint64_t v = 0;
  if (!AsUint64(value, &v) || v < min || v > max) {
    throw std::invalid_argument(what + accepted + " (found " + IntText(value) + ")");
  }
  return v;
}

double ReadNumber(py::handle value, const std::string& what) {
  if (!IsNumber(value)) {
    throw TypeError(what + " must be a number (found " + TypeName(value) + ")");
  }
  const double v = PyFloat_AsDouble(value.ptr());
  if (v == -1.0 && PyErr_Occurred()) {  // an int too large for a double
    PyErr_Clear();
    throw std::invalid_argument(what + " must be a finite number (found " + IntText(value) + ")");
  }
  return v;
}

bool IsPath(py::handle value) {
  return PyUnicode_Check(value.ptr()) || py::hasattr(value, "__fspath__");
}

std::string FsPath(py::handle value) {
  return py::module_::import("os").attr("fsencode")(value).cast<std::string>();
}

std::string ReadLabel(py::handle value, const std::string& what) {
  if (!PyUnicode_Check(value.ptr())) {
    throw TypeError(what + " must be a str (found " + TypeName(value) + ")");
  }
  PyObject* bytes = PyUnicode_AsEncodedString(value.ptr(), "utf-8", "surrogateescape");
  if (bytes == nullptr) {
    PyErr_Clear();
    throw std::invalid_argument(Utf8Error(what));
  }
  py::object keep = py::reinterpret_steal<py::object>(bytes);
  return std::string(PyBytes_AS_STRING(bytes), static_cast<size_t>(PyBytes_GET_SIZE(bytes)));
}

std::string ReadString(py::handle value, const std::string& what) {
  if (!PyUnicode_Check(value.ptr())) {
    throw TypeError(what + " must be a str (found " + TypeName(value) + ")");
  }
  return std::string(KeyBytes(value, what));
}

bool ReadBool(py::handle value, const std::string& what) {
  if (!PyBool_Check(value.ptr())) {
    throw TypeError(what + " must be True or False (found " + TypeName(value) + ")");
  }
  return value.ptr() == Py_True;
}

ParamValue ReadParam(const ParamSpec& spec, std::string_view algorithm, py::handle value,
                     uint64_t nodes) {
  ParamValue v;
  switch (spec.type) {
    case ParamType::kInteger: {
      if (spec.auto_value && PyUnicode_Check(value.ptr()) &&
          PyUnicode_CompareWithASCIIString(value.ptr(), "auto") == 0) {
        v = spec.Parse("auto", nodes);
        break;
      }
      if (!IsInteger(value)) RefuseType(spec, algorithm, value);
      uint64_t u = 0;
      if (!AsUint64(value, &u)) spec.Refuse(algorithm, IntText(value));
      v = u;
      break;
    }
    case ParamType::kNumber:
      if (!IsNumber(value)) RefuseType(spec, algorithm, value);
      try {
        v = ReadNumber(value, std::string(spec.name));
      } catch (const std::invalid_argument&) {
        spec.Refuse(algorithm, IntText(value));
      }
      break;
    case ParamType::kString:
      if (!PyUnicode_Check(value.ptr())) RefuseType(spec, algorithm, value);
      v = std::string(KeyBytes(value, std::string(spec.name)));
      break;
  }
  spec.Check(algorithm, v);
  return v;
}

}  // namespace chsim::python
