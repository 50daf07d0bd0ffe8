//===- ShapeLowering.cpp - JIT code for shape_i, alloc, concatenate ------===//
//
// The shape-family ops that write values, once gj_prepare has checked the
// shapes and created the output: Shape_i stores a dim read from the input's
// slot; alloc copies its value broadcast over the new array; ones_like fills
// it (zeros_like has nothing to write: new arrays are zero-filled); Join
// copies each input, converted to the promoted dtype, to its offset along
// the axis. dimshuffle and transpose are planned views: the thunk writes
// the output's slot from the input's (DimShuffleOp::prepare's work, with
// its check); reshape, flatten and subtensor need no code: gj_prepare
// makes the view.
//
//===----------------------------------------------------------------------===//

#include "ops/ShapeOps.h"
#include "ops/StructuralLoweringInfo.h"
#include "StructuralLoweringUtil.h"

using namespace graphjit;
using namespace llvm;

static Error emitShapeI(ThunkEmitter &E) {
  const Variable *X = E.Node.inputs()[0];
  std::optional<unsigned> Axis = shapeIAxis(E.Node.op(), X->type().rank());
  if (!Axis)
    return createStringError("no Shape_i lowering for " + E.Node.op().name());
  E.storeElement(DType::I64, E.dim(X, *Axis), E.data(E.Node.output(0)));
  return Error::success();
}

static bool supportsShapeI(const Apply &N) {
  return shapeIAxis(N.op(), N.inputs()[0]->type().rank()).has_value();
}

/// alloc: v broadcast to the output's shape (its dims aligned to the
/// right; a dim of size 1 repeats).
static void emitBroadcast(ThunkEmitter &E) {
  const Variable *V = E.Node.inputs()[0], *Out = E.Node.output(0);
  DType T = Out->type().Dtype;
  ArrayValues Src = loadArray(E, V), Dst = loadArray(E, Out);
  if (V->type().rank() == 0) {
    // One value for the whole array: read it once.
    emitFill(E, Dst.Dims, Dst.Data, Dst.Strides, T, E.loadElement(T, Src.Data));
    return;
  }
  unsigned Off = Out->type().rank() - V->type().rank();
  SmallVector<Value *, 8> SrcStrides(Off, E.constI64(0));
  for (unsigned I = 0; I < V->type().rank(); ++I)
    SrcStrides.push_back(
        E.B.CreateSelect(E.B.CreateICmpEQ(Src.Dims[I], E.constI64(1)),
                         E.constI64(0), Src.Strides[I]));
  emitCopy(E, Dst.Dims, Dst.Data, Dst.Strides, T, Src.Data, SrcStrides,
           V->type().Dtype);
}

static Error emitAlloc(ThunkEmitter &E) {
  std::optional<AllocFill> Fill = allocFill(E.Node.op());
  if (!Fill)
    return createStringError("no Alloc lowering for " + E.Node.op().name());
  switch (*Fill) {
  case AllocFill::Broadcast:
    emitBroadcast(E);
    break;
  case AllocFill::Zeros:
    break; // gj_prepare's new array is zero-filled.
  case AllocFill::Ones: {
    const Variable *Out = E.Node.output(0);
    DType T = Out->type().Dtype;
    ArrayValues Dst = loadArray(E, Out);
    // 1 converted to T, as NumPy's ones_like.
    Value *One =
        E.convert(ConstantFP::get(E.B.getDoubleTy(), 1.0), DType::F64, T);
    emitFill(E, Dst.Dims, Dst.Data, Dst.Strides, T, One);
    break;
  }
  }
  return Error::success();
}

static bool supportsAlloc(const Apply &N) {
  return allocFill(N.op()).has_value();
}

