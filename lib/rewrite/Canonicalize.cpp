//===- Canonicalize.cpp - Simpler forms of the same computation ----------===//
//
// Theano's canonicalize rewrites that hold exactly: neutral elements
// (x*1, x+0, x-0, x/1), neg(neg(x)), pow(x, 2) -> sqr(x), mul(x, x) ->
// sqr(x), casts to the same dtype and casts of casts, switches on a
// constant condition, and dimshuffles that do nothing or follow another.
//
// Each one only replaces a value by one of exactly the same type (dtype
// and every dim): broadcasting can make a neutral element change the shape
// (x * ones(3) is not x when x is a scalar) and NumPy's promotion can make
// it change the dtype (an i32 x times an f64 one is f64).
//
//===----------------------------------------------------------------------===//

#include "Match.h"
#include "NodeRewrite.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Casting.h"

using namespace graphjit;
using namespace graphjit::rewrite;

using Reps = std::vector<Replacement>;

namespace {

const std::vector<std::string> CanonicalizeTags = {"canonicalize", "fast_run"};

/// sqr(x) standing for N's output.
llvm::Expected<Reps> sqrOf(RewriteGraph &G, RNode &N, RValue *X) {
  llvm::Expected<RNode *> New = G.makeNode("sqr", {X});
  if (!New)
    return New.takeError();
  return replaceBy(N, (*New)->Outputs[0]);
}

/// add(..., 0, ...) and mul(..., 1, ...): drops the neutral constants whose
/// absence leaves the type as it is (one at a time, so that x*ones(3)*1
/// keeps the ones when x is a scalar).
class NeutralElement final : public NodeRewrite {
public:
  NeutralElement(std::string Name, ScalarOpKind K, double Neutral)
      : NodeRewrite(std::move(Name), CanonicalizeTags), K(K), Neutral(Neutral) {
  }

  llvm::Expected<Reps> apply(RewriteGraph &G, RNode &N) override {
    if (!elemwiseOf(N, K))
      return Reps{};
    const TensorType &Want = N.Outputs[0]->Type;
    std::vector<RValue *> Keep = N.Inputs;
    bool Dropped = false;
    for (size_t I = 0; I < Keep.size() && Keep.size() > 1;) {
      if (!isConstantAll(*Keep[I], Neutral)) {
        ++I;
        continue;
      }
      std::vector<RValue *> Without = Keep;
      Without.erase(Without.begin() + I);
      if (typeOf(N, Without) == Want) {
        Keep = std::move(Without);
        Dropped = true;
      } else {
        ++I;
      }
    }
    if (!Dropped)
      return Reps{};
    if (Keep.size() == 1)
      return replaceBy(N, Keep[0]);
    llvm::Expected<RNode *> New = G.makeNode(N.Op, Keep);
    if (!New)
      return New.takeError();
    return replaceBy(N, (*New)->Outputs[0]);
  }

private:
  ScalarOpKind K;
  double Neutral;

  /// The type of N's op on these inputs (one input: that input's).
  static std::optional<TensorType> typeOf(const RNode &N,
                                          llvm::ArrayRef<RValue *> Ins) {
    if (Ins.size() == 1)
      return Ins[0]->Type;
    std::vector<TensorType> Types;
    for (RValue *In : Ins)
      Types.push_back(In->Type);
    llvm::Expected<std::vector<TensorType>> Out = N.op().inferTypes(Types);
    if (!Out) {
      llvm::consumeError(Out.takeError());
      return std::nullopt;
    }
    return (*Out)[0];
  }
};

/// x - 0 and x / 1: a neutral second operand.
class RightNeutral final : public NodeRewrite {
public:
  RightNeutral(std::string Name, ScalarOpKind K, double Neutral)
      : NodeRewrite(std::move(Name), CanonicalizeTags), K(K), Neutral(Neutral) {
  }

  llvm::Expected<Reps> apply(RewriteGraph &, RNode &N) override {
    if (!elemwiseOf(N, K) || !isConstantAll(*N.Inputs[1], Neutral))
      return Reps{};
    return replaceBy(N, N.Inputs[0]);
  }

private:
  ScalarOpKind K;
  double Neutral;
};

/// neg(neg(x)) -> x (integers wrap both ways, so it holds for them too).
class NegNeg final : public NodeRewrite {
public:
  NegNeg() : NodeRewrite("neg_neg", CanonicalizeTags) {}

