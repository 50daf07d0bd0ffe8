//===- SpectralOps.cpp - eigh, eigh_grad, svd, pinv -----------------------===//
//
// NumPy's and SciPy's decompositions through LAPACK, on one matrix or a
// batch (the leading dims of the inputs, broadcast together):
//
//   eigh(a, lower=true, driver=evd)   numpy.linalg.eigh (?syevd); driver=evr
//                                     is scipy.linalg.eigh's default (?syevr)
//   eigh(a, b, lower=true)            scipy.linalg.eigh(a, b): A v = w B v
//                                     (?sygvd)
//   eigh_grad(w, v, gw, gv, lower=true)  PyTensor's EighGrad
//   svd(a, full_matrices=true, compute_uv=true)   numpy.linalg.svd (?gesdd)
//   pinv(a, hermitian=false)          numpy.linalg.pinv (rcond 1e-15)
//
// Results are float32 when every input is, float64 otherwise. Each matrix
// is copied into column-major scratch (what LAPACK reads) and the results
// copied back, as NumPy's umath_linalg does, so the routines see the same
// matrices NumPy's calls see: eigenvectors (and singular vectors) come out
// with the same signs as far as the LAPACK builds agree.
//
// Errors are NumPy's and SciPy's words after "LinAlgError: ": no
// convergence, b not positive definite. SciPy's eigh (evr, and with b)
// refuses infinities and NaNs, as SciPy's check_finite does.
//
//===----------------------------------------------------------------------===//

#include "ops/linalg/SpectralOps.h"
#include "ops/linalg/BlasThreads.h"
#include "ops/linalg/LapackBatch.h"
#include "ops/StructuralUtil.h"
#include "graphjit/OpRegistry.h"
#include "ops/StandardOps.h"
#include <algorithm>
#include <cmath>
#include <limits>

using namespace graphjit;
using namespace graphjit::lapack;
using llvm::Error;
using llvm::Expected;

namespace {

struct FnInfo {
  SpectralFn Fn;
  const char *FormatName, *ClassName;
  unsigned MinInputs, MaxInputs;
};

constexpr FnInfo Fns[] = {
    {SpectralFn::Eigh, "eigh", "Eigh", 1, 2},
    {SpectralFn::EighGrad, "eigh_grad", "EighGrad", 4, 4},
    {SpectralFn::SVD, "svd", "SVD", 1, 1},
    {SpectralFn::Pinv, "pinv", "MatrixPinv", 1, 1},
};

const FnInfo &info(SpectralFn F) { return Fns[unsigned(F)]; }

/// numpy.linalg.pinv's default rcond.
constexpr double PinvRCond = 1e-15;

/// The core rank of each input.
llvm::SmallVector<unsigned, 4> coreRanks(const SpectralParams &P,
                                         size_t NumInputs) {
  if (P.Fn == SpectralFn::EighGrad)
    return {1, 2, 1, 2};
  return llvm::SmallVector<unsigned, 4>(NumInputs, 2);
}

/// The min of two static dims, or unknown.
Dim minDim(const Dim &A, const Dim &B) {
  if (A.isKnown() && B.isKnown())
    return Dim::known(std::min(A.Size, B.Size));
  if ((A.isKnown() && A.Size == 0) || (B.isKnown() && B.Size == 0))
    return Dim::known(0);
  return Dim::unknown();
}

/// The output core shapes of a matrix of M × N (eigh, eigh_grad: N × N),
/// as one list per output.
template <typename D>
std::vector<std::vector<D>> coreShapes(const SpectralParams &P, D M, D N, D K) {
  switch (P.Fn) {
  case SpectralFn::Eigh:
    return {{N}, {N, N}};
  case SpectralFn::EighGrad:
    return {{N, N}};
  case SpectralFn::SVD:
    if (!P.ComputeUV)
      return {{K}};
    if (P.FullMatrices)
      return {{M, M}, {K}, {N, N}};
    return {{M, K}, {K}, {K, N}};
  case SpectralFn::Pinv:
    return {{N, M}};
  }
  return {};
}

template <typename T> bool anyNonFinite(const std::vector<T> &M) {
  return std::any_of(M.begin(), M.end(), [](T V) { return !std::isfinite(V); });
}

} // namespace

