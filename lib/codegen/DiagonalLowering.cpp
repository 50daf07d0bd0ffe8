//===- DiagonalLowering.cpp - JIT code for diagonal and alloc_diag -------===//
//
// The array functions of ArrayFnOps.cpp run as prepare() then compute(),
// each through the runtime: a fixed cost near half a microsecond, which
// the diagonals of the Gaussian-process and MvNormal gradients (a few
// dozen elements each, several per gradient) paid many times over. Of a
// matrix (axis1=0, axis2=1), they are loops here instead, with planned
// outputs:
//
//   diagonal(x, offset=k)     out[i] = x[i + max(-k, 0), i + max(k, 0)]
//   alloc_diag(v, offset=k)   zeros, then the same places set to v[i]
//
// Other axes and batches keep prepare() and compute().
//
//===----------------------------------------------------------------------===//

#include "StructuralLoweringUtil.h"
#include "ops/arrayfn/ArrayFnOps.h"

using namespace graphjit;
using namespace llvm;

namespace {

/// Whether N is a diagonal of a matrix or an alloc_diag of a vector.
bool isMatrixDiagonal(const Apply &N) {
  const ArrayFnParams &P = arrayFnParams(N.op());
  unsigned Rank = N.inputs()[0]->type().rank();
  if (P.Axis1 != 0 || P.Axis2 != 1)
    return false;
  return (P.Fn == ArrayFn::Diagonal && Rank == 2) ||
         (P.Fn == ArrayFn::AllocDiag && Rank == 1);
}

/// max(V, 0) and max(-V, 0) of the static offset, as constants.
int64_t positivePart(int64_t V) { return V > 0 ? V : 0; }

void emitDiagonalDims(ThunkEmitter &E, OutputDims &Dims) {
  const Apply &N = E.Node;
  const ArrayFnParams &P = arrayFnParams(N.op());
  IRBuilder<> &B = E.B;
  const Variable *X = N.inputs()[0];
  if (P.Fn == ArrayFn::AllocDiag) {
    Value *Side = B.CreateAdd(E.dim(X, 0), E.constI64(std::abs(P.Offset)));
    Dims[0] = {Side, Side};
    return;
  }
  // ArrayFnOps.cpp's diagLength: the rows left after the offset's, the
  // columns after its, at least 0.
  Value *Rows = B.CreateSub(E.dim(X, 0), E.constI64(positivePart(-P.Offset)));
  Value *Cols = B.CreateSub(E.dim(X, 1), E.constI64(positivePart(P.Offset)));
  Value *Len = B.CreateSelect(B.CreateICmpSLT(Rows, Cols), Rows, Cols);
  Dims[0] = {B.CreateSelect(B.CreateICmpSLT(Len, E.constI64(0)),
                            E.constI64(0), Len)};
}

Error emitDiagonal(ThunkEmitter &E) {
  const Apply &N = E.Node;
  const ArrayFnParams &P = arrayFnParams(N.op());
  IRBuilder<> &B = E.B;
  const Variable *In = N.inputs()[0], *Out = N.output(0);
  DType T = Out->type().Dtype;
  ArrayValues X = loadArray(E, In), Y = loadArray(E, Out);
  Value *Row0 = E.constI64(positivePart(-P.Offset));
  Value *Col0 = E.constI64(positivePart(P.Offset));
  if (P.Fn == ArrayFn::Diagonal) {
    Value *Start = advance(E, X.Data, {Row0, Col0}, X.Strides);
    Value *Step = B.CreateAdd(X.Strides[0], X.Strides[1]);
    E.emitLoop(Y.Dims[0], "diagonal", [&](Value *I) {
      E.storeElement(T, E.loadElement(T, E.offset(Start, I, Step)),
                     E.offset(Y.Data, I, Y.Strides[0]));
    });
    return Error::success();
  }
  emitFill(E, Y.Dims, Y.Data, Y.Strides, T,
           Constant::getNullValue(E.valueType(T)));
  Value *Start = advance(E, Y.Data, {Row0, Col0}, Y.Strides);
  Value *Step = B.CreateAdd(Y.Strides[0], Y.Strides[1]);
  E.emitLoop(X.Dims[0], "alloc.diag", [&](Value *I) {
    E.storeElement(T, E.loadElement(T, E.offset(X.Data, I, X.Strides[0])),
                   E.offset(Start, I, Step));
  });
  return Error::success();
}

} // namespace

bool graphjit::plansDiagonal(const Apply &N) { return isMatrixDiagonal(N); }

void graphjit::emitPlannedDiagonalDims(ThunkEmitter &E, OutputDims &Dims) {
  emitDiagonalDims(E, Dims);
}

Error graphjit::emitPlannedDiagonal(ThunkEmitter &E) { return emitDiagonal(E); }
