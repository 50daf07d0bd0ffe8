//===- ReduceLowering.cpp - JIT code for the reductions ------------------===//
//
// CAReduce (sum prod max min all any), Mean, Argmax (argmax argmin) and
// MaxAndArgmax as loops: gj_prepare has checked the shape (an empty
// reduction without identity is its error) and created the outputs; the
// thunk walks the kept dims, one output element each, and for each walks the
// reduced dims in C order. The axes are static, the sizes come from the
// slots. The reduced dims are merged at run time exactly as the reference's
// ReducePlan merges them, so that float sums add the same rows with the same
// pairwise summation and agree with perform to the bit. Extremes take two
// passes: a vectorized one for the greatest (least) value and whether there
// is a NaN, then, for argmax and where bits depend on order (a NaN, or
// -0.0 against 0.0), a scan for the first element that is the answer.
// Rows go to the kernels of ReduceLoweringKernels.h, shared by the module's
// thunks.
//
//===----------------------------------------------------------------------===//

#include "ReduceLoweringKernels.h"
#include "ops/StructuralParams.h"
#include "StructuralLoweringUtil.h"

using namespace graphjit;
using namespace llvm;

namespace {

/// The lowering's view of one reduction Apply.
class ReduceEmitter {
public:
  ReduceEmitter(ThunkEmitter &E, const ReductionInfo &Info)
      : E(E), B(E.B), Info(Info), X(E.Node.inputs()[0]), T(X->type().Dtype) {}

  void emit();

private:
  ThunkEmitter &E;
  IRBuilder<> &B;
  const ReductionInfo &Info;
  const Variable *X;
  DType T;
  /// The reduced dims after merging (right-aligned; the last is the row).
  SmallVector<Value *, 8> RedDims, RedStrides;
  Value *RedCount = nullptr; ///< Elements per reduction (mean's divisor).

  /// Calls Row(Base, Stride, Count) for the rows of the reduction whose
  /// first element is at Base, in C order.
  void forEachRow(Value *Base,
                  function_ref<void(Value *, Value *, Value *)> Row);
  /// One output element: the reduction starting at Base.
  void reduceOne(Value *Base, ArrayRef<Value *> Outs);
  /// A float sum or mean over one axis, a row of outputs at a time: the
  /// last of KeptDims is contiguous in the input and the output.
  void sumColumns(ArrayRef<Value *> KeptDims, ArrayRef<Value *> Bases,
                  ArrayRef<SmallVector<Value *, 8>> Strides, DType OutT);
  /// Fold K of the reduction at Base, row by row.
  Value *fold(Value *Base, RowFold K);
  Value *floatSum(Value *Base, DType Acc);
  /// The dtype the extreme kernels read: bools as u8.
  DType kernelType() const { return T == DType::Bool ? DType::U8 : T; }
  /// The greatest (least) element of the reduction at Base among those that
  /// are not NaN, and whether there is a NaN.
  std::pair<Value *, Value *> extremeOfRows(Value *Base, bool IsMax);
  /// The C-order index and the value (as kernelType()) of the first element
  /// of the reduction at Base that is a NaN (NaN set) or equals M.
  std::pair<Value *, Value *> firstMatch(Value *Base, Value *M, Value *NaN);
  /// max and min: the value the reference's running extreme ends with.
  Value *extreme(Value *Base, bool IsMax);
  /// Argmax-like: the index of the first extreme (a NaN counting as one);
  /// also its value in *Best if Best is given.
  Value *argExtreme(Value *Base, bool IsMax, Value **Best);
  /// A kernelType() value as a value of T.
  Value *fromKernelType(Value *V) {
    return T == DType::Bool ? B.CreateICmpNE(V, B.getInt8(0)) : V;
  }
};

} // namespace

