//===- ReduceKernel.cpp - GPU work items of the reductions ---------------===//
//
// One item per output element: the kept dims unravelled from the item, then
// one pass over every reduced element in C order with a single running
// accumulator, which is what a GPU thread does well. The dtypes, identities
// and rules are the reference's (ReductionOps.cpp): integer and bool sums
// and products wrap in i64, float ones stay in their dtype; mean sums in
// the output dtype and divides by the count (NaN for none); max and min
// keep the first NaN, else the first of equal extremes; all and any test
// != 0 (a NaN is true). Float sums add in order rather than pairwise; an
// f32 sum or mean therefore accumulates in f64 (rounded once at the end),
// which keeps it at least as close to the exact sum as the host's pairwise
// f32 sum over long rows. They agree with perform to rounding, not to the
// bit.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"
#include "codegen/ReduceLoweringKernels.h"
#include "codegen/StructuralLoweringUtil.h"

using namespace graphjit;
using namespace llvm;

namespace {

/// NumPy's (and ReductionOps.cpp's) result dtype.
DType resultType(ReductionInfo::Kind K, DType In) {
  switch (K) {
  case ReductionInfo::Sum:
  case ReductionInfo::Prod:
    return isFloat(In) ? In : DType::I64;
  case ReductionInfo::Mean:
    return isFloat(In) ? In : DType::F64;
  case ReductionInfo::All:
  case ReductionInfo::Any:
    return DType::Bool;
  default:
    return In;
  }
}

/// The identity a running max (IsMax) or min of T starts from: what every
/// element beats or equals.
Constant *extremeIdentity(ThunkEmitter &E, DType T, bool IsMax) {
  Type *Ty = E.valueType(T);
  if (isFloat(T))
    return ConstantFP::getInfinity(Ty, /*Negative=*/IsMax);
  unsigned Bits = Ty->getIntegerBitWidth();
  if (isSignedInteger(T))
    return ConstantInt::get(Ty, IsMax ? APInt::getSignedMinValue(Bits)
                                      : APInt::getSignedMaxValue(Bits));
  return ConstantInt::get(Ty, IsMax ? APInt::getMinValue(Bits)
                                    : APInt::getMaxValue(Bits));
}

} // namespace

