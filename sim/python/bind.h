// SPDX-License-Identifier: Apache-2.0
// What the binding files of the Python module (`chsim._chsim`) share: the
// exceptions, the readers of Python arguments (keys, node lists, parameter
// values) with one-line messages, and the interruptible wait that lets Ctrl-C
// stop a long call.
//
// Every reader refuses a wrong type with TypeError and a bad value with
// ValueError, each naming the argument, what was found and what is accepted;
// no input crashes the interpreter. Readers run with the GIL held; the views
// they return stay valid, without the GIL, for as long as the reader object
// lives (it holds references to the Python objects).
#ifndef CHSIM_SIM_PYTHON_BIND_H_
#define CHSIM_SIM_PYTHON_BIND_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "chsim/node.h"
#include "chsim/params.h"
#include "chsim/topology.h"
#include "sim/base/interrupt.h"
#include "sim/base/json_reader.h"

namespace chsim::python {

namespace py = pybind11;

// Bad scenario: raised as chsim.ScenarioError (a ValueError).
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A wrong type: raised as TypeError.
class TypeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Registers chsim.ScenarioError and the translation of chsim's C++
// exceptions: UsageError, Unsupported and std::invalid_argument to ValueError,
// RuntimeError to RuntimeError, Interrupted to KeyboardInterrupt.
void RegisterExceptions(py::module_& m);

// A JSON document as Python objects (json.loads of its text; invalid UTF-8
// replaced).
py::object ToPython(const sim::Json& doc);
py::object ToPython(const nlohmann::json& doc);

// "int", "NoneType": a value's type as messages name it.
std::string TypeName(py::handle value);

// Text for Python: UTF-8 decoded, undecodable bytes kept as surrogates
// (surrogateescape), so no label or key ever fails to convert.
py::str Text(std::string_view bytes);

// The bytes of one key: str (UTF-8) or bytes. Throws TypeError or ValueError
// (a str that is not valid Unicode) naming `what`.
std::string_view KeyBytes(py::handle key, const std::string& what);

// Keys given as a list or tuple (or any iterable) of str or bytes, or a
// 1-dimensional numpy array of bytes (dtype S), str (dtype U) or objects.
// Read a block at a time with ForEachBlock, which runs without the GIL: an
// array is read in place; a list's block is copied out of its str and bytes
// objects (their own bytes, no conversion per key) into one buffer while the
// GIL is taken back for a moment, and hashed and located without it.
class Keys {
 public:
  explicit Keys(py::handle keys);  // GIL held
  size_t size() const noexcept { return n_; }
  // Views of keys [begin, begin + out.size()) into out: into the array, or
  // into `scratch`, which holds the bytes of a list's items and the UTF-8 of
  // str arrays (the views stay valid without the GIL until the next call).
  // Throws std::invalid_argument (a str that is not valid Unicode, a list
  // that shrank) or TypeError (an item that is not a key). REQUIRES: the GIL
  // when needs_gil().
  void Block(size_t begin, std::span<std::string_view> out, std::string& scratch) const;
  bool needs_gil() const noexcept { return kind_ == Kind::kSequence; }