void ReduceEmitter::forEachRow(
    Value *Base, function_ref<void(Value *, Value *, Value *)> Row) {
  ArrayRef<Value *> Outer = ArrayRef(RedDims).drop_back();
  SmallVector<Value *, 8> OuterStrides(RedStrides.begin(),
                                       RedStrides.end() - 1);
  emitStridedNest(E, Outer, {Base}, {OuterStrides}, [&](ArrayRef<Value *> P) {
    Row(P[0], RedStrides.back(), RedDims.back());
  });
}

Value *ReduceEmitter::fold(Value *Base, RowFold K) {
  Type *AccTy = E.valueType(rowFoldAccType(K, T));
  llvm::Function *Row = rowFoldFunction(E, K, T);
  AllocaInst *Acc = entryAlloca(E, AccTy, "acc");
  // The identity: 0, 1, true, false.
  Value *Init = K == RowFold::Sum   ? Constant::getNullValue(AccTy)
                : K == RowFold::Any ? B.getFalse()
                : K == RowFold::All ? B.getTrue()
                : AccTy->isFloatingPointTy()
                    ? static_cast<Value *>(ConstantFP::get(AccTy, 1.0))
                    : ConstantInt::get(AccTy, 1);
  B.CreateStore(Init, Acc);
  forEachRow(Base, [&](Value *Ptr, Value *Stride, Value *Count) {
    B.CreateStore(
        B.CreateCall(Row, {Ptr, Stride, Count, B.CreateLoad(AccTy, Acc)}), Acc);
  });
  return B.CreateLoad(AccTy, Acc);
}

Value *ReduceEmitter::floatSum(Value *Base, DType Acc) {
  // As the reference: each row's pairwise sum added to S in order.
  Type *AccTy = E.valueType(Acc);
  llvm::Function *Pairwise = pairwiseSumFunction(E, Acc, T);
  AllocaInst *S = entryAlloca(E, AccTy, "sum");
  B.CreateStore(ConstantFP::get(AccTy, 0.0), S);
  forEachRow(Base, [&](Value *Row, Value *Stride, Value *Count) {
    Value *RowSum = B.CreateCall(Pairwise, {Row, Stride, Count});
    B.CreateStore(B.CreateFAdd(B.CreateLoad(AccTy, S), RowSum), S);
  });
  return B.CreateLoad(AccTy, S);
}

std::pair<Value *, Value *> ReduceEmitter::extremeOfRows(Value *Base,
                                                         bool IsMax) {
  DType KT = kernelType();
  Type *Ty = E.valueType(KT);
  llvm::Function *Row = rowExtremeFunction(E, KT, IsMax);
  AllocaInst *M = entryAlloca(E, Ty, "extreme");
  AllocaInst *NaN = entryAlloca(E, B.getInt1Ty(), "saw.nan");
  // The first row's answer, then each later row's where it beats it (the
  // kernel leaves NaNs out).
  AllocaInst *First = entryAlloca(E, B.getInt1Ty(), "first.row");
  B.CreateStore(B.getTrue(), First);
  B.CreateStore(B.getFalse(), NaN);
  forEachRow(Base, [&](Value *Ptr, Value *Stride, Value *Count) {
    Value *R = B.CreateCall(Row, {Ptr, Stride, Count});
    Value *RowM = B.CreateExtractValue(R, 0);
    Value *Cur = B.CreateLoad(Ty, M);
    Value *Take = B.CreateOr(B.CreateLoad(B.getInt1Ty(), First),
                             emitBeats(B, RowM, Cur, KT, IsMax));
    B.CreateStore(B.CreateSelect(Take, RowM, Cur), M);
    B.CreateStore(B.getFalse(), First);
    B.CreateStore(B.CreateOr(B.CreateLoad(B.getInt1Ty(), NaN),
                             B.CreateExtractValue(R, 1)),
                  NaN);
  });
  return {B.CreateLoad(Ty, M), B.CreateLoad(B.getInt1Ty(), NaN)};
}

