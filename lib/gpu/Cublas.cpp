//===- Cublas.cpp - dlopen of cuBLAS and row-major gemm ------------------===//

#include "Cublas.h"
#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <type_traits>
#include <vector>

using namespace graphjit;
using namespace llvm;

namespace {
// cublas_api.h's types, with its sizes.
using cublasStatus_t = int;
using cublasHandle_t = void *;
using cublasOperation_t = int;
constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
constexpr cublasOperation_t CUBLAS_OP_N = 0, CUBLAS_OP_T = 1;
} // namespace

struct Cublas::Library {
  std::string Path;
  cublasStatus_t (*Create)(cublasHandle_t *Handle) = nullptr;
  cublasStatus_t (*Destroy)(cublasHandle_t Handle) = nullptr;
  cublasStatus_t (*SetStream)(cublasHandle_t Handle, void *Stream) = nullptr;
  cublasStatus_t (*Sgemm)(cublasHandle_t Handle, cublasOperation_t TransA,
                          cublasOperation_t TransB, int M, int N, int K,
                          const float *Alpha, const float *A, int LdA,
                          const float *B, int LdB, const float *Beta, float *C,
                          int LdC) = nullptr;
  cublasStatus_t (*Dgemm)(cublasHandle_t Handle, cublasOperation_t TransA,
                          cublasOperation_t TransB, int M, int N, int K,
                          const double *Alpha, const double *A, int LdA,
                          const double *B, int LdB, const double *Beta,
                          double *C, int LdC) = nullptr;
  /// Optional (cuBLAS 11.4 and later): names for errors.
  const char *(*GetStatusName)(cublasStatus_t Status) = nullptr;

  Error check(cublasStatus_t S, const char *Call) const {
    if (S == CUBLAS_STATUS_SUCCESS)
      return Error::success();
    std::string Name = GetStatusName ? GetStatusName(S) : "CUBLAS_STATUS";
    return createStringError(inconvertibleErrorCode(),
                             "cuBLAS error in %s: %s (%d)", Call, Name.c_str(),
                             S);
  }
};

ColumnMajorGemm graphjit::columnMajor(const DeviceGemm &G) {
  ColumnMajorGemm C;
  // Row-major X (r×c, row stride Ld) is column-major X^T (c×r, Ld): the
  // product C^T = op(B)^T·op(A)^T reads B's storage where BLAS's A goes,
  // transposed exactly when B is.
  C.TransA = G.TransB;
  C.TransB = G.TransA;
  C.M = G.N;
  C.N = G.M;
  C.K = G.K;
  C.A = G.B;
  C.LdA = std::max<int64_t>(G.LdB, 1);
  C.B = G.A;
  C.LdB = std::max<int64_t>(G.LdA, 1);
  C.C = G.C;
  C.LdC = std::max<int64_t>(G.LdC, 1);
  return C;
}

Error graphjit::checkGemm(const DeviceGemm &G, int64_t IntMax) {
  auto Fail = [](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(),
                             "device gemm: " + Why.str());
  };
  if (G.Dtype != DType::F32 && G.Dtype != DType::F64)
    return Fail("dtype " + dtypeName(G.Dtype) +
                " (only f32 and f64 are supported)");
  if (G.M < 0 || G.N < 0 || G.K < 0)
    return Fail("negative size");
  // The row-major storage's columns: what each leading dimension must cover.
  int64_t ColsA = G.TransA ? G.M : G.K, ColsB = G.TransB ? G.K : G.N;
  if (G.LdA < ColsA || G.LdB < ColsB || G.LdC < G.N)
    return Fail("a leading dimension is smaller than its matrix's row");
  for (int64_t V : {G.M, G.N, G.K, G.LdA, G.LdB, G.LdC})
    if (V > IntMax)
      return Fail("size " + Twine(V) + " exceeds BLAS's 32-bit int");
  return Error::success();
}

