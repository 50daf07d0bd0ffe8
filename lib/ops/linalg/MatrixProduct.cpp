//===- MatrixProduct.cpp - Strided matrix products through CBLAS ---------===//
//
// The layouts BLAS reads without copying and the one place that calls
// CBLAS's ?dot, ?gemv and ?gemm for dot and gemm.
//
//===----------------------------------------------------------------------===//

#include "ops/linalg/MatrixProduct.h"
#include "ops/linalg/BlasThreads.h"
#include <algorithm>
#include "ops/linalg/BlasSymbols.h"
#include <cblas.h>
#include <limits>
#include <type_traits>

using namespace graphjit;

MatView graphjit::leftView(const NDArray &A) {
  if (A.rank() == 2)
    return MatView{A.data(), A.dim(0), A.dim(1), A.strides()[0],
                   A.strides()[1]};
  return MatView{A.data(), 1, A.dim(0), 0, A.strides()[0]};
}

MatView graphjit::rightView(const NDArray &B) {
  if (B.rank() == 2)
    return MatView{B.data(), B.dim(0), B.dim(1), B.strides()[0],
                   B.strides()[1]};
  return MatView{B.data(), B.dim(0), 1, B.strides()[0], 0};
}

std::optional<BlasLayout> graphjit::blasLayout(const MatView &M,
                                               int64_t Elt) {
  if (reinterpret_cast<uintptr_t>(M.Data) % Elt != 0 || M.RowStride % Elt ||
      M.ColStride % Elt)
    return std::nullopt;
  int64_t RS = M.RowStride / Elt, CS = M.ColStride / Elt;
  // Strides of dims of size 1 are never followed; any value fits.
  bool UnitCols = M.Cols == 1 || CS == 1;
  bool UnitRows = M.Rows == 1 || RS == 1;
  int64_t MinRowLd = std::max<int64_t>(1, M.Cols);
  int64_t MinColLd = std::max<int64_t>(1, M.Rows);
  if (UnitCols && (M.Rows == 1 || RS >= MinRowLd))
    return BlasLayout{false, M.Rows == 1 ? MinRowLd : RS};
  if (UnitRows && (M.Cols == 1 || CS >= MinColLd))
    return BlasLayout{true, M.Cols == 1 ? MinColLd : CS};
  return std::nullopt;
}

static bool fitsBlasInt(int64_t V) {
  return V <= std::numeric_limits<blasint>::max();
}

bool graphjit::blasReadable(const MatView &M, int64_t Elt) {
  std::optional<BlasLayout> L = blasLayout(M, Elt);
  return L && fitsBlasInt(L->Ld);
}

/// A vector's element stride for BLAS (positive), if it has one.
static std::optional<int64_t> blasInc(const char *Data, int64_t N,
                                      int64_t Stride, int64_t Elt) {
  if (reinterpret_cast<uintptr_t>(Data) % Elt != 0 || Stride % Elt)
    return std::nullopt;
  if (N <= 1)
    return int64_t(1);
  if (Stride <= 0)
    return std::nullopt;
  return Stride / Elt;
}

template <typename T>
static bool blasProductImpl(const MatView &A, const MatView &B, T *C, T Alpha,
                            T Beta) {
  constexpr int64_t Elt = sizeof(T);
  constexpr bool F32 = std::is_same_v<T, float>;
  const int64_t M = A.Rows, K = A.Cols, N = B.Cols;
  if (!fitsBlasInt(M) || !fitsBlasInt(N) || !fitsBlasInt(K))
    return false;
  SmallBlasScope Threads(2.0 * double(M) * double(N) * double(K));
  const T *PA = reinterpret_cast<const T *>(A.Data);
  const T *PB = reinterpret_cast<const T *>(B.Data);
  if (M == 1 && N == 1) {
    auto IncA = blasInc(A.Data, K, A.ColStride, Elt);
    auto IncB = blasInc(B.Data, K, B.RowStride, Elt);
    if (!IncA || !IncB || !fitsBlasInt(*IncA) || !fitsBlasInt(*IncB))
      return false;
    T D;
    if constexpr (F32)
      D = GJ_BLAS(cblas_sdot)(blasint(K), PA, blasint(*IncA), PB, blasint(*IncB));
    else
      D = GJ_BLAS(cblas_ddot)(blasint(K), PA, blasint(*IncA), PB, blasint(*IncB));
    // Beta 0 must not read C (it may hold anything, NaN included).
    *C = Beta == 0 ? Alpha * D : Alpha * D + Beta * *C;
    return true;
  }
  if (N == 1 || M == 1) {
    // y = A·x (N == 1) or y = Bᵀ·x (M == 1): one matrix, one vector.
    const MatView &Mat = N == 1 ? A : B;
    const char *X = N == 1 ? B.Data : A.Data;
    int64_t XStride = N == 1 ? B.RowStride : A.ColStride;
    auto L = blasLayout(Mat, Elt);
    auto Inc = blasInc(X, K, XStride, Elt);
    if (!L || !Inc || !fitsBlasInt(L->Ld) || !fitsBlasInt(*Inc))
      return false;
    // Stored as row-major R×Cc; A·x wants Mat, Bᵀ·x its transpose.
    bool Trans = L->Trans != (M == 1);
    int64_t R = L->Trans ? Mat.Cols : Mat.Rows;
    int64_t Cc = L->Trans ? Mat.Rows : Mat.Cols;
    const T *PM = reinterpret_cast<const T *>(Mat.Data);
    const T *PX = reinterpret_cast<const T *>(X);
    auto Tr = Trans ? CblasTrans : CblasNoTrans;
    if constexpr (F32)
      GJ_BLAS(cblas_sgemv)(CblasRowMajor, Tr, blasint(R), blasint(Cc), Alpha, PM,
                  blasint(L->Ld), PX, blasint(*Inc), Beta, C, 1);
    else
      GJ_BLAS(cblas_dgemv)(CblasRowMajor, Tr, blasint(R), blasint(Cc), Alpha, PM,
                  blasint(L->Ld), PX, blasint(*Inc), Beta, C, 1);
    return true;
  }
  auto LA = blasLayout(A, Elt), LB = blasLayout(B, Elt);
  if (!LA || !LB || !fitsBlasInt(LA->Ld) || !fitsBlasInt(LB->Ld))
    return false;
  auto TA = LA->Trans ? CblasTrans : CblasNoTrans;
  auto TB = LB->Trans ? CblasTrans : CblasNoTrans;
  if constexpr (F32)
    GJ_BLAS(cblas_sgemm)(CblasRowMajor, TA, TB, blasint(M), blasint(N), blasint(K),
                Alpha, PA, blasint(LA->Ld), PB, blasint(LB->Ld), Beta, C,
                blasint(N));
  else
    GJ_BLAS(cblas_dgemm)(CblasRowMajor, TA, TB, blasint(M), blasint(N), blasint(K),
                Alpha, PA, blasint(LA->Ld), PB, blasint(LB->Ld), Beta, C,
                blasint(N));
  return true;
}

bool graphjit::blasProduct(const MatView &A, const MatView &B, float *C,
                           float Alpha, float Beta) {
  return blasProductImpl<float>(A, B, C, Alpha, Beta);
}

bool graphjit::blasProduct(const MatView &A, const MatView &B, double *C,
                           double Alpha, double Beta) {
  return blasProductImpl<double>(A, B, C, Alpha, Beta);
}