std::pair<Value *, Value *> ReduceEmitter::firstMatch(Value *Base, Value *M,
                                                      Value *NaN) {
  DType KT = kernelType();
  Type *Ty = E.valueType(KT);
  llvm::Function *Find = rowFindFunction(E, KT);
  AllocaInst *Found = entryAlloca(E, B.getInt1Ty(), "found");
  AllocaInst *At = entryAlloca(E, E.i64(), "found.at");
  AllocaInst *Val = entryAlloca(E, Ty, "found.value");
  AllocaInst *RowStart = entryAlloca(E, E.i64(), "row.start");
  B.CreateStore(B.getFalse(), Found);
  B.CreateStore(E.constI64(0), At);
  B.CreateStore(M, Val);
  B.CreateStore(E.constI64(0), RowStart);
  // The rows after the one holding the answer are only stepped over.
  forEachRow(Base, [&](Value *Row, Value *Stride, Value *Count) {
    emitIf(E, B.CreateNot(B.CreateLoad(B.getInt1Ty(), Found)), [&] {
      Value *Start = B.CreateLoad(E.i64(), RowStart);
      Value *I = B.CreateCall(Find, {Row, Stride, Count, M, NaN});
      emitIf(E, B.CreateICmpSLT(I, Count), [&] {
        B.CreateStore(B.getTrue(), Found);
        B.CreateStore(B.CreateAdd(Start, I), At);
        B.CreateStore(E.loadElement(KT, E.offset(Row, I, Stride)), Val);
      });
      B.CreateStore(B.CreateAdd(Start, Count), RowStart);
    });
  });
  return {B.CreateLoad(E.i64(), At), B.CreateLoad(Ty, Val)};
}

Value *ReduceEmitter::extreme(Value *Base, bool IsMax) {
  auto [M, NaN] = extremeOfRows(Base, IsMax);
  if (!isFloat(T))
    return fromKernelType(M);
  // Equal values have equal bits except for -0.0 and 0.0, and the first
  // NaN is the answer if there is one: only then is the order needed.
  Type *Ty = E.valueType(T);
  AllocaInst *R = entryAlloca(E, Ty, "extreme.value");
  B.CreateStore(M, R);
  Value *Zero = B.CreateFCmpOEQ(M, ConstantFP::get(Ty, 0.0));
  emitIf(E, B.CreateOr(NaN, Zero),
         [&] { B.CreateStore(firstMatch(Base, M, NaN).second, R); });
  return B.CreateLoad(Ty, R);
}

Value *ReduceEmitter::argExtreme(Value *Base, bool IsMax, Value **BestOut) {
  // The reduction is not empty (gj_prepare's check), so the match exists.
  auto [M, NaN] = extremeOfRows(Base, IsMax);
  auto [Index, Found] = firstMatch(Base, M, NaN);
  if (BestOut)
    *BestOut = fromKernelType(Found);
  return Index;
}

void ReduceEmitter::reduceOne(Value *Base, ArrayRef<Value *> Outs) {
  const Variable *Out = E.Node.output(0);
  DType OutT = Out->type().Dtype;
  switch (Info.K) {
  case ReductionInfo::Sum:
  case ReductionInfo::Prod: {
    bool IsSum = Info.K == ReductionInfo::Sum;
    Value *R = IsSum && isFloat(T)
                   ? floatSum(Base, T)
                   : fold(Base, IsSum ? RowFold::Sum : RowFold::Prod);
    E.storeElement(OutT, R, Outs[0]);
    return;
  }
  case ReductionInfo::Mean: {
    // Floats sum in their dtype, the rest in f64 (the reference's Acc).
    Value *S = floatSum(Base, OutT);
    Type *Ty = E.valueType(OutT);
    Value *Mean = B.CreateFDiv(S, B.CreateSIToFP(RedCount, Ty));
    Value *Empty = B.CreateICmpEQ(RedCount, E.constI64(0));
    E.storeElement(OutT, B.CreateSelect(Empty, ConstantFP::getQNaN(Ty), Mean),
                   Outs[0]);
    return;
  }
  case ReductionInfo::Max:
  case ReductionInfo::Min:
    E.storeElement(OutT, extreme(Base, Info.K == ReductionInfo::Max), Outs[0]);
    return;
  case ReductionInfo::All:
  case ReductionInfo::Any:
    E.storeElement(
        OutT,
        fold(Base, Info.K == ReductionInfo::All ? RowFold::All : RowFold::Any),
        Outs[0]);
    return;
  case ReductionInfo::Argmax:
  case ReductionInfo::Argmin:
    E.storeElement(DType::I64,
                   argExtreme(Base, Info.K == ReductionInfo::Argmax, nullptr),
                   Outs[0]);
    return;
  case ReductionInfo::MaxAndArgmax: {
    Value *Best = nullptr;
    Value *Index = argExtreme(Base, /*IsMax=*/true, &Best);
    E.storeElement(T, Best, Outs[0]);
    E.storeElement(DType::I64, Index, Outs[1]);
    return;
  }
  }
}