// The process's cuBLAS, loaded by the first product; a failed load is
// tried again by the next (it costs a failed dlopen). Never closed.
static Expected<const Cublas::Library &> loadLibrary() {
  static std::mutex Lock;
  static Cublas::Library *Loaded = nullptr;
  std::lock_guard<std::mutex> Guard(Lock);
  if (Loaded)
    return *Loaded;

  std::vector<std::string> Candidates;
  if (const char *Env = std::getenv("GRAPHJIT_LIBCUBLAS"); Env && *Env)
    Candidates.push_back(Env);
  else
    Candidates = {"libcublas.so.13", "libcublas.so"};
  void *Lib = nullptr;
  std::string Tried, Path;
  for (const std::string &C : Candidates) {
    Lib = dlopen(C.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (Lib) {
      Path = C;
      break;
    }
    const char *Why = dlerror();
    Tried += (Tried.empty() ? "" : "; ") + C + " (" +
             (Why ? Why : "dlopen failed") + ")";
  }
  if (!Lib)
    return createStringError(
        inconvertibleErrorCode(),
        "cuBLAS not found, needed for matrix products on the GPU: " + Tried +
            "; set GRAPHJIT_LIBCUBLAS to its path");

  auto L = std::make_unique<Cublas::Library>();
  L->Path = Path;
  std::string Missing;
  auto Find = [&](auto *&Slot, const char *Name) {
    void *P = dlsym(Lib, Name);
    if (!P && Missing.empty())
      Missing = Name;
    Slot = reinterpret_cast<std::remove_reference_t<decltype(Slot)>>(P);
  };
  Find(L->Create, "cublasCreate_v2");
  Find(L->Destroy, "cublasDestroy_v2");
  Find(L->SetStream, "cublasSetStream_v2");
  Find(L->Sgemm, "cublasSgemm_v2");
  Find(L->Dgemm, "cublasDgemm_v2");
  if (!Missing.empty())
    return createStringError(inconvertibleErrorCode(), "cuBLAS at %s has no %s",
                             Path.c_str(), Missing.c_str());
  L->GetStatusName = reinterpret_cast<const char *(*)(cublasStatus_t)>(
      dlsym(Lib, "cublasGetStatusName"));
  Loaded = L.release(); // Reachable from here until exit.
  return *Loaded;
}

Expected<std::unique_ptr<Cublas>> Cublas::create(void *Stream) {
  Expected<const Library &> L = loadLibrary();
  if (!L)
    return L.takeError();
  cublasHandle_t Handle = nullptr;
  if (Error E = L->check(L->Create(&Handle), "cublasCreate_v2"))
    return E;
  std::unique_ptr<Cublas> C(new Cublas(*L, Handle));
  if (Error E = L->check(L->SetStream(Handle, Stream), "cublasSetStream_v2"))
    return E;
  return C;
}

Cublas::~Cublas() {
  if (Handle)
    (void)Lib.Destroy(Handle);
}

Error Cublas::gemm(const DeviceGemm &G) {
  if (Error E = checkGemm(G, INT32_MAX))
    return E;
  if (G.M == 0 || G.N == 0)
    return Error::success();
  ColumnMajorGemm C = columnMajor(G);
  cublasOperation_t OpA = C.TransA ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t OpB = C.TransB ? CUBLAS_OP_T : CUBLAS_OP_N;
  // Alpha and Beta are read from the host (the default pointer mode).
  if (G.Dtype == DType::F32) {
    float Alpha = G.Alpha, Beta = G.Beta;
    return Lib.check(Lib.Sgemm(Handle, OpA, OpB, int(C.M), int(C.N), int(C.K),
                               &Alpha, reinterpret_cast<const float *>(C.A),
                               int(C.LdA), reinterpret_cast<const float *>(C.B),
                               int(C.LdB), &Beta,
                               reinterpret_cast<float *>(C.C), int(C.LdC)),
                     "cublasSgemm_v2");
  }
  double Alpha = G.Alpha, Beta = G.Beta;
  return Lib.check(Lib.Dgemm(Handle, OpA, OpB, int(C.M), int(C.N), int(C.K),
                             &Alpha, reinterpret_cast<const double *>(C.A),
                             int(C.LdA), reinterpret_cast<const double *>(C.B),
                             int(C.LdB), &Beta, reinterpret_cast<double *>(C.C),
                             int(C.LdC)),
                   "cublasDgemm_v2");
}
