//===- ArrayFnOps.cpp - alloc_to, arange, copy, diagonal, sort, ... -------===//
//
//   alloc_to(v, d0, d1, ...)   a new array of shape (d0, d1, ...), the 0-d
//                              integer inputs, holding v broadcast to it
//                              (PyTensor's Alloc to a shape known at run time)
//   arange(start, stop, step, dtype=i64)   np.arange, from 0-d inputs
//   copy(x)                    a new C-contiguous array equal to x
//                              (PyTensor's DeepCopyOp)
//   diagonal(x, offset=0, axis1=0, axis2=1)   np.diagonal, as a new array
//   alloc_diag(v, offset=0, axis1=0, axis2=1)  zeros with v's last dim on
//                              the offset diagonal of axes axis1 < axis2, the
//                              other axes v's leading dims (PyTensor's
//                              AllocDiag; np.diag for a vector)
//   sort(x, axis=-1), argsort(x, axis=-1)   np.sort and np.argsort (stable:
//                              equal elements keep their order; NaN last);
//                              without an axis, of the flattened array
//   advanced_subtensor(x, i0, i1, ..., pattern=[0, -1, 1])   NumPy's
//                              x[i0, :, i1]: pattern[k] is the index input
//                              of axis k, or -1 for a full slice
//   advanced_inc_subtensor(x, y, i0, ..., pattern=[...], set=false)
//                              x with y added at x[...] (np.add.at: once per
//                              repeated index), or stored there
//   nonzero(mask, x, axis=0, rank=1)   mask.nonzero(): one i64 vector per
//                              dim of the mask (rank of them), after
//                              checking that the mask matches x's dims from
//                              axis on (NumPy's IndexError) - a boolean
//                              index turned into integer arrays
//   reshape_to(x, shape, ndim=k)   np.reshape(x, shape) with shape a 1-D
//                              integer vector of k sizes (one may be -1)
//                              known at run time, as a new array
//   split_by(x, sizes, axis=0, n=k)   np.split of x along axis into the k
//                              pieces whose sizes the 1-D vector gives
//   repeat(x, repeats, axis=0)  np.repeat: repeats a 0-d or 1-D integer
//                              array; without axis, of the flattened array
//   block_diag(a, b, ...)      scipy.linalg.block_diag of matrices: each on
//                              the diagonal in turn, zeros elsewhere, in
//                              the promoted dtype
//   pivot_to_permutation(p, inverse=false)   LAPACK's 0-based row swaps
//                              (?getrf's pivots) as the permutation they
//                              make, or its inverse (PyTensor's
//                              PivotToPermutations)
//
// Each output's shape comes from input values or is plain to compute, so
// prepare() makes it and compute() fills it, for perform and the JIT alike.
// The attributes and the registry's entries are in ArrayFnRegistry.cpp.
//
//===----------------------------------------------------------------------===//

#include "ops/arrayfn/ArrayFnOps.h"
#include "ops/indexing/AdvancedIndexing.h"
#include "ops/Strided.h"
#include "ops/StructuralUtil.h"
#include <algorithm>
#include <cmath>
#include <numeric>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

namespace {

struct FnName {
  const char *Format, *Class;
};
constexpr FnName Names[] = {
    {"alloc_to", "Alloc"},     {"arange", "ARange"},
    {"copy", "DeepCopyOp"},    {"diagonal", "ExtractDiag"},
    {"alloc_diag", "AllocDiag"}, {"sort", "SortOp"},
    {"argsort", "ArgSortOp"},  {"pivot_to_permutation", "PivotToPermutations"},
    {"advanced_subtensor", "AdvancedSubtensor"},
    {"advanced_inc_subtensor", "AdvancedIncSubtensor"},
    {"nonzero", "Nonzero"},
    {"reshape_to", "Reshape"},
    {"split_by", "Split"},
    {"repeat", "Repeat"},
    {"block_diag", "BlockDiagonal"},
};

const FnName &names(ArrayFn F) { return Names[unsigned(F)]; }

/// The two diagonal axes of an array of rank R, normalized and checked.
Expected<std::pair<unsigned, unsigned>> diagAxes(const ArrayFnParams &P,
                                                 unsigned R) {
  Expected<unsigned> A1 = checkAxis(P.Axis1, R), A2 = checkAxis(P.Axis2, R);
  if (!A1)
    return A1.takeError();
  if (!A2)
    return A2.takeError();
  if (*A1 == *A2)
    return opError("axis1 and axis2 cannot be the same");
  return std::make_pair(*A1, *A2);
}

int64_t diagLength(int64_t Rows, int64_t Cols, int64_t Offset) {
  int64_t N = Offset >= 0 ? std::min(Rows, Cols - Offset)
                          : std::min(Rows + Offset, Cols);
  return std::max<int64_t>(N, 0);
}

/// np.sort's order: NaN after everything else.
template <typename T> bool before(T A, T B) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(B))
      return !std::isnan(A);
  return A < B;
}

} // namespace

