//===- ElemwiseOps.h - The Elemwise op: a scalar operation, broadcast -*- C++ -*-//
//
// Elemwise applies one ScalarOpKind element by element to inputs broadcast
// together by NumPy's rules (Theano's Elemwise). Every elemwise op of the
// graph format (add, exp, switch, cast, ...) is an Elemwise; the JIT finds
// them by className() == "Elemwise" and reads scalarOp() and castTo().
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_ELEMWISEOPS_H
#define GRAPHJIT_OPS_ELEMWISEOPS_H

#include "ScalarOps.h"
#include "graphjit/Op.h"

namespace graphjit {

class Elemwise final : public Op {
public:
  /// CastTo is the target dtype of ScalarOpKind::Cast, unused otherwise.
  Elemwise(ScalarOpKind Kind, AttrMap Attrs, DType CastTo = DType::F64);

  ScalarOpKind scalarOp() const { return Kind; }
  DType castTo() const { return CastTo; }

  /// "Elemwise{add,no_inplace}", "Elemwise{Cast{float32}}".
  std::string name() const override;
  llvm::StringRef className() const override { return "Elemwise"; }
  unsigned numConditionInputs() const override {
    return Kind == ScalarOpKind::Switch ? 1 : 0;
  }
  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> Inputs) const override;
  llvm::Error perform(llvm::ArrayRef<NDArray> Inputs,
                      std::vector<NDArray> &Outputs,
                      const ExecContext &Ctx) const override;
  /// Broadcasts the input shapes, makes the C-contiguous output (the JIT's
  /// loops rely on that) and refuses what perform() refuses before it
  /// computes (integer powers with a negative exponent).
  llvm::Error prepare(llvm::ArrayRef<NDArray> Inputs,
                      std::vector<NDArray> &Outputs,
                      const ExecContext &Ctx) const override;
  double flops(llvm::ArrayRef<Shape> Inputs,
               llvm::ArrayRef<Shape> Outputs) const override;

private:
  ScalarOpKind Kind;
  DType CastTo;

  llvm::Expected<ScalarSignature>
  signatureOf(llvm::ArrayRef<NDArray> Inputs) const;
};

/// The static broadcast of the inputs' dims (NumPy's rules on Dims): a
/// known 1 gives way to anything, equal dims stay, a symbol meeting a known
/// size other than 1 becomes that size (checked when the function runs),
/// two different symbols or an unknown give an unknown dim. Known sizes
/// that differ, neither 1, are an error naming both operands.
llvm::Expected<std::vector<Dim>>
broadcastDims(llvm::ArrayRef<TensorType> Inputs);

} // namespace graphjit

#endif
