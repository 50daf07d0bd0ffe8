//===- StorageThunk.cpp - PyTensor's thunk over a compiled function -------===//
//
// PyTensor's JITLinker runs a whole FunctionGraph as one thunk: a callable
// of no arguments that reads the inputs from storage cells (lists of one
// element) and writes the outputs into others. Written in Python, that
// glue cost about 0.5 us a call, as much as a small model's whole
// log-density and gradient; this one reads and writes the cells in C++.
// An error goes to a Python handler, which raises what PyTensor's own
// modes raise there (graphjit/pytensor/linker.py).
//
//===----------------------------------------------------------------------===//
#include "Errors.h"
#include "NativeModule.h"
#include "llvm/ADT/SmallVector.h"
#include <string>

namespace nb = nanobind;
using namespace graphjit::python;

namespace {
struct StorageThunk {
  /// What the cells feed and take: the graphjit.Function.
  nb::object Function;
  std::vector<nb::object> Inputs, Outputs;
  /// Called as OnError(exception, thunk) when the call fails; it raises.
  nb::object OnError;
};
} // namespace

// The handler gets the exception set now, with its traceback; whatever it
// raises is the thunk's error (the original one if it returns).
static void handOver(const StorageThunk &T, PyObject *Self) {
  PyObject *Type, *Value, *Trace;
  PyErr_Fetch(&Type, &Value, &Trace);
  PyErr_NormalizeException(&Type, &Value, &Trace);
  if (Trace)
    PyException_SetTraceback(Value, Trace);
  PyObject *R =
      PyObject_CallFunctionObjArgs(T.OnError.ptr(), Value, Self, nullptr);
  if (!R) {
    Py_XDECREF(Type);
    Py_XDECREF(Value);
    Py_XDECREF(Trace);
    return;
  }
  Py_DECREF(R);
  PyErr_Restore(Type, Value, Trace);
}

static PyObject *callThunk(PyObject *Self, PyObject *Args, PyObject *Kw) {
  StorageThunk &T = *nb::inst_ptr<StorageThunk>(Self);
  if (PyTuple_GET_SIZE(Args) != 0 || (Kw && PyDict_GET_SIZE(Kw) != 0)) {
    PyErr_SetString(PyExc_TypeError, "a storage thunk takes no arguments");
    return nullptr;
  }
  // The arguments are held while the call runs (it may release the GIL).
  llvm::SmallVector<nb::object, 8> Held;
  llvm::SmallVector<PyObject *, 8> Arguments;
  for (const nb::object &Cell : T.Inputs) {
    if (PyList_GET_SIZE(Cell.ptr()) < 1) {
      PyErr_SetString(PyExc_ValueError, "an input's storage cell is empty");
      return nullptr;
    }
    Held.push_back(nb::borrow(PyList_GET_ITEM(Cell.ptr(), 0)));
    Arguments.push_back(Held.back().ptr());
  }
  try {
    callIntoCells(T.Function, Arguments, T.Outputs);
    Py_RETURN_NONE;
  } catch (...) {
    setPythonErrorFromCurrentException();
  }
  handOver(T, Self);
  return nullptr;
}

static PyType_Slot ThunkSlots[] = {{Py_tp_call, (void *)callThunk},
                                   {0, nullptr}};

static std::vector<nb::object> cellsOf(nb::handle List, const char *What) {
  std::vector<nb::object> Cells;
  for (nb::handle Cell : nb::cast<nb::sequence>(List)) {
    if (!PyList_Check(Cell.ptr()) || PyList_GET_SIZE(Cell.ptr()) < 1)
      throw nb::type_error((std::string(What) +
                            ": expected storage cells (lists of one "
                            "element), got " +
                            nb::cast<std::string>(nb::repr(Cell)))
                               .c_str());
    Cells.push_back(nb::borrow(Cell));
  }
  return Cells;
}

nb::object graphjit::python::makeStorageThunk(nb::handle FunctionObject,
                                              size_t NumInputs,
                                              size_t NumOutputs,
                                              nb::handle Inputs,
                                              nb::handle Outputs,
                                              nb::handle OnError) {
  StorageThunk T;
  T.Function = nb::borrow(FunctionObject);
  T.Inputs = cellsOf(Inputs, "inputs");
  T.Outputs = cellsOf(Outputs, "outputs");
  if (T.Inputs.size() != NumInputs || T.Outputs.size() != NumOutputs)
    throw nb::value_error(("the function takes " + std::to_string(NumInputs) +
                           " inputs and gives " + std::to_string(NumOutputs) +
                           " outputs, not " + std::to_string(T.Inputs.size()) +
                           " and " + std::to_string(T.Outputs.size()))
                              .c_str());
  if (!PyCallable_Check(OnError.ptr()))
    throw nb::type_error("on_error: expected a callable");
  T.OnError = nb::borrow(OnError);
  return nb::cast(std::move(T));
}

void graphjit::python::bindStorageThunks(nb::module_ &M) {
  // Attributes of its own: PyTensor's linker sets some on its thunks.
  nb::class_<StorageThunk>(
      M, "StorageThunk",
      "PyTensor's thunk of a compiled function (Function.storage_thunk): "
      "called with no arguments, it reads the inputs from their storage "
      "cells and writes the outputs into theirs.",
      nb::type_slots(ThunkSlots), nb::dynamic_attr());
}