std::string ArrayFnOp::name() const {
  switch (P.Fn) {
  case ArrayFn::Arange:
    return std::string("ARange{dtype=") + dtypeName(P.Dtype).str() + "}";
  case ArrayFn::Diagonal:
  case ArrayFn::AllocDiag:
    return std::string(names(P.Fn).Class) + "{offset=" +
           std::to_string(P.Offset) + ", axis1=" + std::to_string(P.Axis1) +
           ", axis2=" + std::to_string(P.Axis2) + "}";
  case ArrayFn::Sort:
  case ArrayFn::Argsort:
    return std::string(names(P.Fn).Class) + "{axis=" +
           (P.Axis ? std::to_string(*P.Axis) : std::string("None")) + "}";
  case ArrayFn::PivotToPermutation:
    return std::string("PivotToPermutations{inverse=") +
           (P.Inverse ? "True" : "False") + "}";
  case ArrayFn::Nonzero:
    return "Nonzero{axis=" + std::to_string(P.Axis1) +
           ", rank=" + std::to_string(P.MaskRank) + "}";
  case ArrayFn::ReshapeTo:
    return "Reshape{ndim=" + std::to_string(P.MaskRank) + "}";
  case ArrayFn::SplitBy:
    return "Split{axis=" + std::to_string(P.Axis1) +
           ", n=" + std::to_string(P.MaskRank) + "}";
  case ArrayFn::Repeat:
    return std::string("Repeat{axis=") +
           (P.Axis ? std::to_string(*P.Axis) : std::string("None")) + "}";
  case ArrayFn::AdvancedSubtensor:
    return "AdvancedSubtensor{" + intListStr(P.Pattern) + "}";
  case ArrayFn::AdvancedIncSubtensor:
    return std::string(P.Set ? "AdvancedSetSubtensor{" : "AdvancedIncSubtensor{") +
           intListStr(P.Pattern) + "}";
  default:
    return names(P.Fn).Class;
  }
}

llvm::StringRef ArrayFnOp::className() const { return names(P.Fn).Class; }

llvm::StringRef graphjit::arrayFnFormatName(ArrayFn F) {
  return names(F).Format;
}

unsigned ArrayFnOp::numOutputs() const {
  return P.Fn == ArrayFn::Nonzero || P.Fn == ArrayFn::SplitBy ? P.MaskRank
                                                               : 1;
}

