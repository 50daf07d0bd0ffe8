//===- CumulativeLowering.cpp - JIT code for cumsum and cumprod ----------===//
//
// cumsum and cumprod as CumOp::compute does them: the input converted to
// the accumulator's dtype (its own for floats, i64 otherwise) in the
// output, flattened in C order without an axis, then along each line of
// the axis the running sum or product, in order (floats unreassociated,
// integers wrapping as NumPy's do). They plan their outputs: the input's
// dims along an axis, else the number of its elements.
//
//===----------------------------------------------------------------------===//

#include "StructuralLoweringUtil.h"
#include "ops/StructuralParams.h"

using namespace graphjit;
using namespace llvm;

namespace {

Error emitCumulative(ThunkEmitter &E) {
  const Variable *X = E.Node.inputs()[0], *Out = E.Node.output(0);
  const unsigned Rank = X->type().rank();
  std::optional<CumulativeInfo> Info = cumulativeInfo(E.Node.op(), Rank);
  if (!Info)
    return createStringError("no lowering for " + E.Node.op().name());
  IRBuilder<> &B = E.B;
  DType T = Out->type().Dtype;
  ArrayValues Src = loadArray(E, X), Dst = loadArray(E, Out);
  // The input, converted, in the output: without an axis the output is
  // the input's elements in C order, a walk of the input's dims over the
  // output's contiguous memory.
  SmallVector<Value *, 8> Strides =
      Info->Axis ? Dst.Strides : E.contiguousStrides(Src.Dims, dtypeSize(T));
  emitCopy(E, Src.Dims, Dst.Data, Strides, T, Src.Data, Src.Strides,
           X->type().Dtype);

  // Every line along the axis (the flat output's one line without one).
  unsigned A = Info->Axis.value_or(0);
  SmallVector<Value *, 8> Lines, LineStrides;
  for (unsigned D = 0; D < Out->type().rank(); ++D)
    if (D != A) {
      Lines.push_back(Dst.Dims[D]);
      LineStrides.push_back(Dst.Strides[D]);
    }
  Value *Len = Dst.Dims[A], *Step = Dst.Strides[A];
  AllocaInst *Acc = entryAlloca(E, E.valueType(T), "acc");
  emitIf(E, B.CreateICmpSGT(Len, E.constI64(0)), [&] {
    emitStridedNest(E, Lines, {Dst.Data}, {LineStrides},
                    [&](ArrayRef<Value *> Line) {
      B.CreateStore(E.loadElement(T, Line[0]), Acc);
      E.emitLoop(B.CreateSub(Len, E.constI64(1)), "running",
                 [&](Value *I) {
        Value *P = E.offset(Line[0], B.CreateAdd(I, E.constI64(1)), Step);
        Value *Sum = B.CreateLoad(E.valueType(T), Acc);
        Value *V = E.loadElement(T, P);
        Value *R = isFloat(T) ? (Info->Product ? B.CreateFMul(Sum, V)
                                               : B.CreateFAdd(Sum, V))
                              : (Info->Product ? B.CreateMul(Sum, V)
                                               : B.CreateAdd(Sum, V));
        B.CreateStore(R, Acc);
        E.storeElement(T, R, P);
      });
    });
  });
  return Error::success();
}

// The input's dims along an axis, else the number of its elements (the
// flattened array; the same for a vector).
void emitCumulativeDims(ThunkEmitter &E, OutputDims &Dims) {
  const Variable *X = E.Node.inputs()[0];
  if (E.Node.output(0)->type().rank() == X->type().rank()) {
    for (unsigned D = 0; D < X->type().rank(); ++D)
      Dims[0].push_back(E.dim(X, D));
    return;
  }
  Dims[0].push_back(E.numElements(X));
}

bool supportsCumulative(const Apply &N) {
  return cumulativeInfo(N.op(), N.inputs()[0]->type().rank()).has_value();
}

} // namespace

void graphjit::registerCumulativeLowerings() {
  Lowering L{/*NeedsPrepare=*/true, emitCumulative, supportsCumulative};
  L.EmitOutputDims = emitCumulativeDims;
  registerLowering(OpKind::Cumulative, L);
}