std::string SpectralOp::name() const {
  auto Flag = [](bool B) { return B ? "True" : "False"; };
  std::string N = info(P.Fn).ClassName;
  switch (P.Fn) {
  case SpectralFn::Eigh:
    return N + "{lower=" + Flag(P.Lower) + ", driver=" +
           (P.Driver == EigenDriver::DivideAndConquer ? "evd" : "evr") + "}";
  case SpectralFn::EighGrad:
    return N + "{lower=" + Flag(P.Lower) + "}";
  case SpectralFn::SVD:
    return N + "{full_matrices=" + Flag(P.FullMatrices) +
           ", compute_uv=" + Flag(P.ComputeUV) + "}";
  case SpectralFn::Pinv:
    return N + "{hermitian=" + Flag(P.Hermitian) + "}";
  }
  return N;
}

llvm::StringRef SpectralOp::className() const { return info(P.Fn).ClassName; }

unsigned SpectralOp::numOutputs() const {
  if (P.Fn == SpectralFn::Eigh)
    return 2;
  if (P.Fn == SpectralFn::SVD && P.ComputeUV)
    return 3;
  return 1;
}

Expected<std::vector<TensorType>>
SpectralOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  llvm::StringRef Name = info(P.Fn).FormatName;
  auto Core = coreRanks(P, In.size());
  llvm::SmallVector<DType, 4> Dts;
  for (const TensorType &T : In) {
    if (T.Dtype == DType::Bool)
      return opError(Name + ": a bool matrix");
    Dts.push_back(T.Dtype);
  }
  Expected<std::vector<Dim>> Batch = batchDims(In, Core, Name);
  if (!Batch)
    return Batch.takeError();
  // The matrix whose core dims decide: a (v for eigh_grad).
  const TensorType &A = In[P.Fn == SpectralFn::EighGrad ? 1 : 0];
  Dim M = A.Dims[A.rank() - 2], N = A.Dims[A.rank() - 1];
  bool Square = P.Fn == SpectralFn::Eigh || P.Fn == SpectralFn::EighGrad;
  if (Square && M.isKnown() && N.isKnown() && M.Size != N.Size)
    return opError(Name + ": expected a square matrix, got " +
                   compactDimsStr(A.Dims));
  if (Square && !N.isKnown())
    N = M;
  if (P.Fn == SpectralFn::Eigh && In.size() == 2) {
    const TensorType &B = In[1];
    const Dim &BN = B.Dims[B.rank() - 1], &BM = B.Dims[B.rank() - 2];
    if ((BN.isKnown() && BM.isKnown() && BN.Size != BM.Size) ||
        (BN.isKnown() && N.isKnown() && BN.Size != N.Size))
      return opError("eigh: a of " + compactDimsStr(A.Dims) + " and b of " +
                     compactDimsStr(B.Dims) +
                     " are not square matrices of "
                     "one size");
  }
  DType T = resultDType(Dts);
  std::vector<TensorType> Types;
  for (auto &CoreDims : coreShapes(P, M, N, minDim(M, N))) {
    std::vector<Dim> Dims = *Batch;
    Dims.insert(Dims.end(), CoreDims.begin(), CoreDims.end());
    Types.push_back(TensorType(T, Dims));
  }
  return Types;
}

