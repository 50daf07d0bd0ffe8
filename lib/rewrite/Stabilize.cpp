//===- Stabilize.cpp - Numerically stable forms of log, exp and softmax --===//
//
// Theano's stabilize rewrites: forms that overflow, underflow or cancel
// become ones that do not, for the losses users write by hand.
//
//   log(softmax(x))                          -> log_softmax(x)
//   exp(x) / sum(exp(x), axis=a, keepdims)   -> softmax(x, axis=a)
//   log(sigmoid(x))                          -> -softplus(-x)
//   log(1 - sigmoid(x))                      -> -softplus(x)
//   log(1 + x)                               -> log1p(x)
//   log1p(exp(x))                            -> softplus(x)
//   exp(x) - 1                               -> expm1(x)
//
// So the cross-entropy of a softmax or a sigmoid, as the examples write it,
// stays finite where the naive form gives -inf or NaN. They change the
// rounding, so they only touch floats, and each keeps the exact type of
// what it replaces (a broadcasting 1 or a wider constant leaves it alone).
//
//===----------------------------------------------------------------------===//

#include "Match.h"
#include "NodeRewrite.h"
#include "ops/nn/NNOps.h"
#include "ops/StructuralParams.h"
#include "llvm/Support/Casting.h"

using namespace graphjit;
using namespace graphjit::rewrite;

using Reps = std::vector<Replacement>;

