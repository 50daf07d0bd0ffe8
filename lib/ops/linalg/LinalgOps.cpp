//===- LinalgOps.cpp - dot; registers gemm --------------------------------===//
//
// NumPy's dot for operands of rank 0 to 2: a 0-d operand multiplies
// element-wise; otherwise every case is one M×K by K×N product (a vector on
// the left is 1×K, on the right K×1). f32 and f64 go to CBLAS (dot, gemv,
// gemm), reading transposed layouts through the transpose flag instead of
// copying; other layouts, other dtypes and sizes beyond BLAS's int use
// plain loops (integers wrap around as NumPy's do; bool is or-of-and).
// perform() is prepare() (checks, output) then compute() (the product), which
// the JIT's thunk calls through gj_compute. The BLAS calls are shared with
// gemm (MatrixProduct.h, GemmOp.cpp).
//
//===----------------------------------------------------------------------===//

#include "ops/linalg/LinalgOps.h"
#include "ops/linalg/GemmOp.h"
#include "ops/linalg/MatrixProduct.h"
#include "ops/Strided.h"
#include "ops/StructuralUtil.h"
#include "graphjit/OpRegistry.h"
#include "ops/StandardOps.h"
#include <cstdint>
#include <type_traits>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

namespace {

/// Integers as two's-complement bits: products and sums wrap around.
template <typename T> uint64_t bits(T V) {
  return static_cast<uint64_t>(static_cast<int64_t>(V));
}

/// C (M×N, contiguous) = A·B with plain loops, for every dtype.
template <typename T>
void loopProduct(const MatView &A, const MatView &B, T *C) {
  for (int64_t I = 0; I < A.Rows; ++I)
    for (int64_t J = 0; J < B.Cols; ++J) {
      const char *PA = A.Data + I * A.RowStride;
      const char *PB = B.Data + J * B.ColStride;
      auto At = [&](int64_t K) { return *reinterpret_cast<const T *>(PA + K * A.ColStride); };
      auto Bt = [&](int64_t K) { return *reinterpret_cast<const T *>(PB + K * B.RowStride); };
      T &Out = C[I * B.Cols + J];
      if constexpr (std::is_same_v<T, bool>) {
        bool S = false;
        for (int64_t K = 0; K < A.Cols && !S; ++K)
          S = At(K) && Bt(K);
        Out = S;
      } else if constexpr (std::is_floating_point_v<T>) {
        T S = 0;
        for (int64_t K = 0; K < A.Cols; ++K)
          S += At(K) * Bt(K);
        Out = S;
      } else {
        uint64_t S = 0;
        for (int64_t K = 0; K < A.Cols; ++K)
          S += bits(At(K)) * bits(Bt(K));
        Out = static_cast<T>(static_cast<int64_t>(S));
      }
    }
}

/// Element-wise product with broadcasting, for a 0-d operand.
template <typename T>
void scaleProduct(const NDArray &A, const NDArray &B, const NDArray &Out) {
  const Shape &S = Out.shape();
  LoopOperand Ops[3] = {{Out.data(), Out.strides()},
                        {A.data(), broadcastStrides(A, S)},
                        {B.data(), broadcastStrides(B, S)}};
  forEachRow(S, Ops, [](char **P, const int64_t *St, int64_t N) {
    for (int64_t I = 0; I < N; ++I) {
      T X = *reinterpret_cast<const T *>(P[1] + I * St[1]);
      T Y = *reinterpret_cast<const T *>(P[2] + I * St[2]);
      T &R = *reinterpret_cast<T *>(P[0] + I * St[0]);
      if constexpr (std::is_same_v<T, bool>)
        R = X && Y;
      else if constexpr (std::is_floating_point_v<T>)
        R = X * Y;
      else
        R = static_cast<T>(static_cast<int64_t>(bits(X) * bits(Y)));
    }
  });
}

/// NumPy's message for a K mismatch: the contracted dim of each operand.
template <typename ShapeT>
Error notAligned(const std::string &SA, const std::string &SB, int64_t DA,
                 const ShapeT &KA, const ShapeT &KB) {
  return opError("shapes " + SA + " and " + SB + " not aligned: " + KA +
                 " (dim " + std::to_string(DA) + ") != " + KB + " (dim 0)");
}

} // namespace

double DotOp::flops(llvm::ArrayRef<Shape> In, llvm::ArrayRef<Shape> Out) const {
  if (In[0].empty() || In[1].empty())
    return Out.empty() ? 0 : double(elementCount(Out[0]));
  // 2·M·N·K = 2 · (output elements) · K.
  return 2.0 * double(Out.empty() ? 1 : elementCount(Out[0])) *
         double(In[0].back());
}