 private:
  enum class Kind { kSequence, kBytes, kUcs4 };
  void SequenceBlock(size_t begin, std::span<std::string_view> out, std::string& scratch) const;
  Kind kind_ = Kind::kSequence;
  py::object keep_;             // the list, tuple or array
  const char* data_ = nullptr;  // kBytes, kUcs4: contiguous items
  size_t itemsize_ = 0;
  size_t n_ = 0;
};

// Keys are processed in blocks of this many (views, hashes and answers fit
// in L1).
inline constexpr size_t kBlockKeys = 1024;

// Calls f(begin, views) for each block of keys, in order, without the GIL.
// REQUIRES: the GIL released (it is taken back while a list's block is
// copied out of its items).
template <typename F>
void ForEachBlock(const Keys& keys, F&& f) {
  std::vector<std::string_view> views(kBlockKeys);
  std::string scratch;
  for (size_t begin = 0; begin < keys.size(); begin += kBlockKeys) {
    const std::span<std::string_view> block(views.data(),
                                            std::min(kBlockKeys, keys.size() - begin));
    if (keys.needs_gil()) {
      py::gil_scoped_acquire gil;
      keys.Block(begin, block, scratch);
    } else {
      keys.Block(begin, block, scratch);
    }
    f(begin, std::span<const std::string_view>(block));
  }
}

// A node list: a path to a server-list file (str or os.PathLike), a list or
// tuple of server-list lines ("HOST[:PORT] [WEIGHT [NAME]] [rack=R ...]";
// entry i is named servers[i] in messages), a dict {label: weight}, or a node
// count (numbered nodes 10.0.0.1:11211, 10.0.0.2:11211, ...). `weighted`: the
// list spells weights out (as a server-list file does); `topology`: the
// lines' failure domains (host=, rack=, zone=; empty when none gives any).
struct NodeList {
  std::vector<Node> nodes;
  bool weighted = false;
  std::string source;  // the path, or the argument's name: messages start with it
  Topology topology;
};
NodeList ReadNodes(py::handle servers, const std::string& what);
// One server-list line, named `what` in messages; its domains into *path
// when given.
Node ReadServerLine(const std::string& line, const std::string& what, bool* weighted,
                    Topology::Path* path = nullptr);

// Integers from Python with range checks: TypeError for another type (bool
// included), ValueError "WHAT must be an integer MIN..MAX (found X)".
// A path: str or os.PathLike, as bytes (os.fsencode).
bool IsPath(py::handle value);
std::string FsPath(py::handle value);

// A node label or server line: a str, whose surrogate-escaped bytes (labels
// read from non-UTF-8 lists come back that way) are taken as they were.
std::string ReadLabel(py::handle value, const std::string& what);

uint64_t ReadUint(py::handle value, const std::string& what, uint64_t min, uint64_t max);
double ReadNumber(py::handle value, const std::string& what);
std::string ReadString(py::handle value, const std::string& what);
bool ReadBool(py::handle value, const std::string& what);

// The value of parameter `spec` of `algorithm` from a Python value, checked
// (ParamSpec::Check's message): an int, a float for numbers, a str, "auto"
// where the spec has an auto value (sized for `nodes`).
ParamValue ReadParam(const ParamSpec& spec, std::string_view algorithm, py::handle value,
                     uint64_t nodes);

// Runs `f` on a worker thread while the calling thread waits with the GIL
// released, checking for signals every 50 ms. On KeyboardInterrupt (Ctrl-C)
// it asks the work to stop (interrupt.h's flag, which chsim's long loops
// poll), waits for it and raises KeyboardInterrupt with `on_interrupt()`'s
// message. Exceptions of `f` are rethrown in the caller.
template <typename F, typename M>
auto RunInterruptible(F&& f, M&& on_interrupt) -> decltype(f()) {
  using R = decltype(f());
  std::optional<R> result;
  std::exception_ptr error;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  auto wait = [&](bool forever) {
    py::gil_scoped_release release;
    std::unique_lock lock(mu);
    if (forever) {
      cv.wait(lock, [&] { return done; });
      return true;
    }
    return cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; });
  };
  std::thread worker([&] {
    try {
      result.emplace(f());
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(mu);
    done = true;
    cv.notify_all();
  });
  bool interrupted = false;
  while (!wait(false)) {
    if (PyErr_CheckSignals() != 0) {  // a Python signal handler raised (Ctrl-C)
      interrupted = true;
      sim::RequestStop();
      wait(true);
      break;
    }
  }
  worker.join();
  if (interrupted) {
    sim::ClearStop();
    if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
      PyErr_Clear();
      PyErr_SetString(PyExc_KeyboardInterrupt, on_interrupt().c_str());
    }
    throw py::error_already_set();
  }
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

void BindPlacement(py::module_& m);
void BindCatalog(py::module_& m);
void BindRun(py::module_& m);

}  // namespace chsim::python

#endif  // CHSIM_SIM_PYTHON_BIND_H_
