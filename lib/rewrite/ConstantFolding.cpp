//===- ConstantFolding.cpp - Applies of constants become constants -------===//
//
// An Apply whose inputs are all constants is computed once, now, with its
// op's reference perform (every op is deterministic), and its outputs
// become constants. Only when the result is exactly what the static type
// says (every dim known; so symbolic shapes, which need the sizes of a
// call, are never folded) and not too large. An Apply that fails to
// compute is left alone: the call reports the error where it happens.
// Inputs and shared variables are never constants, so what reads them is
// never folded.
//
//===----------------------------------------------------------------------===//

#include "NodeRewrite.h"
#include "ops/shape/AllocOps.h"
#include "llvm/Support/Casting.h"

using namespace graphjit;
using namespace graphjit::rewrite;

namespace {

/// The element count of a type whose dims are all known and whose count
/// is at most Max; -1 otherwise.
int64_t knownElements(const TensorType &T, int64_t Max) {
  int64_t N = 1;
  for (const Dim &D : T.Dims) {
    if (!D.isKnown())
      return -1;
    if (D.Size == 0)
      return 0;
    if (__builtin_mul_overflow(N, D.Size, &N) || N > Max)
      return -1;
  }
  return N;
}

bool hasShape(const NDArray &A, const TensorType &T) {
  if (A.isNull() || A.dtype() != T.Dtype || A.rank() != T.rank())
    return false;
  for (unsigned I = 0; I < T.rank(); ++I)
    if (A.dim(I) != T.Dims[I].Size)
      return false;
  return true;
}

class ConstantFolding final : public NodeRewrite {
public:
  ConstantFolding()
      : NodeRewrite("constant_folding", {"constant_folding", "fast_run"}) {}

  llvm::Expected<std::vector<Replacement>> apply(RewriteGraph &G,
                                                 RNode &N) override {
    if (N.Inputs.empty())
      return std::vector<Replacement>{};
    std::vector<NDArray> Ins;
    for (RValue *In : N.Inputs) {
      if (!In->isConstant())
        return std::vector<Replacement>{};
      Ins.push_back(In->Value);
    }
    // alloc and the *_like fills (all "Alloc" in profiles).
    int64_t Max = llvm::isa<AllocOp, FillLikeOp>(N.op())
                      ? MaxFoldedAllocElements
                      : MaxFoldedElements;
    for (RValue *Out : N.Outputs)
      if (knownElements(Out->Type, Max) < 0)
        return std::vector<Replacement>{};

    std::vector<NDArray> Outs(N.Outputs.size());
    ExecContext Ctx; // no symbolic dims: nothing here may need them
    if (llvm::Error E = N.op().perform(Ins, Outs, Ctx)) {
      llvm::consumeError(std::move(E));
      return std::vector<Replacement>{};
    }
    for (unsigned I = 0; I < Outs.size(); ++I)
      if (!hasShape(Outs[I], N.Outputs[I]->Type))
        return std::vector<Replacement>{};
    std::vector<Replacement> Reps;
    for (unsigned I = 0; I < Outs.size(); ++I)
      // A copy: the output may be a view of an input constant.
      Reps.push_back({N.Outputs[I], G.makeConstant(Outs[I].copy(), N.Loc)});
    return Reps;
  }
};

} // namespace

std::unique_ptr<NodeRewrite> rewrite::makeConstantFolding() {
  return std::make_unique<ConstantFolding>();
}
