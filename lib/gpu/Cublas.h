//===- Cublas.h - cuBLAS's gemm, found at run time -------------*- C++ -*-===//
//
// The GPU path's matrix products (Dot, Gemm) are cuBLAS's ?gemm. As the
// driver (CudaDriver.h), cuBLAS is dlopen'ed, never linked: at the first
// product, from $GRAPHJIT_LIBCUBLAS if set, else libcublas.so.13, else
// libcublas.so. A machine with a GPU but no cuBLAS runs everything else and
// fails products with an error naming the library.
//
// cuBLAS is column-major and graphjit row-major: a row-major matrix is the
// column-major storage of its transpose, so C = op(A)·op(B) is computed as
// C^T = op(B)^T·op(A)^T, swapping A with B and M with N (columnMajor()).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_GPU_CUBLAS_H
#define GRAPHJIT_GPU_CUBLAS_H

#include "Device.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>

namespace graphjit {

/// A column-major ?gemm call, as BLAS takes it: C[M,N] = Alpha·op(A)·op(B)
/// + Beta·C with op(A) M×K and op(B) K×N; LdX is X's column stride.
struct ColumnMajorGemm {
  bool TransA = false, TransB = false;
  int64_t M = 0, N = 0, K = 0;
  DeviceAddress A = 0, B = 0, C = 0;
  int64_t LdA = 0, LdB = 0, LdC = 0;
};

/// The column-major call that computes the row-major product G.
ColumnMajorGemm columnMajor(const DeviceGemm &G);

/// Whether G can run as one BLAS call with Int-sized sizes (IntMax is the
/// largest Int): F32 or F64, non-negative sizes, leading dimensions at least
/// what the operands need. Shared by the CUDA and emulated devices.
llvm::Error checkGemm(const DeviceGemm &G, int64_t IntMax);

/// One cuBLAS handle, bound to one stream.
class Cublas {
public:
  /// Loads cuBLAS (once per process) and makes a handle whose work is
  /// queued on Stream (a CUstream). The CUDA context must be current.
  static llvm::Expected<std::unique_ptr<Cublas>> create(void *Stream);
  ~Cublas();
  Cublas(const Cublas &) = delete;
  Cublas &operator=(const Cublas &) = delete;

  /// Queues G on the stream (G.Dtype is F32 or F64).
  llvm::Error gemm(const DeviceGemm &G);

  struct Library;

private:
  Cublas(const Library &L, void *Handle) : Lib(L), Handle(Handle) {}
  const Library &Lib;
  void *Handle;
};

} // namespace graphjit

#endif