Error SpectralOp::prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                          const ExecContext &) const {
  llvm::StringRef Name = info(P.Fn).FormatName;
  Expected<Batch> B = runBatch(In, coreRanks(P, In.size()), Name);
  if (!B)
    return B.takeError();
  const NDArray &A = In[P.Fn == SpectralFn::EighGrad ? 1 : 0];
  int64_t M = coreDim(A, 2, 0), N = coreDim(A, 2, 1);
  bool Square = P.Fn == SpectralFn::Eigh || P.Fn == SpectralFn::EighGrad;
  if (Square && M != N)
    return opError(Name + ": expected a square matrix, got shape " +
                   compactShapeStr(A.shape()));
  if (std::max(M, N) > std::numeric_limits<int>::max() / 8)
    return opError(Name + ": a matrix of " + compactShapeStr(A.shape()) +
                   " is beyond LAPACK's int");
  if (P.Fn == SpectralFn::Eigh && In.size() == 2 &&
      (coreDim(In[1], 2, 0) != N || coreDim(In[1], 2, 1) != N))
    return opError("eigh: a of shape " + compactShapeStr(A.shape()) +
                   " and b of shape " + compactShapeStr(In[1].shape()) +
                   " are not square matrices of one size");
  if (P.Fn == SpectralFn::EighGrad) {
    for (unsigned I : {0u, 2u})
      if (coreDim(In[I], 1, 0) != N)
        return opError("eigh_grad: eigenvalues of shape " +
                       compactShapeStr(In[I].shape()) + " for vectors of " +
                       compactShapeStr(A.shape()));
    if (coreDim(In[3], 2, 0) != N || coreDim(In[3], 2, 1) != N)
      return opError("eigh_grad: gv of shape " +
                     compactShapeStr(In[3].shape()) + " for vectors of " +
                     compactShapeStr(A.shape()));
  }
  llvm::SmallVector<DType, 4> Dts;
  for (const NDArray &X : In)
    Dts.push_back(X.dtype());
  DType T = resultDType(Dts);
  auto Shapes = coreShapes<int64_t>(P, M, N, std::min(M, N));
  for (size_t K = 0; K < Shapes.size(); ++K) {
    Shape S = B->shape();
    S.insert(S.end(), Shapes[K].begin(), Shapes[K].end());
    if (Error E = createOutput(Out[K], T, S))
      return E;
  }
  return Error::success();
}