  llvm::Expected<Reps> apply(RewriteGraph &, RNode &N) override {
    if (!elemwiseOf(N, ScalarOpKind::Neg))
      return Reps{};
    RNode *Inner = producedBy(*N.Inputs[0], ScalarOpKind::Neg);
    return Inner ? replaceBy(N, Inner->Inputs[0]) : Reps{};
  }
};

/// pow(x, 2) -> sqr(x), pow(x, 1) -> x (Theano's local_pow_specialize).
class PowSpecialize final : public NodeRewrite {
public:
  PowSpecialize() : NodeRewrite("pow_specialize", CanonicalizeTags) {}

  llvm::Expected<Reps> apply(RewriteGraph &G, RNode &N) override {
    if (!elemwiseOf(N, ScalarOpKind::Pow))
      return Reps{};
    RValue *X = N.Inputs[0], *E = N.Inputs[1];
    if (isConstantAll(*E, 1))
      return replaceBy(N, X);
    if (!isConstantAll(*E, 2))
      return Reps{};
    // Check the type first: sqr keeps x's dtype, pow promotes (a bool x
    // squares as i8, and pow(x, 2) may broadcast).
    if (X->Type != N.Outputs[0]->Type)
      return Reps{};
    return sqrOf(G, N, X);
  }
};

/// mul(x, x) -> sqr(x).
class MulSelf final : public NodeRewrite {
public:
  MulSelf() : NodeRewrite("mul_self_to_sqr", CanonicalizeTags) {}

  llvm::Expected<Reps> apply(RewriteGraph &G, RNode &N) override {
    if (!elemwiseOf(N, ScalarOpKind::Mul) || N.Inputs.size() != 2 ||
        N.Inputs[0] != N.Inputs[1] || N.Inputs[0]->Type != N.Outputs[0]->Type)
      return Reps{};
    return sqrOf(G, N, N.Inputs[0]);
  }
};

/// A cast to the dtype the value already has.
class CastSame final : public NodeRewrite {
public:
  CastSame() : NodeRewrite("cast_same", CanonicalizeTags) {}

  llvm::Expected<Reps> apply(RewriteGraph &, RNode &N) override {
    const Elemwise *E = elemwiseOf(N, ScalarOpKind::Cast);
    if (!E || E->castTo() != N.Inputs[0]->Type.Dtype)
      return Reps{};
    return replaceBy(N, N.Inputs[0]);
  }
};

/// Whether every value of From is exactly a value of To, so that a cast
/// through To changes nothing.
bool castIsExact(DType From, DType To) {
  if (From == To || From == DType::Bool)
    return true;
  switch (From) {
  case DType::U8:
  case DType::I8:
    return To == DType::I16 || To == DType::I32 || To == DType::I64 ||
           To == DType::F32 || To == DType::F64 ||
           (From == DType::U8 && To == DType::U8);
  case DType::I16:
    return To == DType::I32 || To == DType::I64 || To == DType::F32 ||
           To == DType::F64;
  case DType::I32:
    return To == DType::I64 || To == DType::F64;
  case DType::F32:
    return To == DType::F64;
  default:
    return false;
  }
}

/// cast(cast(x, T1), T2) -> cast(x, T2) when the inner cast is exact: the
/// outer one then sees x's values.
class CastCast final : public NodeRewrite {
public:
  CastCast() : NodeRewrite("cast_cast", CanonicalizeTags) {}

  llvm::Expected<Reps> apply(RewriteGraph &G, RNode &N) override {
    const Elemwise *Outer = elemwiseOf(N, ScalarOpKind::Cast);
    if (!Outer)
      return Reps{};
    RNode *Inner = producedBy(*N.Inputs[0], ScalarOpKind::Cast);
    if (!Inner)
      return Reps{};
    RValue *X = Inner->Inputs[0];
    const auto &InnerOp = llvm::cast<Elemwise>(Inner->op());
    if (!castIsExact(X->Type.Dtype, InnerOp.castTo()))
      return Reps{};
    if (Outer->castTo() == X->Type.Dtype)
      return replaceBy(N, X);
    AttrMap Attrs{
        {"dtype", AttrValue::ident(dtypeName(Outer->castTo()).str())}};
    llvm::Expected<RNode *> New = G.makeNode("cast", {X}, Attrs);
    if (!New)
      return New.takeError();
    return replaceBy(N, (*New)->Outputs[0]);
  }
};

/// switch(c, a, b) with a constant condition: a where c is all true, b
/// where it is all false.
class SwitchConstant final : public NodeRewrite {
public:
  SwitchConstant() : NodeRewrite("switch_constant", CanonicalizeTags) {}

