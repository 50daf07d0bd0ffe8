//===- GemmOp.h - gemm: beta·c + alpha·op(a)·op(b) in one Apply -*- C++ -*-===//
//
// The op the optimizer's gemm rewrites make from `add(dot(a, b), c)`,
// `sub(c, mul(s, dot(a, b)))`, `dot(transpose(a), b)` and the like (Theano's
// Gemm and Gemv): out = beta·c + alpha·dot(op(a), op(b)), op(x) being x or
// its transpose, through one BLAS call. Its graph-format spelling is
// `gemm(c, a, b, alpha=1.0, beta=1.0, trans_a=false, trans_b=false)`
// (docs/ops-structural.md has the rules). The rewrites make it with
// makeGemmOp and read an existing one's parameters with gemmParams; other
// layers dispatch on GemmOp (OpKind::Gemm) with isa<>/dyn_cast<>.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_GEMMOP_H
#define GRAPHJIT_OPS_GEMMOP_H

#include "ops/ComputedOp.h"
#include <optional>

namespace graphjit {

class OpRegistry;

/// A gemm's parameters: its attributes, defaults included.
struct GemmParams {
  double Alpha = 1.0;
  double Beta = 1.0;
  bool TransA = false;
  bool TransB = false;
  /// The output is written over c (a shared variable's update in place:
  /// Theano's Gemm{inplace}); only the shared_update_inplace rewrite sets
  /// it, and validation says where it may be.
  bool Inplace = false;

  bool operator==(const GemmParams &O) const {
    return Alpha == O.Alpha && Beta == O.Beta && TransA == O.TransA &&
           TransB == O.TransB && Inplace == O.Inplace;
  }
};

/// gemm: out = beta·c + alpha·dot(op(a), op(b)) (GemmOp.cpp says how it
/// runs).
class GemmOp final : public ComputedOp {
public:
  GemmOp(AttrMap Attrs, GemmParams P)
      : ComputedOp("gemm", std::move(Attrs), OpKind::Gemm), P(P) {}

  static bool classof(const Op *O) { return O->kind() == OpKind::Gemm; }

  /// Every parameter is spelled, since equal names make equal ops.
  std::string name() const override;
  llvm::StringRef className() const override { return "Gemm"; }
  const GemmParams &params() const { return P; }

  OutputAlias outputAlias(unsigned) const override {
    return P.Inplace ? OutputAlias::inplaceOn(0) : OutputAlias::created();
  }

  /// 2·M·N·K for the product, plus one per output element for each of:
  /// scaling it by alpha (≠ 1), scaling c by beta (∉ {0, 1}), adding c.
  double flops(llvm::ArrayRef<Shape> In,
               llvm::ArrayRef<Shape> Out) const override;

  /// As dot's (operands and output), plus c; what is not read (c when beta
  /// is 0, a and b when alpha is) is not counted.
  double bytesMoved(llvm::ArrayRef<NDArray> In,
                    llvm::ArrayRef<NDArray> Out) const override;

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  /// Checks dtypes and shapes and creates the output (in place: c itself,
  /// when c is contiguous and of the output's shape; else a new array);
  /// the JIT then calls compute() through gj_compute.
  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  /// Fills the output prepare() made with beta·c, then adds alpha·op(a)·op(b).
  llvm::Error compute(llvm::ArrayRef<NDArray> In, llvm::ArrayRef<NDArray> Out,
                      const ExecContext &) const override;

private:
  GemmParams P;

  /// The product's shape, after every check (prepare's and compute's).
  llvm::Expected<Shape> outputShape(llvm::ArrayRef<NDArray> In) const;

  template <typename T>
  void run(const NDArray &C, const NDArray &A, const NDArray &B,
           const NDArray &Out) const;
};

/// The op `gemm` with these parameters, with attributes spelled as the
/// printer writes them (alpha and beta always, the trans flags and inplace
/// when set).
/// Errors: a non-finite alpha or beta (the format cannot spell it).
llvm::Expected<OpRef> makeGemmOp(const GemmParams &P);

/// O's parameters if it is a GemmOp, else nullopt.
std::optional<GemmParams> gemmParams(const Op &O);

/// Adds `gemm` to the registry (called by registerLinalgOps).
void registerGemmOp(OpRegistry &R);

} // namespace graphjit

#endif
