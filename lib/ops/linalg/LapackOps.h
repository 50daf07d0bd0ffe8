//===- LapackOps.h - Linear algebra through LAPACK -------------*- C++ -*-===//
//
// Declares LapackOp (OpKind::Lapack): cholesky, solve_triangular, solve,
// cho_solve, inv, det, slogdet and lu_factor, SciPy's and NumPy's functions of the
// same names, each on one matrix or on a batch of them (PyTensor's
// Blockwise: leading dims broadcast together, NumPy's rules). The JIT runs
// them as it runs dot: prepare() makes the outputs, compute() calls LAPACK
// (LapackKernels.h) once per matrix of the batch. LapackOps.cpp says what
// each computes and how it fails.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_LAPACKOPS_H
#define GRAPHJIT_OPS_LAPACKOPS_H

#include "ops/ComputedOp.h"

namespace graphjit {

enum class LapackFn : uint8_t {
  Cholesky,        ///< the Cholesky factor (?potrf)
  SolveTriangular, ///< op(A) x = b with A triangular (?trtrs)
  Solve,           ///< A x = b (?gesv, ?sysv, ?posv by assume_a)
  CholeskySolve,   ///< A x = b given A's Cholesky factor (?potrs)
  Inverse,         ///< A^-1 (?getrf, ?getri)
  Det,             ///< det(A) (?getrf)
  SLogDet,         ///< sign and log|det(A)| (?getrf)
  LUFactor,        ///< LU with partial pivoting and the pivots (?getrf)
};

/// How solve() reads A: SciPy's assume_a.
enum class AssumeA : uint8_t { General, Symmetric, PositiveDefinite };

struct LapackParams {
  LapackFn Fn = LapackFn::Cholesky;
  bool Lower = true;
  /// solve_triangular: solve A^T x = b (SciPy's trans=1 or 2; real only).
  bool Transposed = false;
  bool UnitDiagonal = false;
  /// cholesky: a matrix that is not positive definite gives NaNs instead
  /// of an error (PyTensor's on_error="nan").
  bool NanOnError = false;
  AssumeA Assume = AssumeA::General;
  /// The solves: the core rank of b, 1 (a vector) or 2 (columns).
  unsigned BNdim = 2;
};

class LapackOp final : public ComputedOp {
public:
  LapackOp(llvm::StringRef FormatName, AttrMap Attrs, LapackParams P)
      : ComputedOp(FormatName.str(), std::move(Attrs), OpKind::Lapack),
        P(P) {}

  static bool classof(const Op *O) { return O->kind() == OpKind::Lapack; }

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

  const LapackParams &params() const { return P; }

private:
  LapackParams P;
};

} // namespace graphjit

#endif
