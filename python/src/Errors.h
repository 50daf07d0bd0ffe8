//===- Errors.h - graphjit errors as Python exceptions ----------*- C++ -*-===//
//
// The library reports errors as llvm::Error; the package raises them as
// Python exceptions. A Python exception raised inside a Py op's perform
// (PythonOp) cannot cross the JIT-compiled driver, so it is parked in a
// thread-local slot and raised again, unchanged and with graphjit's words
// about the Apply added as a note, when the call returns to Python.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PYTHON_ERRORS_H
#define GRAPHJIT_PYTHON_ERRORS_H

#include "llvm/Support/Error.h"
#include <string>

namespace graphjit::python {

/// What kind of Python exception an error becomes.
enum class ErrorKind { Graphjit, Value };

/// Raises E as a Python exception (a C++ exception that nanobind turns
/// into one): a parked exception of a Py op if there is one, else
/// graphjit.GraphjitError (or ValueError, as Kind says).
[[noreturn]] void raise(llvm::Error E, ErrorKind Kind = ErrorKind::Graphjit);

/// Takes the value of E, or raises its error.
template <typename T> T unwrap(llvm::Expected<T> E,
                               ErrorKind Kind = ErrorKind::Graphjit) {
  if (!E)
    raise(E.takeError(), Kind);
  return std::move(*E);
}
inline void check(llvm::Error E, ErrorKind Kind = ErrorKind::Graphjit) {
  if (E)
    raise(std::move(E), Kind);
}

/// Parks the Python exception now set (PyErr_Occurred) for raise() on this
/// thread, and returns its "Type: message" text. Needs the GIL.
std::string parkPythonError();
/// Drops a parked exception (a call that succeeded after all).
void dropParkedError();

/// Inside a catch block of a C-level slot (tp_call): sets the Python error
/// the exception being handled stands for, as nanobind would for a bound
/// method (a Python exception as it is, nanobind's builtin exceptions as
/// their types, any other as RuntimeError).
void setPythonErrorFromCurrentException();

} // namespace graphjit::python

#endif