namespace {

const std::vector<std::string> StabilizeTags = {"stabilize", "fast_run"};

/// A chain of unary ops by format name applied to X, innermost first:
/// unaryChain(G, X, {"neg", "softplus", "neg"}) is neg(softplus(neg(X))).
llvm::Expected<RNode *> unaryChain(RewriteGraph &G, RValue *X,
                                   llvm::ArrayRef<const char *> Ops) {
  RNode *Last = nullptr;
  for (const char *Op : Ops) {
    llvm::Expected<RNode *> N = G.makeNode(Op, {X});
    if (!N)
      return N.takeError();
    Last = *N;
    X = Last->Outputs[0];
  }
  return Last;
}

/// A rewrite given as a function, for the small patterns here.
class PatternRewrite final : public NodeRewrite {
public:
  using Fn = std::function<llvm::Expected<Reps>(RewriteGraph &, RNode &)>;
  PatternRewrite(std::string Name, Fn F)
      : NodeRewrite(std::move(Name), StabilizeTags), F(std::move(F)) {}
  llvm::Expected<Reps> apply(RewriteGraph &G, RNode &N) override {
    if (!isFloatValue(*N.Outputs.front()))
      return Reps{};
    return F(G, N);
  }

private:
  Fn F;
};

/// log(softmax(x)) -> log_softmax(x).
llvm::Expected<Reps> logSoftmax(RewriteGraph &G, RNode &N) {
  if (!elemwiseOf(N, ScalarOpKind::Log))
    return Reps{};
  RNode *S = liveOwner(*N.Inputs[0]);
  if (!S || !llvm::isa<SoftmaxOp>(S->op()))
    return Reps{};
  std::optional<SoftmaxInfo> Info =
      softmaxInfo(S->op(), S->Inputs[0]->Type.rank());
  if (!Info)
    return Reps{};
  AttrMap Attrs{{"axis", AttrValue::integer(Info->Axis)}};
  llvm::Expected<RNode *> New = G.makeNode("log_softmax", S->Inputs, Attrs);
  if (!New)
    return New.takeError();
  return replaceBy(N, (*New)->Outputs[0]);
}

/// exp(x) / sum(exp(x), axis=[a], keepdims=true) -> softmax(x, axis=a).
llvm::Expected<Reps> softmaxFromExp(RewriteGraph &G, RNode &N) {
  if (!elemwiseOf(N, ScalarOpKind::TrueDiv))
    return Reps{};
  RNode *Exp = producedBy(*N.Inputs[0], ScalarOpKind::Exp);
  RNode *Sum = liveOwner(*N.Inputs[1]);
  if (!Exp || !Sum || Sum->Inputs.size() != 1 ||
      Sum->Inputs[0] != N.Inputs[0])
    return Reps{};
  unsigned Rank = Exp->Outputs[0]->Type.rank();
  std::optional<ReductionInfo> R = reductionInfo(Sum->op(), Rank);
  if (!R || R->K != ReductionInfo::Sum || !R->KeepDims ||
      llvm::count(R->Reduced, true) != 1)
    return Reps{};
  int64_t Axis = llvm::find(R->Reduced, true) - R->Reduced.begin();
  AttrMap Attrs{{"axis", AttrValue::integer(Axis)}};
  llvm::Expected<RNode *> New = G.makeNode("softmax", Exp->Inputs, Attrs);
  if (!New)
    return New.takeError();
  return replaceBy(N, (*New)->Outputs[0]);
}

/// log(sigmoid(x)) -> -softplus(-x).
llvm::Expected<Reps> logSigmoid(RewriteGraph &G, RNode &N) {
  if (!elemwiseOf(N, ScalarOpKind::Log))
    return Reps{};
  RNode *S = producedBy(*N.Inputs[0], ScalarOpKind::Sigmoid);
  if (!S || !isFloatValue(*S->Inputs[0]))
    return Reps{};
  llvm::Expected<RNode *> New =
      unaryChain(G, S->Inputs[0], {"neg", "softplus", "neg"});
  if (!New)
    return New.takeError();
  return replaceBy(N, (*New)->Outputs[0]);
}

/// log(1 - sigmoid(x)) -> -softplus(x).
llvm::Expected<Reps> log1mSigmoid(RewriteGraph &G, RNode &N) {
  if (!elemwiseOf(N, ScalarOpKind::Log))
    return Reps{};
  RNode *Sub = producedBy(*N.Inputs[0], ScalarOpKind::Sub);
  if (!Sub || !isConstantAll(*Sub->Inputs[0], 1))
    return Reps{};
  RNode *S = producedBy(*Sub->Inputs[1], ScalarOpKind::Sigmoid);
  if (!S || !isFloatValue(*S->Inputs[0]))
    return Reps{};
  llvm::Expected<RNode *> New = unaryChain(G, S->Inputs[0], {"softplus", "neg"});
  if (!New)
    return New.takeError();
  return replaceBy(N, (*New)->Outputs[0]);
}

/// log(1 + x) and log(x + 1) -> log1p(x).
llvm::Expected<Reps> log1pFromLog(RewriteGraph &G, RNode &N) {
  if (!elemwiseOf(N, ScalarOpKind::Log))
    return Reps{};
  RNode *Add = producedBy(*N.Inputs[0], ScalarOpKind::Add);
  if (!Add || Add->Inputs.size() != 2)
    return Reps{};
  for (unsigned K = 0; K < 2; ++K) {
    if (!isConstantAll(*Add->Inputs[K], 1))
      continue;
    RValue *X = Add->Inputs[1 - K];
    if (!isFloatValue(*X))
      return Reps{};
    llvm::Expected<RNode *> New = unaryChain(G, X, {"log1p"});
    if (!New)
      return New.takeError();
    return replaceBy(N, (*New)->Outputs[0]);
  }
  return Reps{};
}

/// log1p(exp(x)) -> softplus(x).
llvm::Expected<Reps> softplusFromLog1pExp(RewriteGraph &G, RNode &N) {
  if (!elemwiseOf(N, ScalarOpKind::Log1p))
    return Reps{};
  RNode *Exp = producedBy(*N.Inputs[0], ScalarOpKind::Exp);
  if (!Exp || !isFloatValue(*Exp->Inputs[0]))
    return Reps{};
  llvm::Expected<RNode *> New = unaryChain(G, Exp->Inputs[0], {"softplus"});
  if (!New)
    return New.takeError();
  return replaceBy(N, (*New)->Outputs[0]);
}

/// exp(x) - 1 -> expm1(x).
llvm::Expected<Reps> expm1FromSub(RewriteGraph &G, RNode &N) {
  if (!elemwiseOf(N, ScalarOpKind::Sub) || !isConstantAll(*N.Inputs[1], 1))
    return Reps{};
  RNode *Exp = producedBy(*N.Inputs[0], ScalarOpKind::Exp);
  if (!Exp || !isFloatValue(*Exp->Inputs[0]))
    return Reps{};
  llvm::Expected<RNode *> New = unaryChain(G, Exp->Inputs[0], {"expm1"});
  if (!New)
    return New.takeError();
  return replaceBy(N, (*New)->Outputs[0]);
}

} // namespace

std::vector<std::unique_ptr<NodeRewrite>> rewrite::makeStabilizeRewrites() {
  std::vector<std::unique_ptr<NodeRewrite>> R;
  auto Add = [&](const char *Name, PatternRewrite::Fn F) {
    R.push_back(std::make_unique<PatternRewrite>(Name, std::move(F)));
  };
  Add("softmax_from_exp", softmaxFromExp);
  Add("log_softmax", logSoftmax);
  Add("log_sigmoid", logSigmoid);
  Add("log1m_sigmoid", log1mSigmoid);
  Add("log1p_from_log", log1pFromLog);
  Add("softplus_from_log1p_exp", softplusFromLog1pExp);
  Add("expm1_from_sub", expm1FromSub);
  return R;
}
