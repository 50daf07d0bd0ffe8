//===- LapackKernels.cpp - One matrix through LAPACK ----------------------===//
//
// LAPACK's Fortran entry points (the OpenBLAS graphjit links provides
// them), declared here with gfortran's calling convention: every argument
// by address, a hidden length after the last argument for each character
// argument. Only the routines the LAPACK ops call.
//
//===----------------------------------------------------------------------===//

#include "ops/linalg/LapackKernels.h"
#include "ops/linalg/BlasSymbols.h"
#include <algorithm>
#include <cblas.h>
#include <cstddef>

using namespace graphjit;

extern "C" {
void GJ_BLAS(spotrf_)(const char *, const int *, float *, const int *, int *,
                      size_t);
void GJ_BLAS(dpotrf_)(const char *, const int *, double *, const int *, int *,
                      size_t);
void GJ_BLAS(spotrs_)(const char *, const int *, const int *, const float *,
                      const int *, float *, const int *, int *, size_t);
void GJ_BLAS(dpotrs_)(const char *, const int *, const int *, const double *,
                      const int *, double *, const int *, int *, size_t);
void GJ_BLAS(sgesv_)(const int *, const int *, float *, const int *, int *,
                     float *, const int *, int *);
void GJ_BLAS(dgesv_)(const int *, const int *, double *, const int *, int *,
                     double *, const int *, int *);
void GJ_BLAS(sposv_)(const char *, const int *, const int *, float *,
                     const int *, float *, const int *, int *, size_t);
void GJ_BLAS(dposv_)(const char *, const int *, const int *, double *,
                     const int *, double *, const int *, int *, size_t);
void GJ_BLAS(ssysv_)(const char *, const int *, const int *, float *,
                     const int *, int *, float *, const int *, float *,
                     const int *, int *, size_t);
void GJ_BLAS(dsysv_)(const char *, const int *, const int *, double *,
                     const int *, int *, double *, const int *, double *,
                     const int *, int *, size_t);
void GJ_BLAS(sgetrf_)(const int *, const int *, float *, const int *, int *,
                      int *);
void GJ_BLAS(dgetrf_)(const int *, const int *, double *, const int *, int *,
                      int *);
void GJ_BLAS(sgetri_)(const int *, float *, const int *, const int *, float *,
                      const int *, int *);
void GJ_BLAS(dgetri_)(const int *, double *, const int *, const int *, double *,
                      const int *, int *);
void GJ_BLAS(ssyevd_)(const char *, const char *, const int *, float *,
                      const int *, float *, float *, const int *, int *,
                      const int *, int *, size_t, size_t);
void GJ_BLAS(dsyevd_)(const char *, const char *, const int *, double *,
                      const int *, double *, double *, const int *, int *,
                      const int *, int *, size_t, size_t);
void GJ_BLAS(ssyevr_)(const char *, const char *, const char *, const int *,
                      float *, const int *, const float *, const float *,
                      const int *, const int *, const float *, int *, float *,
                      float *, const int *, int *, float *, const int *, int *,
                      const int *, int *, size_t, size_t, size_t);
void GJ_BLAS(dsyevr_)(const char *, const char *, const char *, const int *,
                      double *, const int *, const double *, const double *,
                      const int *, const int *, const double *, int *, double *,
                      double *, const int *, int *, double *, const int *,
                      int *, const int *, int *, size_t, size_t, size_t);
void GJ_BLAS(ssygvd_)(const int *, const char *, const char *, const int *,
                      float *, const int *, float *, const int *, float *,
                      float *, const int *, int *, const int *, int *, size_t,
                      size_t);
void GJ_BLAS(dsygvd_)(const int *, const char *, const char *, const int *,
                      double *, const int *, double *, const int *, double *,
                      double *, const int *, int *, const int *, int *, size_t,
                      size_t);
void GJ_BLAS(sgesdd_)(const char *, const int *, const int *, float *,
                      const int *, float *, float *, const int *, float *,
                      const int *, float *, const int *, int *, int *, size_t);
void GJ_BLAS(dgesdd_)(const char *, const int *, const int *, double *,
                      const int *, double *, double *, const int *, double *,
                      const int *, double *, const int *, int *, int *, size_t);
}