Expected<std::vector<TensorType>>
ArrayFnOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  const TensorType &X = In[0];
  auto Scalars = [&](size_t From, const char *What) -> Error {
    for (size_t I = From; I < In.size(); ++I)
      if (In[I].rank() != 0 || isFloat(In[I].Dtype) == (What[0] == 'i'))
        return opError(llvm::Twine(names(P.Fn).Format) + ": input " +
                       llvm::Twine(I) + " must be a 0-d " + What + ", not " +
                       In[I].str());
    return Error::success();
  };
  switch (P.Fn) {
  case ArrayFn::AllocTo: {
    if (Error E = Scalars(1, "integer"))
      return E;
    size_t R = In.size() - 1;
    if (X.rank() > R)
      return opError("alloc_to: v of rank " + llvm::Twine(X.rank()) +
                     " into " + llvm::Twine(R) + " dims");
    return std::vector<TensorType>{
        TensorType(X.Dtype, std::vector<Dim>(R, Dim::unknown()))};
  }
  case ArrayFn::Arange:
    for (const TensorType &T : In)
      if (T.rank() != 0)
        return opError("arange: start, stop and step are 0-d, not " + T.str());
    return std::vector<TensorType>{TensorType(P.Dtype, {Dim::unknown()})};
  case ArrayFn::Copy:
    return std::vector<TensorType>{X};
  case ArrayFn::Diagonal: {
    if (X.rank() < 2)
      return opError("diagonal: an array of rank 2 or more, not " + X.str());
    auto Axes = diagAxes(P, X.rank());
    if (!Axes)
      return Axes.takeError();
    std::vector<Dim> Dims;
    for (unsigned D = 0; D < X.rank(); ++D)
      if (D != Axes->first && D != Axes->second)
        Dims.push_back(X.Dims[D]);
    const Dim &R = X.Dims[Axes->first], &C = X.Dims[Axes->second];
    Dims.push_back(R.isKnown() && C.isKnown()
                       ? Dim::known(diagLength(R.Size, C.Size, P.Offset))
                       : Dim::unknown());
    return std::vector<TensorType>{TensorType(X.Dtype, std::move(Dims))};
  }
  case ArrayFn::AllocDiag: {
    if (X.rank() < 1)
      return opError("alloc_diag: a vector or more, not " + X.str());
    auto Axes = diagAxes(P, X.rank() + 1);
    if (!Axes)
      return Axes.takeError();
    const Dim &L = X.Dims.back();
    Dim N = L.isKnown() ? Dim::known(L.Size + std::abs(P.Offset))
                        : Dim::unknown();
    std::vector<Dim> Dims;
    size_t Lead = 0;
    for (unsigned D = 0; D <= X.rank(); ++D)
      Dims.push_back(D == Axes->first || D == Axes->second ? N
                                                           : X.Dims[Lead++]);
    return std::vector<TensorType>{TensorType(X.Dtype, std::move(Dims))};
  }
  case ArrayFn::Sort:
  case ArrayFn::Argsort: {
    DType T = P.Fn == ArrayFn::Sort ? X.Dtype : DType::I64;
    if (!P.Axis) {
      int64_t N = 1;
      for (const Dim &D : X.Dims)
        N = D.isKnown() && N >= 0 ? N * D.Size : -1;
      return std::vector<TensorType>{
          TensorType(T, {N >= 0 ? Dim::known(N) : Dim::unknown()})};
    }
    if (Expected<unsigned> A = checkAxis(*P.Axis, X.rank()); !A)
      return A.takeError();
    return std::vector<TensorType>{TensorType(T, X.Dims)};
  }
  case ArrayFn::AdvancedSubtensor: {
    auto Dims = advancedIndexDims(X, In.drop_front(), P.Pattern);
    if (!Dims)
      return Dims.takeError();
    return std::vector<TensorType>{TensorType(X.Dtype, std::move(*Dims))};
  }
  case ArrayFn::AdvancedIncSubtensor: {
    if (In.size() < 3)
      return opError("advanced_inc_subtensor takes x, y and index arrays");
    if (In[1].Dtype != X.Dtype)
      return opError("advanced_inc_subtensor: y (" + In[1].str() +
                     ") must have x's dtype (" + X.str() + ")");
    auto Dims = advancedIndexDims(X, In.drop_front(2), P.Pattern);
    if (!Dims)
      return Dims.takeError();
    if (In[1].rank() > Dims->size())
      return opError("advanced_inc_subtensor: y (" + In[1].str() +
                     ") has more dims than x[...]");
    return std::vector<TensorType>{X};
  }
  case ArrayFn::Nonzero: {
    const TensorType &Like = In[1];
    if (X.Dtype != DType::Bool || X.rank() != P.MaskRank)
      return opError("nonzero: a bool mask of rank " +
                     llvm::Twine(P.MaskRank) + ", not " + X.str());
    if (P.Axis1 < 0 || P.Axis1 + int64_t(P.MaskRank) > int64_t(Like.rank()))
      return opError("nonzero: a mask of rank " + llvm::Twine(P.MaskRank) +
                     " at axis " + llvm::Twine(P.Axis1) + " of " + Like.str());
    return std::vector<TensorType>(
        P.MaskRank, TensorType(DType::I64, {Dim::unknown()}));
  }
  case ArrayFn::ReshapeTo:
  case ArrayFn::SplitBy:
  case ArrayFn::Repeat: {
    const TensorType &S = In[1];
    bool Vector = P.Fn != ArrayFn::Repeat;
    if (isFloat(S.Dtype) || S.Dtype == DType::Bool ||
        (Vector ? S.rank() != 1 : S.rank() > 1))
      return opError(llvm::Twine(names(P.Fn).Format) + ": " +
                     (Vector ? "a 1-D integer vector" : "a 0-d or 1-D integer "
                                                        "array") +
                     " of sizes, not " + S.str());
    if (P.Fn == ArrayFn::ReshapeTo)
      return std::vector<TensorType>{TensorType(
          X.Dtype, std::vector<Dim>(P.MaskRank, Dim::unknown()))};
    if (P.Fn == ArrayFn::Repeat && !P.Axis)
      return std::vector<TensorType>{TensorType(X.Dtype, {Dim::unknown()})};
    int64_t A = P.Fn == ArrayFn::SplitBy ? P.Axis1 : *P.Axis;
    Expected<unsigned> Axis = checkAxis(A, X.rank());
    if (!Axis)
      return Axis.takeError();
    std::vector<Dim> Dims = X.Dims;
    Dims[*Axis] = Dim::unknown();
    return std::vector<TensorType>(numOutputs(), TensorType(X.Dtype, Dims));
  }
  case ArrayFn::BlockDiag: {
    DType T = X.Dtype;
    int64_t Rows = 0, Cols = 0;
    for (const TensorType &M : In) {
      if (M.rank() != 2)
        return opError("block_diag: matrices, not " + M.str());
      T = promote(T, M.Dtype);
      Rows = Rows >= 0 && M.Dims[0].isKnown() ? Rows + M.Dims[0].Size : -1;
      Cols = Cols >= 0 && M.Dims[1].isKnown() ? Cols + M.Dims[1].Size : -1;
    }
    return std::vector<TensorType>{TensorType(
        T, {Rows >= 0 ? Dim::known(Rows) : Dim::unknown(),
            Cols >= 0 ? Dim::known(Cols) : Dim::unknown()})};
  }
  case ArrayFn::PivotToPermutation:
    if (X.rank() != 1 || isFloat(X.Dtype))
      return opError("pivot_to_permutation: an integer vector, not " +
                     X.str());
    return std::vector<TensorType>{TensorType(DType::I64, X.Dims)};
  }
  return opError("unknown array function");
}

