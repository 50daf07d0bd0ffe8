//===- AdvancedIndexing.cpp - NumPy's integer-array indexing -------------===//
//
// Both directions walk the same plan: the broadcast index shape B, the
// sliced axes of x, and where B's dims sit among the output's. Each
// element of B picks (after bounds checks) a base offset into x; the
// sliced axes then form a strided block copied to or from the output.
//
//===----------------------------------------------------------------------===//

#include "AdvancedIndexing.h"
#include "Strided.h"
#include "StructuralUtil.h"

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

namespace {

/// Which axes of x are indexed and whether they are adjacent.
struct Axes {
  std::vector<unsigned> Indexed, Sliced;
  bool Adjacent = true;
  unsigned First = 0; ///< the first indexed axis
};

Expected<Axes> classify(unsigned Rank, size_t NumIndices,
                        const IndexPattern &Pattern) {
  if (Pattern.size() > Rank)
    return opError("advanced index: " + llvm::Twine(Pattern.size()) +
                   " indices for an array of rank " + llvm::Twine(Rank));
  Axes A;
  std::vector<bool> Used(NumIndices, false);
  for (unsigned D = 0; D < Rank; ++D) {
    int64_t P = D < Pattern.size() ? Pattern[D] : -1;
    if (P < 0) {
      A.Sliced.push_back(D);
      continue;
    }
    if (size_t(P) >= NumIndices || Used[size_t(P)])
      return opError("advanced index: pattern entry " + llvm::Twine(P) +
                     " is not a distinct index input");
    Used[size_t(P)] = true;
    A.Indexed.push_back(D);
  }
  if (A.Indexed.empty())
    return opError("advanced index: no index array");
  A.First = A.Indexed.front();
  A.Adjacent = A.Indexed.back() - A.First + 1 == A.Indexed.size();
  return A;
}

/// NumPy's broadcast of the index arrays' shapes.
Expected<Shape> broadcastIndices(llvm::ArrayRef<NDArray> Indices) {
  size_t Rank = 0;
  for (const NDArray &I : Indices)
    Rank = std::max<size_t>(Rank, I.rank());
  Shape B(Rank, 1);
  for (const NDArray &I : Indices)
    for (size_t K = 0; K < I.rank(); ++K) {
      int64_t D = I.dim(K), &O = B[Rank - I.rank() + K];
      if (D != 1 && O != 1 && D != O)
        return opError("shape mismatch: indexing arrays could not be "
                       "broadcast together with shapes " +
                       compactShapeStr(Indices[0].shape()) + " " +
                       compactShapeStr(I.shape()));
      if (O == 1)
        O = D;
    }
  return B;
}

/// How many sliced axes come before B's dims in the output: those before
/// the first indexed axis where the indexed axes are adjacent, else none.
unsigned slicedBefore(const Axes &A) {
  if (!A.Adjacent)
    return 0;
  return unsigned(std::count_if(A.Sliced.begin(), A.Sliced.end(),
                                [&](unsigned S) { return S < A.First; }));
}

/// The output's dims: the sliced dims with B's in place or first.
template <typename T>
std::vector<T> outputDims(const Axes &A, const std::vector<T> &XDims,
                          const std::vector<T> &B) {
  std::vector<T> Out;
  unsigned Before = slicedBefore(A);
  for (unsigned K = 0; K < A.Sliced.size(); ++K) {
    if (K == Before)
      Out.insert(Out.end(), B.begin(), B.end());
    Out.push_back(XDims[A.Sliced[K]]);
  }
  if (Before == A.Sliced.size())
    Out.insert(Out.end(), B.begin(), B.end());
  return Out;
}

/// The walk shared by gather and scatter: for each element of B, the byte
/// offset into x it picks, and the strided block of the sliced axes.
struct Plan {
  Axes A;
  Shape B;
  Shape Out;
  /// Per output dim: whether it is one of B's, and its position.
  unsigned BStart = 0;
};

Expected<Plan> makePlan(const NDArray &X, llvm::ArrayRef<NDArray> Indices,
                        const IndexPattern &Pattern) {
  Plan P;
  Expected<Axes> A = classify(X.rank(), Indices.size(), Pattern);
  if (!A)
    return A.takeError();
  P.A = *A;
  for (const NDArray &I : Indices)
    if (isFloat(I.dtype()) || I.dtype() == DType::Bool)
      return opError("arrays used as indices must be of integer type");
  Expected<Shape> B = broadcastIndices(Indices);
  if (!B)
    return B.takeError();
  P.B = *B;
  P.Out = outputDims(P.A, X.shape(), P.B);
  P.BStart = slicedBefore(P.A);
  return P;
}

/// Calls Visit(XOffset, OutIndexOfB) for each element of B, after checking
/// its indices; OutIndexOfB is B's multi-index.
template <typename Fn>
Error forEachIndexed(const NDArray &X, llvm::ArrayRef<NDArray> Indices,
                     const IndexPattern &Pattern, const Plan &P, Fn Visit) {
  int64_t Count = numElementsOf(P.B);
  Shape Multi(P.B.size(), 0);
  for (int64_t Flat = 0; Flat < Count; ++Flat) {
    int64_t Off = 0;
    for (unsigned D : P.A.Indexed) {
      const NDArray &I = Indices[size_t(Pattern[D])];
      // The index array's element at Multi (broadcast from the right).
      const char *Ptr = I.data();
      for (size_t K = 0; K < I.rank(); ++K)
        if (I.dim(K) != 1)
          Ptr += Multi[P.B.size() - I.rank() + K] * I.strides()[K];
      int64_t V = 0;
      dispatchDType(I.dtype(), [&](auto Tag) {
        using T = typename decltype(Tag)::type;
        V = int64_t(*reinterpret_cast<const T *>(Ptr));
      });
      int64_t N = X.dim(D);
      if (V < -N || V >= N)
        return opError("IndexError: index " + llvm::Twine(V) +
                       " is out of bounds for axis " + llvm::Twine(D) +
                       " with size " + llvm::Twine(N));
      Off += (V < 0 ? V + N : V) * X.strides()[D];
    }
    Visit(Off, Multi);
    for (size_t K = P.B.size(); K-- > 0;) {
      if (++Multi[K] < P.B[K])
        break;
      Multi[K] = 0;
    }
  }
  return Error::success();
}

/// The block of the sliced axes: their dims, x's strides and the output's
/// strides for them (Out's dims outside B's, in order).
struct Block {
  Shape Dims, XStrides, OStrides;
};

Block sliceBlock(const NDArray &X, const Shape &OStrides, const Plan &P) {
  Block K;
  unsigned O = 0;
  for (unsigned D : P.A.Sliced) {
    if (O == P.BStart)
      O += unsigned(P.B.size());
    K.Dims.push_back(X.dim(D));
    K.XStrides.push_back(X.strides()[D]);
    K.OStrides.push_back(OStrides[O++]);
  }
  return K;
}

int64_t bOffset(const Shape &Multi, const Shape &OStrides, const Plan &P) {
  int64_t Off = 0;
  for (size_t K = 0; K < P.B.size(); ++K)
    Off += Multi[K] * OStrides[P.BStart + K];
  return Off;
}

} // namespace

