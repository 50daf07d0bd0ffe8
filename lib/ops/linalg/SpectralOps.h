//===- SpectralOps.h - eigh, svd, pinv through LAPACK ----------*- C++ -*-===//
//
// Declares SpectralOp (OpKind::Spectral): the eigen and singular value
// decompositions and what is built on them, NumPy's and SciPy's functions
// of the same names, on one matrix or a batch (PyTensor's Blockwise):
//
//   eigh(a[, b], lower=true, driver=evd|evr)  -> w, v   numpy/scipy eigh
//   eigh_grad(w, v, gw, gv, lower=true)       -> ga     PyTensor's EighGrad
//   svd(a, full_matrices=true, compute_uv=true) -> u, s, vh (or s)
//   pinv(a, hermitian=false)                  -> a+     numpy.linalg.pinv
//
// As LapackOp, prepare() makes the outputs and compute() calls LAPACK
// (LapackKernels.h) once per matrix; SpectralOps.cpp says what each
// computes and how it fails.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_SPECTRALOPS_H
#define GRAPHJIT_OPS_SPECTRALOPS_H

#include "ops/ComputedOp.h"
#include "ops/linalg/LapackKernels.h"

namespace graphjit {

enum class SpectralFn : uint8_t {
  Eigh,     ///< eigenvalues and eigenvectors of a symmetric matrix
  EighGrad, ///< the gradient of eigh's two outputs with respect to a
  SVD,      ///< singular value decomposition (?gesdd)
  Pinv,     ///< Moore-Penrose pseudo-inverse (by svd, or eigh if hermitian)
};

struct SpectralParams {
  SpectralFn Fn = SpectralFn::Eigh;
  /// eigh, eigh_grad: the triangle a is read from (written to, for the
  /// gradient).
  bool Lower = true;
  /// eigh: ?syevd (NumPy's, PyTensor 2.38's) or ?syevr (SciPy's default,
  /// PyTensor 3.0's); with b, ?sygvd.
  lapack::EigenDriver Driver = lapack::EigenDriver::DivideAndConquer;
  bool FullMatrices = true, ComputeUV = true; ///< svd
  bool Hermitian = false;                     ///< pinv
};

class SpectralOp final : public ComputedOp {
public:
  SpectralOp(llvm::StringRef FormatName, AttrMap Attrs, SpectralParams P)
      : ComputedOp(FormatName.str(), std::move(Attrs), OpKind::Spectral), P(P) {
  }

  static bool classof(const Op *O) { return O->kind() == OpKind::Spectral; }

  std::string name() const override;
  llvm::StringRef className() const override;
  unsigned numOutputs() const override;

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  llvm::Error compute(llvm::ArrayRef<NDArray> In, llvm::ArrayRef<NDArray> Out,
                      const ExecContext &) const override;

  double flops(llvm::ArrayRef<Shape> In,
               llvm::ArrayRef<Shape> Out) const override;

  const SpectralParams &params() const { return P; }

private:
  SpectralParams P;
};

} // namespace graphjit

#endif
