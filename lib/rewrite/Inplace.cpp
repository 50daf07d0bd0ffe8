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
// shared_update_inplace is Theano's Gemm{inplace} on a shared variable: a
// Gemm or Elemwise that computes a shared variable's update from its old
// value writes the new value over the old one, instead of copying it into
// a new array. Such an Apply runs after every other (the rest still read
// the old value), and the runtime checks the whole call before the first
// of them writes (docs/architecture.md, "Updates in place"), so that a
// failed call leaves every shared variable as it was.
//
//===----------------------------------------------------------------------===//

#include "Match.h"
#include "NodeRewrite.h"
#include "ops/linalg/GemmOp.h"

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

/// The value whose memory V is: V itself, or what it is a view of or was
/// written over, followed back.
const RValue *memoryRoot(const RValue *V) {
  while (RNode *P = liveOwner(*V)) {
    OutputAlias A = P->op().outputAlias(V->OutIndex);
    if (A.K == OutputAlias::Created || A.Input < 0 ||
        size_t(A.Input) >= P->Inputs.size())
      break;
    V = P->Inputs[A.Input];
  }
  return V;
}

bool readsMemoryOf(const RNode &N, const RValue *Root) {
  return llvm::any_of(N.Inputs, [&](const RValue *In) {
    return memoryRoot(In) == Root;
  });
}

class SharedUpdateInplace final : public NodeRewrite {
public:
  SharedUpdateInplace()
      : NodeRewrite("shared_update_inplace", {"inplace", "fast_run"}) {}

  llvm::Expected<Reps> apply(RewriteGraph &G, RNode &N) override {
    // Cheap tests first: most Applies read no shared variable.
    auto IsShared = [](const RValue *V) {
      return V->Kind == Variable::SharedRead;
    };
    if (N.Outputs.size() != 1 || N.Outputs[0]->Uses != 1 ||
        !llvm::any_of(N.Inputs, IsShared) ||
        (!gemmParams(N.op()) && !elemwiseOp(N)) || overwritesShared(N))
      return Reps{};
    RValue *Out = N.Outputs[0];
    std::optional<unsigned> Update = updateOf(G, Out);
    if (!Update)
      return Reps{};
    const SharedVariable *Target = G.source().updates()[*Update].Target;
    int Slot = slotOf(N, Target);
    if (Slot < 0 || !othersUnaffected(G, N, *Update, N.Inputs[Slot]))
      return Reps{};
    llvm::Expected<RNode *> New = nullptr;
    if (gemmParams(N.op())) {
      // The attributes as they were spelled, and inplace.
      AttrMap Attrs = N.op().attrs();
      Attrs["inplace"] = AttrValue::boolean(true);
      New = G.makeNode("gemm", N.Inputs, Attrs);
    } else {
      New = G.makeNode(elemwiseOp(N)->withInplace(Slot), N.Inputs);
    }
    if (!New)
      return New.takeError();
    return Reps{{Out, (*New)->Outputs[0]}};
  }

private:
  static std::optional<unsigned> updateOf(RewriteGraph &G, RValue *V) {
    llvm::ArrayRef<RValue *> Values = G.updateValues();
    for (unsigned I = 0; I < Values.size(); ++I)
      if (RewriteGraph::resolve(Values[I]) == V)
        return I;
    return std::nullopt;
  }

  /// The input slot N could overwrite with Target's new value: gemm's c;
  /// an Elemwise's slot of Target's type. Gemm must read Target's memory
  /// nowhere else (BLAS reads a and b while writing c); an Elemwise may
  /// read Target itself in other slots (each element is read before it is
  /// written), but no view of it.
  static int slotOf(const RNode &N, const SharedVariable *Target) {
    auto IsTarget = [&](const RValue *V) {
      return V->Kind == Variable::SharedRead && V->Shared == Target &&
             V->Type == N.Outputs[0]->Type;
    };
    int Slot = -1;
    if (gemmParams(N.op())) {
      Slot = IsTarget(N.Inputs[0]) ? 0 : -1;
    } else if (elemwiseOp(N)) {
      for (unsigned K = 0; K < N.Inputs.size() && Slot < 0; ++K)
        if (IsTarget(N.Inputs[K]))
          Slot = K;
    }
    if (Slot < 0)
      return -1;
    const RValue *T = N.Inputs[Slot];
    for (unsigned K = 0; K < N.Inputs.size(); ++K)
      if (int(K) != Slot && memoryRoot(N.Inputs[K]) == T &&
          (gemmParams(N.op()) || N.Inputs[K] != T))
        return -1;
    return Slot;
  }

  /// Whether writing over T after everything else changes nothing anyone
  /// sees: no output or other update is T's memory, no other update in
  /// place reads it, and N reads none that those overwrite.
  static bool othersUnaffected(RewriteGraph &G, const RNode &N,
                               unsigned Update, const RValue *T) {
    for (RValue *O : G.outputValues())
      if (memoryRoot(RewriteGraph::resolve(O)) == T)
        return false;
    llvm::ArrayRef<RValue *> Values = G.updateValues();
    for (unsigned I = 0; I < Values.size(); ++I)
      if (I != Update && memoryRoot(RewriteGraph::resolve(Values[I])) == T)
        return false;
    for (const auto &M : G.nodes()) {
      if (M->Dead || M.get() == &N || !overwritesShared(*M))
        continue;
      if (readsMemoryOf(*M, T))
        return false;
      for (unsigned K = 0; K < M->Outputs.size(); ++K) {
        OutputAlias A = M->op().outputAlias(K);
        if (A.K == OutputAlias::Inplace && readsMemoryOf(N, M->Inputs[A.Input]))
          return false;
      }
    }
    return true;
  }
};

} // namespace

std::unique_ptr<NodeRewrite> rewrite::makeSharedUpdateInplace() {
  return std::make_unique<SharedUpdateInplace>();
}

std::unique_ptr<NodeRewrite> rewrite::makeElemwiseInplace() {
  return std::make_unique<ElemwiseInplace>();
}