namespace {

/// One call of the op over its batch, in result type T.
template <typename T> class BatchRunner {
public:
  BatchRunner(const SpectralParams &P, llvm::ArrayRef<NDArray> In,
              llvm::ArrayRef<NDArray> Out, const Batch &B)
      : P(P), In(In), Out(Out), B(B) {}

  Error run() {
    for (int64_t Flat = 0, E = B.count(); Flat < E; ++Flat)
      if (Error Err = one(Flat))
        return Err;
    return Error::success();
  }

private:
  const SpectralParams &P;
  llvm::ArrayRef<NDArray> In, Out;
  const Batch &B;
  // The thread's scratch, kept between calls (LapackBatch.h).
  ThreadScratch<T> &Scratch = ThreadScratch<T>::get();
  std::vector<T> &MatA = Scratch.A, &MatB = Scratch.B, &U = Scratch.C,
                 &VT = Scratch.D, &S = Scratch.E, &GW = Scratch.F,
                 &GV = Scratch.G, &W = Scratch.H;
  EigenWork<T> &Work = threadEigenWork();

  static EigenWork<T> &threadEigenWork() {
    static thread_local EigenWork<T> Work;
    return Work;
  }

  /// Input I's core matrix (Rows × Cols; a vector when Core is 1) of
  /// batch element Flat, column-major, as T.
  void load(unsigned I, int64_t Flat, unsigned Core, std::vector<T> &Dst) {
    const NDArray &A = In[I];
    int64_t Rows = coreDim(A, Core, 0), Cols = Core == 2 ? coreDim(A, 2, 1) : 1;
    Dst.resize(size_t(Rows * Cols));
    toColumnMajor(A.dtype(), A.data() + batchOffset(B, I, Flat), Rows, Cols,
                  coreStride(A, Core, 0), Core == 2 ? coreStride(A, 2, 1) : 0,
                  Dst.data());
  }

  /// The same, row-major (the transpose's column-major copy).
  void loadRowMajor(unsigned I, int64_t Flat, std::vector<T> &Dst) {
    const NDArray &A = In[I];
    int64_t Rows = coreDim(A, 2, 0), Cols = coreDim(A, 2, 1);
    Dst.resize(size_t(Rows * Cols));
    toColumnMajor(A.dtype(), A.data() + batchOffset(B, I, Flat), Cols, Rows,
                  coreStride(A, 2, 1), coreStride(A, 2, 0), Dst.data());
  }

  /// Output K's elements of batch element Flat (outputs are contiguous).
  T *outAt(unsigned K, int64_t Flat) const {
    int64_t Core = 1;
    const NDArray &O = Out[K];
    for (size_t D = B.Dims.size(); D < O.rank(); ++D)
      Core *= O.dim(D);
    return O.template dataAs<T>() + Flat * Core;
  }

  Error eigh(int64_t Flat) {
    int N = int(coreDim(In[0], 2, 0));
    bool General = In.size() == 2;
    bool SciPys = General || P.Driver == EigenDriver::RelativelyRobust;
    load(0, Flat, 2, MatA);
    if (General)
      load(1, Flat, 2, MatB);
    if (SciPys && (anyNonFinite(MatA) || (General && anyNonFinite(MatB))))
      return opError("array must not contain infs or NaNs");
    T *W = outAt(0, Flat);
    int Info = symmetricEigen<T>(N, MatA.data(), W, P.Lower, P.Driver, Work,
                                 General ? MatB.data() : nullptr);
    if (Info > N && General)
      return linAlgError(
          "The leading minor of order " + llvm::Twine(Info - N) +
          " of B is not positive definite. The factorization of B could not "
          "be completed and no eigenvalues or eigenvectors were computed.");
    if (Info != 0)
      return linAlgError(SciPys ? "The algorithm failed to converge."
                                : "Eigenvalues did not converge");
    toRowMajor(MatA.data(), N, N, outAt(1, Flat));
    return Error::success();
  }

  Error eighGrad(int64_t Flat) {
    int N = int(coreDim(In[1], 2, 0));
    load(0, Flat, 1, W);
    load(2, Flat, 1, GW);
    loadRowMajor(1, Flat, MatA);
    loadRowMajor(3, Flat, GV);
    eighGradient<T>(N, W.data(), MatA.data(), GW.data(), GV.data(),
                    outAt(0, Flat), P.Lower, MatB);
    return Error::success();
  }

  /// ?gesdd on batch element Flat: S, and by Jobz U and VT (column-major
  /// scratch).
  Error svd(int64_t Flat, char Jobz, int &M, int &N, int &K) {
    M = int(coreDim(In[0], 2, 0));
    N = int(coreDim(In[0], 2, 1));
    K = std::min(M, N);
    load(0, Flat, 2, MatA);
    S.resize(size_t(K));
    int UCols = Jobz == 'A' ? M : K, VTRows = Jobz == 'A' ? N : K;
    U.resize(Jobz == 'N' ? 0 : size_t(M) * UCols);
    VT.resize(Jobz == 'N' ? 0 : size_t(VTRows) * N);
    if (singularValues<T>(M, N, MatA.data(), S.data(),
                          Jobz == 'N' ? nullptr : U.data(),
                          Jobz == 'N' ? nullptr : VT.data(), Jobz,
                          Work) != 0) // < 0: LAPACK 3.10's refusal of NaN
      return linAlgError("SVD did not converge");
    return Error::success();
  }

  Error svdOutputs(int64_t Flat) {
    int M, N, K;
    char Jobz = !P.ComputeUV ? 'N' : P.FullMatrices ? 'A' : 'S';
    if (Error E = svd(Flat, Jobz, M, N, K))
      return E;
    if (!P.ComputeUV) {
      std::copy(S.begin(), S.end(), outAt(0, Flat));
      return Error::success();
    }
    int UCols = Jobz == 'A' ? M : K, VTRows = Jobz == 'A' ? N : K;
    toRowMajor(U.data(), M, UCols, outAt(0, Flat));
    std::copy(S.begin(), S.end(), outAt(1, Flat));
    toRowMajor(VT.data(), VTRows, N, outAt(2, Flat));
    return Error::success();
  }

  Error pinv(int64_t Flat) {
    T *X = outAt(0, Flat);
    if (!P.Hermitian) {
      int M, N, K;
      if (Error E = svd(Flat, 'S', M, N, K))
        return E;
      T Max = K ? *std::max_element(S.begin(), S.end(), nanFirst) : T(0);
      pseudoInverseProduct<T>(M, N, K, U.data(), S.data(), VT.data(),
                              T(PinvRCond) * Max, X);
      return Error::success();
    }
    // NumPy's hermitian svd: eigh's eigenvalues as |w|, their signs moved
    // into the vectors, so that 1/s_l multiplies by the sign of w_l.
    int N = int(coreDim(In[0], 2, 0));
    load(0, Flat, 2, MatA);
    S.resize(size_t(N));
    if (symmetricEigen<T>(N, MatA.data(), S.data(), /*Lower=*/true,
                          EigenDriver::DivideAndConquer, Work) != 0)
      return linAlgError("Eigenvalues did not converge");
    T Max = 0;
    for (T V : S)
      Max = std::isnan(V) || std::isnan(Max)
                ? std::numeric_limits<T>::quiet_NaN()
                : std::max(Max, std::fabs(V));
    VT.resize(size_t(N) * N); // Z^T with each row the sign of w_l
    for (int L = 0; L < N; ++L) {
      T Sign = S[size_t(L)] < 0 ? T(-1) : T(1);
      for (int I = 0; I < N; ++I)
        VT[size_t(L) + size_t(I) * N] = Sign * MatA[size_t(I) + size_t(L) * N];
      S[size_t(L)] = std::fabs(S[size_t(L)]);
    }
    pseudoInverseProduct<T>(N, N, N, MatA.data(), S.data(), VT.data(),
                            T(PinvRCond) * Max, X);
    return Error::success();
  }

  /// max_element's order with NaN the largest, so that a NaN singular
  /// value makes the cutoff NaN (np.amax propagates it).
  static bool nanFirst(T A, T B) {
    return !std::isnan(A) && (std::isnan(B) || A < B);
  }

  Error one(int64_t Flat) {
    switch (P.Fn) {
    case SpectralFn::Eigh:
      return eigh(Flat);
    case SpectralFn::EighGrad:
      return eighGrad(Flat);
    case SpectralFn::SVD:
      return svdOutputs(Flat);
    case SpectralFn::Pinv:
      return pinv(Flat);
    }
    return Error::success();
  }
};

/// One matrix's flops, M × N.
double matrixFlops(SpectralFn F, double M, double N) {
  double K = std::min(M, N);
  switch (F) {
  case SpectralFn::Eigh:
    return 9 * N * N * N; // tridiagonalize + QR
  case SpectralFn::EighGrad:
    return 6 * N * N * N; // three products
  case SpectralFn::SVD:
    return 4 * M * N * K + 8 * K * K * K;
  case SpectralFn::Pinv:
    return 4 * M * N * K + 8 * K * K * K + 2 * M * N * K;
  }
  return 0;
}

} // namespace

