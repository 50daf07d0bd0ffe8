//===- IndexingOps.cpp - subtensor (slices) and concatenate --------------===//
//
// Subtensor is a Python slice `x[start:stop:step]` on one axis, returned as
// a view; Join is NumPy's concatenate along one axis into a new array of the
// promoted dtype. For the JIT, prepare() makes the view or the new array;
// ShapeLowering.cpp copies Join's inputs.
//
//===----------------------------------------------------------------------===//

#include "ops/indexing/IndexingOps.h"
#include "ops/StructuralParams.h"
#include "ops/StructuralUtil.h"
#include "graphjit/OpRegistry.h"
#include "ops/StandardOps.h"
#include "llvm/Support/Casting.h"
#include <algorithm>
#include <optional>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

//===----------------------------------------------------------------------===//
// Subtensor
//===----------------------------------------------------------------------===//

namespace {

/// A slice resolved against a length, as PySlice_AdjustIndices does.
struct ResolvedSlice {
  int64_t Start = 0, Step = 1, Length = 0;
};

ResolvedSlice resolveSlice(int64_t Len, std::optional<int64_t> Start,
                           std::optional<int64_t> Stop, int64_t Step) {
  // Python clamps the step so that negating it cannot overflow.
  if (Step < -INT64_MAX)
    Step = -INT64_MAX;
  const bool Back = Step < 0;
  auto Clamp = [&](std::optional<int64_t> V, int64_t IfNone) {
    if (!V)
      return IfNone;
    int64_t I = *V;
    if (I < 0) {
      I += Len; // cannot overflow: I < 0 <= Len
      if (I < 0)
        I = Back ? -1 : 0;
    } else if (I >= Len) {
      I = Back ? Len - 1 : Len;
    }
    return I;
  };
  ResolvedSlice R;
  R.Step = Step;
  R.Start = Clamp(Start, Back ? Len - 1 : 0);
  int64_t End = Clamp(Stop, Back ? -1 : Len);
  if (Back)
    R.Length = End < R.Start ? (R.Start - End - 1) / (-Step) + 1 : 0;
  else
    R.Length = R.Start < End ? (End - R.Start - 1) / Step + 1 : 0;
  return R;
}

} // namespace

std::string SubtensorOp::name() const {
  auto Part = [](std::optional<int64_t> V) {
    return V ? std::to_string(*V) : std::string();
  };
  std::string S = "Subtensor{axis=" + std::to_string(Axis) + ", " +
                  Part(Start) + ":" + Part(Stop);
  if (Step)
    S += ":" + Part(Step);
  return S + "}";
}

Expected<std::vector<TensorType>>
SubtensorOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  TensorType T = In[0];
  if (T.rank() == 0)
    return opError("subtensor cannot slice a 0-d array (" + T.str() + ")");
  Expected<unsigned> A = checkAxis(Axis, T.rank());
  if (!A)
    return attrError("axis", llvm::toString(A.takeError()));
  Dim &D = T.Dims[*A];
  if (D.isKnown())
    D = Dim::known(resolveSlice(D.Size, Start, Stop, Step.value_or(1)).Length);
  else if (Start || Stop || Step.value_or(1) != 1)
    D = Dim::unknown(); // `x[::]` keeps even a symbolic dim
  return std::vector<TensorType>{T};
}

Error SubtensorOp::prepare(llvm::ArrayRef<NDArray> In,
                           std::vector<NDArray> &Out,
                           const ExecContext &) const {
  const NDArray &X = In[0];
  if (X.rank() == 0)
    return opError("subtensor cannot slice a 0-d array");
  Expected<unsigned> A = checkAxis(Axis, X.rank());
  if (!A)
    return A.takeError();
  ResolvedSlice R = resolveSlice(X.dim(*A), Start, Stop, Step.value_or(1));
  Shape S = X.shape(), St = X.strides();
  int64_t Offset = 0;
  // Only a slice of two or more elements uses the new stride, and only a
  // non-empty one reads at Start; both then lie inside the array.
  if (R.Length > 0 && __builtin_mul_overflow(R.Start, St[*A], &Offset))
    return opError("subtensor: byte offset overflows");
  if (R.Length > 1 && __builtin_mul_overflow(St[*A], R.Step, &St[*A]))
    return opError("subtensor: byte stride overflows");
  S[*A] = R.Length;
  Out[0] = X.view(S, St, Offset);
  return Error::success();
}

