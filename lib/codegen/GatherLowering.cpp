//===- GatherLowering.cpp - JIT code for take and inc_rows ---------------===//
//
// take(x, idx) copies the rows of x that idx picks; inc_rows(x, idx, y)
// copies x and adds (or, with set, stores) y's rows at the rows idx picks,
// once per occurrence, in order. Both plan their outputs (their dims and
// prepare's checks in IR) and run as loops here. An index out of range is
// compute's error to word: the loop then hands the whole Apply to
// gj_compute (GatherOps.cpp), which redoes it and fails with NumPy's words.
//
//===----------------------------------------------------------------------===//

#include "StructuralLoweringUtil.h"
#include "ops/indexing/GatherOps.h"
#include "llvm/IR/Function.h"

using namespace graphjit;
using namespace llvm;

namespace {

// The row of x that index I of idx picks, as a non-negative row number; an
// index outside [-len, len) returns from the thunk with gj_compute's code.
Value *pickedRow(ThunkEmitter &E, const ArrayValues &Idx, DType IdxT,
                 Value *Len, Value *I) {
  Value *J = E.convert(E.loadElement(IdxT, E.offset(Idx.Data, I,
                                                    Idx.Strides[0])),
                       IdxT, DType::I64);
  return checkedIndex(E, J, Len);
}

Error emitTake(ThunkEmitter &E) {
  const Variable *X = E.Node.inputs()[0], *IdxV = E.Node.inputs()[1],
                 *Out = E.Node.output(0);
  DType T = X->type().Dtype;
  ArrayValues Src = loadArray(E, X), Idx = loadArray(E, IdxV),
              Dst = loadArray(E, Out);
  ArrayRef<Value *> RowDims = ArrayRef(Src.Dims).drop_front();
  E.emitLoop(Idx.Dims[0], "take", [&](Value *I) {
    Value *Row = pickedRow(E, Idx, IdxV->type().Dtype, Src.Dims[0], I);
    emitCopy(E, RowDims, E.offset(Dst.Data, I, Dst.Strides[0]),
             ArrayRef(Dst.Strides).drop_front(), T,
             E.offset(Src.Data, Row, Src.Strides[0]),
             ArrayRef(Src.Strides).drop_front(), T);
  });
  return Error::success();
}

Error emitIncRows(ThunkEmitter &E) {
  const Variable *X = E.Node.inputs()[0], *IdxV = E.Node.inputs()[1],
                 *Y = E.Node.inputs()[2], *Out = E.Node.output(0);
  const bool Set = cast<IncRowsOp>(E.Node.op()).isSet();
  DType T = X->type().Dtype;
  IRBuilder<> &B = E.B;
  ArrayValues Src = loadArray(E, X), Idx = loadArray(E, IdxV),
              Ys = loadArray(E, Y), Dst = loadArray(E, Out);
  emitCopy(E, Src.Dims, Dst.Data, Dst.Strides, T, Src.Data, Src.Strides, T);
  // y's strides over x[idx]'s shape: its dims aligned to the right, a dim
  // of 1 (or one y lacks) repeated.
  const unsigned Rank = X->type().rank(), YRank = Y->type().rank();
  SmallVector<Value *, 8> YStrides(Rank - YRank, E.constI64(0));
  for (unsigned I = 0; I < YRank; ++I)
    YStrides.push_back(B.CreateSelect(
        B.CreateICmpEQ(Ys.Dims[I], E.constI64(1)), E.constI64(0),
        Ys.Strides[I]));
  SmallVector<Value *, 8> RowStrides(std::next(Dst.Strides.begin()),
                                     Dst.Strides.end());
  SmallVector<Value *, 8> YRowStrides(std::next(YStrides.begin()),
                                      YStrides.end());
  E.emitLoop(Idx.Dims[0], "inc.rows", [&](Value *I) {
    Value *Row = pickedRow(E, Idx, IdxV->type().Dtype, Src.Dims[0], I);
    emitStridedNest(
        E, ArrayRef(Src.Dims).drop_front(),
        {E.offset(Dst.Data, Row, Dst.Strides[0]),
         E.offset(Ys.Data, I, YStrides[0])},
        {RowStrides, YRowStrides}, [&](ArrayRef<Value *> P) {
          Value *V = E.loadElement(T, P[1]);
          if (!Set) {
            Value *Old = E.loadElement(T, P[0]);
            V = isBool(T)    ? B.CreateOr(Old, V)
                : isFloat(T) ? B.CreateFAdd(Old, V)
                             : B.CreateAdd(Old, V); // wraps, as E(To + V)
          }
          E.storeElement(T, V, P[0]);
        });
  });
  return Error::success();
}

// take(x, idx): idx's length, then x's rows.
void emitTakeDims(ThunkEmitter &E, OutputDims &Dims) {
  const Variable *X = E.Node.inputs()[0], *Idx = E.Node.inputs()[1];
  Dims[0].push_back(E.dim(Idx, 0));
  for (unsigned D = 1; D < X->type().rank(); ++D)
    Dims[0].push_back(E.dim(X, D));
}

// inc_rows(x, idx, y): x's dims; y must broadcast to x[idx] (IncRowsOp::
// checkBroadcast).
void emitIncRowsDims(ThunkEmitter &E, OutputDims &Dims) {
  const Variable *X = E.Node.inputs()[0], *Idx = E.Node.inputs()[1],
                 *Y = E.Node.inputs()[2];
  SmallVector<Value *, 8> Picked{E.dim(Idx, 0)};
  for (unsigned D = 0; D < X->type().rank(); ++D) {
    Dims[0].push_back(E.dim(X, D));
    if (D > 0)
      Picked.push_back(E.dim(X, D));
  }
  failUnlessBroadcasts(E, Y, Picked);
}

} // namespace

void graphjit::registerGatherLowerings() {
  Lowering Take{/*NeedsPrepare=*/true, emitTake, nullptr};
  Take.EmitOutputDims = emitTakeDims;
  registerLowering(OpKind::Take, Take);
  Lowering IncRows{/*NeedsPrepare=*/true, emitIncRows, nullptr};
  IncRows.EmitOutputDims = emitIncRowsDims;
  registerLowering(OpKind::IncRows, IncRows);
}
