//===- LapackOps.cpp - cholesky, the solves, inv, det, slogdet
//-------------===//
//
// SciPy's and NumPy's linear algebra through LAPACK, on one matrix or a
// batch (the leading dims of the inputs, broadcast together):
//
//   cholesky(a, lower=true, on_error=raise)   scipy.linalg.cholesky
//   solve_triangular(a, b, lower=true, trans=0, unit_diagonal=false, b_ndim=2)
//   solve(a, b, assume_a=gen, lower=false, b_ndim=2)   gen, sym or pos
//   cho_solve(c, b, lower=true, b_ndim=2)     scipy.linalg.cho_solve((c,
//   lower), b) inv(a), det(a), slogdet(a)                numpy.linalg's
//   lu_factor(a, on_error=raise)              scipy.linalg.lu_factor: LU and
//                                             the 0-based pivots (i32)
//
// b_ndim is b's core rank: 1, a vector per matrix, or 2, columns. Results
// are float32 when every input is, float64 otherwise. Each matrix is copied
// into column-major scratch in the result's dtype (what LAPACK reads), and
// the result copied back: O(n^2) beside the routines' O(n^3).
//
// Errors are SciPy's and NumPy's words after "LinAlgError: " (the Python
// bridge raises numpy.linalg.LinAlgError for them): a matrix that is not
// positive definite, a singular solve. det of a singular matrix is 0 and
// slogdet's (0, -inf), as NumPy's.
//
//===----------------------------------------------------------------------===//

#include "ops/linalg/LapackOps.h"
#include "ops/linalg/BlasThreads.h"
#include "ops/linalg/LapackBatch.h"
#include "ops/linalg/LapackKernels.h"
#include "ops/Strided.h"
#include "ops/StructuralUtil.h"
#include "graphjit/OpRegistry.h"
#include "ops/StandardOps.h"
#include <cmath>
#include <limits>
#include <type_traits>

using namespace graphjit;
using namespace graphjit::lapack;
using llvm::Error;
using llvm::Expected;

namespace {

struct FnInfo {
  LapackFn Fn;
  const char *FormatName, *ClassName;
};

constexpr FnInfo Fns[] = {
    {LapackFn::Cholesky, "cholesky", "Cholesky"},
    {LapackFn::SolveTriangular, "solve_triangular", "SolveTriangular"},
    {LapackFn::Solve, "solve", "Solve"},
    {LapackFn::CholeskySolve, "cho_solve", "CholeskySolve"},
    {LapackFn::Inverse, "inv", "MatrixInverse"},
    {LapackFn::Det, "det", "Det"},
    {LapackFn::SLogDet, "slogdet", "SLogDet"},
    {LapackFn::LUFactor, "lu_factor", "LUFactor"},
};

const FnInfo &info(LapackFn F) { return Fns[unsigned(F)]; }

bool takesB(LapackFn F) {
  return F == LapackFn::SolveTriangular || F == LapackFn::Solve ||
         F == LapackFn::CholeskySolve;
}

/// The core rank of each input: the matrix, then b.
llvm::SmallVector<unsigned, 2> coreRanks(const LapackParams &P) {
  if (takesB(P.Fn))
    return {2, P.BNdim};
  return {2};
}

} // namespace

std::string LapackOp::name() const {
  auto Flag = [](bool B) { return B ? "True" : "False"; };
  std::string Props;
  switch (P.Fn) {
  case LapackFn::Cholesky:
    Props = std::string("lower=") + Flag(P.Lower);
    break;
  case LapackFn::SolveTriangular:
    Props = std::string("lower=") + Flag(P.Lower) +
            ", trans=" + (P.Transposed ? "1" : "0") +
            (P.UnitDiagonal ? ", unit_diagonal=True" : "");
    break;
  case LapackFn::Solve: {
    const char *A[] = {"gen", "sym", "pos"};
    Props = std::string("assume_a=") + A[unsigned(P.Assume)];
    if (P.Assume != AssumeA::General)
      Props += std::string(", lower=") + Flag(P.Lower);
    break;
  }
  case LapackFn::CholeskySolve:
    Props = std::string("lower=") + Flag(P.Lower);
    break;
  default:
    break;
  }
  if (takesB(P.Fn))
    Props += ", b_ndim=" + std::to_string(P.BNdim);
  if (P.NanOnError)
    Props += Props.empty() ? "on_error=nan" : ", on_error=nan";
  std::string N = info(P.Fn).ClassName;
  return Props.empty() ? N : N + "{" + Props + "}";
}