namespace {

Expected<OpRef> makeSubtensor(const AttrMap &Attrs, unsigned) {
  AttrReader R("subtensor", Attrs);
  if (Error E = R.checkOnly({"axis", "start", "stop", "step"}))
    return E;
  Expected<int64_t> Axis = R.getInt("axis", 0);
  if (!Axis)
    return Axis.takeError();
  std::optional<int64_t> Parts[3];
  const char *Keys[3] = {"start", "stop", "step"};
  for (int I = 0; I < 3; ++I) {
    if (!R.has(Keys[I]))
      continue;
    Expected<int64_t> V = R.getInt(Keys[I]);
    if (!V)
      return V.takeError();
    Parts[I] = *V;
  }
  if (Parts[2] && *Parts[2] == 0)
    return attrError("step", "slice step cannot be zero");
  return std::make_shared<SubtensorOp>(Attrs, *Axis, Parts[0], Parts[1],
                                       Parts[2]);
}

} // namespace

//===----------------------------------------------------------------------===//
// Join (concatenate)
//===----------------------------------------------------------------------===//

template <typename RankOf>
Error JoinOp::checkRanks(unsigned Rank, size_t N, RankOf &&RankAt) {
  if (Rank == 0)
    return opError("zero-dimensional arrays cannot be concatenated");
  for (size_t I = 1; I < N; ++I)
    if (RankAt(I) != Rank)
      return opError("all the input arrays must have same number of "
                     "dimensions, but the array at index 0 has " +
                     std::to_string(Rank) +
                     " dimension(s) and the array at index " +
                     std::to_string(I) + " has " +
                     std::to_string(RankAt(I)) + " dimension(s)");
  return Error::success();
}

Error JoinOp::dimMismatch(unsigned D, size_t I, int64_t SizeI, size_t J,
                          int64_t SizeJ) {
  return opError("all the input array dimensions except for the "
                 "concatenation axis must match exactly, but along "
                 "dimension " +
                 std::to_string(D) + ", the array at index " +
                 std::to_string(I) + " has size " + std::to_string(SizeI) +
                 " and the array at index " + std::to_string(J) +
                 " has size " + std::to_string(SizeJ));
}

Dim JoinOp::joinedDim(llvm::ArrayRef<TensorType> In, unsigned D) {
  if (In.size() == 1)
    return In[0].Dims[D];
  int64_t Sum = 0;
  for (const TensorType &X : In)
    if (!X.Dims[D].isKnown() ||
        __builtin_add_overflow(Sum, X.Dims[D].Size, &Sum))
      return Dim::unknown();
  return Dim::known(Sum);
}

Expected<std::vector<TensorType>>
JoinOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  const unsigned Rank = In[0].rank();
  if (Error E = checkRanks(Rank, In.size(), [&](size_t I) {
        return In[I].rank();
      }))
    return E;
  Expected<unsigned> A = checkAxis(Axis, Rank);
  if (!A)
    return attrError("axis", llvm::toString(A.takeError()));
  DType T = In[0].Dtype;
  for (const TensorType &X : In)
    T = promote(T, X.Dtype);
  std::vector<Dim> Dims;
  for (unsigned D = 0; D < Rank; ++D) {
    if (D == *A) {
      Dims.push_back(joinedDim(In, D));
      continue;
    }
    // Any known size fixes the dim; other known sizes must agree.
    std::optional<size_t> KnownAt;
    bool SameSymbol = true;
    for (size_t I = 0; I < In.size(); ++I) {
      const Dim &X = In[I].Dims[D];
      SameSymbol &= X.isSymbolic() && X == In[0].Dims[D];
      if (!X.isKnown())
        continue;
      if (KnownAt && In[*KnownAt].Dims[D].Size != X.Size)
        return dimMismatch(D, *KnownAt, In[*KnownAt].Dims[D].Size, I,
                           X.Size);
      if (!KnownAt)
        KnownAt = I;
    }
    Dims.push_back(KnownAt      ? In[*KnownAt].Dims[D]
                   : SameSymbol ? In[0].Dims[D]
                                : Dim::unknown());
  }
  return std::vector<TensorType>{TensorType(T, std::move(Dims))};
}