namespace {

/// The float or double routine of each pair, chosen by T.
template <typename T> struct Routines;

template <> struct Routines<float> {
  static constexpr auto potrf = GJ_BLAS(spotrf_);
  static constexpr auto potrs = GJ_BLAS(spotrs_);
  static constexpr auto gesv = GJ_BLAS(sgesv_);
  static constexpr auto posv = GJ_BLAS(sposv_);
  static constexpr auto sysv = GJ_BLAS(ssysv_);
  static constexpr auto getrf = GJ_BLAS(sgetrf_);
  static constexpr auto getri = GJ_BLAS(sgetri_);
  static constexpr auto trsm = GJ_BLAS(cblas_strsm);
  static constexpr auto gemm = GJ_BLAS(cblas_sgemm);
  static constexpr auto trsv = GJ_BLAS(cblas_strsv);
  static constexpr auto syevd = GJ_BLAS(ssyevd_);
  static constexpr auto syevr = GJ_BLAS(ssyevr_);
  static constexpr auto sygvd = GJ_BLAS(ssygvd_);
  static constexpr auto gesdd = GJ_BLAS(sgesdd_);
};

template <> struct Routines<double> {
  static constexpr auto potrf = GJ_BLAS(dpotrf_);
  static constexpr auto potrs = GJ_BLAS(dpotrs_);
  static constexpr auto gesv = GJ_BLAS(dgesv_);
  static constexpr auto posv = GJ_BLAS(dposv_);
  static constexpr auto sysv = GJ_BLAS(dsysv_);
  static constexpr auto getrf = GJ_BLAS(dgetrf_);
  static constexpr auto getri = GJ_BLAS(dgetri_);
  static constexpr auto trsm = GJ_BLAS(cblas_dtrsm);
  static constexpr auto gemm = GJ_BLAS(cblas_dgemm);
  static constexpr auto trsv = GJ_BLAS(cblas_dtrsv);
  static constexpr auto syevd = GJ_BLAS(dsyevd_);
  static constexpr auto syevr = GJ_BLAS(dsyevr_);
  static constexpr auto sygvd = GJ_BLAS(dsygvd_);
  static constexpr auto gesdd = GJ_BLAS(dgesdd_);
};

char uplo(bool Lower) { return Lower ? 'L' : 'U'; }

int leading(int N) { return N > 0 ? N : 1; }

} // namespace

template <typename T> int lapack::choleskyRowMajor(int N, T *A, bool Lower) {
  // Row-major A is A^T column-major: its lower triangle is the upper one
  // there, and the factor U of that triangle (A = U^T U) read row-major is
  // L = U^T.
  int Info = 0, Ld = leading(N);
  char U = uplo(!Lower);
  Routines<T>::potrf(&U, &N, A, &Ld, &Info, 1);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J)
      if (Lower ? J > I : J < I)
        A[size_t(I) * N + J] = T(0);
  return Info;
}