llvm::StringRef LapackOp::className() const { return info(P.Fn).ClassName; }

unsigned LapackOp::numOutputs() const {
  return P.Fn == LapackFn::SLogDet || P.Fn == LapackFn::LUFactor ? 2 : 1;
}

Expected<std::vector<TensorType>>
LapackOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  auto Core = coreRanks(P);
  llvm::StringRef Name = info(P.Fn).FormatName;
  llvm::SmallVector<DType, 2> Dts;
  for (const TensorType &T : In) {
    if (T.Dtype == DType::Bool)
      return opError(Name + ": a bool matrix");
    Dts.push_back(T.Dtype);
  }
  Expected<std::vector<Dim>> Batch = batchDims(In, Core, Name);
  if (!Batch)
    return Batch.takeError();
  const TensorType &A = In[0];
  const Dim &R = A.Dims[A.rank() - 2], &C = A.Dims[A.rank() - 1];
  if (R.isKnown() && C.isKnown() && R.Size != C.Size)
    return opError(Name + ": expected a square matrix, got " +
                   compactDimsStr(A.Dims));
  DType T = resultDType(Dts);
  std::vector<Dim> Out = *Batch;
  if (takesB(P.Fn)) {
    const TensorType &B = In[1];
    const Dim &N = B.Dims[B.rank() - P.BNdim];
    if (N.isKnown() && R.isKnown() && N.Size != R.Size)
      return opError(Name + ": a " + compactDimsStr(A.Dims) +
                     " matrix and b of " + compactDimsStr(B.Dims) +
                     " do not align");
    for (unsigned K = 0; K < P.BNdim; ++K)
      Out.push_back(B.Dims[B.rank() - P.BNdim + K]);
  } else if (P.Fn != LapackFn::Det && P.Fn != LapackFn::SLogDet) {
    Out.push_back(R.isKnown() ? R : C);
    Out.push_back(R.isKnown() ? R : C);
  }
  std::vector<TensorType> Types{TensorType(T, Out)};
  if (P.Fn == LapackFn::SLogDet)
    Types.push_back(TensorType(T, Out));
  if (P.Fn == LapackFn::LUFactor) {
    std::vector<Dim> Piv = *Batch;
    Piv.push_back(R.isKnown() ? R : C);
    Types.push_back(TensorType(DType::I32, Piv));
  }
  return Types;
}

Error LapackOp::prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                        const ExecContext &) const {
  auto Core = coreRanks(P);
  llvm::StringRef Name = info(P.Fn).FormatName;
  Expected<Batch> B = runBatch(In, Core, Name);
  if (!B)
    return B.takeError();
  const NDArray &A = In[0];
  int64_t N = coreDim(A, 2, 0);
  if (coreDim(A, 2, 1) != N)
    return opError(Name + ": expected a square matrix, got shape " +
                   compactShapeStr(A.shape()));
  if (N > std::numeric_limits<int>::max() / 2)
    return opError(Name + ": a matrix of " + llvm::Twine(N) +
                   " rows is beyond LAPACK's int");
  llvm::SmallVector<DType, 2> Dts;
  for (const NDArray &X : In)
    Dts.push_back(X.dtype());
  DType T = resultDType(Dts);
  Shape S = B->shape();
  if (takesB(P.Fn)) {
    const NDArray &Rhs = In[1];
    if (coreDim(Rhs, P.BNdim, 0) != N)
      return opError(Name + ": a " + compactShapeStr(A.shape()) +
                     " matrix and b of shape " + compactShapeStr(Rhs.shape()) +
                     " do not align");
    for (unsigned K = 0; K < P.BNdim; ++K)
      S.push_back(coreDim(Rhs, P.BNdim, K));
  } else if (P.Fn != LapackFn::Det && P.Fn != LapackFn::SLogDet) {
    S.push_back(N);
    S.push_back(N);
  }
  if (Error E = createOutput(Out[0], T, S))
    return E;
  if (P.Fn == LapackFn::SLogDet)
    return createOutput(Out[1], T, S);
  if (P.Fn == LapackFn::LUFactor) {
    Shape Piv = B->shape();
    Piv.push_back(N);
    return createOutput(Out[1], DType::I32, Piv);
  }
  return Error::success();
}

