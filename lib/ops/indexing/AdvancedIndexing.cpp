//===- AdvancedIndexing.cpp - NumPy's integer-array indexing -------------===//
//
// Both directions walk the same plan: the broadcast index shape B, the
// sliced axes of x, and where B's dims sit among the output's. Each
// element of B picks (after bounds checks) a base offset into x; the
// sliced axes then form a strided block copied to or from the output.
//
//===----------------------------------------------------------------------===//

#include "ops/indexing/AdvancedIndexing.h"
#include "ops/Strided.h"
#include "ops/StructuralUtil.h"

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

int64_t readIndex(DType T, const char *Ptr) {
  switch (T) {
  case DType::I64: return *reinterpret_cast<const int64_t *>(Ptr);
  case DType::I32: return *reinterpret_cast<const int32_t *>(Ptr);
  case DType::I16: return *reinterpret_cast<const int16_t *>(Ptr);
  case DType::I8: return *reinterpret_cast<const int8_t *>(Ptr);
  case DType::U8: return *reinterpret_cast<const uint8_t *>(Ptr);
  default: return 0; // refused by makePlan
  }
}

/// Calls Visit(XOffset, BOffset) for each element of B in C order, after
/// checking its indices: XOffset the byte offset into x its indices pick,
/// BOffset the element's byte offset along BStrides (the output's, or y's,
/// strides of B's dims). The index arrays are walked by their strides
/// (0 where they broadcast), one step at a time, nothing allocated.
template <typename Fn>
Error forEachIndexed(const NDArray &X, llvm::ArrayRef<NDArray> Indices,
                     const IndexPattern &Pattern, const Plan &P,
                     llvm::ArrayRef<int64_t> BStrides, Fn Visit) {
  struct Walk {
    const NDArray *I;
    const char *Ptr;
    Shape Steps; // per dim of B, bytes (0: broadcast)
    int64_t Len, XStride;
    unsigned Axis;
  };
  const size_t R = P.B.size();
  std::vector<Walk> Walks;
  for (unsigned D : P.A.Indexed) {
    const NDArray &I = Indices[size_t(Pattern[D])];
    Walk W{&I, I.data(), Shape(R, 0), X.dim(D), X.strides()[D], D};
    for (size_t K = 0; K < I.rank(); ++K)
      if (I.dim(K) != 1)
        W.Steps[R - I.rank() + K] = I.strides()[K];
    Walks.push_back(std::move(W));
  }
  const int64_t Count = numElementsOf(P.B);
  Shape Multi(R, 0);
  int64_t BOff = 0;
  for (int64_t Flat = 0; Flat < Count; ++Flat) {
    int64_t XOff = 0;
    for (const Walk &W : Walks) {
      int64_t V = readIndex(W.I->dtype(), W.Ptr);
      if (V < -W.Len || V >= W.Len)
        return opError("IndexError: index " + llvm::Twine(V) +
                       " is out of bounds for axis " + llvm::Twine(W.Axis) +
                       " with size " + llvm::Twine(W.Len));
      XOff += (V < 0 ? V + W.Len : V) * W.XStride;
    }
    Visit(XOff, BOff);
    // The next element of B: carry through the dims from the last.
    for (size_t K = R; K-- > 0;) {
      if (++Multi[K] < P.B[K]) {
        BOff += BStrides[K];
        for (Walk &W : Walks)
          W.Ptr += W.Steps[K];
        break;
      }
      BOff -= (P.B[K] - 1) * BStrides[K];
      for (Walk &W : Walks)
        W.Ptr -= (P.B[K] - 1) * W.Steps[K];
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

/// B's dims' strides within an output laid out as Plan.Out says.
static Shape bStrides(const Shape &OutStrides, const Plan &P) {
  return Shape(OutStrides.begin() + P.BStart,
               OutStrides.begin() + P.BStart + P.B.size());
}

Error graphjit::advancedGather(const NDArray &X, llvm::ArrayRef<NDArray> Indices,
                               const IndexPattern &Pattern, const NDArray &Out) {
  Expected<Plan> P = makePlan(X, Indices, Pattern);
  if (!P)
    return P.takeError();
  Block K = sliceBlock(X, Out.strides(), *P);
  Shape BS = bStrides(Out.strides(), *P);
  Error Err = Error::success();
  dispatchDType(X.dtype(), [&](auto Tag) {
    using T = typename decltype(Tag)::type;
    if (K.Dims.empty()) { // every axis indexed: one element each
      Err = forEachIndexed(X, Indices, Pattern, *P, BS,
                           [&](int64_t XOff, int64_t OOff) {
        *reinterpret_cast<T *>(Out.data() + OOff) =
            *reinterpret_cast<const T *>(X.data() + XOff);
      });
      return;
    }
    Err = forEachIndexed(X, Indices, Pattern, *P, BS,
                         [&](int64_t XOff, int64_t OOff) {
      copyConvert(
          NDArray::wrap(X.data() + XOff, X.dtype(), K.Dims, K.XStrides),
          NDArray::wrap(Out.data() + OOff, Out.dtype(), K.Dims, K.OStrides));
    });
  });
  return Err;
}

Error graphjit::advancedScatter(const NDArray &Y, llvm::ArrayRef<NDArray> Indices,
                                const IndexPattern &Pattern, bool Set,
                                const NDArray &Out) {
  Expected<Plan> P = makePlan(Out, Indices, Pattern);
  if (!P)
    return P.takeError();
  if (Y.dtype() != Out.dtype())
    return opError("advanced_inc_subtensor: y of " +
                   dtypeName(Y.dtype()) + " into x of " +
                   dtypeName(Out.dtype()));
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
  Shape BS = bStrides(YStrides, *P);
  Error Err = Error::success();
  dispatchDType(Out.dtype(), [&](auto Tag) {
    using T = typename decltype(Tag)::type;
    auto Update = [Set](T &D, T V) {
      if (Set)
        D = V;
      else if constexpr (std::is_same_v<T, bool>)
        D = D || V;
      else
        D = T(D + V);
    };
    Err = forEachIndexed(Out, Indices, Pattern, *P, BS,
                         [&](int64_t XOff, int64_t YOff) {
      if (K.Dims.empty()) { // every axis indexed: one element each
        Update(*reinterpret_cast<T *>(Out.data() + XOff),
               *reinterpret_cast<const T *>(Y.data() + YOff));
        return;
      }
      LoopOperand Ops[2] = {{Out.data() + XOff, K.XStrides},
                            {Y.data() + YOff, K.OStrides}};
      forEachRow(K.Dims, Ops, [&](char **Ptr, const int64_t *St, int64_t N) {
        for (int64_t I = 0; I < N; ++I)
          Update(*reinterpret_cast<T *>(Ptr[0] + I * St[0]),
                 *reinterpret_cast<const T *>(Ptr[1] + I * St[1]));
      });
    });
  });
  return Err;
}
