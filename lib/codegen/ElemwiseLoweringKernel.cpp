//===- ElemwiseLoweringKernel.cpp - One Elemwise element in LLVM IR ------===//
//
// The same steps as Elemwise::perform, one element at a time: astype to
// the signature's dtypes, then the kernel gj_scalar_<op>_<dtype> compiled
// from the same ScalarKernels.h, so both paths agree bit for bit. A
// Composite's steps are separate kernel calls on separately rounded
// values: nothing is contracted or reassociated across them.
//
//===----------------------------------------------------------------------===//

#include "ElemwiseLoweringKernel.h"
#include "ops/elemwise/ElemwiseOps.h"

using namespace graphjit;
using llvm::Value;

llvm::Expected<ElementKernel> ElementKernel::get(const Apply &N) {
  // findLowering() only hands Elemwise Applies to this lowering.
  llvm::SmallVector<DType, 4> InTypes;
  for (const Variable *V : N.inputs())
    InTypes.push_back(V->type().Dtype);
  return get(N.op(), InTypes);
}

llvm::Expected<ElementKernel>
ElementKernel::get(const graphjit::Op &O, llvm::ArrayRef<DType> InTypes) {
  const auto *E = llvm::dyn_cast<Elemwise>(&O);
  if (!E)
    return llvm::createStringError("no element kernel for " + O.name() +
                                   ": not an Elemwise");
  const Elemwise &Op = *E;
  ElementKernel K;
  K.InTypes.assign(InTypes.begin(), InTypes.end());
  if (const CompositeScalar *C = Op.composite()) {
    llvm::Expected<std::vector<ScalarSignature>> Steps =
        compositeSignatures(*C, K.InTypes);
    if (!Steps)
      return Steps.takeError();
    K.Program = *C;
    K.Steps = std::move(*Steps);
    K.Name = "composite{" + C->str() + "}";
    for (unsigned I = 0; I < K.InTypes.size(); ++I)
      K.Reads.push_back(compositeReadsInput(*C, I));
    return K;
  }
  llvm::Expected<ScalarSignature> Sig =
      scalarSignature(Op.scalarOp(), K.InTypes, Op.castTo());
  if (!Sig)
    return Sig.takeError();
  K.Kind = Op.scalarOp();
  K.Sig = std::move(*Sig);
  K.Name = scalarOpInfo(K.Kind).Name;
  for (unsigned I = 0; I < K.InTypes.size(); ++I)
    K.Reads.push_back(!(K.Kind == ScalarOpKind::Second && I == 0));
  return K;
}

static bool isCostlyOp(ScalarOpKind K) {
  switch (K) {
  case ScalarOpKind::Floor:
  case ScalarOpKind::Ceil:
    return false;
  case ScalarOpKind::Pow:
    return true;
  default:
    return scalarOpInfo(K).Rule == DTypeRule::FloatFn;
  }
}

bool ElementKernel::isCostly() const {
  if (Steps.empty())
    return isCostlyOp(Kind);
  return llvm::any_of(Program.Steps, [](const CompositeStep &S) {
    return isCostlyOp(S.Kind);
  });
}

Value *ElementKernel::convertInput(ThunkEmitter &E, unsigned K,
                                   Value *V) const {
  if (!Steps.empty())
    return V;
  return E.convert(V, InTypes[K], Sig.In[K]);
}

Value *ElementKernel::computeOne(ThunkEmitter &E, ScalarOpKind Kind,
                                 const ScalarSignature &S,
                                 llvm::ArrayRef<Value *> Converted) {
  switch (Kind) {
  case ScalarOpKind::Cast:
    return E.convert(Converted[0], S.In[0], S.Out);
  case ScalarOpKind::Second:
    return Converted[1]; // Already b's dtype, the output's.
  default:
    break;
  }
  const ScalarOpInfo &Info = scalarOpInfo(Kind);
  // perform dispatches on the last input's compute dtype (switch's first
  // is the bool condition).
  std::string Name = (llvm::Twine("gj_scalar_") + Info.Name + "_" +
                      dtypeName(S.In.back()))
                         .str();
  if (Info.MaxArity >= 0 || Converted.size() == 2)
    return E.callKernel(Name, Converted);
  // n-ary add and mul: ((a op b) op c) op ..., as perform's passes do.
  Value *Acc = E.callKernel(Name, {Converted[0], Converted[1]});
  for (Value *V : Converted.drop_front(2))
    Acc = E.callKernel(Name, {Acc, V});
  return Acc;
}

Value *ElementKernel::compute(ThunkEmitter &E,
                              llvm::ArrayRef<Value *> Converted) const {
  if (Steps.empty())
    return computeOne(E, Kind, Sig, Converted);
  // Converted holds the inputs in their own dtypes; each step converts its
  // operands (an input, or an earlier step's result in that step's output
  // dtype) to its signature.
  const unsigned NumIn = Program.NumInputs;
  llvm::SmallVector<Value *, 8> Results;
  for (size_t K = 0; K < Program.Steps.size(); ++K) {
    const CompositeStep &S = Program.Steps[K];
    const ScalarSignature &Sig = Steps[K];
    llvm::SmallVector<Value *, 4> Operands;
    for (size_t J = 0; J < S.Args.size(); ++J) {
      if (S.Kind == ScalarOpKind::Second && J == 0) {
        Operands.push_back(nullptr);
        continue;
      }
      unsigned A = S.Args[J];
      Value *V = A < NumIn ? Converted[A] : Results[A - NumIn];
      DType From = A < NumIn ? InTypes[A] : Steps[A - NumIn].Out;
      Operands.push_back(E.convert(V, From, Sig.In[J]));
    }
    Results.push_back(computeOne(E, S.Kind, Sig, Operands));
  }
  return Results.back();
}