namespace {

/// One call of the op over its batch, in result type T.
template <typename T> class BatchRunner {
public:
  BatchRunner(const LapackParams &P, llvm::ArrayRef<NDArray> In,
              llvm::ArrayRef<NDArray> Out, const Batch &B)
      : P(P), In(In), Out(Out), B(B), N(coreDim(In[0], 2, 0)) {}

  Error run() {
    for (int64_t Flat = 0, E = B.count(); Flat < E; ++Flat) {
      // The Cholesky factor and the triangular solve work on the row-major
      // output itself; the rest on column-major copies.
      if (P.Fn != LapackFn::Cholesky && P.Fn != LapackFn::SolveTriangular)
        loadA(Flat);
      if (Error Err = one(Flat))
        return Err;
    }
    return Error::success();
  }

private:
  const LapackParams &P;
  llvm::ArrayRef<NDArray> In, Out;
  const Batch &B;
  int64_t N;
  // The thread's scratch, kept between calls (LapackBatch.h).
  std::vector<T> &MatA = ThreadScratch<T>::get().A;
  std::vector<T> &MatB = ThreadScratch<T>::get().B;
  std::vector<int> &Pivots = ThreadScratch<T>::get().Pivots;

  void loadA(int64_t Flat) {
    const NDArray &A = In[0];
    MatA.resize(size_t(N * N));
    toColumnMajor(A.dtype(), A.data() + batchOffset(B, 0, Flat), N, N,
                  coreStride(A, 2, 0), coreStride(A, 2, 1), MatA.data());
  }

  /// Input I's matrix of batch element Flat, Rows × Cols (a vector, of
  /// core rank 1: one column), into row-major Dst as T.
  void loadRowMajor(unsigned I, int64_t Flat, int64_t Rows, int64_t Cols,
                    unsigned Core, T *Dst) const {
    const NDArray &A = In[I];
    int64_t RowStride = coreStride(A, Core, 0);
    int64_t ColStride = Core == 2 ? coreStride(A, 2, 1) : 0;
    // Column-major Cols × Rows of the transpose is row-major Rows × Cols.
    toColumnMajor(A.dtype(), A.data() + batchOffset(B, I, Flat), Cols, Rows,
                  ColStride, RowStride, Dst);
  }

  /// A's matrix of batch element Flat as trsm reads it: where one of its
  /// strides is one T, the memory as it is (ATransposed when its rows are
  /// adjacent), else a row-major copy in MatA.
  const T *triangularA(int64_t Flat, int64_t &Lda, bool &ATransposed) {
    const NDArray &A = In[0];
    int64_t RS = coreStride(A, 2, 0), CS = coreStride(A, 2, 1);
    const int64_t Size = sizeof(T);
    const char *Base = A.data() + batchOffset(B, 0, Flat);
    ATransposed = false;
    const DType Own = std::is_same_v<T, float> ? DType::F32 : DType::F64;
    // BLAS takes Lda as an int.
    const int64_t MaxLd = int64_t(std::numeric_limits<int>::max()) * Size;
    if (A.dtype() == Own && N > 0) {
      if (CS == Size && RS % Size == 0 && RS >= N * Size && RS <= MaxLd) {
        Lda = RS / Size;
        return reinterpret_cast<const T *>(Base);
      }
      if (RS == Size && CS % Size == 0 && CS >= N * Size && CS <= MaxLd) {
        Lda = CS / Size;
        ATransposed = true;
        return reinterpret_cast<const T *>(Base);
      }
    }
    MatA.resize(size_t(N * N));
    loadRowMajor(0, Flat, N, N, 2, MatA.data());
    Lda = N > 0 ? N : 1;
    return MatA.data();
  }

  /// b as n × nrhs, column-major; nrhs is 1 for a vector.
  int64_t loadB(int64_t Flat) {
    const NDArray &Rhs = In[1];
    int64_t NRhs = P.BNdim == 2 ? coreDim(Rhs, 2, 1) : 1;
    int64_t ColStride = P.BNdim == 2 ? coreStride(Rhs, 2, 1) : 0;
    MatB.resize(size_t(N * NRhs));
    toColumnMajor(Rhs.dtype(), Rhs.data() + batchOffset(B, 1, Flat), N, NRhs,
                  coreStride(Rhs, P.BNdim, 0), ColStride, MatB.data());
    return NRhs;
  }

  /// A matrix LAPACK refused: the error, or NaNs in its output where the op
  /// says on_error=nan (PyTensor's solves and Cholesky).
  Error fail(int64_t Flat, int64_t CoreElems, const llvm::Twine &Msg) {
    if (!P.NanOnError)
      return linAlgError(Msg);
    T *Dst = outAt(0, Flat, CoreElems);
    std::fill(Dst, Dst + CoreElems, std::numeric_limits<T>::quiet_NaN());
    return Error::success();
  }

  /// The output's elements of batch element Flat (outputs are contiguous).
  T *outAt(unsigned K, int64_t Flat, int64_t CoreElems) const {
    return Out[K].template dataAs<T>() + Flat * CoreElems;
  }

  Error one(int64_t Flat) {
    int n = int(N);
    switch (P.Fn) {
    case LapackFn::Cholesky: {
      T *L = outAt(0, Flat, N * N);
      loadRowMajor(0, Flat, N, N, 2, L);
      if (int Info = lapack::choleskyRowMajor<T>(n, L, P.Lower))
        return fail(Flat, N * N,
                    llvm::Twine(Info) +
                        "-th leading minor not positive definite");
      return Error::success();
    }
    case LapackFn::SolveTriangular: {
      int64_t NRhs = P.BNdim == 2 ? coreDim(In[1], 2, 1) : 1;
      T *X = outAt(0, Flat, N * NRhs);
      loadRowMajor(1, Flat, N, NRhs, P.BNdim, X);
      int64_t Lda;
      bool ATransposed;
      const T *A = triangularA(Flat, Lda, ATransposed);
      if (int Info = lapack::solveTriangularRowMajor<T>(
              n, int(NRhs), A, Lda, ATransposed, X, P.Lower, P.Transposed,
              P.UnitDiagonal);
          Info > 0)
        return fail(Flat, N * NRhs,
                    "singular matrix: resolution failed at diagonal " +
                        llvm::Twine(Info - 1));
      return Error::success();
    }
    case LapackFn::Solve: {
      int64_t NRhs = loadB(Flat);
      if (int Info = lapack::solve<T>(n, int(NRhs), MatA.data(), MatB.data(),
                                      int(P.Assume), P.Lower, Pivots);
          Info > 0)
        return fail(Flat, N * NRhs,
                    P.Assume == AssumeA::PositiveDefinite
                        ? "Matrix is not positive definite."
                        : "Matrix is singular.");
      toRowMajor(MatB.data(), N, NRhs, outAt(0, Flat, N * NRhs));
      return Error::success();
    }
    case LapackFn::CholeskySolve: {
      int64_t NRhs = loadB(Flat);
      lapack::choleskySolve<T>(n, int(NRhs), MatA.data(), MatB.data(), P.Lower);
      toRowMajor(MatB.data(), N, NRhs, outAt(0, Flat, N * NRhs));
      return Error::success();
    }
    case LapackFn::Inverse: {
      if (lapack::luFactor<T>(n, MatA.data(), Pivots) > 0)
        return fail(Flat, N * N, "Singular matrix");
      lapack::inverseFromLU<T>(n, MatA.data(), Pivots);
      toRowMajor(MatA.data(), N, N, outAt(0, Flat, N * N));
      return Error::success();
    }
    case LapackFn::LUFactor: {
      int Info = lapack::luFactor<T>(n, MatA.data(), Pivots);
      int32_t *Piv = Out[1].template dataAs<int32_t>() + Flat * N;
      for (int64_t I = 0; I < N; ++I)
        Piv[I] = Pivots[size_t(I)] - 1; // LAPACK counts from 1
      toRowMajor(MatA.data(), N, N, outAt(0, Flat, N * N));
      // As scipy.linalg.lu_factor, an exactly singular U is no error;
      // PyTensor's LUFactor fills NaNs (on_error=nan).
      if (Info > 0 && P.NanOnError)
        return fail(Flat, N * N, "Singular matrix");
      return Error::success();
    }
    case LapackFn::Det:
    case LapackFn::SLogDet: {
      // LU's diagonal; each row swap flips the sign (NumPy's way).
      int Info = lapack::luFactor<T>(n, MatA.data(), Pivots);
      T Swaps = 1, Sign = 1, LogAbs = 0, Product = 1;
      for (int I = 0; I < n; ++I) {
        T D = MatA[size_t(I) * size_t(N + 1)];
        if (Pivots[size_t(I)] != I + 1)
          Swaps = -Swaps;
        if (D < 0)
          Sign = -Sign;
        LogAbs += std::log(std::fabs(D));
        Product *= D;
      }
      if (P.Fn == LapackFn::Det) {
        *outAt(0, Flat, 1) = Info > 0 ? T(0) : Swaps * Product;
        return Error::success();
      }
      Sign *= Swaps;
      *outAt(0, Flat, 1) = Info > 0 ? T(0) : Sign;
      *outAt(1, Flat, 1) =
          Info > 0 ? -std::numeric_limits<T>::infinity() : LogAbs;
      return Error::success();
    }
    }
    return Error::success();
  }
};

} // namespace

