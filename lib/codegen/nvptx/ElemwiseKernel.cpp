//===- ElemwiseKernel.cpp - GPU work items of Elemwise and Fill ----------===//
//
// An Elemwise item is one output element: its inputs loaded in their own
// dtypes and computed by ElementKernel, the host JIT's element computation
// (the same scalar kernels, Composites step by step), so both agree with
// perform to the bit wherever the math is the host's. A Fill item stores a
// constant, converted once at compile time as astype converts.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"
#include "codegen/ElemwiseLoweringKernel.h"

using namespace graphjit;
using namespace llvm;

Error graphjit::emitElemwiseItem(KernelItem &K) {
  const KernelSpec &S = K.Spec;
  Expected<ElementKernel> EK =
      ElementKernel::get(*S.ElemOp, ArrayRef(S.Operands).drop_front());
  if (!EK)
    return EK.takeError();
  if (EK->numInputs() + 1 != S.Operands.size())
    return createStringError("the op takes " + Twine(EK->numInputs()) +
                             " inputs, the spec has " +
                             Twine(S.Operands.size() - 1));
  if (EK->outputType() != S.Operands[0])
    return createStringError("the op computes " + dtypeName(EK->outputType()) +
                             ", the output is " + dtypeName(S.Operands[0]));
  ThunkEmitter &E = K.E;
  SmallVector<Value *, 4> In(EK->numInputs(), nullptr);
  for (unsigned I = 0; I < EK->numInputs(); ++I)
    if (EK->reads(I)) // second's shape-only input is never touched.
      In[I] = EK->convertInput(
          E, I, E.loadElement(S.Operands[I + 1], K.elementAddress(I + 1)));
  E.storeElement(S.Operands[0], EK->compute(E, In), K.elementAddress(0));
  return Error::success();
}

Error graphjit::emitFillItem(KernelItem &K) {
  ThunkEmitter &E = K.E;
  DType T = K.Spec.Operands[0];
  Value *V = E.convert(ConstantFP::get(K.B.getDoubleTy(), K.Spec.Value),
                       DType::F64, T);
  E.storeElement(T, V, K.elementAddress(0));
  return Error::success();
}
