//===- ReductionOps.cpp - sum, prod, max, min, all, any, mean ------------===//
//
// NumPy's reductions over any set of axes, with keepdims. Theano's classes:
// CAReduce (sum, prod, max, min, all, any) and Mean. dtypes follow NumPy on
// 64-bit Linux, except that sum and prod of u8 give i64 (NumPy: uint64, a
// dtype we lack). Float sums use NumPy's pairwise summation per row.
// argmax, argmin and max_and_argmax are in ArgReductionOps.cpp. prepare()
// checks and creates the output for the JIT (ReduceLowering.cpp), with the
// same errors as perform().
//
//===----------------------------------------------------------------------===//

#include "ops/reduction/ReductionOps.h"
#include "ops/reduction/PairwiseSum.h"
#include "ops/reduction/ReduceSupport.h"
#include "ops/StructuralParams.h"
#include "ops/StructuralOps.h"
#include "ops/StructuralUtil.h"
#include "graphjit/OpRegistry.h"
#include "ops/StandardOps.h"
#include "llvm/Support/Casting.h"
#include <cmath>
#include <limits>
#include <type_traits>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

namespace {

constexpr ReduceKindInfo Kinds[] = {
    {ReduceKind::Sum, "sum", "Sum", "add"},
    {ReduceKind::Prod, "prod", "Prod", "multiply"},
    {ReduceKind::Max, "max", "Max", "maximum"},
    {ReduceKind::Min, "min", "Min", "minimum"},
    {ReduceKind::Mean, "mean", "Mean", "add"},
    {ReduceKind::All, "all", "All", "logical_and"},
    {ReduceKind::Any, "any", "Any", "logical_or"},
};

/// NumPy's result dtype of each reduction.
DType reduceDType(ReduceKind K, DType In) {
  switch (K) {
  case ReduceKind::Sum:
  case ReduceKind::Prod: return isFloat(In) ? In : DType::I64;
  case ReduceKind::Mean: return isFloat(In) ? In : DType::F64;
  case ReduceKind::Max:
  case ReduceKind::Min: return In;
  case ReduceKind::All:
  case ReduceKind::Any: return DType::Bool;
  }
  return In;
}

/// Integers as two's-complement bits, so that sums and products wrap
/// around as NumPy's do instead of overflowing.
template <typename T> uint64_t wrapBits(T V) {
  return static_cast<uint64_t>(static_cast<int64_t>(V));
}

/// Fills Out (contiguous, OutT elements) with the reduction K of X.
template <typename T>
void reduceTyped(ReduceKind K, const NDArray &X, const ReducePlan &P,
                 const NDArray &Out) {
  constexpr bool IsFloat = std::is_floating_point_v<T>;
  auto Each = [&](auto &&F) { forEachReduction(X, P, F); };
  switch (K) {
  case ReduceKind::Sum:
    Each([&](const char *In, int64_t O) {
      if constexpr (IsFloat) {
        T S = 0;
        forEachReducedRow(In, P, [&](const char *R, int64_t St, int64_t N) {
          S += pairwiseSum<T, T>(R, St, N);
        });
        Out.dataAs<T>()[O] = S;
      } else {
        uint64_t S = 0;
        forEachReducedRow(In, P, [&](const char *R, int64_t St, int64_t N) {
          for (int64_t I = 0; I < N; ++I)
            S += wrapBits(loadAt<T>(R, St, I));
        });
        Out.dataAs<int64_t>()[O] = static_cast<int64_t>(S);
      }
    });
    return;
  case ReduceKind::Prod:
    Each([&](const char *In, int64_t O) {
      if constexpr (IsFloat) {
        T S = 1;
        forEachReducedRow(In, P, [&](const char *R, int64_t St, int64_t N) {
          for (int64_t I = 0; I < N; ++I)
            S *= loadAt<T>(R, St, I);
        });
        Out.dataAs<T>()[O] = S;
      } else {
        uint64_t S = 1;
        forEachReducedRow(In, P, [&](const char *R, int64_t St, int64_t N) {
          for (int64_t I = 0; I < N; ++I)
            S *= wrapBits(loadAt<T>(R, St, I));
        });
        Out.dataAs<int64_t>()[O] = static_cast<int64_t>(S);
      }
    });
    return;
  case ReduceKind::Mean: {
    // NumPy sums floats in their own dtype and integers in f64.
    using Acc = std::conditional_t<IsFloat, T, double>;
    const int64_t Count = P.InnerCount;
    Each([&](const char *In, int64_t O) {
      Acc S = 0;
      forEachReducedRow(In, P, [&](const char *R, int64_t St, int64_t N) {
        S += pairwiseSum<Acc, T>(R, St, N);
      });
      Out.dataAs<Acc>()[O] = Count == 0
                                 ? std::numeric_limits<Acc>::quiet_NaN()
                                 : S / static_cast<Acc>(Count);
    });
    return;
  }
  case ReduceKind::Max:
  case ReduceKind::Min: {
    const bool IsMax = K == ReduceKind::Max;
    Each([&](const char *In, int64_t O) {
      bool First = true;
      T Best{};
      forEachReducedRow(In, P, [&](const char *R, int64_t St, int64_t N) {
        for (int64_t I = 0; I < N; ++I) {
          T V = loadAt<T>(R, St, I);
          // A NaN, once taken, stays: NumPy's maximum propagates it.
          if (First || (!isNaN(Best) &&
                        (isNaN(V) || (IsMax ? V > Best : V < Best))))
            Best = V;
          First = false;
        }
      });
      Out.dataAs<T>()[O] = Best;
    });
    return;
  }
  case ReduceKind::All:
  case ReduceKind::Any: {
    const bool IsAll = K == ReduceKind::All;
    Each([&](const char *In, int64_t O) {
      bool R0 = IsAll;
      forEachReducedRow(In, P, [&](const char *R, int64_t St, int64_t N) {
        // NaN is true, as in NumPy.
        for (int64_t I = 0; I < N && R0 == IsAll; ++I)
          R0 = loadAt<T>(R, St, I) != T(0);
      });
      Out.dataAs<bool>()[O] = R0;
    });
    return;
  }
  }
}

Expected<OpRef> makeReduce(const ReduceKindInfo &Info, const AttrMap &Attrs) {
  AttrReader R(Info.FormatName, Attrs);
  if (Error E = R.checkOnly({"axis", "keepdims"}))
    return E;
  Expected<AxisList> Axes = readAxisAttr(R, Info.FormatName, false);
  if (!Axes)
    return Axes.takeError();
  Expected<bool> KeepDims = R.getBool("keepdims", false);
  if (!KeepDims)
    return KeepDims.takeError();
  return std::make_shared<ReduceOp>(Info, Attrs, std::move(*Axes), *KeepDims);
}

} // namespace

