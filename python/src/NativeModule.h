//===- NativeModule.h - The pieces of graphjit._graphjit --------*- C++ -*-===//
//
// The native module is bound in parts, one file each: arrays, graphs and
// modules, functions, profiles. NativeModule.cpp calls them in order.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PYTHON_NATIVEMODULE_H
#define GRAPHJIT_PYTHON_NATIVEMODULE_H

#include <nanobind/nanobind.h>

namespace graphjit::python {

/// graphjit.GraphjitError (a RuntimeError), created by the module.
PyObject *graphjitErrorType();

void bindProfiles(nanobind::module_ &M);
void bindGraphs(nanobind::module_ &M);
void bindFunctions(nanobind::module_ &M);

} // namespace graphjit::python

#endif
