//===- SoftmaxKernel.cpp - GPU work items of softmax and log_softmax -----===//
//
// One item per row along the axis, three passes in double as the
// reference's softmaxRow (NNOps.cpp) and the host JIT make them: the
// maximum (the first NaN wins), the sum of exp(x - max), then
// exp(x - max) / sum or (x - max) - log(sum), rounded to the output dtype.
// exp and log are the scalar kernels: libm's on the host, libdevice's on
// NVPTX.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"
#include "codegen/StructuralLoweringUtil.h"

using namespace graphjit;
using namespace llvm;

Error graphjit::emitSoftmaxItem(KernelItem &K) {
  const KernelSpec &S = K.Spec;
  const DType OutT = S.Operands[0], InT = S.Operands[1], F64 = DType::F64;
  if (!isFloat(OutT))
    return createStringError("softmax writes floats, not " + dtypeName(OutT));
  ThunkEmitter &E = K.E;
  IRBuilder<> &B = K.B;
  const unsigned Axis = S.SoftmaxParams.Axis;
  SmallVector<unsigned, 8> Rows =
      K.dimsWhere([&](unsigned D) { return D != Axis; });
  SmallVector<Value *, 8> At = K.unravel(Rows);
  Value *Out = K.address(0, Rows, At), *In = K.address(1, Rows, At);
  Value *N = K.Args.dim(Axis);
  Value *InStep = K.Args.stride(1, Axis), *OutStep = K.Args.stride(0, Axis);
  Type *DoubleTy = B.getDoubleTy();
  auto X = [&](Value *I) {
    return E.convert(E.loadElement(InT, E.offset(In, I, InStep)), InT, F64);
  };
  auto Exp = [&](Value *V) { return E.callKernel("gj_scalar_exp_f64", {V}); };

  // The maximum: the first NaN if any (a NaN max stays), else the greatest.
  AllocaInst *MaxA = entryAlloca(E, DoubleTy, "max");
  B.CreateStore(ConstantFP::getInfinity(DoubleTy, /*Negative=*/true), MaxA);
  E.emitLoop(N, "max", [&](Value *I) {
    Value *V = X(I), *M = B.CreateLoad(DoubleTy, MaxA);
    Value *Take =
        B.CreateAnd(B.CreateFCmpORD(M, M),
                    B.CreateOr(B.CreateFCmpUNO(V, V), B.CreateFCmpOGT(V, M)));
    B.CreateStore(B.CreateSelect(Take, V, M), MaxA);
  });
  Value *Max = B.CreateLoad(DoubleTy, MaxA);

  AllocaInst *SumA = entryAlloca(E, DoubleTy, "sum");
  B.CreateStore(ConstantFP::get(DoubleTy, 0.0), SumA);
  E.emitLoop(N, "sum", [&](Value *I) {
    B.CreateStore(B.CreateFAdd(B.CreateLoad(DoubleTy, SumA),
                               Exp(B.CreateFSub(X(I), Max))),
                  SumA);
  });
  Value *Sum = B.CreateLoad(DoubleTy, SumA);
  Value *LogSum =
      S.SoftmaxParams.Log ? E.callKernel("gj_scalar_log_f64", {Sum}) : nullptr;
  E.emitLoop(N, "out", [&](Value *I) {
    Value *Shifted = B.CreateFSub(X(I), Max);
    Value *V = S.SoftmaxParams.Log ? B.CreateFSub(Shifted, LogSum)
                                   : B.CreateFDiv(Exp(Shifted), Sum);
    E.storeElement(OutT, E.convert(V, F64, OutT), E.offset(Out, I, OutStep));
  });
  return Error::success();
}