Error SpectralOp::compute(llvm::ArrayRef<NDArray> In,
                          llvm::ArrayRef<NDArray> Out,
                          const ExecContext &) const {
  Expected<Batch> B =
      runBatch(In, coreRanks(P, In.size()), info(P.Fn).FormatName);
  if (!B)
    return B.takeError();
  const NDArray &A = In[P.Fn == SpectralFn::EighGrad ? 1 : 0];
  SmallBlasScope Threads(
      matrixFlops(P.Fn, double(coreDim(A, 2, 0)), double(coreDim(A, 2, 1))));
  if (Out[0].dtype() == DType::F32)
    return BatchRunner<float>(P, In, Out, *B).run();
  return BatchRunner<double>(P, In, Out, *B).run();
}

double SpectralOp::flops(llvm::ArrayRef<Shape> In,
                         llvm::ArrayRef<Shape>) const {
  size_t AIndex = P.Fn == SpectralFn::EighGrad ? 1 : 0;
  if (In.size() <= AIndex || In[AIndex].size() < 2)
    return 0;
  const Shape &A = In[AIndex];
  return batchSize(A, 2) *
         matrixFlops(P.Fn, double(A[A.size() - 2]), double(A.back()));
}

namespace {

Expected<SpectralParams> readParams(SpectralFn F, const AttrMap &Attrs) {
  llvm::StringRef Name = info(F).FormatName;
  AttrReader R(Name, Attrs);
  SpectralParams P;
  P.Fn = F;
  switch (F) {
  case SpectralFn::Eigh: {
    if (Error E = R.checkOnly({"lower", "driver"}))
      return E;
    if (Error E = R.readBool("lower", true, P.Lower))
      return E;
    if (R.has("driver")) {
      Expected<std::string> V = R.getIdent("driver");
      if (!V)
        return V.takeError();
      if (*V != "evd" && *V != "evr")
        return opError("eigh: driver must be evd or evr, got " + *V);
      P.Driver = *V == "evd" ? EigenDriver::DivideAndConquer
                             : EigenDriver::RelativelyRobust;
    }
    return P;
  }
  case SpectralFn::EighGrad:
    if (Error E = R.checkOnly({"lower"}))
      return E;
    if (Error E = R.readBool("lower", true, P.Lower))
      return E;
    return P;
  case SpectralFn::SVD:
    if (Error E = R.checkOnly({"full_matrices", "compute_uv"}))
      return E;
    if (Error E = R.readBool("full_matrices", true, P.FullMatrices))
      return E;
    if (Error E = R.readBool("compute_uv", true, P.ComputeUV))
      return E;
    return P;
  case SpectralFn::Pinv:
    if (Error E = R.checkOnly({"hermitian"}))
      return E;
    if (Error E = R.readBool("hermitian", false, P.Hermitian))
      return E;
    return P;
  }
  return P;
}

} // namespace