Error ArrayFnOp::prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                         const ExecContext &) const {
  const NDArray &X = In[0];
  switch (P.Fn) {
  case ArrayFn::AllocTo: {
    Shape S;
    for (size_t I = 1; I < In.size(); ++I) {
      int64_t D = In[I].getInt(0);
      if (D < 0)
        return opError("alloc_to: a negative dimension " + llvm::Twine(D));
      S.push_back(D);
    }
    size_t Lead = S.size() - X.rank();
    for (size_t D = 0; D < X.rank(); ++D)
      if (X.dim(D) != 1 && X.dim(D) != S[Lead + D])
        return opError("alloc_to: could not broadcast v of shape " +
                       compactShapeStr(X.shape()) + " to " +
                       compactShapeStr(S));
    return createOutput(Out[0], X.dtype(), S);
  }
  case ArrayFn::Arange: {
    double Start = In[0].getDouble(0), Stop = In[1].getDouble(0),
           Step = In[2].getDouble(0);
    if (Step == 0)
      return opError("arange: step is 0 (Maximum allowed size exceeded)");
    double Len = std::ceil((Stop - Start) / Step);
    if (!(Len < 9.0e15))
      return opError("arange: too many elements");
    return createOutput(Out[0], P.Dtype, {std::max<int64_t>(int64_t(Len), 0)});
  }
  case ArrayFn::Copy:
    return createOutput(Out[0], X.dtype(), X.shape());
  case ArrayFn::Diagonal: {
    auto Axes = diagAxes(P, X.rank());
    if (!Axes)
      return Axes.takeError();
    Shape S;
    for (unsigned D = 0; D < X.rank(); ++D)
      if (D != Axes->first && D != Axes->second)
        S.push_back(X.dim(D));
    S.push_back(diagLength(X.dim(Axes->first), X.dim(Axes->second), P.Offset));
    return createOutput(Out[0], X.dtype(), S);
  }
  case ArrayFn::AllocDiag: {
    auto Axes = diagAxes(P, X.rank() + 1);
    if (!Axes)
      return Axes.takeError();
    int64_t N = X.shape().back() + std::abs(P.Offset);
    Shape S;
    size_t Lead = 0;
    for (unsigned D = 0; D <= X.rank(); ++D)
      S.push_back(D == Axes->first || D == Axes->second ? N : X.dim(Lead++));
    return createOutput(Out[0], X.dtype(), S);
  }
  case ArrayFn::Sort:
  case ArrayFn::Argsort: {
    DType T = P.Fn == ArrayFn::Sort ? X.dtype() : DType::I64;
    if (!P.Axis)
      return createOutput(Out[0], T, {X.numElements()});
    if (Expected<unsigned> A = checkAxis(*P.Axis, X.rank()); !A)
      return A.takeError();
    return createOutput(Out[0], T, X.shape());
  }
  case ArrayFn::PivotToPermutation:
    return createOutput(Out[0], DType::I64, X.shape());
  case ArrayFn::AdvancedSubtensor: {
    Expected<Shape> S = advancedIndexShape(X, In.drop_front(), P.Pattern);
    if (!S)
      return S.takeError();
    return createOutput(Out[0], X.dtype(), *S);
  }
  case ArrayFn::AdvancedIncSubtensor:
    return createOutput(Out[0], X.dtype(), X.shape());
  case ArrayFn::ReshapeTo: {
    const NDArray &Sh = In[1];
    if (Sh.numElements() != int64_t(P.MaskRank))
      return opError("Shape argument to Reshape has incorrect length: " +
                     llvm::Twine(Sh.numElements()) + ", should be " +
                     llvm::Twine(P.MaskRank));
    Shape S;
    int64_t Known = 1, Infer = -1;
    for (int64_t K = 0; K < Sh.numElements(); ++K) {
      int64_t D = Sh.getInt(K);
      if (D == -1 && Infer < 0) {
        Infer = K;
        S.push_back(1);
        continue;
      }
      if (D < 0)
        return opError("reshape: a size of " + llvm::Twine(D));
      S.push_back(D);
      Known *= D;
    }
    int64_t Total = X.numElements();
    if (Infer >= 0 && Known != 0 && Total % Known == 0)
      S[size_t(Infer)] = Total / Known;
    if (numElementsOf(S) != Total || (Infer >= 0 && Known == 0))
      return opError("cannot reshape array of size " + llvm::Twine(Total) +
                     " into shape " + compactShapeStr(S));
    return createOutput(Out[0], X.dtype(), S);
  }
  case ArrayFn::SplitBy: {
    Expected<unsigned> Axis = checkAxis(P.Axis1, X.rank());
    if (!Axis)
      return Axis.takeError();
    const NDArray &Sizes = In[1];
    if (Sizes.numElements() != int64_t(P.MaskRank))
      return opError("Length of splits is not equal to n_splits");
    int64_t Sum = 0;
    for (int64_t K = 0; K < Sizes.numElements(); ++K) {
      if (Sizes.getInt(K) < 0)
        return opError("Split sizes cannot be negative");
      Sum += Sizes.getInt(K);
    }
    if (Sum != X.dim(*Axis))
      return opError("Split sizes sum to " + llvm::Twine(Sum) +
                     "; expected " + llvm::Twine(X.dim(*Axis)));
    for (unsigned K = 0; K < P.MaskRank; ++K) {
      Shape S = X.shape();
      S[*Axis] = Sizes.getInt(K);
      if (Error E = createOutput(Out[K], X.dtype(), S))
        return E;
    }
    return Error::success();
  }
  case ArrayFn::Repeat: {
    const NDArray &Rep = In[1];
    int64_t Len = P.Axis ? 0 : X.numElements();
    unsigned Axis = 0;
    if (P.Axis) {
      Expected<unsigned> A = checkAxis(*P.Axis, X.rank());
      if (!A)
        return A.takeError();
      Axis = *A;
      Len = X.dim(Axis);
    }
    int64_t Total = 0;
    if (Rep.rank() == 0 || Rep.numElements() == 1) {
      Total = Rep.getInt(0) * Len;
      if (Rep.getInt(0) < 0)
        return opError("repeats may not contain negative values.");
    } else {
      if (Rep.numElements() != Len)
        return opError("operands could not be broadcast together with "
                       "shape (" + llvm::Twine(Len) + ",) (" +
                       llvm::Twine(Rep.numElements()) + ",)");
      for (int64_t K = 0; K < Len; ++K) {
        if (Rep.getInt(K) < 0)
          return opError("repeats may not contain negative values.");
        Total += Rep.getInt(K);
      }
    }
    Shape S = P.Axis ? X.shape() : Shape{Total};
    if (P.Axis)
      S[Axis] = Total;
    return createOutput(Out[0], X.dtype(), S);
  }
  case ArrayFn::BlockDiag: {
    DType T = X.dtype();
    int64_t Rows = 0, Cols = 0;
    for (const NDArray &M : In) {
      if (M.rank() != 2)
        return opError("block_diag: matrices, not rank " +
                       llvm::Twine(M.rank()));
      T = promote(T, M.dtype());
      Rows += M.dim(0);
      Cols += M.dim(1);
    }
    return createOutput(Out[0], T, {Rows, Cols});
  }
  case ArrayFn::Nonzero: {
    const NDArray &Like = In[1];
    for (unsigned K = 0; K < P.MaskRank; ++K) {
      int64_t Axis = P.Axis1 + K;
      if (X.dim(K) != Like.dim(unsigned(Axis)))
        return opError("IndexError: boolean index did not match indexed "
                       "array along axis " + llvm::Twine(Axis) +
                       "; size of axis is " + llvm::Twine(Like.dim(unsigned(Axis))) +
                       " but size of corresponding boolean axis is " +
                       llvm::Twine(X.dim(K)));
    }
    int64_t Count = 0;
    for (int64_t I = 0, E = X.numElements(); I < E; ++I)
      Count += X.getInt(I) != 0;
    for (unsigned K = 0; K < P.MaskRank; ++K)
      if (Error E = createOutput(Out[K], DType::I64, {Count}))
        return E;
    return Error::success();
  }
  }
  return opError("unknown array function");
}

