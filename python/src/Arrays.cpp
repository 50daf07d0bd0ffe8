//===- Arrays.cpp - NumPy arrays and graphjit NDArrays --------------------===//
#include "Arrays.h"
#include "Errors.h"
#include <nanobind/stl/string.h>

// NumPy's C API, for the call path only: an argument is read and a result
// made in a few dozen nanoseconds, where the generic DLPack route costs
// microseconds.
#define PY_ARRAY_UNIQUE_SYMBOL graphjit_numpy_api
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

namespace nb = nanobind;
using namespace graphjit;
using namespace graphjit::python;
using nb::dlpack::dtype_code;
using namespace nb::literals;

std::optional<DType> graphjit::python::dtypeOf(nb::dlpack::dtype D) {
  if (D.lanes != 1)
    return std::nullopt;
  switch (dtype_code(D.code)) {
  case dtype_code::Bool:
    return D.bits == 8 ? std::optional(DType::Bool) : std::nullopt;
  case dtype_code::Int:
    switch (D.bits) {
    case 8: return DType::I8;
    case 16: return DType::I16;
    case 32: return DType::I32;
    case 64: return DType::I64;
    }
    return std::nullopt;
  case dtype_code::UInt:
    return D.bits == 8 ? std::optional(DType::U8) : std::nullopt;
  case dtype_code::Float:
    if (D.bits == 32)
      return DType::F32;
    if (D.bits == 64)
      return DType::F64;
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

DType graphjit::python::parseDtypeName(const std::string &Name) {
  if (std::optional<DType> T = parseDType(Name))
    return *T;
  for (DType T : AllDTypes)
    if (dtypeNumpyName(T) == Name)
      return T;
  throw nb::type_error(("graphjit has no dtype '" + Name +
                        "' (it has float64, float32, int64, int32, int16, "
                        "int8, uint8 and bool)")
                           .c_str());
}

void graphjit::python::initNumpy() {
  if (_import_array() < 0)
    throw nb::python_error();
}

static int numpyTypeOf(DType T) {
  switch (T) {
  case DType::Bool: return NPY_BOOL;
  case DType::I8: return NPY_INT8;
  case DType::I16: return NPY_INT16;
  case DType::I32: return NPY_INT32;
  case DType::I64: return NPY_INT64;
  case DType::U8: return NPY_UINT8;
  case DType::F32: return NPY_FLOAT32;
  case DType::F64: break;
  }
  return NPY_FLOAT64;
}

/// From the descriptor's kind and size: NumPy has two type numbers for
/// int64 (long and long long) on Linux.
static std::optional<DType> dtypeOfNumpy(PyArray_Descr *D) {
  int Size = int(PyDataType_ELSIZE(D));
  switch (D->kind) {
  case 'b': return DType::Bool;
  case 'u': return Size == 1 ? std::optional(DType::U8) : std::nullopt;
  case 'i':
    switch (Size) {
    case 1: return DType::I8;
    case 2: return DType::I16;
    case 4: return DType::I32;
    case 8: return DType::I64;
    }
    return std::nullopt;
  case 'f':
    if (Size == 4)
      return DType::F32;
    if (Size == 8)
      return DType::F64;
    return std::nullopt;
  }
  return std::nullopt;
}

nb::object graphjit::python::toNumpy(NDArray Value, bool ReadOnly) {
  // The capsule owns the array: its reference to the buffer is what keeps
  // the memory alive for as long as NumPy needs it.
  auto *Owner = new NDArray(std::move(Value));
  const NDArray &A = *Owner;
  nb::capsule Capsule(Owner, [](void *P) noexcept {
    delete static_cast<NDArray *>(P);
  });
  static_assert(sizeof(npy_intp) == sizeof(int64_t));
  int Flags = ReadOnly ? 0 : NPY_ARRAY_WRITEABLE;
  PyObject *Array = PyArray_NewFromDescr(
      &PyArray_Type, PyArray_DescrFromType(numpyTypeOf(A.dtype())),
      int(A.rank()), const_cast<npy_intp *>(A.shape().data()),
      const_cast<npy_intp *>(A.strides().data()), A.data(), Flags, nullptr);
  if (!Array)
    throw nb::python_error();
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject *>(Array),
                            Capsule.release().ptr()) < 0) {
    Py_DECREF(Array);
    throw nb::python_error();
  }
  return nb::steal(Array);
}