void graphjit::registerSpectralOps(OpRegistry &R) {
  const char *Summaries[] = {
      "eigenvalues (ascending) and eigenvectors of a symmetric matrix "
      "(numpy.linalg.eigh; driver=evr: scipy.linalg.eigh; with b, A v = w B "
      "v): eigh(a[, b], lower=true, driver=evd|evr); two outputs",
      "the gradient of eigh with respect to a (PyTensor's EighGrad): "
      "eigh_grad(w, v, gw, gv, lower=true)",
      "singular value decomposition (numpy.linalg.svd): svd(a, "
      "full_matrices=true, compute_uv=true); u, s, vh or s",
      "Moore-Penrose pseudo-inverse (numpy.linalg.pinv, rcond 1e-15): "
      "pinv(a, hermitian=false)",
  };
  for (const FnInfo &F : Fns) {
    SpectralFn Fn = F.Fn;
    R.add(OpSpec{F.FormatName, F.MinInputs, int(F.MaxInputs),
                 [Fn](const AttrMap &A, unsigned) -> Expected<OpRef> {
                   Expected<SpectralParams> P = readParams(Fn, A);
                   if (!P)
                     return P.takeError();
                   return std::make_shared<SpectralOp>(info(Fn).FormatName, A,
                                                       *P);
                 },
                 Summaries[unsigned(F.Fn)]});
  }
}
