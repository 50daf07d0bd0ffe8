//===- GemmOp.h - gemm: beta·c + alpha·op(a)·op(b) in one Apply -*- C++ -*-===//
//
// The op the optimizer's gemm rewrites make from `add(dot(a, b), c)`,
// `sub(c, mul(s, dot(a, b)))`, `dot(transpose(a), b)` and the like (Theano's
// Gemm and Gemv): out = beta·c + alpha·dot(op(a), op(b)), op(x) being x or
// its transpose, through one BLAS call. Its graph-format spelling is
// `gemm(c, a, b, alpha=1.0, beta=1.0, trans_a=false, trans_b=false)`
// (docs/ops-structural.md has the rules). The rewrites make it with
// makeGemmOp and read an existing one's parameters with gemmParams.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_GEMMOP_H
#define GRAPHJIT_OPS_GEMMOP_H

#include "graphjit/Op.h"
#include <optional>

namespace graphjit {

class OpRegistry;

/// A gemm's parameters: its attributes, defaults included.
struct GemmParams {
  double Alpha = 1.0;
  double Beta = 1.0;
  bool TransA = false;
  bool TransB = false;

  bool operator==(const GemmParams &O) const {
    return Alpha == O.Alpha && Beta == O.Beta && TransA == O.TransA &&
           TransB == O.TransB;
  }
};

/// The op `gemm` with these parameters, with attributes spelled as the
/// printer writes them (alpha and beta always, the trans flags when set).
/// Errors: a non-finite alpha or beta (the format cannot spell it).
llvm::Expected<OpRef> makeGemmOp(const GemmParams &P);

/// O's parameters if it is a gemm (class "Gemm"), else nullopt.
std::optional<GemmParams> gemmParams(const Op &O);

/// Adds `gemm` to the registry (called by registerLinalgOps).
void registerGemmOp(OpRegistry &R);

} // namespace graphjit

#endif
