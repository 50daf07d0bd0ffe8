//===- SoftmaxLowering.cpp - JIT code for softmax and log_softmax --------===//
//
// gj_prepare has checked the axis and created the output; the thunk loops
// over every dim but the axis and makes three passes along each row,
// exactly as the reference's softmaxRow: the maximum (the first NaN wins;
// found with the reductions' row kernels), the sum of exp(x - max), then
// exp(x - max) / sum or x - max - log(sum), rounded to the output dtype; in
// double, but for float32 to float32, whose exps are in float. A softmax
// into its compute dtype keeps the exps in the output, sums them pairwise
// (the reductions' kernel) and multiplies them by the sum's reciprocal;
// log_softmax sums in order.
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
  // float32 to float32 computes each exp in float (NNOps.cpp's softmaxRow),
  // the sum and the division in double; everything else in double.
  const bool Narrow = InT == DType::F32 && OutT == DType::F32;
  const DType C = Narrow ? DType::F32 : F64;
  const char *ExpKernel = Narrow ? "gj_scalar_exp_f32" : "gj_scalar_exp_f64";

  emitStridedNest(
      E, Outer, {In.Data, Out.Data}, Strides, [&](ArrayRef<Value *> P) {
        auto Elt = [&](Value *I) {
          return E.convert(E.loadElement(InT, E.offset(P[0], I, InStep)), InT,
                           C);
        };
        auto Wide = [&](Value *V) { return E.convert(V, C, F64); };
        // An empty row has nothing to read, not even its first element.
        emitIf(E, B.CreateICmpSGT(N, E.constI64(0)), [&] {
          // The maximum of the converted values is the converted maximum:
          // conversions keep order, NaNs and zeros' signs.
          Value *Max = E.convert(emitRowExtreme(E, InT, true, P[0], InStep, N),
                                 InT, C);
          // A softmax whose output is the compute dtype keeps each exp in
          // the output until it is divided: one exp per element, not two.
          const bool KeepExp = !Info->Log && OutT == C;
          B.CreateStore(ConstantFP::get(DoubleTy, 0.0), SumA);
          if (KeepExp) {
            // The exps in a loop of their own, which the vectorizer takes,
            // then their sum.
            E.emitLoop(N, "exp", [&](Value *I) {
              E.storeElement(
                  C, E.callKernel(ExpKernel, {B.CreateFSub(Elt(I), Max)}),
                  E.offset(P[1], I, OutStep));
            });
            // Summed pairwise in double, by the reference's own kernel.
            B.CreateStore(B.CreateCall(pairwiseSumFunction(E, F64, C),
                                       {P[1], OutStep, N}),
                          SumA);
          } else {
            E.emitLoop(N, "sum", [&](Value *I) {
              Value *Exp =
                  E.callKernel(ExpKernel, {B.CreateFSub(Elt(I), Max)});
              B.CreateStore(B.CreateFAdd(B.CreateLoad(DoubleTy, SumA),
                                         Wide(Exp)),
                            SumA);
            });
          }
          Value *Sum = B.CreateLoad(DoubleTy, SumA);
          Value *LogSum =
              Info->Log ? E.callKernel("gj_scalar_log_f64", {Sum}) : nullptr;
          // The kept exps times the sum's reciprocal, as the reference.
          Value *Inverse =
              KeepExp ? B.CreateFDiv(ConstantFP::get(DoubleTy, 1.0), Sum)
                      : nullptr;
          E.emitLoop(N, "out", [&](Value *I) {
            Value *At = E.offset(P[1], I, OutStep);
            Value *V;
            if (Info->Log)
              V = B.CreateFSub(Wide(B.CreateFSub(Elt(I), Max)), LogSum);
            else if (KeepExp)
              V = B.CreateFMul(Wide(E.loadElement(C, At)), Inverse);
            else
              V = B.CreateFDiv(
                  Wide(E.callKernel(ExpKernel, {B.CreateFSub(Elt(I), Max)})),
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
