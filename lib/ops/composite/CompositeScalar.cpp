//===- CompositeScalar.cpp - A Composite's checks, spelling and dtypes ---===//
//
// The structure of a fused Elemwise's scalar program: whether it is well
// formed, how Theano spells it (the op's name, so it must tell programs
// apart), and the signature of each step for given input dtypes.
//
//===----------------------------------------------------------------------===//

#include "ops/composite/CompositeScalar.h"
#include "llvm/ADT/Twine.h"

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

namespace {

/// Theano's infix spelling of K, or null for a function or neg.
const char *infixSpelling(ScalarOpKind K) {
  switch (K) {
  case ScalarOpKind::Add: return "+";
  case ScalarOpKind::Sub: return "-";
  case ScalarOpKind::Mul: return "*";
  case ScalarOpKind::TrueDiv: return "/";
  case ScalarOpKind::IntDiv: return "//";
  case ScalarOpKind::Mod: return "%";
  case ScalarOpKind::Pow: return "**";
  case ScalarOpKind::Eq: return "==";
  case ScalarOpKind::Neq: return "!=";
  case ScalarOpKind::Lt: return "<";
  case ScalarOpKind::Le: return "<=";
  case ScalarOpKind::Gt: return ">";
  case ScalarOpKind::Ge: return ">=";
  default: return nullptr;
  }
}

/// Spells every step of C in order, each from its operands' spellings;
/// false if one would exceed Cap characters (a step read many times spells
/// out its expression each time). Args must be in range and earlier.
bool spellSteps(const CompositeScalar &C, std::vector<std::string> &Out,
                size_t Cap) {
  Out.clear();
  Out.reserve(C.Steps.size());
  for (const CompositeStep &S : C.Steps) {
    const char *Infix = infixSpelling(S.Kind);
    // An operand inside an infix or prefix expression is parenthesized when
    // it is itself infix (Theano's "((i0 + i1) + i2) * i3"), and a negation
    // under ** or - too, so that precedence never decides.
    auto Operand = [&](unsigned Arg) -> std::string {
      if (Arg < C.NumInputs)
        return "i" + std::to_string(Arg);
      const CompositeStep &From = C.Steps[Arg - C.NumInputs];
      const std::string &Text = Out[Arg - C.NumInputs];
      bool Paren = false;
      if (Infix || S.Kind == ScalarOpKind::Neg)
        Paren = infixSpelling(From.Kind) ||
                (From.Kind == ScalarOpKind::Neg &&
                 (S.Kind == ScalarOpKind::Pow || S.Kind == ScalarOpKind::Neg));
      return Paren ? "(" + Text + ")" : Text;
    };
    std::string T;
    if (Infix) {
      for (size_t J = 0; J < S.Args.size(); ++J) {
        if (J)
          T += std::string(" ") + Infix + " ";
        T += Operand(S.Args[J]);
      }
    } else if (S.Kind == ScalarOpKind::Neg) {
      T = "-" + Operand(S.Args[0]);
    } else {
      T = S.Kind == ScalarOpKind::Cast
              ? "Cast{" + dtypeNumpyName(S.CastTo).str() + "}("
              : std::string(scalarOpInfo(S.Kind).Name) + "(";
      for (size_t J = 0; J < S.Args.size(); ++J)
        T += (J ? ", " : "") + Operand(S.Args[J]);
      T += ")";
    }
    if (T.size() > Cap)
      return false;
    Out.push_back(std::move(T));
  }
  return true;
}

/// The longest spelling a Composite may have: its name is the op's.
constexpr size_t MaxSpelling = 1 << 16;

} // namespace

std::string CompositeScalar::str() const {
  std::vector<std::string> S;
  spellSteps(*this, S, std::string::npos);
  return S.empty() ? std::string() : S.back();
}

std::string CompositeScalar::operandStr(unsigned Arg) const {
  if (Arg < NumInputs)
    return "i" + std::to_string(Arg);
  std::vector<std::string> S;
  spellSteps(*this, S, std::string::npos);
  return Arg - NumInputs < S.size() ? S[Arg - NumInputs] : "?";
}

