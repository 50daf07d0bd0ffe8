//===- Inplace.cpp - Outputs written over dying inputs -------------------===//
//
// Theano's in-place rewrite: an Elemwise whose input dies with it (nothing
// else reads it) writes its output into that input's buffer instead of a
// new one, saving an allocation and the memory of one array. It runs last,
// on the final graph, so that no later rewrite adds a reader.
//
// The overwritten input must be an intermediate the function made: not an
// input (the caller's array), a constant or a shared variable; not a view
// (its memory belongs to another value); read by this Apply alone, in one
// input slot, and not an output or an update. It must have the output's
// type; at run time the op still falls back to a new buffer when the
// shapes or the layout do not allow it. Views and destroy declarations
// follow Theano's view_map and destroy_map (Op::outputAlias).
//
//===----------------------------------------------------------------------===//

#include "Match.h"
#include "NodeRewrite.h"

using namespace graphjit;
using namespace graphjit::rewrite;

using Reps = std::vector<Replacement>;

namespace {

/// Whether V's memory is its own to give: a result its Apply created or
/// itself wrote in place (over an input that in turn died there).
bool ownsItsMemory(const RValue &V) {
  RNode *P = liveOwner(V);
  if (!P)
    return false;
  OutputAlias A = P->op().outputAlias(V.OutIndex);
  return A.K != OutputAlias::View;
}

class ElemwiseInplace final : public NodeRewrite {
public:
  ElemwiseInplace()
      : NodeRewrite("elemwise_inplace", {"inplace", "fast_run"}) {}

  llvm::Expected<Reps> apply(RewriteGraph &G, RNode &N) override {
    const Elemwise *E = elemwiseOp(N);
    if (!E || E->inplaceInput() >= 0 || N.Outputs.size() != 1)
      return Reps{};
    const TensorType &OutType = N.Outputs[0]->Type;
    for (unsigned K = 0; K < N.Inputs.size(); ++K) {
      const RValue &V = *N.Inputs[K];
      // second(a, b) never reads a; overwriting it is fine, but it is
      // usually a constant or an input, and a read one is as good.
      if (V.Uses != 1 || V.Type != OutType || !ownsItsMemory(V))
        continue;
      llvm::Expected<RNode *> New = G.makeNode(E->withInplace(K), N.Inputs);
      if (!New)
        return New.takeError();
      return Reps{{N.Outputs[0], (*New)->Outputs[0]}};
    }
    return Reps{};
  }
};

} // namespace

std::unique_ptr<NodeRewrite> rewrite::makeElemwiseInplace() {
  return std::make_unique<ElemwiseInplace>();
}