Error JoinOp::perform(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &Ctx) const {
  if (Error E = prepare(In, Out, Ctx))
    return E;
  const NDArray &R = Out[0];
  const unsigned A = *normalizedAxis(R.rank());
  if (elementCount(R.shape()) == 0)
    return Error::success();
  int64_t Offset = 0;
  for (const NDArray &X : In) {
    Shape Part = R.shape();
    Part[A] = X.dim(A);
    copyConvert(X, R.view(Part, R.strides(), Offset * R.strides()[A]));
    Offset += X.dim(A);
  }
  return Error::success();
}

Error JoinOp::prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const {
  const unsigned Rank = In[0].rank();
  if (Error E = checkRanks(Rank, In.size(),
                           [&](size_t I) { return In[I].rank(); }))
    return E;
  Expected<unsigned> A = checkAxis(Axis, Rank);
  if (!A)
    return A.takeError();
  Shape S = In[0].shape();
  S[*A] = 0;
  DType T = In[0].dtype();
  for (size_t I = 0; I < In.size(); ++I) {
    T = promote(T, In[I].dtype());
    for (unsigned D = 0; D < Rank; ++D)
      if (D != *A && In[I].dim(D) != In[0].dim(D))
        return dimMismatch(D, 0, In[0].dim(D), I, In[I].dim(D));
    if (__builtin_add_overflow(S[*A], In[I].dim(*A), &S[*A]))
      return opError("concatenate: the joined dim overflows");
  }
  return createOutput(Out[0], T, S);
}

namespace {

Expected<OpRef> makeJoin(const AttrMap &Attrs, unsigned) {
  AttrReader R("concatenate", Attrs);
  if (Error E = R.checkOnly({"axis"}))
    return E;
  Expected<int64_t> Axis = R.getInt("axis", 0);
  if (!Axis)
    return Axis.takeError();
  return std::make_shared<JoinOp>(Attrs, *Axis);
}

} // namespace

std::optional<SliceInfo> graphjit::sliceInfo(const Op &O, unsigned Rank) {
  const auto *S = llvm::dyn_cast<SubtensorOp>(&O);
  if (!S || Rank == 0)
    return std::nullopt;
  std::optional<unsigned> A = validAxis(S->axis(), Rank);
  if (!A)
    return std::nullopt;
  SliceInfo I;
  I.Axis = *A;
  I.Start = S->start();
  I.Stop = S->stop();
  I.Step = std::max(S->step().value_or(1), -INT64_MAX);
  return I;
}

std::optional<unsigned> graphjit::joinAxis(const Op &O, unsigned Rank) {
  const auto *J = llvm::dyn_cast<JoinOp>(&O);
  if (!J || Rank == 0)
    return std::nullopt;
  return J->normalizedAxis(Rank);
}

void graphjit::registerIndexingOps(OpRegistry &R) {
  R.add(OpSpec{"subtensor", 1, 1, makeSubtensor,
               "a Python slice of one axis, as a view: "
               "subtensor(x, axis=0, start=1, stop=-1, step=2)"});
  R.add(OpSpec{"concatenate", 1, -1, makeJoin,
               "NumPy concatenate along an axis: concatenate(a, b, axis=0)"});
}
