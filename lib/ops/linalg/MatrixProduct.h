//===- MatrixProduct.h - Strided matrix products through CBLAS -*- C++ -*-===//
//
// What dot and gemm share: an operand of a product seen as an M×K or K×N
// matrix with byte strides (a vector is one row or one column), how BLAS can
// read such a view without copying (row-major, or the transpose of a
// row-major matrix, told by BLAS's transpose flag), and the product
// C = alpha·A·B + beta·C into a C-contiguous C through CBLAS's ?dot, ?gemv
// or ?gemm.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_MATRIXPRODUCT_H
#define GRAPHJIT_OPS_MATRIXPRODUCT_H

#include "graphjit/NDArray.h"
#include <cstdint>
#include <optional>

namespace graphjit {

/// A 2-D operand of a product: Rows × Cols with byte strides.
struct MatView {
  const char *Data;
  int64_t Rows, Cols;
  int64_t RowStride, ColStride; // bytes

  /// The same memory read as the transpose (no copy).
  MatView transposed() const {
    return MatView{Data, Cols, Rows, ColStride, RowStride};
  }
};

/// A left operand of rank 1 or 2 as M×K (a vector is 1×K).
MatView leftView(const NDArray &A);
/// A right operand of rank 1 or 2 as K×N (a vector is K×1).
MatView rightView(const NDArray &B);

/// How BLAS reads a MatView without copying: as a row-major matrix (Trans
/// false) with leading dimension Ld, or as the transpose of a row-major
/// Cols×Rows matrix (Trans true).
struct BlasLayout {
  bool Trans;
  int64_t Ld;
};

/// M's layout for BLAS with elements of Elt bytes, if it has one.
std::optional<BlasLayout> blasLayout(const MatView &M, int64_t Elt);

/// Whether BLAS can read M as it is (a layout whose Ld fits BLAS's int).
bool blasReadable(const MatView &M, int64_t Elt);

/// C (A.Rows × B.Cols, C-contiguous) = Alpha·A·B + Beta·C through CBLAS;
/// false, with C untouched, if the operands' layouts or sizes do not suit
/// BLAS. As in BLAS, C is not read when Beta is 0. The sizes M, N and K must
/// all be at least 1.
bool blasProduct(const MatView &A, const MatView &B, float *C, float Alpha,
                 float Beta);
bool blasProduct(const MatView &A, const MatView &B, double *C, double Alpha,
                 double Beta);

} // namespace graphjit

#endif
