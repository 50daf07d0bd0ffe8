//===- ComputedOp.h - Ops the JIT runs as prepare() then compute() -*- C++ -*-//
//
// Ops whose JIT code may call library code (dot and gemm: BLAS; LAPACK;
// sort and the other array functions): prepare() checks the shapes and
// makes the output, compute() fills it (lib/codegen/StructuralLowerings.cpp;
// a planned thunk makes the output itself and calls compute() alone). Their
// reference perform() is the same two steps, defined once here.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_COMPUTEDOP_H
#define GRAPHJIT_OPS_COMPUTEDOP_H

#include "graphjit/Op.h"

namespace graphjit {

class ComputedOp : public Op {
public:
  using Op::Op;

  llvm::Error perform(llvm::ArrayRef<NDArray> Inputs,
                      std::vector<NDArray> &Outputs,
                      const ExecContext &Ctx) const final {
    if (llvm::Error E = prepare(Inputs, Outputs, Ctx))
      return E;
    return compute(Inputs, Outputs, Ctx);
  }
};

} // namespace graphjit

#endif
