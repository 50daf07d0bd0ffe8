//===- CheckOps.cpp - specify_shape and assert ----------------------------===//
//
//   specify_shape(x, shape=[1, -1])   x, once its shape matches (-1: any
//                                     size); the output's type has the
//                                     sizes given (PyTensor's SpecifyShape)
//   assert(x, c0, c1, ...)            x, once every c is nonzero
//                                     (PyTensor's CheckAndRaise and Assert,
//                                     whose message the bridge keeps)
//
// Both are views of x. A failed check's words start "AssertionError: ",
// PyTensor's exception for both (the Python bridge raises the node's own
// exception type for an assert).
//
//===----------------------------------------------------------------------===//

#include "ops/shape/CheckOps.h"
#include "ops/StructuralUtil.h"
#include "graphjit/OpRegistry.h"
#include "ops/StandardOps.h"

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

std::string CheckOp::name() const {
  if (IsAssert)
    return "CheckAndRaise";
  return "SpecifyShape{" + intListStr(Sizes) + "}";
}

Expected<std::vector<TensorType>>
CheckOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  TensorType X = In[0];
  if (IsAssert) {
    for (size_t I = 1; I < In.size(); ++I)
      if (In[I].rank() != 0)
        return opError("assert: condition " + llvm::Twine(I - 1) +
                       " has rank " + llvm::Twine(In[I].rank()) +
                       ", a scalar (rank 0) expected");
    return std::vector<TensorType>{X};
  }
  if (Sizes.size() != X.rank())
    return opError("specify_shape: " + llvm::Twine(Sizes.size()) +
                   " sizes for an input of rank " + llvm::Twine(X.rank()));
  for (size_t D = 0; D < Sizes.size(); ++D) {
    if (Sizes[D] < 0)
      continue;
    if (X.Dims[D].isKnown() && X.Dims[D].Size != Sizes[D])
      return opError("specify_shape: dim " + llvm::Twine(D) + " of " +
                     X.str() + " is not " + llvm::Twine(Sizes[D]));
    X.Dims[D] = Dim::known(Sizes[D]);
  }
  return std::vector<TensorType>{X};
}

Error CheckOp::prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                       const ExecContext &) const {
  const NDArray &X = In[0];
  if (IsAssert) {
    for (size_t I = 1; I < In.size(); ++I)
      if (In[I].numElements() != 1 || In[I].getDouble(0) == 0)
        return opError("AssertionError: condition " + llvm::Twine(I - 1) +
                       " of the assert is false");
  } else {
    bool Ok = X.rank() == Sizes.size();
    for (size_t D = 0; Ok && D < Sizes.size(); ++D)
      Ok = Sizes[D] < 0 || X.dim(D) == Sizes[D];
    if (!Ok) {
      std::string Want = "(";
      for (size_t D = 0; D < Sizes.size(); ++D)
        Want += (D ? ", " : "") +
                (Sizes[D] < 0 ? std::string("None") : std::to_string(Sizes[D]));
      Want += Sizes.size() == 1 ? ",)" : ")";
      return opError("AssertionError: SpecifyShape: Got shape " +
                     compactShapeStr(X.shape()) + ", expected " + Want + ".");
    }
  }
  Out[0] = X.view(X.shape(), X.strides());
  return Error::success();
}

namespace {

Expected<OpRef> makeSpecifyShape(const AttrMap &Attrs, unsigned) {
  AttrReader R("specify_shape", Attrs);
  if (Error E = R.checkOnly({"shape"}))
    return E;
  Expected<std::vector<int64_t>> S = R.getIntList("shape");
  if (!S)
    return S.takeError();
  for (int64_t V : *S)
    if (V < -1)
      return opError("specify_shape: a size of " + llvm::Twine(V) +
                     " (-1 stands for any size)");
  return std::make_shared<CheckOp>("specify_shape", Attrs, false, *S);
}

Expected<OpRef> makeAssert(const AttrMap &Attrs, unsigned) {
  AttrReader R("assert", Attrs);
  if (Error E = R.checkOnly({}))
    return E;
  return std::make_shared<CheckOp>("assert", Attrs, true,
                                   std::vector<int64_t>{});
}

} // namespace

void graphjit::registerCheckOps(OpRegistry &R) {
  R.add(OpSpec{"specify_shape", 1, 1, makeSpecifyShape,
               "x, checked to have the shape given (-1: any size): "
               "specify_shape(x, shape=[1, -1])"});
  R.add(OpSpec{"assert", 1, -1, makeAssert,
               "x, checked that every further input is nonzero: "
               "assert(x, c0, c1)"});
}
