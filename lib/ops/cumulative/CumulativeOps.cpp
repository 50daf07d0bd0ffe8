//===- CumulativeOps.cpp - Running sums and products along an axis -------===//
//
// cumsum(x, axis=k) and cumprod(x, axis=k): NumPy's, and Theano's CumOp
// (PyMC's ordered and stick-breaking transforms use them). Without an axis
// they run over the flattened array, as NumPy's do. The dtype is NumPy's:
// floats keep theirs; bool and the integers accumulate in i64 (NumPy gives
// uint64 for uint8, which graphjit does not have: i64 holds every sum of
// fewer than 2^55 bytes). The JIT runs the same loop in IR, with a planned
// output (lib/codegen/CumulativeLowering.cpp); compute() is perform's.
//
//===----------------------------------------------------------------------===//

#include "ops/cumulative/CumulativeOps.h"
#include "ops/Strided.h"
#include "ops/StructuralParams.h"
#include "ops/StructuralUtil.h"
#include "graphjit/OpRegistry.h"
#include "ops/StandardOps.h"
#include "llvm/Support/Casting.h"

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

namespace {

DType accumulatorDType(DType T) { return isFloat(T) ? T : DType::I64; }

} // namespace

Expected<std::vector<TensorType>>
CumOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  const TensorType &X = In[0];
  DType T = accumulatorDType(X.Dtype);
  if (!Axis) {
    // The flattened array: its length is known when every dim is.
    int64_t N = 1;
    for (const Dim &D : X.Dims)
      N = D.isKnown() && N >= 0 ? N * D.Size : -1;
    return std::vector<TensorType>{
        TensorType(T, {N >= 0 ? Dim::known(N) : Dim::unknown()})};
  }
  if (Expected<unsigned> A = checkAxis(*Axis, X.rank()); !A)
    return A.takeError();
  return std::vector<TensorType>{TensorType(T, X.Dims)};
}

Error CumOp::prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                     const ExecContext &) const {
  const NDArray &X = In[0];
  Shape S = Axis ? X.shape() : Shape{X.numElements()};
  return createOutput(Out[0], accumulatorDType(X.dtype()), S);
}

Error CumOp::compute(llvm::ArrayRef<NDArray> In, llvm::ArrayRef<NDArray> Out,
                     const ExecContext &) const {
  const NDArray &O = Out[0];
  // The input in the output's dtype and shape (a flattened copy without
  // an axis), then the running sum or product in place along the axis.
  NDArray X = In[0];
  if (!Axis) {
    X = X.contiguous();
    X = X.view(O.shape(), contiguousStrides(O.shape(), X.elementSize()));
  }
  copyConvert(X, O);
  if (O.numElements() == 0)
    return Error::success();
  unsigned A = 0;
  if (Axis) {
    Expected<unsigned> Checked = checkAxis(*Axis, O.rank());
    if (!Checked)
      return Checked.takeError();
    A = *Checked;
  }
  // Every line along the axis: the loop shape with the axis taken out.
  Shape Lines = O.shape(), Strides = O.strides();
  int64_t Len = Lines[A], Step = Strides[A];
  Lines.erase(Lines.begin() + A);
  Strides.erase(Strides.begin() + A);
  LoopOperand Ops[1] = {{O.data(), Strides}};
  dispatchDType(O.dtype(), [&](auto Tag) {
    using E = typename decltype(Tag)::type;
    forEachRow(Lines, Ops, [&](char **P, const int64_t *St, int64_t N) {
      for (int64_t K = 0; K < N; ++K) {
        char *Line = P[0] + K * St[0];
        E Acc = *reinterpret_cast<E *>(Line);
        for (int64_t I = 1; I < Len; ++I) {
          E &V = *reinterpret_cast<E *>(Line + I * Step);
          if constexpr (std::is_floating_point_v<E>)
            Acc = Product ? Acc * V : Acc + V;
          else // NumPy wraps around; signed overflow would be undefined
            Acc = E(Product ? uint64_t(Acc) * uint64_t(V)
                            : uint64_t(Acc) + uint64_t(V));
          V = Acc;
        }
      }
    });
  });
  return Error::success();
}

std::optional<CumulativeInfo> graphjit::cumulativeInfo(const Op &O,
                                                      unsigned Rank) {
  const auto *C = llvm::dyn_cast<CumOp>(&O);
  if (!C)
    return std::nullopt;
  CumulativeInfo I;
  I.Product = C->isProduct();
  if (C->axis()) {
    I.Axis = validAxis(*C->axis(), Rank);
    if (!I.Axis)
      return std::nullopt;
  }
  return I;
}

double CumOp::flops(llvm::ArrayRef<Shape>, llvm::ArrayRef<Shape> Out) const {
  return Out.empty() ? 0 : double(elementCount(Out[0]));
}

namespace {

Expected<OpRef> makeCum(llvm::StringRef Name, bool Product,
                        const AttrMap &Attrs) {
  AttrReader R(Name, Attrs);
  if (Error E = R.checkOnly({"axis"}))
    return E;
  std::optional<int64_t> Axis;
  if (R.has("axis")) {
    Expected<int64_t> A = R.getInt("axis");
    if (!A)
      return A.takeError();
    Axis = *A;
  }
  return std::make_shared<CumOp>(Name, Attrs, Product, Axis);
}

} // namespace

void graphjit::registerCumulativeOps(OpRegistry &R) {
  R.add(OpSpec{"cumsum", 1, 1,
               [](const AttrMap &A, unsigned) {
                 return makeCum("cumsum", false, A);
               },
               "running sum along an axis (np.cumsum): cumsum(x, axis=0); "
               "no axis: of the flattened array"});
  R.add(OpSpec{"cumprod", 1, 1,
               [](const AttrMap &A, unsigned) {
                 return makeCum("cumprod", true, A);
               },
               "running product along an axis (np.cumprod): "
               "cumprod(x, axis=0)"});
}