template <typename T>
int lapack::solveTriangularRowMajor(int N, int NRhs, const T *A, int64_t Lda,
                                    bool ATransposed, T *B, bool Lower,
                                    bool Transposed, bool UnitDiagonal) {
  if (!UnitDiagonal)
    for (int K = 0; K < N; ++K)
      if (A[K * (Lda + 1)] == T(0))
        return K + 1;
  if (N == 0 || NRhs == 0)
    return 0;
  // With the memory holding A^T, op(A) is the other op of that matrix,
  // whose triangle is the other one.
  bool Low = Lower != ATransposed, Tr = Transposed != ATransposed;
  auto Uplo = Low ? CblasLower : CblasUpper;
  auto Trans = Tr ? CblasTrans : CblasNoTrans;
  auto Diag = UnitDiagonal ? CblasUnit : CblasNonUnit;
  // One right-hand side: ?trsv, which skips ?trsm's packing (a 30-vector:
  // 0.4 us against 0.6).
  if (NRhs == 1)
    Routines<T>::trsv(CblasRowMajor, Uplo, Trans, Diag, N, A, int(Lda), B, 1);
  else
    Routines<T>::trsm(CblasRowMajor, CblasLeft, Uplo, Trans, Diag, N, NRhs,
                      T(1), A, int(Lda), B, NRhs);
  return 0;
}

template <typename T>
int lapack::solve(int N, int NRhs, T *A, T *B, int Assume, bool Lower,
                  std::vector<int> &Pivots) {
  int Info = 0, Ld = leading(N);
  char U = uplo(Lower);
  Pivots.resize(size_t(Ld));
  switch (Assume) {
  case 1: { // symmetric: ?sysv with its optimal work array
    T Query = 0;
    int LWork = -1;
    Routines<T>::sysv(&U, &N, &NRhs, A, &Ld, Pivots.data(), B, &Ld, &Query,
                      &LWork, &Info, 1);
    LWork = Query > 1 ? int(Query) : 1;
    static thread_local std::vector<T> Work; // kept between calls
    Work.resize(static_cast<size_t>(LWork));
    Routines<T>::sysv(&U, &N, &NRhs, A, &Ld, Pivots.data(), B, &Ld, Work.data(),
                      &LWork, &Info, 1);
    return Info;
  }
  case 2:
    Routines<T>::posv(&U, &N, &NRhs, A, &Ld, B, &Ld, &Info, 1);
    return Info;
  default:
    Routines<T>::gesv(&N, &NRhs, A, &Ld, Pivots.data(), B, &Ld, &Info);
    return Info;
  }
}

template <typename T>
int lapack::choleskySolve(int N, int NRhs, const T *C, T *B, bool Lower) {
  int Info = 0, Ld = leading(N);
  char U = uplo(Lower);
  Routines<T>::potrs(&U, &N, &NRhs, C, &Ld, B, &Ld, &Info, 1);
  return Info;
}

template <typename T>
int lapack::luFactor(int N, T *A, std::vector<int> &Pivots) {
  int Info = 0, Ld = leading(N);
  Pivots.resize(size_t(Ld));
  Routines<T>::getrf(&N, &N, A, &Ld, Pivots.data(), &Info);
  return Info;
}

template <typename T>
int lapack::inverseFromLU(int N, T *A, const std::vector<int> &Pivots) {
  int Info = 0, Ld = leading(N), LWork = -1;
  T Query = 0;
  Routines<T>::getri(&N, A, &Ld, Pivots.data(), &Query, &LWork, &Info);
  LWork = Query > 1 ? int(Query) : 1;
  static thread_local std::vector<T> Work; // kept between calls
  Work.resize(static_cast<size_t>(LWork));
  Routines<T>::getri(&N, A, &Ld, Pivots.data(), Work.data(), &LWork, &Info);
  return Info;
}

/// A work array of at least the size a workspace query reported.
template <typename T> int workSize(T Query) {
  return Query > 1 ? int(Query) : 1;
}