static NDArray borrowNd(const nb::ndarray<> &A, DType T) {
  Shape S(A.ndim()), Strides(A.ndim());
  int64_t Item = int64_t(dtypeSize(T));
  for (size_t I = 0; I < A.ndim(); ++I) {
    S[I] = int64_t(A.shape(I));
    Strides[I] = A.stride(I) * Item;
  }
  return NDArray::wrap(const_cast<void *>(A.data()), T, S, Strides);
}

bool graphjit::python::borrowInto(nb::handle Value, DType T, NDArray &Out) {
  if (PyArray_Check(Value.ptr())) {
    auto *A = reinterpret_cast<PyArrayObject *>(Value.ptr());
    std::optional<DType> Has = dtypeOfNumpy(PyArray_DESCR(A));
    if (!Has || *Has != T || !PyArray_ISNOTSWAPPED(A))
      return false;
    static_assert(sizeof(npy_intp) == sizeof(int64_t));
    int Rank = PyArray_NDIM(A);
    const int64_t *Dims = reinterpret_cast<const int64_t *>(PyArray_DIMS(A));
    const int64_t *Steps =
        reinterpret_cast<const int64_t *>(PyArray_STRIDES(A));
    NDArray::wrapInto(Out, PyArray_DATA(A), T, llvm::ArrayRef(Dims, Rank),
                      llvm::ArrayRef(Steps, Rank));
    return true;
  }
  nb::ndarray<> A;
  if (!nb::try_cast(Value, A, /*convert=*/false))
    return false;
  if (A.device_type() != nb::device::cpu::value)
    return false;
  std::optional<DType> Has = dtypeOf(A.dtype());
  if (!Has || *Has != T)
    return false;
  Out = borrowNd(A, T);
  return true;
}

std::optional<NDArray> graphjit::python::borrowIfExact(nb::handle Value,
                                                        DType T) {
  NDArray A;
  if (!borrowInto(Value, T, A))
    return std::nullopt;
  return A;
}

void ArgumentConverter::convert(nb::handle Value, DType Want,
                                const std::string &Name, NDArray &Out) {
  if (borrowInto(Value, Want, Out))
    return;
  // The slow path: let NumPy say what the value is, and convert it when
  // nothing is lost (Theano's inputs without allow_input_downcast).
  nb::module_ Np = nb::module_::import_("numpy");
  std::string WantName = dtypeNumpyName(Want).str();
  nb::object Array;
  try {
    Array = Np.attr("asarray")(Value);
  } catch (nb::python_error &E) {
    throw nb::type_error((Name + ": cannot be read as an array: " +
                          E.what())
                             .c_str());
  }
  nb::object Have = Array.attr("dtype");
  bool IsPythonScalar = nb::isinstance<nb::float_>(Value) ||
                        nb::isinstance<nb::int_>(Value) ||
                        nb::isinstance<nb::bool_>(Value) ||
                        nb::isinstance<nb::list>(Value) ||
                        nb::isinstance<nb::tuple>(Value);
  auto CanCast = [&](const char *Rule) {
    return PyObject_IsTrue(Np.attr("can_cast")(Have, WantName, Rule).ptr()) ==
           1;
  };
  bool Safe = CanCast("safe");
  if (!Safe && IsPythonScalar)
    // A Python number takes the input's dtype when it converts exactly,
    // as NumPy treats Python scalars.
    Safe = CanCast("same_kind");
  if (!Safe)
    throw nb::type_error(
        (Name + ": expected " + WantName + ", got an array of " +
         nb::cast<std::string>(nb::str(Have)) +
         " (graphjit converts only where nothing is lost; convert it with "
         ".astype('" + WantName + "') first)")
            .c_str());
  nb::object Copy =
      Np.attr("asarray")(Array, "dtype"_a = WantName, "order"_a = "C");
  if (!borrowInto(Copy, Want, Out))
    throw nb::type_error((Name + ": cannot be converted to " + WantName)
                             .c_str());
  Converted.push_back(std::move(Copy));
}
