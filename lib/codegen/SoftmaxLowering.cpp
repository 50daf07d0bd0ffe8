//===- SoftmaxLowering.cpp - JIT code for softmax and log_softmax --------===//
//
// gj_prepare has checked the axis and created the output; the thunk loops
// over every dim but the axis and makes three passes along each row,
// exactly as the reference's softmaxRow: the maximum (the first NaN wins;
// found with the reductions' row kernels), the sum of exp(x - max), then
// exp(x - max) / sum or x - max - log(sum), rounded to the output dtype; in
// double, but for float32 to float32, whose exps are in float. Into its
// compute dtype, the exps are kept in the output and summed pairwise (the
// reductions' kernel); softmax multiplies them by the sum's reciprocal,
// log_softmax overwrites them. Otherwise the sum is in order.
// exp and log are the scalar kernels, i.e. the same libm calls.
//
//===----------------------------------------------------------------------===//

#include "ReduceLoweringKernels.h"
#include "StructuralLoweringUtil.h"
#include "ops/StructuralLoweringInfo.h"

using namespace graphjit;
using namespace llvm;

namespace {

/// One row of the softmax: its elements in and out (Row[0], Row[1]), N of
/// them, computed in C (float for float32 to float32, else double).
struct SoftmaxRow {
  ThunkEmitter &E;
  SoftmaxInfo Info;
  ArrayRef<RowOperand> Row;
  Value *N;
  DType C;
  AllocaInst *SumA;

  DType inT() const { return Row[0].T; }
  DType outT() const { return Row[1].T; }
  Value *converted(Value *Ptr) {
    return E.convert(E.loadElement(inT(), Ptr), inT(), C);
  }
  Value *wide(Value *V) { return E.convert(V, C, DType::F64); }
  Value *exp(Value *V) {
    return E.callKernel(
        C == DType::F32 ? "gj_scalar_exp_f32" : "gj_scalar_exp_f64", {V});
  }

  void emit();
  void emitPasses(Value *Max, bool KeepExp);
};

} // namespace

void SoftmaxRow::emit() {
  IRBuilder<> &B = E.B;
  // The maximum of the converted values is the converted maximum:
  // conversions keep order, NaNs and zeros' signs.
  Value *Max = E.convert(
      emitRowExtreme(E, inT(), true, Row[0].Base, Row[0].Stride, N), inT(), C);
  // A NaN anywhere makes the whole row the quiet NaN, as in the reference
  // (whatever payloads vector and scalar exps would give).
  emitIfElse(
      E, B.CreateFCmpUNO(Max, Max), "row.nan",
      [&] {
        emitRowLoop(E, N, Row, [&](Value *, ArrayRef<Value *> At) {
          E.storeElement(outT(), ConstantFP::getQNaN(E.valueType(outT())),
                         At[1]);
        });
      },
      [&] {
        // Into the compute dtype and for rows long enough for vector
        // exps (softmaxKeepsExps), the exps are kept in the output until
        // the sum is known: one exp per element, in a loop the vectorizer
        // takes. Shorter rows pay less for an exp twice than for a call.
        if (outT() != C)
          return emitPasses(Max, false);
        emitIfElse(
            E, E.B.CreateICmpSGE(N, E.constI64(SoftmaxKeepExpsFrom)),
            "keep.exps", [&] { emitPasses(Max, true); },
            [&] { emitPasses(Max, false); });
      });
}

void SoftmaxRow::emitPasses(Value *Max, bool KeepExp) {
  IRBuilder<> &B = E.B;
  Type *DoubleTy = B.getDoubleTy();
  if (KeepExp) {
    emitRowLoop(E, N, Row, [&](Value *, ArrayRef<Value *> At) {
      E.storeElement(C, exp(B.CreateFSub(converted(At[0]), Max)), At[1]);
    });
    // Summed pairwise in double, by the reference's own kernel.
    B.CreateStore(B.CreateCall(pairwiseSumFunction(E, DType::F64, C),
                               {Row[1].Base, Row[1].Stride, N}),
                  SumA);
  } else {
    // In order: the sum's additions keep this loop scalar.
    B.CreateStore(ConstantFP::get(DoubleTy, 0.0), SumA);
    emitRowLoop(
        E, N, Row,
        [&](Value *, ArrayRef<Value *> At) {
          Value *Exp = exp(B.CreateFSub(converted(At[0]), Max));
          B.CreateStore(B.CreateFAdd(B.CreateLoad(DoubleTy, SumA), wide(Exp)),
                        SumA);
        },
        /*Versioned=*/false);
  }
  Value *Sum = B.CreateLoad(DoubleTy, SumA);
  Value *LogSum = Info.Log ? E.callKernel("gj_scalar_log_f64", {Sum}) : nullptr;
  // The kept exps times the sum's reciprocal, as the reference.
  Value *Inverse = KeepExp && !Info.Log
                       ? B.CreateFDiv(ConstantFP::get(DoubleTy, 1.0), Sum)
                       : nullptr;
  emitRowLoop(
      E, N, Row,
      [&](Value *, ArrayRef<Value *> At) {
        Value *V;
        if (Info.Log) // over the kept exp, if any
          V = B.CreateFSub(wide(B.CreateFSub(converted(At[0]), Max)), LogSum);
        else if (KeepExp)
          V = B.CreateFMul(wide(E.loadElement(C, At[1])), Inverse);
        else
          V = B.CreateFDiv(wide(exp(B.CreateFSub(converted(At[0]), Max))), Sum);
        E.storeElement(outT(), E.convert(V, DType::F64, outT()), At[1]);
      },
      // Short rows (not KeepExp) stay scalar: a test of contiguity per row
      // costs more than rows of a few elements gain, and an exp computed
      // again must be libm's scalar one, the one the sum above added.
      /*Versioned=*/KeepExp);
}

static Error emitSoftmax(ThunkEmitter &E) {
  const Variable *X = E.Node.inputs()[0], *Y = E.Node.output(0);
  const unsigned Rank = X->type().rank();
  std::optional<SoftmaxInfo> Info = softmaxInfo(E.Node.op(), Rank);
  if (!Info)
    return createStringError("no softmax lowering for " + E.Node.op().name());
  const DType InT = X->type().Dtype, OutT = Y->type().Dtype;
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
  AllocaInst *SumA = entryAlloca(E, E.B.getDoubleTy(), "sum");
  // float32 to float32 computes each exp in float (NNOps.cpp's softmaxRow),
  // the sum and the division in double; everything else in double.
  const DType C =
      InT == DType::F32 && OutT == DType::F32 ? DType::F32 : DType::F64;
  emitStridedNest(
      E, Outer, {In.Data, Out.Data}, Strides, [&](ArrayRef<Value *> P) {
        // Loops over contiguous rows get typed addresses the vectorizer
        // reads (emitRowLoop's versions).
        const RowOperand Row[] = {{P[0], In.Strides[Info->Axis], InT},
                                  {P[1], Out.Strides[Info->Axis], OutT}};
        // An empty row has nothing to read, not even its first element.
        emitIf(E, E.B.CreateICmpSGT(N, E.constI64(0)),
               [&] { SoftmaxRow{E, *Info, Row, N, C, SumA}.emit(); });
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
