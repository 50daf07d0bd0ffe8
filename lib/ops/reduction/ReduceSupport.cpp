//===- ReduceSupport.cpp - Axes and loops shared by the reductions -------===//

#include "ops/reduction/ReduceSupport.h"
#include "ops/StructuralUtil.h"

using namespace graphjit;
using llvm::Expected;

Expected<AxisList> graphjit::readAxisAttr(const AttrReader &R,
                                          llvm::StringRef OpName,
                                          bool SingleAxis) {
  if (!R.has("axis"))
    return AxisList();
  Expected<std::vector<int64_t>> Axes = R.getIntList("axis");
  if (!Axes)
    return Axes.takeError();
  if (SingleAxis && Axes->size() != 1)
    return attrError("axis", "'" + OpName +
                                 "' takes a single axis or none (all axes, "
                                 "flattened), not " +
                                 R.get("axis")->str());
  for (size_t I = 0; I < Axes->size(); ++I)
    for (size_t J = 0; J < I; ++J)
      if ((*Axes)[I] == (*Axes)[J])
        return attrError("axis", "duplicate value in 'axis'");
  return AxisList(std::move(*Axes));
}

std::string graphjit::axisNameStr(const AxisList &Axes) {
  return "axis=" + (Axes ? intListStr(*Axes) : std::string("all"));
}

Expected<std::vector<bool>> graphjit::reducedMask(const AxisList &Axes,
                                                  unsigned Rank) {
  if (!Axes)
    return std::vector<bool>(Rank, true);
  Expected<std::vector<unsigned>> Norm = checkAxes(*Axes, Rank);
  if (!Norm)
    return attrError("axis", llvm::toString(Norm.takeError()));
  std::vector<bool> Mask(Rank, false);
  for (unsigned A : *Norm)
    Mask[A] = true;
  return Mask;
}

std::vector<Dim> graphjit::reducedDims(llvm::ArrayRef<Dim> In,
                                       const std::vector<bool> &Mask,
                                       bool KeepDims) {
  std::vector<Dim> Out;
  for (size_t I = 0; I < In.size(); ++I) {
    if (!Mask[I])
      Out.push_back(In[I]);
    else if (KeepDims)
      Out.push_back(Dim::known(1));
  }
  return Out;
}

/// Merges neighbouring dims that one stride walks through (and drops dims
/// of size 1), keeping the C order of the elements: longer rows, fewer
/// loops, and NumPy's pairwise sums over whole contiguous blocks.
static void coalesce(Shape &Dims, Shape &Strides) {
  Shape D, S;
  for (size_t I = 0; I < Dims.size(); ++I) {
    if (Dims[I] == 1)
      continue;
    int64_t Span;
    if (!D.empty() && !__builtin_mul_overflow(Strides[I], Dims[I], &Span) &&
        S.back() == Span && !__builtin_mul_overflow(D.back(), Dims[I], &Span)) {
      D.back() = Span;
      S.back() = Strides[I];
      continue;
    }
    D.push_back(Dims[I]);
    S.push_back(Strides[I]);
  }
  Dims = std::move(D);
  Strides = std::move(S);
}

ReducePlan graphjit::makeReducePlan(const NDArray &X,
                                    const std::vector<bool> &Mask,
                                    bool KeepDims) {
  ReducePlan P;
  for (unsigned I = 0; I < X.rank(); ++I) {
    if (Mask[I]) {
      P.InnerShape.push_back(X.dim(I));
      P.InnerStrides.push_back(X.strides()[I]);
      // An empty output may pair with huge reduced dims; saturate.
      if (__builtin_mul_overflow(P.InnerCount, X.dim(I), &P.InnerCount))
        P.InnerCount = INT64_MAX;
      P.EmptyReduction |= X.dim(I) == 0;
      if (KeepDims)
        P.OutShape.push_back(1);
    } else {
      P.OuterShape.push_back(X.dim(I));
      P.OuterStrides.push_back(X.strides()[I]);
      P.OutShape.push_back(X.dim(I));
    }
  }
  coalesce(P.InnerShape, P.InnerStrides);
  coalesce(P.OuterShape, P.OuterStrides);
  return P;
}
