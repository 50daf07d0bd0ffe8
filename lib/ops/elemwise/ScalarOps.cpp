//===- ScalarOps.cpp - The scalar operations of Elemwise ops -------------===//
//
// Looking scalar operations up by name, and their dtype rules: NumPy 1.24's
// ufunc type resolution, with f32 standing in for the float16 we lack.
//
//===----------------------------------------------------------------------===//

#include "ops/elemwise/ScalarOps.h"
#include "llvm/ADT/Twine.h"

using namespace graphjit;
using K = ScalarOpKind;

std::optional<ScalarOpKind> graphjit::lookupScalarOp(llvm::StringRef Name) {
  for (const ScalarOpInfo &I : ScalarOpTable)
    if (Name == I.Name)
      return I.Kind;
  return std::nullopt;
}

static DType promoteAll(llvm::ArrayRef<DType> Ts) {
  DType T = Ts[0];
  for (DType O : Ts.drop_front())
    T = promote(T, O);
  return T;
}

static llvm::Error boolError(const ScalarOpInfo &Info, const char *Hint) {
  return llvm::createStringError(llvm::Twine(Info.Name) +
                                 " is not supported for bool" +
                                 (Info.MinArity > 1 ? " operands" : "") +
                                 " (NumPy rejects it too); " + Hint);
}

llvm::Expected<ScalarSignature>
graphjit::scalarSignature(ScalarOpKind Kind, llvm::ArrayRef<DType> Inputs,
                          DType CastTo) {
  const ScalarOpInfo &Info = scalarOpInfo(Kind);
  unsigned N = Inputs.size();
  if (N < Info.MinArity || (Info.MaxArity >= 0 && N > unsigned(Info.MaxArity)))
    return llvm::createStringError(llvm::Twine(Info.Name) + " got " +
                                   llvm::Twine(N) + " inputs");
  ScalarSignature S;
  auto All = [&](DType T) {
    S.In.assign(N, T);
    S.Out = T;
  };
  switch (Info.Rule) {
  case DTypeRule::Same:
    if (isBool(Inputs[0]) && Kind == K::Neg)
      return boolError(Info, "use not");
    if (isBool(Inputs[0]) && Kind == K::Sign)
      return boolError(Info, "use cast");
    // np.square has no bool loop: NumPy squares bools as int8.
    All(isBool(Inputs[0]) && Kind == K::Sqr ? DType::I8 : Inputs[0]);
    break;
  case DTypeRule::FloatFn:
    All(floatTypeFor(promoteAll(Inputs)));
    break;
  case DTypeRule::Arith: {
    DType T = promoteAll(Inputs);
    if (isBool(T) && Info.RejectsBool)
      return boolError(Info, "use neq for exclusive or");
    All(T);
    break;
  }
  case DTypeRule::ArithNoBool: {
    DType T = promoteAll(Inputs);
    All(isBool(T) ? DType::I8 : T);
    break;
  }
  case DTypeRule::TrueDiv: {
    DType T = promoteAll(Inputs);
    All(isFloat(T) ? T : DType::F64);
    break;
  }
  case DTypeRule::Compare:
    S.In.assign(N, promoteAll(Inputs));
    S.Out = DType::Bool;
    break;
  case DTypeRule::Logical:
    All(DType::Bool);
    break;
  case DTypeRule::Switch: {
    DType T = promote(Inputs[1], Inputs[2]);
    S.In = {DType::Bool, T, T};
    S.Out = T;
    break;
  }
  case DTypeRule::Cast:
    S.In = {Inputs[0]};
    S.Out = CastTo;
    break;
  case DTypeRule::Second:
    // a only lends its shape; b is copied as it is.
    S.In = {Inputs[0], Inputs[1]};
    S.Out = Inputs[1];
    break;
  }
  return S;
}