Expected<std::vector<Dim>>
graphjit::advancedIndexDims(const TensorType &X,
                            llvm::ArrayRef<TensorType> Indices,
                            const IndexPattern &Pattern) {
  Expected<Axes> A = classify(X.rank(), Indices.size(), Pattern);
  if (!A)
    return A.takeError();
  size_t Rank = 0;
  for (const TensorType &I : Indices) {
    if (isFloat(I.Dtype) || I.Dtype == DType::Bool)
      return opError("arrays used as indices must be of integer type, not " +
                     I.str());
    Rank = std::max<size_t>(Rank, I.rank());
  }
  std::vector<Dim> B(Rank, Dim::known(1));
  for (const TensorType &I : Indices)
    for (size_t K = 0; K < I.rank(); ++K) {
      const Dim &D = I.Dims[K];
      Dim &O = B[Rank - I.rank() + K];
      if (D.isKnown() && D.Size == 1)
        continue;
      if (O.isKnown() && O.Size == 1)
        O = D;
      else if (D.isKnown() && O.isKnown() && D.Size != O.Size)
        return opError("shape mismatch: indexing arrays could not be "
                       "broadcast together");
      else if (!O.isKnown() && D.isKnown())
        O = D;
    }
  return outputDims(*A, X.Dims, B);
}