Error graphjit::emitReduceItem(KernelItem &K) {
  const KernelSpec &S = K.Spec;
  const ReductionInfo &Info = S.Reduction;
  ThunkEmitter &E = K.E;
  IRBuilder<> &B = K.B;
  const DType T = S.Operands[1], OutT = S.Operands[0];
  if (Info.K > ReductionInfo::Any)
    return createStringError("argmax-like reductions have no GPU kernel");
  if (resultType(Info.K, T) != OutT)
    return createStringError("a reduction of " + dtypeName(T) + " gives " +
                             dtypeName(resultType(Info.K, T)) + ", not " +
                             dtypeName(OutT));

  SmallVector<unsigned, 8> Kept =
      K.dimsWhere([&](unsigned D) { return !Info.Reduced[D]; });
  SmallVector<unsigned, 8> Red =
      K.dimsWhere([&](unsigned D) { return Info.Reduced[D]; });
  SmallVector<Value *, 8> At = K.unravel(Kept);
  Value *Out = K.address(0, Kept, At);
  Value *In = K.address(1, Kept, At);
  SmallVector<Value *, 8> Extents;
  Value *Count = E.constI64(1);
  for (unsigned D : Red) {
    Extents.push_back(K.Args.dim(D));
    Count = B.CreateMul(Count, K.Args.dim(D));
  }
  SmallVector<SmallVector<Value *, 8>, 1> Strides = {K.strides(1, Red)};

  // Acc = Step(Acc, element), over every reduced element in C order.
  auto Fold = [&](DType AccT, Value *Init,
                  function_ref<Value *(Value * Acc, Value * X)> Step) {
    AllocaInst *Acc = entryAlloca(E, E.valueType(AccT), "acc");
    B.CreateStore(Init, Acc);
    emitStridedNest(E, Extents, {In}, Strides, [&](ArrayRef<Value *> P) {
      Value *X = E.loadElement(T, P[0]);
      B.CreateStore(Step(B.CreateLoad(E.valueType(AccT), Acc), X), Acc);
    });
    return B.CreateLoad(E.valueType(AccT), Acc);
  };

  Value *R = nullptr;
  switch (Info.K) {
  case ReductionInfo::Sum:
  case ReductionInfo::Prod: {
    const bool IsSum = Info.K == ReductionInfo::Sum;
    DType AccT = rowFoldAccType(IsSum ? RowFold::Sum : RowFold::Prod, T);
    bool Widen = IsSum && T == DType::F32;
    if (Widen)
      AccT = DType::F64;
    Type *AccTy = E.valueType(AccT);
    Value *Init = isFloat(AccT) ? ConstantFP::get(AccTy, IsSum ? 0.0 : 1.0)
                                : ConstantInt::get(AccTy, IsSum ? 0 : 1);
    R = Fold(AccT, Init, [&](Value *A, Value *X) -> Value * {
      if (Widen)
        X = B.CreateFPExt(X, AccTy);
      if (isFloat(T))
        return IsSum ? B.CreateFAdd(A, X) : B.CreateFMul(A, X);
      // Two's complement bits, as the reference's wrapBits.
      X = isSignedInteger(T) ? B.CreateSExt(X, AccTy) : B.CreateZExt(X, AccTy);
      return IsSum ? B.CreateAdd(A, X) : B.CreateMul(A, X);
    });
    if (Widen)
      R = B.CreateFPTrunc(R, E.valueType(T));
    break;
  }
  case ReductionInfo::Mean: {
    DType AccT = OutT == DType::F32 ? DType::F64 : OutT;
    Type *AccTy = E.valueType(AccT);
    Value *Sum =
        Fold(AccT, ConstantFP::get(AccTy, 0.0), [&](Value *A, Value *X) {
          return B.CreateFAdd(A, E.convert(E.convert(X, T, OutT), OutT, AccT));
        });
    Value *Mean = B.CreateFDiv(Sum, B.CreateSIToFP(Count, AccTy));
    R = B.CreateSelect(B.CreateICmpEQ(Count, E.constI64(0)),
                       ConstantFP::getQNaN(AccTy), Mean);
    if (AccT != OutT)
      R = B.CreateFPTrunc(R, E.valueType(OutT));
    break;
  }
  case ReductionInfo::Max:
  case ReductionInfo::Min: {
    const bool IsMax = Info.K == ReductionInfo::Max;
    R = Fold(T, extremeIdentity(E, T, IsMax), [&](Value *A, Value *X) {
      Value *Take = emitBeats(B, X, A, T, IsMax);
      // A NaN, once taken, stays: NumPy's maximum propagates it.
      if (isFloat(T))
        Take = B.CreateAnd(B.CreateFCmpORD(A, A),
                           B.CreateOr(B.CreateFCmpUNO(X, X), Take));
      return B.CreateSelect(Take, X, A);
    });
    break;
  }
  case ReductionInfo::All:
  case ReductionInfo::Any: {
    const bool IsAll = Info.K == ReductionInfo::All;
    R = Fold(DType::Bool, B.getInt1(IsAll), [&](Value *A, Value *X) {
      Value *True = T == DType::Bool ? X
                    : isFloat(T)
                        ? B.CreateFCmpUNE(X, ConstantFP::get(X->getType(), 0.0))
                        : B.CreateICmpNE(X, ConstantInt::get(X->getType(), 0));
      return IsAll ? B.CreateAnd(A, True) : B.CreateOr(A, True);
    });
    break;
  }
  default:
    llvm_unreachable("checked above");
  }
  E.storeElement(OutT, R, Out);
  return Error::success();
}
