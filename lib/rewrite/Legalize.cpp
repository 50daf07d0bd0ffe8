//===- Legalize.cpp - Graphs the code generator can take -----------------===//
//
// split_wide_elemwise: an add or mul of more operands than an Elemwise
// kernel takes (MaxElemwiseInputs) becomes a chain of adds (muls) of at
// most that many, each taking the one before as its first operand:
// add(x0, ..., x99) -> add(add(add(x0..x31), x32..x62), x63..x93), ...
// The kernels fold their operands from the left, so the chain computes the
// same sums in the same order: the same bits. Only where every operand
// already has the result's dtype (NumPy's promotion could otherwise make
// a partial sum wrap or round in a narrower type).
//
// A kernel of 10,000 operands would take 10,000 pointers, and the code
// generator's time grows faster than that (docs/BENCHMARKS.md). The
// rewrite has the tag legalize: it runs whatever the optimizer, None
// included, unless excluded by name.
//
//===----------------------------------------------------------------------===//

#include "Match.h"
#include "NodeRewrite.h"
#include "graphjit/Rewrite.h"
#include "llvm/Support/Casting.h"

using namespace graphjit;
using namespace graphjit::rewrite;

namespace {

class SplitWideElemwise final : public NodeRewrite {
public:
  SplitWideElemwise() : NodeRewrite("split_wide_elemwise", {"legalize"}) {}

  llvm::Expected<std::vector<Replacement>> apply(RewriteGraph &G,
                                                 RNode &N) override {
    if (!isWideElemwise(N.op(), N.Inputs.size()))
      return std::vector<Replacement>{};
    DType Out = N.Outputs[0]->Type.Dtype;
    for (RValue *In : N.Inputs)
      if (In->Type.Dtype != Out)
        return std::vector<Replacement>{};
    RValue *Acc = nullptr;
    for (size_t I = 0; I < N.Inputs.size();) {
      std::vector<RValue *> Ins;
      if (Acc)
        Ins.push_back(Acc);
      size_t Take = std::min(MaxElemwiseInputs - Ins.size(),
                             N.Inputs.size() - I);
      Ins.insert(Ins.end(), N.Inputs.begin() + I, N.Inputs.begin() + I + Take);
      I += Take;
      llvm::Expected<RNode *> Part = G.makeNode(N.Op, Ins);
      if (!Part)
        return Part.takeError();
      Acc = (*Part)->Outputs[0];
    }
    return replaceBy(N, Acc);
  }
};

} // namespace

bool graphjit::isWideElemwise(const Op &O, size_t NumInputs) {
  const auto *E = llvm::dyn_cast<Elemwise>(&O);
  return NumInputs > MaxElemwiseInputs && E && !E->composite() &&
         E->inplaceInput() < 0 &&
         (E->scalarOp() == ScalarOpKind::Add ||
          E->scalarOp() == ScalarOpKind::Mul);
}

std::unique_ptr<NodeRewrite> rewrite::makeSplitWideElemwise() {
  return std::make_unique<SplitWideElemwise>();
}
