//===- Arrays.h - NumPy arrays and graphjit NDArrays ------------*- C++ -*-===//
//
// Both are strided arrays with byte strides, so an array crosses in either
// direction without a copy: a NumPy argument is borrowed for the length of
// a call, and a result becomes a NumPy array that keeps graphjit's buffer
// alive. Copies are made only to convert a dtype or to keep a shared
// variable's storage private.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PYTHON_ARRAYS_H
#define GRAPHJIT_PYTHON_ARRAYS_H

#include "graphjit/NDArray.h"
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <optional>
#include <string>
#include <vector>

namespace graphjit::python {

/// The graphjit dtype of a DLPack dtype (int8..int64, uint8, float32,
/// float64, bool), or none.
std::optional<DType> dtypeOf(nanobind::dlpack::dtype D);
/// graphjit's dtype of a NumPy dtype's name ("float64"), or of graphjit's
/// own spelling ("f64"); a TypeError otherwise.
DType parseDtypeName(const std::string &Name);

/// Loads NumPy's C API (once, when the module is imported).
void initNumpy();

/// A NumPy array on A's memory that keeps A's buffer alive; read-only
/// when asked (arrays handed to a Python perform).
nanobind::object toNumpy(NDArray A, bool ReadOnly = false);

/// Turns call arguments into NDArrays of the dtypes the function takes.
/// A NumPy array of the dtype is borrowed (the caller keeps it alive for
/// the call); other values are converted as Theano's inputs were (safe
/// casts only, Python scalars and lists included) and kept here.
class ArgumentConverter {
public:
  /// Name says which argument, for errors ("input 'x' (#0) of 'train'").
  /// Out is reused (NDArray::wrapInto): an argument allocates nothing.
  void convert(nanobind::handle Value, DType Want, const std::string &Name,
               NDArray &Out);
  NDArray convert(nanobind::handle Value, DType Want,
                  const std::string &Name) {
    NDArray A;
    convert(Value, Want, Name, A);
    return A;
  }

private:
  std::vector<nanobind::object> Converted;
};

/// A NumPy (or DLPack) array of exactly dtype T, or none, without
/// converting anything: the fast path of argument passing.
std::optional<NDArray> borrowIfExact(nanobind::handle Value, DType T);
/// As borrowIfExact, into Out (reused); false if Value is no such array.
bool borrowInto(nanobind::handle Value, DType T, NDArray &Out);

} // namespace graphjit::python

#endif
