//===- LinalgOps.h - dot: NumPy's dot of vectors and matrices -*- C++ -*-===//
//
// Declares DotOp (OpKind::Dot) so that other layers (the gemm rewrites, the
// lowerings, the GPU path) dispatch on it with isa<>/dyn_cast<> rather than
// by class name. The gemm op is in GemmOp.h.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_LINALGOPS_H
#define GRAPHJIT_OPS_LINALGOPS_H

#include "ops/ComputedOp.h"

namespace graphjit {

/// NumPy's dot for operands of rank 0 to 2 (LinalgOps.cpp says how it runs).
class DotOp final : public ComputedOp {
public:
  explicit DotOp(AttrMap Attrs)
      : ComputedOp("dot", std::move(Attrs), OpKind::Dot) {}

  static bool classof(const Op *O) { return O->kind() == OpKind::Dot; }

  std::string name() const override { return "Dot"; }
  llvm::StringRef className() const override { return "Dot"; }

  double flops(llvm::ArrayRef<Shape> In,
               llvm::ArrayRef<Shape> Out) const override;

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  /// Checks ranks and the contracted dims and creates the output; the JIT
  /// then calls compute() through gj_compute.
  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  /// Writes the product into the output prepare() made: BLAS for f32 and
  /// f64 where the layouts allow, loops otherwise.
  llvm::Error compute(llvm::ArrayRef<NDArray> In, llvm::ArrayRef<NDArray> Out,
                      const ExecContext &) const override;
};

} // namespace graphjit

#endif
