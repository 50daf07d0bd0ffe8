//===- LapackBatch.h - Batches of matrices for the LAPACK ops --*- C++ -*-===//
//
// What every LAPACK-backed op (LapackOps.cpp, SpectralOps.cpp) shares:
// broadcasting the batch dims of its inputs by NumPy's rules (statically
// for inferTypes, at run time with each input's strides for compute), the
// byte offset of one matrix of the batch, the copies between strided
// memory and the column-major scratch LAPACK reads, the result dtype and
// the LinAlgError wording.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_LAPACKBATCH_H
#define GRAPHJIT_OPS_LAPACKBATCH_H

#include "ops/StructuralUtil.h"
#include "graphjit/NDArray.h"
#include "graphjit/Type.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace graphjit {
namespace lapack {

/// float32 when every input is, float64 otherwise (SciPy's and NumPy's).
DType resultDType(llvm::ArrayRef<DType> In);

/// Broadcasts the batch dims (those before each input's Core trailing
/// dims) of the inputs' static types, NumPy's rules.
llvm::Expected<std::vector<Dim>> batchDims(llvm::ArrayRef<TensorType> In,
                                           llvm::ArrayRef<unsigned> Core,
                                           llvm::StringRef Name);

/// The same at run time, with each input's byte strides over the batch
/// (0 where it broadcasts).
struct Batch {
  // Small vectors: a call on one matrix (most of them) allocates nothing.
  llvm::SmallVector<int64_t, 4> Dims;
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 4> Strides; // per input
  int64_t count() const {
    int64_t N = 1;
    for (int64_t D : Dims)
      N *= D;
    return N;
  }
  Shape shape() const { return Shape(Dims.begin(), Dims.end()); }
};

/// Scratch that a LAPACK op's compute keeps on its thread from call to
/// call, so that a call allocates only when a matrix is larger than any
/// before it: the column-major copies, the pivots, the work arrays.
template <typename T> struct ThreadScratch {
  std::vector<T> A, B, C, D, E, F, G, H;
  std::vector<int> Pivots, Int, Support;
  static ThreadScratch &get() {
    static thread_local ThreadScratch S;
    return S;
  }
};

llvm::Expected<Batch> runBatch(llvm::ArrayRef<NDArray> In,
                               llvm::ArrayRef<unsigned> Core,
                               llvm::StringRef Name);

/// Byte offset of batch element Flat in input I.
int64_t batchOffset(const Batch &B, size_t I, int64_t Flat);

/// The core dims and strides of one input of a run-time array (the last
/// Core dims).
inline int64_t coreDim(const NDArray &A, unsigned Core, unsigned K) {
  return A.dim(A.rank() - Core + K);
}
inline int64_t coreStride(const NDArray &A, unsigned Core, unsigned K) {
  return A.strides()[A.rank() - Core + K];
}

/// The number of matrices in an input of shape S whose last Core dims are
/// one matrix (the flops' multiplier).
inline double batchSize(const Shape &S, unsigned Core) {
  double N = 1;
  for (size_t K = 0; K + Core < S.size(); ++K)
    N *= double(S[K]);
  return N;
}

/// "LinAlgError: " + Msg, which the Python bridge raises as
/// numpy.linalg.LinAlgError.
llvm::Error linAlgError(const llvm::Twine &Msg);

/// Rows × Cols of a strided matrix at Base (dtype Src) into column-major
/// Dst, converted to T.
template <typename T>
void toColumnMajor(DType Src, const char *Base, int64_t Rows, int64_t Cols,
                   int64_t RowStride, int64_t ColStride, T *Dst) {
  dispatchDType(Src, [&](auto Tag) {
    using S = typename decltype(Tag)::type;
    for (int64_t J = 0; J < Cols; ++J)
      for (int64_t I = 0; I < Rows; ++I)
        Dst[I + J * Rows] = T(
            *reinterpret_cast<const S *>(Base + I * RowStride + J * ColStride));
  });
}

/// Column-major Rows × Cols into a C-contiguous T array.
template <typename T>
void toRowMajor(const T *Src, int64_t Rows, int64_t Cols, T *Dst) {
  for (int64_t I = 0; I < Rows; ++I)
    for (int64_t J = 0; J < Cols; ++J)
      Dst[I * Cols + J] = Src[I + J * Rows];
}

} // namespace lapack
} // namespace graphjit

#endif // GRAPHJIT_OPS_LAPACKBATCH_H