Expected<std::vector<TensorType>>
ReduceOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  const TensorType &X = In[0];
  Expected<std::vector<bool>> Mask = reducedMask(Axes, X.rank());
  if (!Mask)
    return Mask.takeError();
  if (!hasIdentity())
    for (unsigned I = 0; I < X.rank(); ++I)
      if ((*Mask)[I] && X.Dims[I].isKnown() && X.Dims[I].Size == 0)
        return noIdentity();
  return std::vector<TensorType>{TensorType(
      reduceDType(Info.K, X.Dtype), reducedDims(X.Dims, *Mask, KeepDims))};
}

Error ReduceOp::perform(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                        const ExecContext &) const {
  const NDArray &X = In[0];
  Expected<ReducePlan> P = plan(X, Out[0]);
  if (!P)
    return P.takeError();
  dispatchDType(X.dtype(), [&](auto Tag) {
    using T = typename decltype(Tag)::type;
    reduceTyped<T>(Info.K, X, *P, Out[0]);
  });
  return Error::success();
}

std::optional<ReductionInfo> ReduceOp::loweringInfo(unsigned Rank) const {
  Expected<std::vector<bool>> Mask = reducedMask(Axes, Rank);
  if (!Mask) {
    llvm::consumeError(Mask.takeError());
    return std::nullopt;
  }
  static constexpr ReductionInfo::Kind ByKind[] = {
      ReductionInfo::Sum,  ReductionInfo::Prod, ReductionInfo::Max,
      ReductionInfo::Min,  ReductionInfo::Mean, ReductionInfo::All,
      ReductionInfo::Any};
  return ReductionInfo{ByKind[int(Info.K)], std::move(*Mask), KeepDims};
}

Expected<ReducePlan> ReduceOp::plan(const NDArray &X, NDArray &Out) const {
  Expected<std::vector<bool>> Mask = reducedMask(Axes, X.rank());
  if (!Mask)
    return Mask.takeError();
  ReducePlan P = makeReducePlan(X, *Mask, KeepDims);
  if (P.EmptyReduction && !hasIdentity())
    return noIdentity();
  if (Error E = createOutput(Out, reduceDType(Info.K, X.dtype()), P.OutShape))
    return E;
  return P;
}

std::optional<ReductionInfo> graphjit::reductionInfo(const Op &O,
                                                     unsigned Rank) {
  const auto *R = llvm::dyn_cast<ReduceOp>(&O);
  if (!R)
    return std::nullopt;
  return R->loweringInfo(Rank);
}

void graphjit::registerReductionOps(OpRegistry &R) {
  const char *Summaries[] = {
      "sum over axes (all if no axis=), ints to i64: sum(x, axis=[0])",
      "product over axes, ints to i64: prod(x, axis=1, keepdims=true)",
      "maximum over axes, NaN propagates: max(x, axis=[1])",
      "minimum over axes, NaN propagates: min(x)",
      "arithmetic mean over axes, ints to f64: mean(x, axis=[0, 1])",
      "true where all elements along the axes are: all(x, axis=0)",
      "true where any element along the axes is: any(x)",
  };
  for (size_t I = 0; I < std::size(Kinds); ++I) {
    const ReduceKindInfo &Info = Kinds[I];
    R.add(OpSpec{Info.FormatName, 1, 1,
                 [&Info](const AttrMap &Attrs, unsigned) {
                   return makeReduce(Info, Attrs);
                 },
                 Summaries[I]});
  }
  registerArgReductionOps(R);
}