namespace {

/// Sorts (or argsorts) every line of X along Axis into Out (both of the
/// same shape; Out is C-contiguous).
void sortLines(const NDArray &X, const NDArray &Out, unsigned Axis,
               bool Indices) {
  Shape Lines = X.shape(), XStrides = X.strides(), OStrides = Out.strides();
  int64_t Len = Lines[Axis], XStep = XStrides[Axis], OStep = OStrides[Axis];
  Lines.erase(Lines.begin() + Axis);
  XStrides.erase(XStrides.begin() + Axis);
  OStrides.erase(OStrides.begin() + Axis);
  LoopOperand Ops[2] = {{X.data(), XStrides}, {Out.data(), OStrides}};
  std::vector<int64_t> Order(static_cast<size_t>(std::max<int64_t>(Len, 0)));
  dispatchDType(X.dtype(), [&](auto Tag) {
    using T = typename decltype(Tag)::type;
    forEachRow(Lines, Ops, [&](char **Ptr, const int64_t *St, int64_t N) {
      for (int64_t K = 0; K < N; ++K) {
        const char *Src = Ptr[0] + K * St[0];
        char *Dst = Ptr[1] + K * St[1];
        auto At = [&](int64_t I) {
          return *reinterpret_cast<const T *>(Src + I * XStep);
        };
        std::iota(Order.begin(), Order.end(), 0);
        std::stable_sort(Order.begin(), Order.end(), [&](int64_t A, int64_t B) {
          return before(At(A), At(B));
        });
        for (int64_t I = 0; I < Len; ++I) {
          if (Indices)
            *reinterpret_cast<int64_t *>(Dst + I * OStep) = Order[size_t(I)];
          else
            *reinterpret_cast<T *>(Dst + I * OStep) = At(Order[size_t(I)]);
        }
      }
    });
  });
}

} // namespace

