//===- LapackKernels.cpp - One matrix through LAPACK ----------------------===//
//
// LAPACK's Fortran entry points (the OpenBLAS graphjit links provides
// them), declared here with gfortran's calling convention: every argument
// by address, a hidden length after the last argument for each character
// argument. Only the routines the LAPACK ops call.
//
//===----------------------------------------------------------------------===//

#include "LapackKernels.h"
#include "BlasSymbols.h"
#include <cblas.h>
#include <cstddef>

using namespace graphjit;

extern "C" {
void GJ_BLAS(spotrf_)(const char *, const int *, float *, const int *, int *, size_t);
void GJ_BLAS(dpotrf_)(const char *, const int *, double *, const int *, int *, size_t);
void GJ_BLAS(spotrs_)(const char *, const int *, const int *, const float *,
             const int *, float *, const int *, int *, size_t);
void GJ_BLAS(dpotrs_)(const char *, const int *, const int *, const double *,
             const int *, double *, const int *, int *, size_t);
void GJ_BLAS(sgesv_)(const int *, const int *, float *, const int *, int *, float *,
            const int *, int *);
void GJ_BLAS(dgesv_)(const int *, const int *, double *, const int *, int *, double *,
            const int *, int *);
void GJ_BLAS(sposv_)(const char *, const int *, const int *, float *, const int *,
            float *, const int *, int *, size_t);
void GJ_BLAS(dposv_)(const char *, const int *, const int *, double *, const int *,
            double *, const int *, int *, size_t);
void GJ_BLAS(ssysv_)(const char *, const int *, const int *, float *, const int *,
            int *, float *, const int *, float *, const int *, int *, size_t);
void GJ_BLAS(dsysv_)(const char *, const int *, const int *, double *, const int *,
            int *, double *, const int *, double *, const int *, int *,
            size_t);
void GJ_BLAS(sgetrf_)(const int *, const int *, float *, const int *, int *, int *);
void GJ_BLAS(dgetrf_)(const int *, const int *, double *, const int *, int *, int *);
void GJ_BLAS(sgetri_)(const int *, float *, const int *, const int *, float *,
             const int *, int *);
void GJ_BLAS(dgetri_)(const int *, double *, const int *, const int *, double *,
             const int *, int *);
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
  Routines<T>::trsm(CblasRowMajor, CblasLeft, Low ? CblasLower : CblasUpper,
                    Tr ? CblasTrans : CblasNoTrans,
                    UnitDiagonal ? CblasUnit : CblasNonUnit, N, NRhs, T(1), A,
                    int(Lda), B, NRhs);
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
    std::vector<T> Work(static_cast<size_t>(LWork));
    Routines<T>::sysv(&U, &N, &NRhs, A, &Ld, Pivots.data(), B, &Ld,
                      Work.data(), &LWork, &Info, 1);
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

template <typename T> int lapack::luFactor(int N, T *A, std::vector<int> &Pivots) {
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
  std::vector<T> Work(static_cast<size_t>(LWork));
  Routines<T>::getri(&N, A, &Ld, Pivots.data(), Work.data(), &LWork, &Info);
  return Info;
}

#define GRAPHJIT_LAPACK_INSTANTIATE(T)                                         \
  template int lapack::choleskyRowMajor<T>(int, T *, bool);                    \
  template int lapack::solveTriangularRowMajor<T>(                             \
      int, int, const T *, int64_t, bool, T *, bool, bool, bool);              \
  template int lapack::solve<T>(int, int, T *, T *, int, bool,                 \
                                std::vector<int> &);                           \
  template int lapack::choleskySolve<T>(int, int, const T *, T *, bool);       \
  template int lapack::luFactor<T>(int, T *, std::vector<int> &);              \
  template int lapack::inverseFromLU<T>(int, T *, const std::vector<int> &);
GRAPHJIT_LAPACK_INSTANTIATE(float)
GRAPHJIT_LAPACK_INSTANTIATE(double)