Expected<std::vector<TensorType>>
DotOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  const TensorType &A = In[0], &B = In[1];
  for (const TensorType *X : {&A, &B})
    if (X->rank() > 2)
      return opError("dot takes operands of rank 0 to 2, not " + X->str());
  DType T = promote(A.Dtype, B.Dtype);
  if (A.rank() == 0 || B.rank() == 0)
    return std::vector<TensorType>{TensorType(T, (A.rank() == 0 ? B : A).Dims)};
  const Dim &KA = A.Dims.back(), &KB = B.Dims[0];
  if (KA.isKnown() && KB.isKnown() && KA.Size != KB.Size)
    return notAligned(compactDimsStr(A.Dims), compactDimsStr(B.Dims),
                      A.rank() - 1, KA.str(), KB.str());
  std::vector<Dim> Dims;
  if (A.rank() == 2)
    Dims.push_back(A.Dims[0]);
  if (B.rank() == 2)
    Dims.push_back(B.Dims[1]);
  return std::vector<TensorType>{TensorType(T, std::move(Dims))};
}

Error DotOp::prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                     const ExecContext &) const {
  const NDArray &A = In[0], &B = In[1];
  if (A.rank() > 2 || B.rank() > 2)
    return opError("dot takes operands of rank 0 to 2, not shapes " +
                   shapeStr(A.shape()) + " and " + shapeStr(B.shape()));
  DType T = promote(A.dtype(), B.dtype());
  if (A.rank() == 0 || B.rank() == 0)
    return createOutput(Out[0], T, (A.rank() == 0 ? B : A).shape());
  int64_t KA = A.shape().back(), KB = B.dim(0);
  if (KA != KB)
    return notAligned(compactShapeStr(A.shape()), compactShapeStr(B.shape()),
                      A.rank() - 1, std::to_string(KA), std::to_string(KB));
  Shape OutShape;
  if (A.rank() == 2)
    OutShape.push_back(A.dim(0));
  if (B.rank() == 2)
    OutShape.push_back(B.dim(1));
  return createOutput(Out[0], T, OutShape);
}

Error DotOp::compute(llvm::ArrayRef<NDArray> In, llvm::ArrayRef<NDArray> Out,
                     const ExecContext &) const {
  DType T = promote(In[0].dtype(), In[1].dtype());
  // The products write C order (isContiguous() is false for any array
  // of no elements, which is never written).
  if (In[0].rank() > 2 || In[1].rank() > 2 || Out.size() != 1 ||
      Out[0].isNull() || Out[0].dtype() != T ||
      (elementCount(Out[0].shape()) != 0 && !Out[0].isContiguous()))
    return opError("internal error: dot's output was not prepared");
  NDArray A = In[0].dtype() == T ? In[0] : In[0].astype(T);
  NDArray B = In[1].dtype() == T ? In[1] : In[1].astype(T);
  if (A.rank() == 0 || B.rank() == 0) {
    dispatchDType(T, [&](auto Tag) {
      scaleProduct<typename decltype(Tag)::type>(A, B, Out[0]);
    });
    return Error::success();
  }
  MatView MA = leftView(A), MB = rightView(B);
  // Empty products: nothing to write, or zeros.
  if (MA.Rows == 0 || MB.Cols == 0 || MA.Cols == 0) {
    fillWith(Out[0], 0);
    return Error::success();
  }
  dispatchDType(T, [&](auto Tag) {
    using E = typename decltype(Tag)::type;
    E *C = Out[0].dataAs<E>();
    if constexpr (std::is_floating_point_v<E>) {
      if (blasProduct(MA, MB, C, E(1), E(0)))
        return;
      // An operand BLAS cannot read is copied to C order, which it can
      // (unless the sizes exceed its int).
      NDArray CA = blasReadable(MA, sizeof(E)) ? A : A.copy();
      NDArray CB = blasReadable(MB, sizeof(E)) ? B : B.copy();
      if (blasProduct(leftView(CA), rightView(CB), C, E(1), E(0)))
        return;
    }
    loopProduct<E>(MA, MB, C);
  });
  return Error::success();
}

namespace {

Expected<OpRef> makeDot(const AttrMap &Attrs, unsigned) {
  AttrReader R("dot", Attrs);
  if (Error E = R.checkOnly({}))
    return E;
  return std::make_shared<DotOp>(Attrs);
}

} // namespace

void graphjit::registerLinalgOps(OpRegistry &R) {
  R.add(OpSpec{"dot", 2, 2, makeDot,
               "NumPy dot of vectors and matrices (0-d: multiply): "
               "dot(x, w)"});
  registerGemmOp(R);
}