/// One matrix's flops: n × n, with nrhs right-hand sides for the solves.
static double matrixFlops(LapackFn F, double N, double NRhs) {
  switch (F) {
  case LapackFn::Cholesky:
    return N * N * N / 3;
  case LapackFn::SolveTriangular:
  case LapackFn::CholeskySolve:
    return N * N * NRhs * 2;
  case LapackFn::Solve:
    return 2 * N * N * N / 3 + 2 * N * N * NRhs;
  case LapackFn::Inverse:
    return 2 * N * N * N;
  default:
    return 2 * N * N * N / 3;
  }
}

Error LapackOp::compute(llvm::ArrayRef<NDArray> In, llvm::ArrayRef<NDArray> Out,
                        const ExecContext &) const {
  Expected<Batch> B = runBatch(In, coreRanks(P), info(P.Fn).FormatName);
  if (!B)
    return B.takeError();
  // One matrix's work decides: the batch runs one matrix at a time.
  double NRhs = takesB(P.Fn) && P.BNdim == 2 ? double(In[1].shape().back()) : 1;
  SmallBlasScope Threads(matrixFlops(P.Fn, double(In[0].shape().back()), NRhs));
  if (Out[0].dtype() == DType::F32)
    return BatchRunner<float>(P, In, Out, *B).run();
  return BatchRunner<double>(P, In, Out, *B).run();
}

