//===- Fusion.cpp - Elemwise chains and trees into one Composite ---------===//
//
// Theano's elemwise fusion: an Elemwise whose input is made by another
// Elemwise that nothing else reads takes that Elemwise's scalar program
// into its own, so the two run as one loop over memory (one Apply in the
// profile, Elemwise{Composite{...}}). The pipeline revisits the fused Apply,
// so a chain or a tree of Elemwise Applies becomes one Composite.
//
// Only a producer whose output has exactly the consumer's output type is
// taken in: a smaller output broadcast by the consumer would be computed
// again for every element it is broadcast to. Composites are bounded in
// inputs and steps, and a step that the Composite refuses (an integer pow,
// whose exponents must be checked before anything is computed) stays out.
//
//===----------------------------------------------------------------------===//

#include "Match.h"
#include "NodeRewrite.h"

using namespace graphjit;
using namespace graphjit::rewrite;

using Reps = std::vector<Replacement>;

namespace {

/// Theano stops at 32 inputs (the C compiler's argument limits); we keep the
/// loop kernels' argument lists and register pressure bounded the same way.
constexpr unsigned MaxFusedInputs = 32;
constexpr unsigned MaxFusedSteps = 64;

/// A scalar program under construction: operands name a value of the graph
/// (an input of the future Composite) or an earlier step.
struct Operand {
  bool IsStep = false;
  unsigned Index = 0; ///< Into Inputs or Steps.
};

struct Program {
  std::vector<RValue *> Inputs;
  struct Step {
    ScalarOpKind Kind;
    DType CastTo;
    llvm::SmallVector<Operand, 3> Args;
  };
  std::vector<Step> Steps;

  Operand inputFor(RValue *V) {
    for (unsigned I = 0; I < Inputs.size(); ++I)
      if (Inputs[I] == V)
        return {false, I};
    Inputs.push_back(V);
    return {false, unsigned(Inputs.size() - 1)};
  }

  /// Appends the scalar program of Apply N, reading its input slot K as
  /// Slots[K]; returns the operand of its result.
  Operand append(const RNode &N, llvm::ArrayRef<Operand> Slots) {
    const Elemwise &E = *elemwiseOp(N);
    CompositeScalar C = compositeOf(E, N.Inputs.size());
    unsigned First = Steps.size();
    for (const CompositeStep &S : C.Steps) {
      Step New{S.Kind, S.CastTo, {}};
      for (unsigned A : S.Args)
        New.Args.push_back(A < C.NumInputs
                               ? Slots[A]
                               : Operand{true, First + (A - C.NumInputs)});
      Steps.push_back(std::move(New));
    }
    return {true, unsigned(Steps.size() - 1)};
  }

  CompositeScalar finish() const {
    CompositeScalar C;
    C.NumInputs = Inputs.size();
    for (const Step &S : Steps) {
      CompositeStep Out{S.Kind, S.CastTo, {}};
      for (const Operand &O : S.Args)
        Out.Args.push_back(O.IsStep ? C.NumInputs + O.Index : O.Index);
      C.Steps.push_back(std::move(Out));
    }
    return C;
  }
};

class ElemwiseFusion final : public NodeRewrite {
public:
  ElemwiseFusion()
      : NodeRewrite("elemwise_fusion", {"fusion", "fast_run"}) {}

