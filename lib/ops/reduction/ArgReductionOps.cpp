//===- ArgReductionOps.cpp - argmax, argmin, max_and_argmax --------------===//
//
// The reductions that return positions: NumPy's argmax and argmin along one
// axis or over the flattened array (ties: the first index; a NaN counts as
// the extreme, so the first NaN's index wins), and Theano's MaxAndArgmax,
// which returns the maximum and its index as two outputs. prepare() checks
// and creates the outputs for the JIT (ReduceLowering.cpp).
//
//===----------------------------------------------------------------------===//

#include "ops/reduction/ArgReductionOps.h"
#include "ops/reduction/ReduceSupport.h"
#include "ops/StructuralParams.h"
#include "ops/StructuralOps.h"
#include "ops/StructuralUtil.h"
#include "graphjit/OpRegistry.h"
#include "ops/StandardOps.h"
#include "llvm/Support/Casting.h"
#include <cmath>
#include <type_traits>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

namespace {

/// The index (C order within the reduction) and value of the extreme
/// element of the reduction starting at In. The reduction is not empty.
template <typename T>
std::pair<int64_t, T> extremeOf(const char *In, const ReducePlan &P,
                                bool IsMax) {
  int64_t Index = 0, BestIndex = 0;
  T Best{};
  bool First = true, Done = false;
  forEachReducedRow(In, P, [&](const char *R, int64_t St, int64_t N) {
    for (int64_t I = 0; I < N && !Done; ++I, ++Index) {
      T V = *reinterpret_cast<const T *>(R + I * St);
      if (First || isNaN(V) || (IsMax ? V > Best : V < Best)) {
        Best = V;
        BestIndex = Index;
        First = false;
        // The first NaN is the answer; nothing later replaces it.
        Done = isNaN(V);
      }
    }
  });
  return {BestIndex, Best};
}

/// The lowering's view of an arg-reduction over Axes of a rank-Rank input.
std::optional<ReductionInfo> argLoweringInfo(ReductionInfo::Kind K,
                                             const AxisList &Axes,
                                             bool KeepDims, unsigned Rank) {
  Expected<std::vector<bool>> Mask = reducedMask(Axes, Rank);
  if (!Mask) {
    llvm::consumeError(Mask.takeError());
    return std::nullopt;
  }
  return ReductionInfo{K, std::move(*Mask), KeepDims};
}

template <bool IsMax>
Expected<OpRef> makeArgReduce(const AttrMap &Attrs, unsigned) {
  const char *Name = IsMax ? "argmax" : "argmin";
  AttrReader R(Name, Attrs);
  if (Error E = R.checkOnly({"axis", "keepdims"}))
    return E;
  Expected<AxisList> Axes = readAxisAttr(R, Name, /*SingleAxis=*/true);
  if (!Axes)
    return Axes.takeError();
  Expected<bool> KeepDims = R.getBool("keepdims", false);
  if (!KeepDims)
    return KeepDims.takeError();
  return std::make_shared<ArgReduceOp>(IsMax, Attrs, std::move(*Axes),
                                       *KeepDims);
}

Expected<OpRef> makeMaxAndArgmax(const AttrMap &Attrs, unsigned) {
  AttrReader R("max_and_argmax", Attrs);
  if (Error E = R.checkOnly({"axis"}))
    return E;
  Expected<AxisList> Axes =
      readAxisAttr(R, "max_and_argmax", /*SingleAxis=*/true);
  if (!Axes)
    return Axes.takeError();
  return std::make_shared<MaxAndArgmaxOp>(Attrs, std::move(*Axes));
}

} // namespace

Expected<std::vector<TensorType>>
ArgReduceOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  const TensorType &X = In[0];
  Expected<std::vector<bool>> Mask = reducedMask(Axes, X.rank());
  if (!Mask)
    return Mask.takeError();
  for (unsigned I = 0; I < X.rank(); ++I)
    if ((*Mask)[I] && X.Dims[I].isKnown() && X.Dims[I].Size == 0)
      return emptyError();
  return std::vector<TensorType>{
      TensorType(DType::I64, reducedDims(X.Dims, *Mask, KeepDims))};
}

Error ArgReduceOp::perform(llvm::ArrayRef<NDArray> In,
                           std::vector<NDArray> &Out,
                           const ExecContext &) const {
  const NDArray &X = In[0];
  Expected<ReducePlan> P = plan(X, Out);
  if (!P)
    return P.takeError();
  int64_t *R = Out[0].dataAs<int64_t>();
  dispatchDType(X.dtype(), [&](auto Tag) {
    using T = typename decltype(Tag)::type;
    forEachReduction(X, *P, [&](const char *Base, int64_t O) {
      R[O] = extremeOf<T>(Base, *P, IsMax).first;
    });
  });
  return Error::success();
}

