//===- SoftmaxLowering.cpp - JIT code for softmax and log_softmax --------===//
//
// gj_prepare has checked the axis and created the output; the thunk loops
// over every dim but the axis and makes three passes along each row, in
// double exactly as the reference's softmaxRow: the maximum (the first NaN
// wins; found with the reductions' row kernels), the sum of exp(x - max), then
// exp(x - max) / sum or x - max - log(sum), rounded to the output dtype.
// exp and log are the scalar kernels, i.e. the same libm calls.
//
//===----------------------------------------------------------------------===//

#include "ReduceLoweringKernels.h"
#include "ops/StructuralLoweringInfo.h"
#include "StructuralLoweringUtil.h"

using namespace graphjit;
using namespace llvm;

static Error emitSoftmax(ThunkEmitter &E) {
  const Variable *X = E.Node.inputs()[0], *Y = E.Node.output(0);
  const unsigned Rank = X->type().rank();
  std::optional<SoftmaxInfo> Info = softmaxInfo(E.Node.op(), Rank);
  if (!Info)
    return createStringError("no softmax lowering for " + E.Node.op().name());
  const DType InT = X->type().Dtype, OutT = Y->type().Dtype;
  const DType F64 = DType::F64;
  IRBuilder<> &B = E.B;
  ArrayValues In = loadArray(E, X), Out = loadArray(E, Y);
  SmallVector<Value *, 8> Outer;
  SmallVector<SmallVector<Value *, 8>, 2> Strides(2);
  for (unsigned D = 0; D < Rank; ++D) {
    if (D == Info->Axis)
      continue;
    Outer.push_back(In.Dims[D]);
    Strides[0].push_back(In.Strides[D]);
    Strides[1].push_back(Out.Strides[D]);
  }
  Value *N = In.Dims[Info->Axis];
  Value *InStep = In.Strides[Info->Axis], *OutStep = Out.Strides[Info->Axis];
  Type *DoubleTy = B.getDoubleTy();
  AllocaInst *SumA = entryAlloca(E, DoubleTy, "sum");

  emitStridedNest(
      E, Outer, {In.Data, Out.Data}, Strides, [&](ArrayRef<Value *> P) {
        auto Elt = [&](Value *I) {
          return E.convert(E.loadElement(InT, E.offset(P[0], I, InStep)), InT,
                           F64);
        };
        // An empty row has nothing to read, not even its first element.
        emitIf(E, B.CreateICmpSGT(N, E.constI64(0)), [&] {
          // The maximum of the converted values is the converted maximum:
          // conversions to double keep order, NaNs and zeros' signs.
          Value *Max = E.convert(emitRowExtreme(E, InT, true, P[0], InStep, N),
                                 InT, F64);
          // An f64 softmax keeps each exp in the output until it is divided:
          // the same values, one exp per element instead of two.
          const bool KeepExp = !Info->Log && OutT == F64;
          B.CreateStore(ConstantFP::get(DoubleTy, 0.0), SumA);
          E.emitLoop(N, "sum", [&](Value *I) {
            Value *Exp =
                E.callKernel("gj_scalar_exp_f64", {B.CreateFSub(Elt(I), Max)});
            if (KeepExp)
              E.storeElement(F64, Exp, E.offset(P[1], I, OutStep));
            B.CreateStore(B.CreateFAdd(B.CreateLoad(DoubleTy, SumA), Exp),
                          SumA);
          });
          Value *Sum = B.CreateLoad(DoubleTy, SumA);
          Value *LogSum =
              Info->Log ? E.callKernel("gj_scalar_log_f64", {Sum}) : nullptr;
          E.emitLoop(N, "out", [&](Value *I) {
            Value *At = E.offset(P[1], I, OutStep);
            Value *V;
            if (Info->Log)
              V = B.CreateFSub(B.CreateFSub(Elt(I), Max), LogSum);
            else if (KeepExp)
              V = B.CreateFDiv(E.loadElement(F64, At), Sum);
            else
              V = B.CreateFDiv(E.callKernel("gj_scalar_exp_f64",
                                            {B.CreateFSub(Elt(I), Max)}),
                               Sum);
            E.storeElement(OutT, E.convert(V, F64, OutT), At);
          });
        });
      });
  return Error::success();
}

static bool supportsSoftmax(const Apply &N) {
  return softmaxInfo(N.op(), N.inputs()[0]->type().rank()).has_value() &&
         isFloat(N.output(0)->type().Dtype);
}

// The input's shape (its axis was checked against its rank statically).
static void emitSoftmaxDims(ThunkEmitter &E, OutputDims &Dims) {
  const Variable *In = E.Node.inputs()[0];
  for (unsigned D = 0; D < In->type().rank(); ++D)
    Dims[0].push_back(E.dim(In, D));
}

void graphjit::registerSoftmaxLowerings() {
  Lowering L{/*NeedsPrepare=*/true, emitSoftmax, supportsSoftmax};
  L.EmitOutputDims = emitSoftmaxDims;
  registerLowering(OpKind::Softmax, L); // Softmax and LogSoftmax
}
