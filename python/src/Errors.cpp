//===- Errors.cpp - graphjit errors as Python exceptions ------------------===//
#include "Errors.h"
#include "NativeModule.h"
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

namespace nb = nanobind;
using namespace graphjit::python;

namespace {
/// The exception a Py op raised on this thread, waiting for the call to
/// return to Python.
struct ParkedError {
  PyObject *Type = nullptr, *Value = nullptr, *Traceback = nullptr;
  bool empty() const { return !Type; }
};
thread_local ParkedError Parked;
} // namespace

std::string graphjit::python::parkPythonError() {
  dropParkedError();
  PyErr_Fetch(&Parked.Type, &Parked.Value, &Parked.Traceback);
  PyErr_NormalizeException(&Parked.Type, &Parked.Value, &Parked.Traceback);
  std::string Text = "Python exception";
  if (Parked.Value) {
    nb::handle V(Parked.Value);
    try {
      Text = nb::cast<std::string>(nb::str(V.type().attr("__name__"))) +
             ": " + nb::cast<std::string>(nb::str(V));
    } catch (...) {
      PyErr_Clear();
    }
  }
  return Text;
}

void graphjit::python::dropParkedError() {
  Py_CLEAR(Parked.Type);
  Py_CLEAR(Parked.Value);
  Py_CLEAR(Parked.Traceback);
}

void graphjit::python::raise(llvm::Error E, ErrorKind Kind) {
  std::string Message = llvm::toString(std::move(E));
  if (!Parked.empty()) {
    // The op's own exception, with where graphjit saw it as a note
    // (PEP 678), so that `except ValueError` still catches a ValueError.
    PyErr_Restore(Parked.Type, Parked.Value, Parked.Traceback);
    Parked = {};
    nb::python_error Err;
    try {
      Err.value().attr("add_note")("graphjit: " + Message);
    } catch (...) {
    }
    throw Err;
  }
  PyObject *Type =
      Kind == ErrorKind::Value ? PyExc_ValueError : graphjitErrorType();
  PyErr_SetString(Type, Message.c_str());
  throw nb::python_error();
}

void graphjit::python::setPythonErrorFromCurrentException() {
  try {
    throw;
  } catch (nb::python_error &E) {
    E.restore();
  } catch (const nb::builtin_exception &E) {
    PyObject *Type = PyExc_RuntimeError;
    switch (E.type()) {
    case nb::exception_type::type_error: Type = PyExc_TypeError; break;
    case nb::exception_type::value_error: Type = PyExc_ValueError; break;
    case nb::exception_type::key_error: Type = PyExc_KeyError; break;
    default: break;
    }
    PyErr_SetString(Type, E.what());
  } catch (const std::exception &E) {
    PyErr_SetString(PyExc_RuntimeError, E.what());
  }
}