void ReduceEmitter::emit() {
  ArrayValues In = loadArray(E, X);
  SmallVector<ArrayValues, 2> Outs;
  for (const Variable *O : E.Node.outputs())
    Outs.push_back(loadArray(E, O));
  // Kept dims walk the input and the outputs together; an output's dim for
  // a kept input dim is the same dim with keepdims, else the next one.
  SmallVector<Value *, 8> KeptDims;
  SmallVector<SmallVector<Value *, 8>, 3> Strides(1 + Outs.size());
  RedCount = E.constI64(1);
  unsigned OutDim = 0;
  for (unsigned D = 0; D < X->type().rank(); ++D) {
    if (Info.Reduced[D]) {
      RedDims.push_back(In.Dims[D]);
      RedStrides.push_back(In.Strides[D]);
      // Overflows only beside a dim of 0, which makes the product 0.
      RedCount = B.CreateMul(RedCount, In.Dims[D]);
      OutDim += Info.KeepDims;
      continue;
    }
    KeptDims.push_back(In.Dims[D]);
    Strides[0].push_back(In.Strides[D]);
    for (size_t K = 0; K < Outs.size(); ++K)
      Strides[K + 1].push_back(Outs[K].Strides[OutDim]);
    ++OutDim;
  }
  coalesceDims(E, RedDims, RedStrides);
  SmallVector<Value *, 3> Bases = {In.Data};
  for (const ArrayValues &O : Outs)
    Bases.push_back(O.Data);
  auto EachElement = [&] {
    emitStridedNest(E, KeptDims, Bases, Strides, [&](ArrayRef<Value *> P) {
      reduceOne(P[0], P.drop_front());
    });
  };
  // A float sum or mean over one axis that is not the last, whose last
  // kept dim is contiguous in the input and the output: all of a row of
  // outputs at once, a vector of columns at a time (the sums over a
  // leading axis of a bias's gradient). Else one output element at a time.
  DType OutT = E.Node.output(0)->type().Dtype;
  bool Columns = ((Info.K == ReductionInfo::Sum && isFloat(T)) ||
                  Info.K == ReductionInfo::Mean) &&
                 RedDims.size() == 1 && !KeptDims.empty();
  if (!Columns)
    return EachElement();
  Value *Unit = B.CreateAnd(
      B.CreateICmpEQ(Strides[0].back(), E.constI64(int64_t(dtypeSize(T)))),
      B.CreateICmpEQ(Strides[1].back(), E.constI64(int64_t(dtypeSize(OutT)))));
  emitIfElse(
      E, Unit, "columns", [&] { sumColumns(KeptDims, Bases, Strides, OutT); },
      EachElement);
}

