//===- PythonOp.h - Ops whose perform is a Python callable -----*- C++ -*-===//
//
// The `Py` half of Theano's c|py linker for graphs that come from Python:
// an Apply graphjit has no op for (a PyTensor node it cannot lower, say)
// becomes a PythonOp, whose perform calls back into Python from the
// compiled driver with the GIL taken. Its types are given, not inferred:
// the caller's own type system already inferred them.
//
// This file is compiled without RTTI, like the library it derives from
// (LLVM's setting); the callback itself lives in PythonPerform.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PYTHON_PYTHONOP_H
#define GRAPHJIT_PYTHON_PYTHONOP_H

#include "graphjit/Op.h"
#include <Python.h>

namespace graphjit::python {

struct PythonOpSpec {
  /// perform(inputs: list[ndarray]) -> sequence of array-likes, one per
  /// output. A new reference is taken.
  PyObject *Perform = nullptr;
  std::string Name;      ///< The profile's Op name.
  std::string ClassName; ///< The profile's Class.
  std::vector<TensorType> Outputs;
  /// Inputs the callable overwrites (PyTensor's destroy_map): it is handed
  /// copies of them, since graphjit's values are immutable.
  std::vector<unsigned> Destroyed;
  /// The callable's estimate of flops per call, or 0 (none).
  double Flops = 0;
};

OpRef makePythonOp(PythonOpSpec Spec);

/// Calls Spec.Perform on Inputs and makes Outputs from its results (the
/// GIL is taken here). Defined in PythonPerform.cpp.
llvm::Error runPythonPerform(const PythonOpSpec &Spec,
                             llvm::ArrayRef<NDArray> Inputs,
                             std::vector<NDArray> &Outputs);

} // namespace graphjit::python

#endif