double LapackOp::flops(llvm::ArrayRef<Shape> In, llvm::ArrayRef<Shape>) const {
  if (In.empty() || In[0].size() < 2)
    return 0;
  double Batch = batchSize(In[0], 2);
  double NRhs = 1;
  if (takesB(P.Fn) && P.BNdim == 2 && In.size() > 1 && !In[1].empty())
    NRhs = double(In[1].back());
  return Batch * matrixFlops(P.Fn, double(In[0].back()), NRhs);
}

namespace {

Expected<LapackParams> readParams(LapackFn F, const AttrMap &Attrs) {
  llvm::StringRef Name = info(F).FormatName;
  AttrReader R(Name, Attrs);
  LapackParams P;
  P.Fn = F;
  auto OnError = [&]() -> Error {
    if (!R.has("on_error"))
      return Error::success();
    Expected<std::string> V = R.getIdent("on_error");
    if (!V)
      return V.takeError();
    if (*V != "raise" && *V != "nan")
      return opError(Name + ": on_error must be raise or nan, got " + *V);
    P.NanOnError = *V == "nan";
    return Error::success();
  };
  auto BNdim = [&]() -> Error {
    Expected<int64_t> V = R.getInt("b_ndim", 2);
    if (!V)
      return V.takeError();
    if (*V != 1 && *V != 2)
      return opError(Name + ": b_ndim must be 1 or 2, got " + llvm::Twine(*V));
    P.BNdim = unsigned(*V);
    return Error::success();
  };
  switch (F) {
  case LapackFn::Cholesky: {
    if (Error E = R.checkOnly({"lower", "on_error"}))
      return E;
    if (Error E = R.readBool("lower", true, P.Lower))
      return E;
    if (Error E = OnError())
      return E;
    return P;
  }
  case LapackFn::SolveTriangular: {
    if (Error E = R.checkOnly(
            {"lower", "trans", "unit_diagonal", "b_ndim", "on_error"}))
      return E;
    Expected<int64_t> Trans = R.getInt("trans", 0);
    if (!Trans)
      return Trans.takeError();
    if (*Trans < 0 || *Trans > 2)
      return opError("solve_triangular: trans must be 0, 1 or 2");
    P.Transposed = *Trans != 0; // 2 (conjugate) is 1 on real matrices
    if (Error E = R.readBool("lower", true, P.Lower))
      return E;
    if (Error E = R.readBool("unit_diagonal", false, P.UnitDiagonal))
      return E;
    if (Error E = OnError())
      return E;
    if (Error E = BNdim())
      return E;
    return P;
  }
  case LapackFn::Solve: {
    if (Error E = R.checkOnly({"assume_a", "lower", "b_ndim", "on_error"}))
      return E;
    if (R.has("assume_a")) {
      Expected<std::string> V = R.getIdent("assume_a");
      if (!V)
        return V.takeError();
      if (*V == "gen" || *V == "general")
        P.Assume = AssumeA::General;
      else if (*V == "sym" || *V == "symmetric")
        P.Assume = AssumeA::Symmetric;
      else if (*V == "pos" || *V == "positive_definite")
        P.Assume = AssumeA::PositiveDefinite;
      else
        return opError("solve: assume_a must be gen, sym or pos, got " + *V);
    }
    if (Error E = R.readBool("lower", false, P.Lower))
      return E;
    if (Error E = OnError())
      return E;
    if (Error E = BNdim())
      return E;
    return P;
  }
  case LapackFn::CholeskySolve: {
    if (Error E = R.checkOnly({"lower", "b_ndim"}))
      return E;
    if (Error E = R.readBool("lower", true, P.Lower))
      return E;
    if (Error E = BNdim())
      return E;
    return P;
  }
  case LapackFn::Inverse:
  case LapackFn::LUFactor:
    if (Error E = R.checkOnly({"on_error"}))
      return E;
    if (Error E = OnError())
      return E;
    return P;
  default:
    if (Error E = R.checkOnly({}))
      return E;
    return P;
  }
}

} // namespace