Error ArrayFnOp::compute(llvm::ArrayRef<NDArray> In, llvm::ArrayRef<NDArray> Out,
                         const ExecContext &) const {
  const NDArray &X = In[0], &O = Out[0];
  switch (P.Fn) {
  case ArrayFn::AllocTo: {
    // v seen with O's shape: stride 0 along the dims it broadcasts.
    Shape St(O.rank(), 0);
    size_t Lead = O.rank() - X.rank();
    for (size_t D = 0; D < X.rank(); ++D)
      if (X.dim(D) != 1)
        St[Lead + D] = X.strides()[D];
    copyConvert(X.view(O.shape(), St), O);
    return Error::success();
  }
  case ArrayFn::Arange: {
    double Start = In[0].getDouble(0), Step = In[2].getDouble(0);
    bool Integral = !isFloat(In[0].dtype()) && !isFloat(In[1].dtype()) &&
                    !isFloat(In[2].dtype());
    int64_t IStart = In[0].getInt(0), IStep = In[2].getInt(0);
    dispatchDType(O.dtype(), [&](auto Tag) {
      using T = typename decltype(Tag)::type;
      T *Dst = O.dataAs<T>();
      for (int64_t I = 0; I < O.numElements(); ++I)
        Dst[I] = Integral ? T(IStart + I * IStep) : T(Start + double(I) * Step);
    });
    return Error::success();
  }
  case ArrayFn::Copy:
    copyConvert(X, O);
    return Error::success();
  case ArrayFn::Diagonal: {
    auto Axes = diagAxes(P, X.rank());
    if (!Axes)
      return Axes.takeError();
    // The diagonal as a strided view of X: one step along both axes.
    int64_t S1 = X.strides()[Axes->first], S2 = X.strides()[Axes->second];
    Shape St;
    for (unsigned D = 0; D < X.rank(); ++D)
      if (D != Axes->first && D != Axes->second)
        St.push_back(X.strides()[D]);
    St.push_back(S1 + S2);
    int64_t Start = P.Offset >= 0 ? P.Offset * S2 : -P.Offset * S1;
    if (O.numElements() == 0)
      return Error::success();
    copyConvert(NDArray::wrap(X.data() + Start, X.dtype(), O.shape(), St), O);
    return Error::success();
  }
  case ArrayFn::AllocDiag: {
    auto Axes = diagAxes(P, X.rank() + 1);
    if (!Axes)
      return Axes.takeError();
    fillWith(O, 0);
    // X's elements land at a strided view of O: X's leading dims on O's
    // other axes, its last dim one step along both diagonal axes.
    int64_t S1 = O.strides()[Axes->first], S2 = O.strides()[Axes->second];
    Shape St;
    for (unsigned D = 0; D <= X.rank(); ++D)
      if (D != Axes->first && D != Axes->second)
        St.push_back(O.strides()[D]);
    St.push_back(S1 + S2);
    int64_t Start = P.Offset >= 0 ? P.Offset * S2 : -P.Offset * S1;
    if (X.numElements() != 0)
      copyConvert(X, NDArray::wrap(O.data() + Start, O.dtype(), X.shape(), St));
    return Error::success();
  }
  case ArrayFn::Sort:
  case ArrayFn::Argsort: {
    bool Indices = P.Fn == ArrayFn::Argsort;
    if (!P.Axis) {
      NDArray Flat = X.contiguous();
      Flat = Flat.view({X.numElements()}, {int64_t(X.elementSize())});
      sortLines(Flat, O, 0, Indices);
      return Error::success();
    }
    sortLines(X, O, *checkAxis(*P.Axis, X.rank()), Indices);
    return Error::success();
  }
  case ArrayFn::AdvancedSubtensor:
    return advancedGather(X, In.drop_front(), P.Pattern, O);
  case ArrayFn::AdvancedIncSubtensor:
    copyConvert(X, O);
    return advancedScatter(In[1], In.drop_front(2), P.Pattern, P.Set, O);
  case ArrayFn::ReshapeTo: {
    // X's elements in C order, into the new shape.
    NDArray Flat = X.contiguous();
    copyConvert(Flat.view(O.shape(), O.strides()), O);
    return Error::success();
  }
  case ArrayFn::SplitBy: {
    unsigned Axis = *checkAxis(P.Axis1, X.rank());
    int64_t Start = 0;
    for (unsigned K = 0; K < P.MaskRank; ++K) {
      const NDArray &Piece = Out[K];
      if (Piece.numElements() != 0)
        copyConvert(NDArray::wrap(X.data() + Start * X.strides()[Axis],
                                  X.dtype(), Piece.shape(), X.strides()),
                    Piece);
      Start += Piece.dim(Axis);
    }
    return Error::success();
  }
  case ArrayFn::Repeat: {
    // Each slice along the axis (an element without one) copied its
    // repeat count of times, in order.
    NDArray Src = P.Axis ? X : X.contiguous();
    unsigned Axis = 0;
    if (!P.Axis)
      Src = Src.view({X.numElements()}, {int64_t(X.elementSize())});
    else
      Axis = *checkAxis(*P.Axis, X.rank());
    const NDArray &Rep = In[1];
    bool One = Rep.rank() == 0 || Rep.numElements() == 1;
    Shape Slice = Src.shape(), SliceSt = Src.strides(), OutSt = O.strides();
    Slice.erase(Slice.begin() + Axis);
    SliceSt.erase(SliceSt.begin() + Axis);
    OutSt.erase(OutSt.begin() + Axis);
    int64_t Row = 0;
    for (int64_t I = 0; I < Src.dim(Axis); ++I) {
      int64_t Times = One ? Rep.getInt(0) : Rep.getInt(I);
      NDArray From = NDArray::wrap(Src.data() + I * Src.strides()[Axis],
                                   Src.dtype(), Slice, SliceSt);
      for (int64_t T = 0; T < Times; ++T, ++Row)
        copyConvert(From, NDArray::wrap(O.data() + Row * O.strides()[Axis],
                                        O.dtype(), Slice, OutSt));
    }
    return Error::success();
  }
  case ArrayFn::BlockDiag: {
    fillWith(O, 0);
    int64_t Row = 0, Col = 0;
    for (const NDArray &M : In) {
      if (M.numElements() != 0)
        copyConvert(M, NDArray::wrap(O.data() + Row * O.strides()[0] +
                                         Col * O.strides()[1],
                                     O.dtype(), M.shape(), O.strides()));
      Row += M.dim(0);
      Col += M.dim(1);
    }
    return Error::success();
  }
  case ArrayFn::Nonzero: {
    // C order, as numpy: each true element's index, one output per dim.
    Shape Multi(X.rank(), 0);
    int64_t Next = 0;
    for (int64_t I = 0, E = X.numElements(); I < E; ++I) {
      if (X.getInt(I) != 0) {
        for (unsigned K = 0; K < X.rank(); ++K)
          Out[K].dataAs<int64_t>()[Next] = Multi[K];
        ++Next;
      }
      for (size_t K = X.rank(); K-- > 0;) {
        if (++Multi[K] < X.dim(unsigned(K)))
          break;
        Multi[K] = 0;
      }
    }
    return Error::success();
  }
  case ArrayFn::PivotToPermutation: {
    int64_t N = X.numElements();
    std::vector<int64_t> Perm(static_cast<size_t>(N));
    std::iota(Perm.begin(), Perm.end(), 0);
    for (int64_t I = 0; I < N; ++I) {
      int64_t J = X.getInt(I);
      if (J < 0 || J >= N)
        return opError("pivot_to_permutation: pivot " + llvm::Twine(J) +
                       " out of range for " + llvm::Twine(N) + " rows");
      std::swap(Perm[size_t(I)], Perm[size_t(J)]);
    }
    int64_t *Dst = O.dataAs<int64_t>();
    for (int64_t I = 0; I < N; ++I) {
      if (P.Inverse)
        Dst[I] = Perm[size_t(I)];
      else
        Dst[Perm[size_t(I)]] = I; // the argsort of a permutation
    }
    return Error::success();
  }
  }
  return Error::success();
}
