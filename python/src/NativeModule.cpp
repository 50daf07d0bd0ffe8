//===- NativeModule.cpp - graphjit._graphjit ------------------------------===//
//
// The native half of the graphjit package: the same libraries the command
// line links, bound with nanobind. The Python half (python/graphjit/) gives
// it Theano's keywords and PyTensor's linker.
//
//===----------------------------------------------------------------------===//
#include "graphjit/Initialize.h"
#include "NativeModule.h"
#include "Arrays.h"

namespace nb = nanobind;

static PyObject *ErrorType = nullptr;

PyObject *graphjit::python::graphjitErrorType() { return ErrorType; }

NB_MODULE(_graphjit, M) {
  graphjit::initialize();
  M.doc() = "graphjit's native module: graphs, JIT-compiled functions, "
            "profiles";
  // The project's version (CMakeLists.txt), which graphjit.__version__,
  // the wheel's metadata and the compile cache's key all take.
  M.attr("__version__") = GRAPHJIT_VERSION;
  ErrorType = PyErr_NewExceptionWithDoc(
      "graphjit.GraphjitError",
      "An error reported by graphjit: a graph that does not parse or "
      "type-check, a call whose inputs do not fit, an Apply that failed.",
      PyExc_RuntimeError, nullptr);
  M.attr("GraphjitError") = nb::handle(ErrorType);
  // Graphs hold Python callables (Py ops) that may hold the graph: such
  // cycles pass through C++ and live until exit, which is not a leak.
  nb::set_leak_warnings(false);
  graphjit::python::initNumpy();
  graphjit::python::bindProfiles(M);
  graphjit::python::bindGraphs(M);
  graphjit::python::bindFunctions(M);
  graphjit::python::bindEntries(M);
  graphjit::python::bindStorageThunks(M);
}