std::optional<ReductionInfo> ArgReduceOp::loweringInfo(unsigned Rank) const {
  return argLoweringInfo(IsMax ? ReductionInfo::Argmax : ReductionInfo::Argmin,
                         Axes, KeepDims, Rank);
}

Expected<ReducePlan> ArgReduceOp::plan(const NDArray &X,
                                       std::vector<NDArray> &Out) const {
  Expected<std::vector<bool>> Mask = reducedMask(Axes, X.rank());
  if (!Mask)
    return Mask.takeError();
  ReducePlan P = makeReducePlan(X, *Mask, KeepDims);
  if (P.EmptyReduction)
    return emptyError();
  if (Error E = createOutput(Out[0], DType::I64, P.OutShape))
    return E;
  return P;
}

Expected<std::vector<TensorType>>
MaxAndArgmaxOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  const TensorType &X = In[0];
  Expected<std::vector<bool>> Mask = reducedMask(Axes, X.rank());
  if (!Mask)
    return Mask.takeError();
  for (unsigned I = 0; I < X.rank(); ++I)
    if ((*Mask)[I] && X.Dims[I].isKnown() && X.Dims[I].Size == 0)
      return emptyError();
  std::vector<Dim> Dims = reducedDims(X.Dims, *Mask, false);
  return std::vector<TensorType>{TensorType(X.Dtype, Dims),
                                 TensorType(DType::I64, Dims)};
}

Error MaxAndArgmaxOp::perform(llvm::ArrayRef<NDArray> In,
                              std::vector<NDArray> &Out,
                              const ExecContext &) const {
  const NDArray &X = In[0];
  Expected<ReducePlan> P = plan(X, Out);
  if (!P)
    return P.takeError();
  int64_t *Idx = Out[1].dataAs<int64_t>();
  dispatchDType(X.dtype(), [&](auto Tag) {
    using T = typename decltype(Tag)::type;
    T *Max = Out[0].dataAs<T>();
    forEachReduction(X, *P, [&](const char *Base, int64_t O) {
      std::pair<int64_t, T> R = extremeOf<T>(Base, *P, /*IsMax=*/true);
      Idx[O] = R.first;
      Max[O] = R.second;
    });
  });
  return Error::success();
}

std::optional<ReductionInfo> MaxAndArgmaxOp::loweringInfo(unsigned Rank) const {
  return argLoweringInfo(ReductionInfo::MaxAndArgmax, Axes, false, Rank);
}

Expected<ReducePlan> MaxAndArgmaxOp::plan(const NDArray &X,
                                          std::vector<NDArray> &Out) const {
  Expected<std::vector<bool>> Mask = reducedMask(Axes, X.rank());
  if (!Mask)
    return Mask.takeError();
  ReducePlan P = makeReducePlan(X, *Mask, false);
  if (P.EmptyReduction)
    return emptyError();
  if (Out.size() < 2)
    Out.resize(2);
  if (Error E = createOutput(Out[0], X.dtype(), P.OutShape))
    return E;
  if (Error E = createOutput(Out[1], DType::I64, P.OutShape))
    return E;
  return P;
}

std::optional<ReductionInfo> graphjit::argReductionInfo(const Op &O,
                                                        unsigned Rank) {
  if (const auto *A = llvm::dyn_cast<ArgReduceOp>(&O))
    return A->loweringInfo(Rank);
  if (const auto *M = llvm::dyn_cast<MaxAndArgmaxOp>(&O))
    return M->loweringInfo(Rank);
  return std::nullopt;
}

void graphjit::registerArgReductionOps(OpRegistry &R) {
  R.add(OpSpec{"argmax", 1, 1, makeArgReduce<true>,
               "index of the maximum along one axis or of the flattened "
               "array; ties and NaN: the first: argmax(x, axis=1)"});
  R.add(OpSpec{"argmin", 1, 1, makeArgReduce<false>,
               "index of the minimum along one axis or of the flattened "
               "array: argmin(x)"});
  R.add(OpSpec{"max_and_argmax", 1, 1, makeMaxAndArgmax,
               "the maximum and its index, two outputs: "
               "m, i = max_and_argmax(x, axis=1)"});
}