Expected<Shape> graphjit::advancedIndexShape(const NDArray &X,
                                             llvm::ArrayRef<NDArray> Indices,
                                             const IndexPattern &Pattern) {
  Expected<Plan> P = makePlan(X, Indices, Pattern);
  if (!P)
    return P.takeError();
  return P->Out;
}

Error graphjit::advancedGather(const NDArray &X, llvm::ArrayRef<NDArray> Indices,
                               const IndexPattern &Pattern, const NDArray &Out) {
  Expected<Plan> P = makePlan(X, Indices, Pattern);
  if (!P)
    return P.takeError();
  Block K = sliceBlock(X, Out.strides(), *P);
  return forEachIndexed(X, Indices, Pattern, *P,
                        [&](int64_t XOff, const Shape &Multi) {
    NDArray Src = NDArray::wrap(X.data() + XOff, X.dtype(), K.Dims, K.XStrides);
    NDArray Dst = NDArray::wrap(Out.data() + bOffset(Multi, Out.strides(), *P),
                                Out.dtype(), K.Dims, K.OStrides);
    copyConvert(Src, Dst);
  });
}

Error graphjit::advancedScatter(const NDArray &Y, llvm::ArrayRef<NDArray> Indices,
                                const IndexPattern &Pattern, bool Set,
                                const NDArray &Out) {
  Expected<Plan> P = makePlan(Out, Indices, Pattern);
  if (!P)
    return P.takeError();
  // y broadcast to x[pattern]'s shape, read through its strides.
  const Shape &S = P->Out;
  if (Y.rank() > S.size())
    return opError("advanced_inc_subtensor: y of shape " +
                   compactShapeStr(Y.shape()) + " into " +
                   compactShapeStr(S));
  Shape YStrides(S.size(), 0);
  for (size_t K = 0; K < Y.rank(); ++K) {
    size_t D = S.size() - Y.rank() + K;
    if (Y.dim(K) != 1 && Y.dim(K) != S[D])
      return opError("shape mismatch: value array of shape " +
                     compactShapeStr(Y.shape()) +
                     " could not be broadcast to indexing result of shape " +
                     compactShapeStr(S));
    if (Y.dim(K) != 1)
      YStrides[D] = Y.strides()[K];
  }
  // The block walks x's sliced axes (XStrides) and y's (OStrides).
  Block K = sliceBlock(Out, YStrides, *P);
  return forEachIndexed(Out, Indices, Pattern, *P,
                        [&](int64_t XOff, const Shape &Multi) {
    int64_t YOff = bOffset(Multi, YStrides, *P);
    NDArray Dst =
        NDArray::wrap(Out.data() + XOff, Out.dtype(), K.Dims, K.XStrides);
    NDArray Src =
        NDArray::wrap(Y.data() + YOff, Y.dtype(), K.Dims, K.OStrides);
    if (Set) {
      copyConvert(Src, Dst);
      return;
    }
    LoopOperand Ops[2] = {{Dst.data(), Dst.strides()},
                          {Src.data(), Src.strides()}};
    dispatchDType(Out.dtype(), [&](auto Tag) {
      using T = typename decltype(Tag)::type;
      forEachRow(K.Dims, Ops, [&](char **Ptr, const int64_t *St, int64_t N) {
        for (int64_t I = 0; I < N; ++I) {
          T &D = *reinterpret_cast<T *>(Ptr[0] + I * St[0]);
          T V = *reinterpret_cast<const T *>(Ptr[1] + I * St[1]);
          if constexpr (std::is_same_v<T, bool>)
            D = D || V;
          else
            D = T(D + V);
        }
      });
    });
  });
}