Error graphjit::checkComposite(const CompositeScalar &C,
                               bool EveryInputUsed) {
  auto Fail = [](const llvm::Twine &Why) {
    return llvm::createStringError("malformed Composite: " + Why);
  };
  if (C.Steps.empty())
    return Fail("it has no steps");
  std::vector<bool> Used(C.NumInputs + C.Steps.size(), false);
  for (size_t K = 0; K < C.Steps.size(); ++K) {
    const CompositeStep &S = C.Steps[K];
    if (unsigned(S.Kind) >= NumScalarOps)
      return Fail("step " + llvm::Twine(K) + " has no scalar operation");
    const ScalarOpInfo &Info = scalarOpInfo(S.Kind);
    unsigned N = S.Args.size();
    if (N < Info.MinArity ||
        (Info.MaxArity >= 0 && N > unsigned(Info.MaxArity))) {
      std::string Takes = std::to_string(Info.MinArity);
      if (Info.MaxArity < 0)
        Takes += " or more";
      return Fail("step " + llvm::Twine(K) + " (" + Info.Name + ") has " +
                  llvm::Twine(N) + " operands; " + Info.Name + " takes " +
                  Takes);
    }
    for (unsigned A : S.Args) {
      if (A >= C.NumInputs + K)
        return Fail("step " + llvm::Twine(K) + " (" + Info.Name +
                    ") reads operand " + llvm::Twine(A) + ", but only " +
                    llvm::Twine(C.NumInputs) + " inputs and " +
                    llvm::Twine(K) + " earlier steps come before it");
      Used[A] = true;
    }
  }
  for (unsigned I = 0; EveryInputUsed && I < C.NumInputs; ++I)
    if (!Used[I])
      return Fail("input i" + llvm::Twine(I) + " is never used");
  for (size_t K = 0; K + 1 < C.Steps.size(); ++K)
    if (!Used[C.NumInputs + K])
      return Fail("the result of step " + llvm::Twine(K) + " (" +
                  scalarOpInfo(C.Steps[K].Kind).Name + ") is never used");
  std::vector<std::string> Spelled;
  if (!spellSteps(C, Spelled, MaxSpelling))
    return Fail("its spelling would be longer than " +
                llvm::Twine(MaxSpelling) +
                " characters (steps read many times)");
  return Error::success();
}

Expected<std::vector<ScalarSignature>>
graphjit::compositeSignatures(const CompositeScalar &C,
                              llvm::ArrayRef<DType> Inputs) {
  if (Inputs.size() != C.NumInputs)
    return llvm::createStringError(
        "Composite{" + C.str() + "} takes " + llvm::Twine(C.NumInputs) +
        " inputs, got " + llvm::Twine(Inputs.size()));
  std::vector<ScalarSignature> Sigs;
  Sigs.reserve(C.Steps.size());
  for (size_t K = 0; K < C.Steps.size(); ++K) {
    const CompositeStep &S = C.Steps[K];
    llvm::SmallVector<DType, 4> Operands;
    for (unsigned A : S.Args)
      Operands.push_back(A < C.NumInputs ? Inputs[A]
                                         : Sigs[A - C.NumInputs].Out);
    Expected<ScalarSignature> Sig =
        scalarSignature(S.Kind, Operands, S.CastTo);
    if (!Sig)
      return llvm::createStringError(
          "in " + C.operandStr(C.NumInputs + K) + " of Composite{" + C.str() +
          "}: " + llvm::toString(Sig.takeError()));
    if (S.Kind == ScalarOpKind::Pow && isInteger(Sig->In[1]))
      return llvm::createStringError(
          "in " + C.operandStr(C.NumInputs + K) + " of Composite{" + C.str() +
          "}: pow would compute in " + dtypeName(Sig->In[1]) +
          "; a Composite cannot take an integer power (its exponents must "
          "be checked for negative values before anything is computed)");
    Sigs.push_back(std::move(*Sig));
  }
  return Sigs;
}

bool graphjit::compositeReadsInput(const CompositeScalar &C, unsigned K) {
  for (const CompositeStep &S : C.Steps)
    for (size_t J = 0; J < S.Args.size(); ++J)
      if (S.Args[J] == K && !(S.Kind == ScalarOpKind::Second && J == 0))
        return true;
  return false;
}
