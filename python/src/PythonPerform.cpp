//===- PythonPerform.cpp - A Python op's perform, called from JIT code ----===//
//
// Runs on whatever thread runs the call, which released the GIL: takes it,
// hands the inputs to Python as read-only NumPy arrays (copies for the
// inputs the op destroys), and copies the results into graphjit arrays of
// the declared dtypes, so that nothing Python keeps can change them later.
// An exception is parked for the caller (Errors.h) and reported to the
// linker as an error, which names the Apply.
//
//===----------------------------------------------------------------------===//
#include "Arrays.h"
#include "Errors.h"
#include "PythonOp.h"
#include <cstring>
#include <nanobind/stl/string.h>

namespace nb = nanobind;
using namespace nb::literals;
using namespace graphjit;
using namespace graphjit::python;

static llvm::Error resultError(const std::string &Message) {
  return llvm::createStringError("the Python perform " + Message);
}

/// Copies one result into a new array of type T.
static llvm::Expected<NDArray> resultArray(nb::handle R, const TensorType &T,
                                           unsigned Index) {
  // Most performs return C-contiguous arrays of the declared dtype: those
  // are copied as they are; anything else goes through np.asarray first.
  nb::object A = nb::borrow(R);
  std::optional<NDArray> Got = borrowIfExact(A, T.Dtype);
  if (!Got || !Got->isContiguous()) {
    // Kept for the life of the process (never released at exit, after the
    // interpreter is gone).
    static nb::handle AsArray =
        nb::object(nb::module_::import_("numpy").attr("asarray")).release();
    A = AsArray(R, "dtype"_a = dtypeNumpyName(T.Dtype).str(),
                "order"_a = "C");
    Got = borrowIfExact(A, T.Dtype);
  }
  if (!Got)
    return resultError("returned an output " + std::to_string(Index) +
                       " that is not an array");
  if (Got->rank() != T.rank())
    return resultError("returned output " + std::to_string(Index) +
                       " of shape " + shapeStr(Got->shape()) + " where " +
                       T.str() + " was declared");
  llvm::Expected<NDArray> Out = NDArray::empty(T.Dtype, Got->shape());
  if (!Out)
    return Out.takeError();
  if (Got->numBytes())
    std::memcpy(Out->data(), Got->data(), Got->numBytes());
  return Out;
}

static llvm::Error callPerform(const PythonOpSpec &Spec,
                               llvm::ArrayRef<NDArray> Inputs,
                               std::vector<NDArray> &Outputs) {
  nb::list Args;
  for (unsigned I = 0; I < Inputs.size(); ++I) {
    bool Destroyed = std::find(Spec.Destroyed.begin(), Spec.Destroyed.end(),
                               I) != Spec.Destroyed.end();
    // Arrays of the call are borrowed (their buffer is not reference
    // counted), so Python gets an owned copy where it may write or keep.
    Args.append(Destroyed ? toNumpy(Inputs[I].copy(), false)
                          : toNumpy(Inputs[I], true));
  }
  nb::object Results = nb::handle(Spec.Perform)(Args);
  nb::sequence Seq = nb::cast<nb::sequence>(Results);
  size_t N = nb::len(Seq);
  if (N != Spec.Outputs.size())
    return resultError("returned " + std::to_string(N) + " outputs, " +
                       std::to_string(Spec.Outputs.size()) + " expected");
  Outputs.resize(N);
  for (unsigned I = 0; I < N; ++I) {
    llvm::Expected<NDArray> A = resultArray(Seq[I], Spec.Outputs[I], I);
    if (!A)
      return A.takeError();
    Outputs[I] = std::move(*A);
  }
  return llvm::Error::success();
}

llvm::Error graphjit::python::runPythonPerform(const PythonOpSpec &Spec,
                                               llvm::ArrayRef<NDArray> Inputs,
                                               std::vector<NDArray> &Outputs) {
  nb::gil_scoped_acquire Gil;
  try {
    return callPerform(Spec, Inputs, Outputs);
  } catch (nb::python_error &E) {
    E.restore();
  } catch (const std::exception &E) {
    PyErr_SetString(PyExc_RuntimeError, E.what());
  }
  return llvm::createStringError(parkPythonError());
}