void graphjit::registerLapackOps(OpRegistry &R) {
  const char *Summaries[] = {
      "Cholesky factor (scipy.linalg.cholesky): cholesky(a, lower=true, "
      "on_error=raise|nan); batched over leading dims",
      "solve op(a) x = b, a triangular (scipy.linalg.solve_triangular): "
      "solve_triangular(a, b, lower=true, trans=0, unit_diagonal=false, "
      "b_ndim=2)",
      "solve a x = b (scipy.linalg.solve): solve(a, b, assume_a=gen|sym|pos, "
      "lower=false, b_ndim=2)",
      "solve a x = b from a's Cholesky factor c (scipy.linalg.cho_solve): "
      "cho_solve(c, b, lower=true, b_ndim=2)",
      "matrix inverse (numpy.linalg.inv)",
      "determinant (numpy.linalg.det)",
      "sign and log |det| (numpy.linalg.slogdet): two outputs",
      "LU factorization with partial pivoting (scipy.linalg.lu_factor): "
      "two outputs, LU and the 0-based pivots (i32)",
  };
  for (const FnInfo &F : Fns) {
    unsigned Inputs = takesB(F.Fn) ? 2 : 1;
    LapackFn Fn = F.Fn;
    R.add(OpSpec{F.FormatName, Inputs, int(Inputs),
                 [Fn](const AttrMap &A, unsigned) -> Expected<OpRef> {
                   Expected<LapackParams> P = readParams(Fn, A);
                   if (!P)
                     return P.takeError();
                   return std::make_shared<LapackOp>(info(Fn).FormatName, A,
                                                     *P);
                 },
                 Summaries[unsigned(F.Fn)]});
  }
}