  llvm::Expected<Reps> apply(RewriteGraph &G, RNode &N) override {
    const Elemwise *E = elemwiseOp(N);
    if (!E || E->inplaceInput() >= 0 || N.Outputs.size() != 1)
      return Reps{};
    const TensorType &OutType = N.Outputs[0]->Type;
    // Which input slots to take the producers of: tried one at a time, so
    // that one producer the Composite refuses leaves the others fused.
    std::vector<bool> Take(N.Inputs.size(), false);
    std::optional<std::pair<CompositeScalar, std::vector<RValue *>>> Best;
    std::vector<RNode *> Absorbed;
    for (unsigned K = 0; K < N.Inputs.size(); ++K) {
      RNode *P = fusible(*N.Inputs[K], OutType);
      if (!P)
        continue;
      Take[K] = true;
      auto Built = build(N, Take);
      if (!Built) {
        Take[K] = false;
        continue;
      }
      Best = std::move(*Built);
      Absorbed.push_back(P);
    }
    if (!Best)
      return Reps{};
    llvm::Expected<OpRef> Op = makeCompositeElemwise(std::move(Best->first));
    if (!Op)
      return Op.takeError(); // build() checked it: a bug if it fails now.
    llvm::Expected<RNode *> New = G.makeNode(std::move(*Op), Best->second);
    if (!New)
      return New.takeError();
    // The fused Apply also stands for the statements it took in; the
    // pipeline adds N's own.
    for (RNode *P : Absorbed) {
      const std::vector<SourceLoc> &Locs =
          P->Locs.empty() ? std::vector<SourceLoc>{P->Loc} : P->Locs;
      (*New)->Locs.insert((*New)->Locs.end(), Locs.begin(), Locs.end());
      for (const std::string &R : P->MadeBy)
        if (!llvm::is_contained((*New)->MadeBy, R))
          (*New)->MadeBy.push_back(R);
    }
    return Reps{{N.Outputs[0], (*New)->Outputs[0]}};
  }

private:
  /// V's producer if fusion may take it in: a live Elemwise, not in place,
  /// whose one output only this consumer reads, once, with the consumer's
  /// output type.
  static RNode *fusible(const RValue &V, const TensorType &OutType) {
    RNode *P = liveOwner(V);
    if (!P || !elemwiseOp(*P) || elemwiseOp(*P)->inplaceInput() >= 0 ||
        P->Outputs.size() != 1 || V.Uses != 1)
      return nullptr;
    if (V.Type.Dims != OutType.Dims)
      return nullptr;
    return P;
  }

  /// The Composite of N with the producers of the slots in Take taken in,
  /// and its inputs; nullopt if it is too large or the Composite refuses it
  /// or would not have N's output type.
  static std::optional<std::pair<CompositeScalar, std::vector<RValue *>>>
  build(const RNode &N, const std::vector<bool> &Take) {
    Program Prog;
    std::vector<Operand> Slots;
    for (unsigned K = 0; K < N.Inputs.size(); ++K) {
      if (!Take[K]) {
        Slots.push_back(Prog.inputFor(N.Inputs[K]));
        continue;
      }
      const RNode &P = *N.Inputs[K]->Owner;
      std::vector<Operand> Inner;
      for (RValue *In : P.Inputs)
        Inner.push_back(Prog.inputFor(In));
      Slots.push_back(Prog.append(P, Inner));
    }
    Prog.append(N, Slots);
    if (Prog.Inputs.size() > MaxFusedInputs ||
        Prog.Steps.size() > MaxFusedSteps)
      return std::nullopt;
    CompositeScalar C = Prog.finish();
    llvm::Expected<OpRef> Op = makeCompositeElemwise(C);
    if (!Op) {
      llvm::consumeError(Op.takeError());
      return std::nullopt;
    }
    std::vector<TensorType> InTypes;
    for (RValue *V : Prog.Inputs)
      InTypes.push_back(V->Type);
    llvm::Expected<std::vector<TensorType>> Out = (*Op)->inferTypes(InTypes);
    if (!Out) {
      llvm::consumeError(Out.takeError());
      return std::nullopt;
    }
    if ((*Out)[0] != N.Outputs[0]->Type)
      return std::nullopt;
    return std::make_pair(std::move(C), std::move(Prog.Inputs));
  }
};

} // namespace

std::unique_ptr<NodeRewrite> rewrite::makeElemwiseFusion() {
  return std::make_unique<ElemwiseFusion>();
}