void ReduceEmitter::sumColumns(ArrayRef<Value *> KeptDims,
                               ArrayRef<Value *> Bases,
                               ArrayRef<SmallVector<Value *, 8>> Strides,
                               DType OutT) {
  // Sums accumulate in the output's dtype: T for a float sum, and a
  // mean's (floats in their dtype, the rest in f64, as floatSum).
  llvm::Function *Kernel = pairwiseColumnsFunction(E, OutT, T);
  SmallVector<SmallVector<Value *, 8>, 3> Outer;
  for (const SmallVector<Value *, 8> &S : Strides)
    Outer.emplace_back(S.begin(), S.end() - 1);
  Value *Cols = KeptDims.back();
  emitStridedNest(E, KeptDims.drop_back(), Bases.take_front(2), Outer,
                  [&](ArrayRef<Value *> P) {
    B.CreateCall(Kernel, {P[0], RedStrides[0], RedDims[0], Cols, P[1]});
    if (Info.K != ReductionInfo::Mean)
      return;
    // As reduceOne: the sum over the count, NaN for an empty mean.
    Type *Ty = E.valueType(OutT);
    Value *Count = B.CreateSIToFP(RedCount, Ty);
    Value *Empty = B.CreateICmpEQ(RedCount, E.constI64(0));
    E.emitLoop(Cols, "mean", [&](Value *J) {
      Value *At = B.CreateInBoundsGEP(Ty, P[1], J);
      Value *Mean = B.CreateFDiv(B.CreateLoad(Ty, At), Count);
      B.CreateStore(B.CreateSelect(Empty, ConstantFP::getQNaN(Ty), Mean),
                    At);
    });
  });
}

static Error emitReduction(ThunkEmitter &E) {
  unsigned Rank = E.Node.inputs()[0]->type().rank();
  std::optional<ReductionInfo> Info = reductionInfo(E.Node.op(), Rank);
  if (!Info)
    Info = argReductionInfo(E.Node.op(), Rank);
  if (!Info)
    return createStringError("no reduction lowering for " + E.Node.op().name());
  ReduceEmitter(E, *Info).emit();
  return Error::success();
}

static bool supportsReduction(const Apply &N) {
  unsigned Rank = N.inputs()[0]->type().rank();
  return reductionInfo(N.op(), Rank) || argReductionInfo(N.op(), Rank);
}

// The input's dims without the reduced ones (1 with keepdims), for each
// output (MaxAndArgmax has two); max, min and the arg reductions of nothing
// refuse, as ReduceOp::plan and the arg reductions' plan do.
static void emitReductionDims(ThunkEmitter &E, OutputDims &Dims) {
  const Variable *In = E.Node.inputs()[0];
  const unsigned Rank = In->type().rank();
  std::optional<ReductionInfo> Info = reductionInfo(E.Node.op(), Rank);
  if (!Info)
    Info = argReductionInfo(E.Node.op(), Rank);
  Value *Empty = E.B.getFalse();
  SmallVector<Value *, 4> Kept;
  for (unsigned D = 0; D < Rank; ++D) {
    if (!Info->Reduced[D]) {
      Kept.push_back(E.dim(In, D));
      continue;
    }
    Empty = E.B.CreateOr(Empty,
                         E.B.CreateICmpEQ(E.dim(In, D), E.constI64(0)));
    if (Info->KeepDims)
      Kept.push_back(E.constI64(1));
  }
  for (auto &OutDims : Dims)
    OutDims.assign(Kept.begin(), Kept.end());
  switch (Info->K) {
  case ReductionInfo::Max:
  case ReductionInfo::Min:
  case ReductionInfo::Argmax:
  case ReductionInfo::Argmin:
  case ReductionInfo::MaxAndArgmax:
    E.failUnless(E.B.CreateNot(Empty), "has.identity");
    break;
  default:
    break;
  }
}

void graphjit::registerReduceLowerings() {
  Lowering L{/*NeedsPrepare=*/true, emitReduction, supportsReduction};
  L.EmitOutputDims = emitReductionDims;
  for (OpKind Kind : {OpKind::Reduce, OpKind::ArgReduce, OpKind::MaxAndArgmax})
    registerLowering(Kind, L);
}
