//===- NativeModule.h - The pieces of graphjit._graphjit --------*- C++ -*-===//
//
// The native module is bound in parts, one file each: arrays, graphs and
// modules, functions, profiles. NativeModule.cpp calls them in order.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PYTHON_NATIVEMODULE_H
#define GRAPHJIT_PYTHON_NATIVEMODULE_H

#include "llvm/ADT/ArrayRef.h"
#include <nanobind/nanobind.h>

namespace graphjit::python {

/// graphjit.GraphjitError (a RuntimeError), created by the module.
PyObject *graphjitErrorType();

void bindProfiles(nanobind::module_ &M);
void bindGraphs(nanobind::module_ &M);
void bindFunctions(nanobind::module_ &M);
void bindEntries(nanobind::module_ &M);
void bindStorageThunks(nanobind::module_ &M);

} // namespace graphjit::python

namespace graphjit {
class Function;
}

namespace graphjit::python {

/// Function.c_entry(): an entry of F (the Function object FunctionObject
/// holds) with the inputs named in Bound bound to those arrays and those
/// in FreeShapes free, of those shapes (EntryBindings.cpp).
nanobind::object makeEntry(nanobind::handle FunctionObject, Function &F,
                           nanobind::dict Bound, nanobind::dict FreeShapes,
                           nanobind::sequence OutputShapes);

/// Function.storage_thunk(): PyTensor's thunk (StorageThunk.cpp) calling
/// the Function FunctionObject holds, which takes NumInputs inputs and
/// gives NumOutputs outputs, from and into the storage cells given.
nanobind::object makeStorageThunk(nanobind::handle FunctionObject,
                                  size_t NumInputs, size_t NumOutputs,
                                  nanobind::handle Inputs,
                                  nanobind::handle Outputs,
                                  nanobind::handle OnError);

/// Calls the graphjit.Function FunctionObject on Args (positional, borrowed)
/// and stores its outputs in order into Cells, PyTensor's storage cells
/// (lists of one element, one per output: makeStorageThunk checked them).
/// Throws the call's error as a Python exception.
void callIntoCells(nanobind::handle FunctionObject,
                   llvm::ArrayRef<PyObject *> Args,
                   llvm::ArrayRef<nanobind::object> Cells);

} // namespace graphjit::python

#endif
