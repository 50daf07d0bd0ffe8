//===- LapackKernels.h - One matrix through LAPACK --------------*- C++ -*-===//
//
// The per-matrix work of the LAPACK ops (LapackOps.h) for float and double:
// each takes column-major scratch matrices (what LAPACK reads), or for the
// Cholesky factor and the triangular solve row-major ones as they are,
// calls the routine and reports LAPACK's info, so that the op words the error
// as SciPy and NumPy do. No allocation beyond the scratch the caller passes,
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
                            bool ATransposed, T *B, bool Lower, bool Transposed,
                            bool UnitDiagonal);

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
template <typename T>
int inverseFromLU(int N, T *A, const std::vector<int> &Pivots);

/// ?syevd (NumPy's eigh) or ?syevr (SciPy's default).
enum class EigenDriver : uint8_t { DivideAndConquer, RelativelyRobust };

/// The work arrays of the eigen and singular value routines, kept across
/// the matrices of a batch (sized by each routine's workspace query).
template <typename T> struct EigenWork {
  std::vector<T> Real, Vectors;
  std::vector<int> Int, Support;
};

/// The eigenvalues (ascending, into W) and eigenvectors (into A, column k
/// the k-th) of the symmetric column-major A, from its Lower (or upper)
/// triangle; with B (column-major, overwritten by its Cholesky factor)
/// those of A v = w B v (?sygvd). info > 0: no convergence, or with B
/// above N, B not positive definite (its leading minor of order info - N).
template <typename T>
int symmetricEigen(int N, T *A, T *W, bool Lower, EigenDriver Driver,
                   EigenWork<T> &Work, T *B = nullptr);

/// ?gesdd on the column-major M × N A (overwritten): the singular values
/// (descending) into S, and by Jobz 'A' U (M × M) and VT (N × N), 'S' U
/// (M × K) and VT (K × N), 'N' neither, all column-major. info > 0: no
/// convergence.
template <typename T>
int singularValues(int M, int N, T *A, T *S, T *U, T *VT, char Jobz,
                   EigenWork<T> &Work);

/// PyTensor's EighGrad: the gradient with respect to a of eigh's outputs,
/// given w, v and their gradients gw, gv (row-major, contiguous; Out too),
/// for an eigh that read a's Lower (or upper) triangle. Scratch holds two
/// N × N matrices.
template <typename T>
void eighGradient(int N, const T *W, const T *V, const T *GW, const T *GV,
                  T *Out, bool Lower, std::vector<T> &Scratch);

/// NumPy's pinv from an SVD: X = VT^T diag(1/s) U^T (N × M, row-major)
/// over the singular values above Cutoff, given U (M × K) and VT (K × N)
/// column-major; U is scaled in place.
template <typename T>
void pseudoInverseProduct(int M, int N, int K, T *U, const T *S, const T *VT,
                          T Cutoff, T *X);

} // namespace lapack
} // namespace graphjit

#endif
