// SPDX-License-Identifier: Apache-2.0
// The extension module chsim._chsim; the package chsim (chsim/__init__.py)
// re-exports it with the Python parts (Results, NodeIndices, run, tune).
#include "sim/python/bind.h"
#include "sim/results/provenance.h"

PYBIND11_MODULE(_chsim, m) {
  namespace python = chsim::python;
  m.doc() = "chsim's C++ core and simulator (import chsim, not this module).";
  m.attr("__version__") = chsim::sim::ToolVersion();
  python::RegisterExceptions(m);
  python::BindCatalog(m);
  python::BindPlacement(m);
  python::BindRun(m);
}
