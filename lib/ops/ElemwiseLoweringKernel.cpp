//===- ElemwiseLoweringKernel.cpp - One Elemwise element in LLVM IR ------===//
//
// The same steps as Elemwise::perform, one element at a time: astype to
// the signature's dtypes, then the kernel gj_scalar_<op>_<dtype> compiled
// from the same ScalarKernels.h, so both paths agree bit for bit.
//
//===----------------------------------------------------------------------===//

#include "ElemwiseLoweringKernel.h"
#include "ElemwiseOps.h"

using namespace graphjit;
using llvm::Value;

llvm::Expected<ElementKernel> ElementKernel::get(const Apply &N) {
  // findLowering() only hands Elemwise Applies to this lowering.
  const auto &Op = static_cast<const Elemwise &>(N.op());
  llvm::SmallVector<DType, 4> InTypes;
  for (const Variable *V : N.inputs())
    InTypes.push_back(V->type().Dtype);
  llvm::Expected<ScalarSignature> Sig =
      scalarSignature(Op.scalarOp(), InTypes, Op.castTo());
  if (!Sig)
    return Sig.takeError();
  return ElementKernel(Op.scalarOp(), std::move(InTypes), std::move(*Sig));
}

Value *ElementKernel::convertInput(ThunkEmitter &E, unsigned K,
                                   Value *V) const {
  return E.convert(V, InTypes[K], Sig.In[K]);
}

Value *ElementKernel::compute(ThunkEmitter &E,
                              llvm::ArrayRef<Value *> Converted) const {
  switch (Kind) {
  case ScalarOpKind::Cast:
    return E.convert(Converted[0], Sig.In[0], Sig.Out);
  case ScalarOpKind::Second:
    return Converted[1]; // Already b's dtype, the output's.
  default:
    break;
  }
  const ScalarOpInfo &Info = scalarOpInfo(Kind);
  // perform dispatches on the last input's compute dtype (switch's first
  // is the bool condition).
  std::string Name = (llvm::Twine("gj_scalar_") + Info.Name + "_" +
                      dtypeName(Sig.In.back()))
                         .str();
  if (Info.MaxArity >= 0 || Converted.size() == 2)
    return E.callKernel(Name, Converted);
  // n-ary add and mul: ((a op b) op c) op ..., as perform's passes do.
  Value *Acc = E.callKernel(Name, {Converted[0], Converted[1]});
  for (Value *V : Converted.drop_front(2))
    Acc = E.callKernel(Name, {Acc, V});
  return Acc;
}
