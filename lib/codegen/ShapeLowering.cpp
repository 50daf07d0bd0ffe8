//===- ShapeLowering.cpp - JIT code for shape_i, alloc, concatenate ------===//
//
// The shape-family ops that write values, once gj_prepare or the planned
// thunk has checked the shapes and placed the output: Shape_i stores a dim
// read from the input's slot; alloc copies its value broadcast over the new
// array; ones_like fills it, and zeros_like where the output is planned
// (gj_prepare's new arrays are zero-filled). alloc with numbers for its
// shape and the *_like fills plan their outputs; Join
// copies each input, converted to the promoted dtype, to its offset along
// the axis, and plans its output (its dims and JoinOp::prepare's checks in
// IR). dimshuffle, transpose, subtensor, and reshape and flatten of a
// shape in numbers are planned views: the thunk writes the output's slot
// from the input's (their prepare's work, with its checks); reshape asks
// gj_prepare where its input is not C-contiguous.
//
//===----------------------------------------------------------------------===//

#include "ops/shape/CheckOps.h"
#include "ops/shape/ShapeOps.h"
#include "ops/StructuralParams.h"
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

// alloc and alloc_to: v broadcast to the output's shape (its dims aligned
// to the right; a dim of size 1 repeats).
void graphjit::emitBroadcastCopy(ThunkEmitter &E) {
  const Variable *V = E.Node.inputs()[0], *Out = E.Node.output(0);
  DType T = Out->type().Dtype;
  ArrayValues Src = loadArray(E, V), Dst = loadArray(E, Out);
  const bool OneElement = llvm::all_of(V->type().Dims, [](const Dim &D) {
    return D.isKnown() && D.Size == 1;
  });
  if (OneElement) {
    // One value for the whole array (a scalar, a (1, 1) constant): read
    // it once.
    DType VT = V->type().Dtype;
    emitFill(E, Dst.Dims, Dst.Data, Dst.Strides, T,
             E.convert(E.loadElement(VT, Src.Data), VT, T));
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
    emitBroadcastCopy(E);
    break;
  case AllocFill::Zeros: {
    if (!E.Planned)
      break; // gj_prepare's new array is zero-filled; a storage is not.
    const Variable *Out = E.Node.output(0);
    DType T = Out->type().Dtype;
    ArrayValues Dst = loadArray(E, Out);
    emitFill(E, Dst.Dims, Dst.Data, Dst.Strides, T,
             Constant::getNullValue(E.valueType(T)));
    break;
  }
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

// AllocOp::outputShape: the shape given (planned only where every entry is
// a number or a symbol the inputs bind), which v must broadcast to;
// zeros_like and ones_like take their input's.
static void emitAllocDims(ThunkEmitter &E, OutputDims &Dims) {
  const Variable *V = E.Node.inputs()[0], *Out = E.Node.output(0);
  if (*allocFill(E.Node.op()) != AllocFill::Broadcast) {
    for (unsigned D = 0; D < V->type().rank(); ++D)
      Dims[0].push_back(E.dim(V, D));
    return;
  }
  for (const Dim &D : Out->type().Dims)
    Dims[0].push_back(D.isKnown() ? E.constI64(D.Size)
                                  : E.symbolSize(D.Symbol));
  failUnlessBroadcasts(E, V, Dims[0]);
}

static bool plansAlloc(const Apply &N, ArrayRef<std::string> Symbols) {
  if (*allocFill(N.op()) != AllocFill::Broadcast)
    return true;
  // A symbol no input binds is given to the call: prepare reads it.
  return llvm::all_of(N.output(0)->type().Dims, [&](const Dim &D) {
    return D.isKnown() ||
           (D.isSymbolic() && llvm::is_contained(Symbols, D.Symbol));
  });
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

// JoinOp::prepare's shape: the inputs' dims agree except along the axis,
// where they add up without overflow.
static void emitJoinDims(ThunkEmitter &E, OutputDims &Dims) {
  const Variable *First = E.Node.inputs()[0];
  const unsigned Rank = First->type().rank();
  const unsigned Axis = *joinAxis(E.Node.op(), Rank);
  Value *Sum = E.constI64(0);
  for (const Variable *In : E.Node.inputs()) {
    for (unsigned D = 0; D < Rank; ++D)
      if (D != Axis && In != First)
        E.failUnless(E.B.CreateICmpEQ(E.dim(In, D), E.dim(First, D)),
                     "same.dim");
    Value *R = E.B.CreateBinaryIntrinsic(Intrinsic::sadd_with_overflow, Sum,
                                         E.dim(In, Axis));
    E.failUnless(E.B.CreateNot(E.B.CreateExtractValue(R, 1)), "no.overflow");
    Sum = E.B.CreateExtractValue(R, 0);
  }
  for (unsigned D = 0; D < Rank; ++D)
    Dims[0].push_back(D == Axis ? Sum : E.dim(First, D));
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

// specify_shape and assert (CheckOp::prepare): x itself once each given
// size matches, or each condition is nonzero; a failed check asks prepare
// for the words.
static void emitCheckView(ThunkEmitter &E) {
  const auto &C = llvm::cast<CheckOp>(E.Node.op());
  const Variable *In = E.Node.inputs()[0];
  const unsigned Rank = In->type().rank();
  if (C.isAssert()) {
    for (unsigned I = 1; I < E.Node.inputs().size(); ++I) {
      const Variable *Cond = E.Node.inputs()[I];
      DType T = Cond->type().Dtype;
      Value *V = E.convert(E.loadElement(T, E.data(Cond)), T, DType::Bool);
      E.failUnless(V, "holds");
    }
  } else {
    for (unsigned D = 0; D < Rank; ++D)
      if (C.sizes()[D] >= 0 && !In->type().Dims[D].isKnown())
        E.failUnless(
            E.B.CreateICmpEQ(E.dim(In, D), E.constI64(C.sizes()[D])), "size");
  }
  SmallVector<Value *, 4> Dims, Strides;
  for (unsigned D = 0; D < Rank; ++D) {
    Dims.push_back(E.dim(In, D));
    Strides.push_back(E.stride(In, D));
  }
  E.setSlot(E.Node.output(0), E.data(In), Dims, Strides);
}

// x[start:stop:step] along one axis (SubtensorOp::prepare): the slice
// resolved against the axis's length as Python does, the data moved to
// the start and the stride multiplied by the step, both checked for
// overflow where prepare checks them.
static void emitSubtensorView(ThunkEmitter &E) {
  const Variable *In = E.Node.inputs()[0];
  const unsigned Rank = In->type().rank();
  const SliceInfo S = *sliceInfo(E.Node.op(), Rank);
  IRBuilder<> &B = E.B;
  const bool Back = S.Step < 0;
  Value *Len = E.dim(In, S.Axis), *Zero = E.constI64(0), *One = E.constI64(1);
  Value *Last = B.CreateSub(Len, One);
  // PySlice_AdjustIndices on one bound; V is known, so is its sign.
  auto Clamp = [&](std::optional<int64_t> V, Value *IfNone) -> Value * {
    if (!V)
      return IfNone;
    if (*V < 0) {
      Value *I = B.CreateAdd(E.constI64(*V), Len); // no overflow: Len >= 0
      return B.CreateSelect(B.CreateICmpSLT(I, Zero),
                            E.constI64(Back ? -1 : 0), I);
    }
    return B.CreateSelect(B.CreateICmpSGE(E.constI64(*V), Len),
                          Back ? Last : Len, E.constI64(*V));
  };
  Value *Start = Clamp(S.Start, Back ? Last : Zero);
  Value *End = Clamp(S.Stop, Back ? E.constI64(-1) : Len);
  // (Start - End - 1) / -Step + 1 going back, (End - Start - 1) / Step + 1
  // going forward; 0 when the range is empty.
  Value *Span = Back ? B.CreateSub(Start, End) : B.CreateSub(End, Start);
  Value *Length = B.CreateSelect(
      B.CreateICmpSGT(Span, Zero),
      B.CreateAdd(B.CreateSDiv(B.CreateSub(Span, One),
                               E.constI64(Back ? -S.Step : S.Step)),
                  One),
      Zero);
  Value *Stride = E.stride(In, S.Axis);
  Value *Off = B.CreateBinaryIntrinsic(Intrinsic::smul_with_overflow, Start,
                                       Stride);
  Value *Step = B.CreateBinaryIntrinsic(Intrinsic::smul_with_overflow,
                                        Stride, E.constI64(S.Step));
  // Only a non-empty slice reads at Start, and only one of two or more
  // elements uses the new stride.
  Value *NonEmpty = B.CreateICmpSGT(Length, Zero);
  Value *Several = B.CreateICmpSGT(Length, One);
  E.failUnless(B.CreateNot(B.CreateAnd(NonEmpty, B.CreateExtractValue(Off, 1))),
               "offset.fits");
  E.failUnless(B.CreateNot(B.CreateAnd(Several, B.CreateExtractValue(Step, 1))),
               "stride.fits");
  Value *Data = B.CreateGEP(
      B.getInt8Ty(), E.data(In),
      B.CreateSelect(NonEmpty, B.CreateExtractValue(Off, 0), Zero), "start");
  SmallVector<Value *, 4> Dims, Strides;
  for (unsigned D = 0; D < Rank; ++D) {
    Dims.push_back(D == S.Axis ? Length : E.dim(In, D));
    Strides.push_back(D == S.Axis ? B.CreateSelect(Several,
                                                   B.CreateExtractValue(Step, 0),
                                                   Stride)
                                  : E.stride(In, D));
  }
  E.setSlot(E.Node.output(0), Data, Dims, Strides);
}

// reshape and flatten (ReshapeOp::prepare): the target's sizes (numbers,
// and symbols the call binds) checked against the input's, -1 inferred. A
// C-contiguous input is viewed with contiguous strides; any other asks
// gj_prepare, which views or copies it as NumPy does (the frame drops that
// value when the call ends, as it does a materialized one).
static void emitReshapeView(ThunkEmitter &E) {
  const Variable *In = E.Node.inputs()[0], *Out = E.Node.output(0);
  const std::vector<TargetDim> Target = *reshapeTarget(E.Node.op());
  IRBuilder<> &B = E.B;
  Value *Size = E.numElements(In);
  // The product of the given sizes: the numbers' at compile time, times
  // the symbols' at run time.
  int64_t ConstKnown = 1;
  int Infer = -1;
  bool ConstOverflow = false;
  SmallVector<Value *, 4> Given;
  for (size_t I = 0; I < Target.size(); ++I) {
    if (!Target[I].Symbol.empty())
      Given.push_back(E.symbolSize(Target[I].Symbol));
    else if (Target[I].Size == -1)
      Infer = int(I);
    else
      ConstOverflow |=
          __builtin_mul_overflow(ConstKnown, Target[I].Size, &ConstKnown);
  }
  Value *Known = E.constI64(ConstKnown), *Overflow = B.getInt1(ConstOverflow);
  for (Value *S : Given) {
    Value *Product = B.CreateBinaryIntrinsic(Intrinsic::smul_with_overflow,
                                             Known, S);
    Known = B.CreateExtractValue(Product, 0);
    Overflow = B.CreateOr(Overflow, B.CreateExtractValue(Product, 1));
  }
  Value *Fits = B.CreateNot(Overflow);
  Value *KnownZero = B.CreateICmpEQ(Known, E.constI64(0));
  // A divisor that is never zero; where Known is, the check fails anyway.
  Value *Divisor = B.CreateSelect(KnownZero, E.constI64(1), Known);
  if (Infer >= 0)
    E.failUnless(B.CreateAnd(B.CreateAnd(Fits, B.CreateNot(KnownZero)),
                             B.CreateICmpEQ(B.CreateSRem(Size, Divisor),
                                            E.constI64(0))),
                 "divides");
  else
    E.failUnless(B.CreateAnd(Fits, B.CreateICmpEQ(Size, Known)), "same.size");
  SmallVector<Value *, 4> Dims;
  auto NextGiven = Given.begin();
  for (const TargetDim &T : Target)
    Dims.push_back(!T.Symbol.empty() ? *NextGiven++
                   : T.Size != -1    ? E.constI64(T.Size)
                                     : B.CreateSDiv(Size, Divisor));

  // C-contiguous: each dim of more than one element has the stride of the
  // elements after it (an empty array is, whatever its strides).
  const int64_t ElementSize = dtypeSize(In->type().Dtype);
  Value *Contiguous = B.CreateICmpEQ(Size, E.constI64(0));
  Value *AllFit = B.getTrue(), *Expected = E.constI64(ElementSize);
  for (unsigned D = In->type().rank(); D-- > 0;) {
    Value *Dim = E.dim(In, D);
    AllFit = B.CreateAnd(
        AllFit, B.CreateOr(B.CreateICmpEQ(Dim, E.constI64(1)),
                           B.CreateICmpEQ(E.stride(In, D), Expected)));
    Expected = B.CreateMul(Expected, Dim);
  }
  Contiguous = B.CreateOr(Contiguous, AllFit, "contiguous");
  llvm::Function *Thunk = B.GetInsertBlock()->getParent();
  BasicBlock *View = BasicBlock::Create(E.ctx(), "view", Thunk);
  BasicBlock *Ask = BasicBlock::Create(E.ctx(), "ask.prepare", Thunk);
  BasicBlock *Done = BasicBlock::Create(E.ctx(), "reshaped", Thunk);
  B.CreateCondBr(Contiguous, View, Ask);

  B.SetInsertPoint(View);
  E.setSlot(Out, E.data(In), Dims, E.contiguousStrides(Dims, ElementSize));
  B.CreateBr(Done);

  B.SetInsertPoint(Ask);
  E.returnIfFailed(E.callNodeEntry("gj_prepare"));
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
}

static bool plansReshape(const Apply &N, ArrayRef<std::string> Symbols) {
  std::optional<std::vector<TargetDim>> Target = reshapeTarget(N.op());
  return Target && llvm::all_of(*Target, [&](const TargetDim &T) {
           return T.Symbol.empty() || llvm::is_contained(Symbols, T.Symbol);
         });
}

// A view's code depends on its op's parameters (all in its name) and its
// input's rank.
static std::string viewKey(const Apply &N) {
  return "view." + N.op().name() + ".r" +
         std::to_string(N.inputs()[0]->type().rank());
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
  DimShuffle.PlansOutputs = [](const Apply &N, llvm::ArrayRef<std::string>) {
    for (int D : llvm::cast<DimShuffleOp>(N.op())
                     .patternFor(N.inputs()[0]->type().rank()))
      if (D >= int(N.inputs()[0]->type().rank()))
        return false; // prepare's error to word.
    return true;
  };
  DimShuffle.ThunkKey = dimShuffleKey;
  registerLowering(OpKind::DimShuffle, DimShuffle);
  Lowering Check{/*NeedsPrepare=*/true, nullptr, nullptr};
  Check.EmitViewOutputs = emitCheckView;
  Check.PlansOutputs = [](const Apply &N, llvm::ArrayRef<std::string>) {
    const auto &C = llvm::cast<CheckOp>(N.op());
    return C.isAssert() ||
           C.sizes().size() == N.inputs()[0]->type().rank();
  };
  registerLowering(OpKind::Check, Check);
  Lowering Subtensor{/*NeedsPrepare=*/true, nullptr, nullptr};
  Subtensor.EmitViewOutputs = emitSubtensorView;
  Subtensor.PlansOutputs = [](const Apply &N, llvm::ArrayRef<std::string>) {
    return sliceInfo(N.op(), N.inputs()[0]->type().rank()).has_value();
  };
  Subtensor.ThunkKey = viewKey;
  registerLowering(OpKind::Subtensor, Subtensor);
  Lowering Reshape{/*NeedsPrepare=*/true, nullptr, nullptr};
  Reshape.EmitViewOutputs = emitReshapeView;
  Reshape.PlansOutputs = plansReshape;
  Reshape.ThunkKey = viewKey;
  registerLowering(OpKind::Reshape, Reshape);
  Lowering ShapeI{true, emitShapeI, supportsShapeI};
  ShapeI.EmitOutputDims = emitScalarDims;
  registerLowering(OpKind::ShapeI, ShapeI);
  // alloc and the *_like fills.
  Lowering Alloc{true, emitAlloc, supportsAlloc};
  Alloc.EmitOutputDims = emitAllocDims;
  Alloc.PlansOutputs = plansAlloc;
  for (OpKind Kind : {OpKind::Alloc, OpKind::FillLike})
    registerLowering(Kind, Alloc);
  Lowering Join{true, emitJoin, supportsJoin};
  Join.EmitOutputDims = emitJoinDims;
  registerLowering(OpKind::Join, Join);
}
