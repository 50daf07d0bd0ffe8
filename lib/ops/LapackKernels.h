//===- LapackKernels.h - One matrix through LAPACK --------------*- C++ -*-===//
//
// The per-matrix work of the LAPACK ops (LapackOps.h) for float and double:
// each takes column-major scratch matrices (what LAPACK reads), or for the
// Cholesky factor and the triangular solve row-major ones as they are,
// calls the routine and reports LAPACK's info, so that the op words the error as
// SciPy and NumPy do. No allocation beyond the scratch the caller passes,
// but for ?sysv's and ?getri's work arrays.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_LAPACKKERNELS_H
#define GRAPHJIT_OPS_LAPACKKERNELS_H

#include <cstdint>
#include <vector>

namespace graphjit {
namespace lapack {

/// The Cholesky factor and the triangular solve on row-major (C-order)
/// matrices, with no copy: a row-major matrix is its transpose to LAPACK,
/// so the triangles swap.
/// choleskyRowMajor factors A (contiguous, n×n) in place; only the Lower
/// (or upper) triangle is read, the other is zeroed. Same info.
template <typename T> int choleskyRowMajor(int N, T *A, bool Lower);
/// Solves op(A) X = B in place in B (row-major n×nrhs, contiguous); A's
/// rows are Lda elements apart (its columns adjacent), or with ATransposed
/// the memory holds A's transpose that way (A's rows adjacent). BLAS's
/// ?trsm after ?trtrs's check: info k > 0 where A(k,k) is zero.
template <typename T>
int solveTriangularRowMajor(int N, int NRhs, const T *A, int64_t Lda,
                            bool ATransposed, T *B, bool Lower,
                            bool Transposed, bool UnitDiagonal);

/// Solves A X = B in place in B; A (overwritten) read as general (LU with
/// pivoting), symmetric (Lower or upper triangle) or positive definite.
/// info k > 0: singular (or not positive definite).
template <typename T>
int solve(int N, int NRhs, T *A, T *B, int Assume, bool Lower,
          std::vector<int> &Pivots);

/// Solves A X = B given C, A's Cholesky factor in its Lower or upper
/// triangle.
template <typename T>
int choleskySolve(int N, int NRhs, const T *C, T *B, bool Lower);

/// A's LU factorization with partial pivoting in place (?getrf); info k > 0
/// when U(k,k) is exactly zero.
template <typename T> int luFactor(int N, T *A, std::vector<int> &Pivots);

/// A^-1 in place from luFactor's result (?getri).
template <typename T> int inverseFromLU(int N, T *A, const std::vector<int> &Pivots);

} // namespace lapack
} // namespace graphjit

#endif