template <typename T>
int lapack::symmetricEigen(int N, T *A, T *W, bool Lower, EigenDriver Driver,
                           EigenWork<T> &Work, T *B) {
  int Info = 0, Ld = leading(N), LWork = -1, LIWork = -1, IQuery = 0;
  char Jobz = 'V', U = uplo(Lower);
  T Query = 0;
  if (B) { // A v = w B v, B positive definite: ?sygvd, itype 1
    int IType = 1;
    Routines<T>::sygvd(&IType, &Jobz, &U, &N, A, &Ld, B, &Ld, W, &Query, &LWork,
                       &IQuery, &LIWork, &Info, 1, 1);
    Work.Real.resize(size_t(workSize(Query)));
    Work.Int.resize(size_t(IQuery > 1 ? IQuery : 1));
    LWork = int(Work.Real.size()), LIWork = int(Work.Int.size());
    Routines<T>::sygvd(&IType, &Jobz, &U, &N, A, &Ld, B, &Ld, W,
                       Work.Real.data(), &LWork, Work.Int.data(), &LIWork,
                       &Info, 1, 1);
    return Info;
  }
  if (Driver == EigenDriver::DivideAndConquer) {
    Routines<T>::syevd(&Jobz, &U, &N, A, &Ld, W, &Query, &LWork, &IQuery,
                       &LIWork, &Info, 1, 1);
    Work.Real.resize(size_t(workSize(Query)));
    Work.Int.resize(size_t(IQuery > 1 ? IQuery : 1));
    LWork = int(Work.Real.size()), LIWork = int(Work.Int.size());
    Routines<T>::syevd(&Jobz, &U, &N, A, &Ld, W, Work.Real.data(), &LWork,
                       Work.Int.data(), &LIWork, &Info, 1, 1);
    return Info;
  }
  // ?syevr (MRRR), every eigenvalue, abstol 0 (LAPACK's default
  // tolerance), as scipy.linalg.eigh; it writes the vectors to Z.
  char Range = 'A';
  T Zero = 0, AbsTol = 0;
  int IZero = 0, Found = 0;
  Work.Vectors.resize(size_t(Ld) * size_t(Ld));
  Work.Support.resize(size_t(2 * Ld));
  Routines<T>::syevr(&Jobz, &Range, &U, &N, A, &Ld, &Zero, &Zero, &IZero,
                     &IZero, &AbsTol, &Found, W, Work.Vectors.data(), &Ld,
                     Work.Support.data(), &Query, &LWork, &IQuery, &LIWork,
                     &Info, 1, 1, 1);
  Work.Real.resize(size_t(workSize(Query)));
  Work.Int.resize(size_t(IQuery > 1 ? IQuery : 1));
  LWork = int(Work.Real.size()), LIWork = int(Work.Int.size());
  Routines<T>::syevr(&Jobz, &Range, &U, &N, A, &Ld, &Zero, &Zero, &IZero,
                     &IZero, &AbsTol, &Found, W, Work.Vectors.data(), &Ld,
                     Work.Support.data(), Work.Real.data(), &LWork,
                     Work.Int.data(), &LIWork, &Info, 1, 1, 1);
  std::copy(Work.Vectors.begin(), Work.Vectors.begin() + size_t(N) * N, A);
  return Info;
}

template <typename T>
int lapack::singularValues(int M, int N, T *A, T *S, T *U, T *VT, char Jobz,
                           EigenWork<T> &Work) {
  int Info = 0, Lda = leading(M), K = M < N ? M : N;
  int Ldu = leading(M), Ldvt = leading(Jobz == 'A' ? N : K), LWork = -1;
  T Query = 0;
  Work.Int.resize(size_t(8 * (K > 0 ? K : 1)));
  T Dummy = 0;
  T *UOut = U ? U : &Dummy, *VTOut = VT ? VT : &Dummy;
  Routines<T>::gesdd(&Jobz, &M, &N, A, &Lda, S, UOut, &Ldu, VTOut, &Ldvt,
                     &Query, &LWork, Work.Int.data(), &Info, 1);
  Work.Real.resize(size_t(workSize(Query)));
  LWork = int(Work.Real.size());
  Routines<T>::gesdd(&Jobz, &M, &N, A, &Lda, S, UOut, &Ldu, VTOut, &Ldvt,
                     Work.Real.data(), &LWork, Work.Int.data(), &Info, 1);
  return Info;
}

