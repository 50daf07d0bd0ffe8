//===- ScalarLoopOp.h - A scalar loop per element ---------------*- C++ -*-===//
//
// Declares ScalarLoopOp (OpKind::ScalarLoop): PyTensor's Elemwise of a
// ScalarLoop (the gradients of gammainc, betainc and their kin) as one op.
// Every element runs its own loop: its carried values updated by scalar
// programs (Composites) of the carried values and the constants, at most
// n_steps times, and for a while loop until a condition holds. The JIT
// emits that loop inside the element loop (ScalarLoopLowering.cpp), so a
// step costs its arithmetic, as PyTensor's C code and Numba's do.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_SCALARLOOPOP_H
#define GRAPHJIT_OPS_SCALARLOOPOP_H

#include "ops/ComputedOp.h"
#include <optional>
#include <string>
#include <vector>

namespace graphjit {

/// One scalar program of the loop: a fused Elemwise over the loop's
/// values that it reads (Reads[k] is the loop value of its input k: the
/// carried values first, then the constants).
struct LoopProgram {
  OpRef Elemwise;
  std::vector<unsigned> Reads;
};

class ScalarLoopOp final : public ComputedOp {
public:
  ScalarLoopOp(AttrMap Attrs, unsigned NumCarried, unsigned NumConstants,
               std::vector<LoopProgram> Updates,
               std::optional<LoopProgram> Until, std::string Spelling);

  static bool classof(const Op *O) { return O->kind() == OpKind::ScalarLoop; }

  /// "ScalarLoop{i0 * i1; i0 + i2 until i0 > i1}".
  std::string name() const override { return Spelling; }
  llvm::StringRef className() const override { return "ScalarLoop"; }
  unsigned numOutputs() const override {
    return NumCarried + (Until ? 1 : 0);
  }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;
  /// The outputs at the broadcast shape of the inputs, C-contiguous, after
  /// refusing a negative n_steps without a condition (PyTensor's
  /// ValueError).
  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &Ctx) const override;
  /// The reference: element after element, each loop run with the
  /// Composites' perform on 0-d arrays (the JIT's loops are the fast path).
  llvm::Error compute(llvm::ArrayRef<NDArray> In, llvm::ArrayRef<NDArray> Out,
                      const ExecContext &Ctx) const override;
  double flops(llvm::ArrayRef<Shape>, llvm::ArrayRef<Shape>) const override {
    return 0; // the step count is each element's own
  }

  unsigned numCarried() const { return NumCarried; }
  unsigned numConstants() const { return NumConstants; }
  /// Input 0 is n_steps; then the carried values' initial values, then
  /// the constants.
  unsigned loopValueInput(unsigned V) const { return 1 + V; }
  llvm::ArrayRef<LoopProgram> updates() const { return Updates; }
  const LoopProgram *until() const { return Until ? &*Until : nullptr; }

private:
  unsigned NumCarried, NumConstants;
  std::vector<LoopProgram> Updates;
  std::optional<LoopProgram> Until;
  std::string Spelling;
};

} // namespace graphjit

#endif