static Error emitJoin(ThunkEmitter &E) {
  const Variable *Out = E.Node.output(0);
  const unsigned Rank = Out->type().rank();
  std::optional<unsigned> Axis = joinAxis(E.Node.op(), Rank);
  if (!Axis)
    return createStringError("no Join lowering for " + E.Node.op().name());
  ArrayValues Dst = loadArray(E, Out);
  // Where the next input starts along the axis.
  Value *Offset = E.constI64(0);
  for (const Variable *In : E.Node.inputs()) {
    ArrayValues Src = loadArray(E, In);
    Value *Start = E.offset(Dst.Data, Offset, Dst.Strides[*Axis]);
    // The input's dims are the output's except along the axis.
    emitCopy(E, Src.Dims, Start, Dst.Strides, Out->type().Dtype, Src.Data,
             Src.Strides, In->type().Dtype);
    Offset = E.B.CreateAdd(Offset, Src.Dims[*Axis]);
  }
  return Error::success();
}

static bool supportsJoin(const Apply &N) {
  for (const Variable *In : N.inputs())
    if (In->type().rank() != N.output(0)->type().rank())
      return false;
  return joinAxis(N.op(), N.output(0)->type().rank()).has_value();
}

// Output dim k is input dim Pattern[k] (its size and stride) or a new dim
// of 1 (stride 0); an input dim left out must have size 1.
static void emitDimShuffleView(ThunkEmitter &E) {
  const Variable *In = E.Node.inputs()[0];
  const TensorType &T = In->type();
  std::vector<int> Pattern =
      llvm::cast<DimShuffleOp>(E.Node.op()).patternFor(T.rank());
  SmallVector<Value *, 4> Dims, Strides;
  SmallVector<bool, 4> Used(T.rank(), false);
  for (int D : Pattern) {
    if (D == DimShuffleOp::Broadcast) {
      Dims.push_back(E.constI64(1));
      Strides.push_back(E.constI64(0));
      continue;
    }
    Used[D] = true;
    Dims.push_back(E.dim(In, D));
    Strides.push_back(E.stride(In, D));
  }
  for (unsigned D = 0; D < T.rank(); ++D)
    if (!Used[D] && !(T.Dims[D].isKnown() && T.Dims[D].Size == 1))
      E.failUnless(E.B.CreateICmpEQ(E.dim(In, D), E.constI64(1)), "dropped");
  E.setSlot(E.Node.output(0), E.data(In), Dims, Strides);
}

// Its code depends on the pattern (in the name) and on which dropped dims
// are known to be 1.
static std::string dimShuffleKey(const Apply &N) {
  std::string Key = "view." + N.op().name() + ".r";
  for (const Dim &D : N.inputs()[0]->type().Dims)
    Key += D.isKnown() && D.Size == 1 ? "1" : "n";
  return Key;
}

// Shape_i's output is a 0-d array.
static void emitScalarDims(ThunkEmitter &, OutputDims &) {}

void graphjit::registerShapeLowerings() {
  // Views: a planned dimshuffle writes its slot; reshape and subtensor
  // leave it all to gj_prepare, as Theano's C DimShuffle only computes
  // strides.
  Lowering DimShuffle{/*NeedsPrepare=*/true, nullptr, nullptr};
  DimShuffle.EmitViewOutputs = emitDimShuffleView;
  DimShuffle.PlansOutputs = [](const Apply &N) {
    for (int D : llvm::cast<DimShuffleOp>(N.op())
                     .patternFor(N.inputs()[0]->type().rank()))
      if (D >= int(N.inputs()[0]->type().rank()))
        return false; // prepare's error to word.
    return true;
  };
  DimShuffle.ThunkKey = dimShuffleKey;
  registerLowering(OpKind::DimShuffle, DimShuffle);
  for (OpKind Kind : {OpKind::Reshape, OpKind::Subtensor})
    registerLowering(Kind, Lowering{/*NeedsPrepare=*/true, nullptr, nullptr});
  Lowering ShapeI{true, emitShapeI, supportsShapeI};
  ShapeI.EmitOutputDims = emitScalarDims;
  registerLowering(OpKind::ShapeI, ShapeI);
  // alloc and the *_like fills.
  for (OpKind Kind : {OpKind::Alloc, OpKind::FillLike})
    registerLowering(Kind, Lowering{true, emitAlloc, supportsAlloc});
  registerLowering(OpKind::Join, Lowering{true, emitJoin, supportsJoin});
}