template <typename T>
void lapack::eighGradient(int N, const T *W, const T *V, const T *GW,
                          const T *GV, T *Out, bool Lower,
                          std::vector<T> &Scratch) {
  size_t NN = size_t(N) * size_t(N);
  Scratch.resize(2 * NN);
  T *C = Scratch.data(), *VM = Scratch.data() + NN;
  int Ld = leading(N);
  if (N == 0)
    return;
  // C = v^T gv; inner = diag(gw) + F o C, F_ij = 1 / (w_j - w_i) off the
  // diagonal (a repeated eigenvalue gives inf or NaN, as NumPy does).
  Routines<T>::gemm(CblasRowMajor, CblasTrans, CblasNoTrans, N, N, N, T(1), V,
                    Ld, GV, Ld, T(0), C, Ld);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J) {
      T &E = C[size_t(I) * N + J];
      E = I == J ? GW[I] : E / (W[J] - W[I]);
    }
  // g = v inner v^T, in Out.
  Routines<T>::gemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, T(1), V,
                    Ld, C, Ld, T(0), VM, Ld);
  Routines<T>::gemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, N, N, T(1), VM,
                    Ld, V, Ld, T(0), Out, Ld);
  // eigh reads one triangle, so a change there moves both of the
  // symmetric matrix's entries: tril(g) + triu(g, 1)^T (or the mirror).
  for (int I = 0; I < N; ++I)
    for (int J = I + 1; J < N; ++J) {
      T &Up = Out[size_t(I) * N + J], &Low = Out[size_t(J) * N + I];
      if (Lower) {
        Low += Up;
        Up = T(0);
      } else {
        Up += Low;
        Low = T(0);
      }
    }
}

template <typename T>
void lapack::pseudoInverseProduct(int M, int N, int K, T *U, const T *S,
                                  const T *VT, T Cutoff, T *X) {
  // U's column l scaled by 1/s_l where s_l > Cutoff, else by 0 (NumPy's
  // pinv); then U' VT (M × N, column-major) is X (N × M) row-major.
  for (int L = 0; L < K; ++L) {
    T Scale = S[L] > Cutoff ? T(1) / S[L] : T(0);
    for (int I = 0; I < M; ++I)
      U[I + size_t(L) * M] *= Scale;
  }
  if (M == 0 || N == 0)
    return;
  if (K == 0) {
    std::fill(X, X + size_t(M) * N, T(0));
    return;
  }
  Routines<T>::gemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, T(1), U,
                    leading(M), VT, leading(K), T(0), X, leading(M));
}

#define GRAPHJIT_LAPACK_INSTANTIATE(T)                                         \
  template int lapack::choleskyRowMajor<T>(int, T *, bool);                    \
  template int lapack::solveTriangularRowMajor<T>(                             \
      int, int, const T *, int64_t, bool, T *, bool, bool, bool);              \
  template int lapack::solve<T>(int, int, T *, T *, int, bool,                 \
                                std::vector<int> &);                           \
  template int lapack::choleskySolve<T>(int, int, const T *, T *, bool);       \
  template int lapack::luFactor<T>(int, T *, std::vector<int> &);              \
  template int lapack::inverseFromLU<T>(int, T *, const std::vector<int> &);   \
  template int lapack::symmetricEigen<T>(int, T *, T *, bool, EigenDriver,     \
                                         EigenWork<T> &, T *);                 \
  template int lapack::singularValues<T>(int, int, T *, T *, T *, T *, char,   \
                                         EigenWork<T> &);                      \
  template void lapack::eighGradient<T>(int, const T *, const T *, const T *,  \
                                        const T *, T *, bool,                  \
                                        std::vector<T> &);                     \
  template void lapack::pseudoInverseProduct<T>(int, int, int, T *, const T *, \
                                                const T *, T, T *);
GRAPHJIT_LAPACK_INSTANTIATE(float)
GRAPHJIT_LAPACK_INSTANTIATE(double)