  llvm::Expected<Reps> apply(RewriteGraph &, RNode &N) override {
    if (!elemwiseOf(N, ScalarOpKind::Switch) || !N.Inputs[0]->isConstant())
      return Reps{};
    const NDArray &C = N.Inputs[0]->Value;
    int64_t Count = C.numElements();
    if (Count == 0)
      return Reps{};
    int64_t True = 0;
    for (int64_t I = 0; I < Count; ++I)
      True += isFloat(C.dtype()) ? C.getDouble(I) != 0 : C.getInt(I) != 0;
    if (True == Count)
      return replaceBy(N, N.Inputs[1]);
    if (True == 0)
      return replaceBy(N, N.Inputs[2]);
    return Reps{};
  }
};

/// A dimshuffle that keeps every dim in place (a transpose of a vector,
/// dimshuffle(x, pattern=[0, 1])) is its input.
class UselessDimShuffle final : public NodeRewrite {
public:
  UselessDimShuffle() : NodeRewrite("useless_dimshuffle", CanonicalizeTags) {}

  llvm::Expected<Reps> apply(RewriteGraph &, RNode &N) override {
    std::optional<std::vector<int>> P = dimShufflePattern(N);
    if (!P || P->size() != N.Inputs[0]->Type.rank())
      return Reps{};
    for (unsigned I = 0; I < P->size(); ++I)
      if ((*P)[I] != int(I))
        return Reps{};
    return replaceBy(N, N.Inputs[0]);
  }
};

/// dimshuffle(dimshuffle(x, P1), P2) -> dimshuffle(x, P1 after P2), so
/// that transpose(transpose(x)) is x once useless_dimshuffle has run.
class DimShuffleDimShuffle final : public NodeRewrite {
public:
  DimShuffleDimShuffle()
      : NodeRewrite("dimshuffle_dimshuffle", CanonicalizeTags) {}

  llvm::Expected<Reps> apply(RewriteGraph &G, RNode &N) override {
    std::optional<std::vector<int>> Outer = dimShufflePattern(N);
    RNode *InnerNode = N.Inputs[0]->Owner;
    if (!Outer || !InnerNode || InnerNode->Dead)
      return Reps{};
    std::optional<std::vector<int>> Inner = dimShufflePattern(*InnerNode);
    if (!Inner)
      return Reps{};
    std::vector<AttrValue> Pattern;
    for (int D : *Outer) {
      if (D >= int(Inner->size()))
        return Reps{};
      int From = D < 0 ? -1 : (*Inner)[D];
      Pattern.push_back(From < 0 ? AttrValue::ident("x")
                                 : AttrValue::integer(From));
    }
    AttrMap Attrs{{"pattern", AttrValue::list(std::move(Pattern))}};
    llvm::Expected<RNode *> New =
        G.makeNode("dimshuffle", {InnerNode->Inputs[0]}, Attrs);
    if (!New) {
      // The composed pattern drops a dim that is not statically 1.
      llvm::consumeError(New.takeError());
      return Reps{};
    }
    return replaceBy(N, (*New)->Outputs[0]);
  }
};

} // namespace

std::vector<std::unique_ptr<NodeRewrite>> rewrite::makeCanonicalizeRewrites() {
  std::vector<std::unique_ptr<NodeRewrite>> R;
  R.push_back(
      std::make_unique<NeutralElement>("mul_one", ScalarOpKind::Mul, 1));
  R.push_back(
      std::make_unique<NeutralElement>("add_zero", ScalarOpKind::Add, 0));
  R.push_back(std::make_unique<RightNeutral>("sub_zero", ScalarOpKind::Sub, 0));
  R.push_back(
      std::make_unique<RightNeutral>("div_one", ScalarOpKind::TrueDiv, 1));
  R.push_back(std::make_unique<NegNeg>());
  R.push_back(std::make_unique<PowSpecialize>());
  R.push_back(std::make_unique<MulSelf>());
  R.push_back(std::make_unique<CastSame>());
  R.push_back(std::make_unique<CastCast>());
  R.push_back(std::make_unique<SwitchConstant>());
  R.push_back(std::make_unique<UselessDimShuffle>());
  R.push_back(std::make_unique<DimShuffleDimShuffle>());
  return R;
}
