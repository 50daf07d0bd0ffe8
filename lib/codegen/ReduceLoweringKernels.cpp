//===- ReduceLoweringKernels.cpp - Row kernels of reductions -------------===//

#include "ReduceLoweringKernels.h"
#include "StructuralLoweringUtil.h"
#include "llvm/IR/Function.h"

using namespace graphjit;
using namespace llvm;

namespace {

constexpr unsigned Lanes = 8;

/// Creates kernel Name and moves the builder into its entry block; the
/// caller holds an InsertPointGuard. Kernels stay out of line: one copy
/// serves every thunk of the module, and a call per row is cheap next to
/// the row's loop.
llvm::Function *startKernel(ThunkEmitter &E, const std::string &Name, Type *Ret,
                            ArrayRef<Type *> Params) {
  llvm::Function *F =
      llvm::Function::Create(FunctionType::get(Ret, Params, false),
                             GlobalValue::InternalLinkage, Name, E.M);
  F->addFnAttr(Attribute::NoUnwind);
  F->addFnAttr(Attribute::NoInline);
  E.B.SetInsertPoint(BasicBlock::Create(E.ctx(), "entry", F));
  return F;
}

/// Emits Body(true) for a contiguous row and Body(false) for any other,
/// behind a test of the stride; the builder ends after both.
void emitBothLayouts(ThunkEmitter &E, DType T, Value *Stride,
                     function_ref<void(bool Contiguous)> Body) {
  IRBuilder<> &B = E.B;
  llvm::Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *C = BasicBlock::Create(E.ctx(), "blocks.contiguous", F);
  BasicBlock *S = BasicBlock::Create(E.ctx(), "blocks.strided", F);
  BasicBlock *Done = BasicBlock::Create(E.ctx(), "blocks.done", F);
  B.CreateCondBr(B.CreateICmpEQ(Stride, E.constI64(int64_t(dtypeSize(T)))), C,
                 S);
  for (bool Contiguous : {true, false}) {
    B.SetInsertPoint(Contiguous ? C : S);
    Body(Contiguous);
    B.CreateBr(Done);
  }
  B.SetInsertPoint(Done);
}

/// Elements [8J, 8J + 8) of the row at P as a vector (bool as i1): one load
/// if the row is contiguous, else gathered one by one.
Value *loadBlock(ThunkEmitter &E, DType T, Value *P, Value *Stride, Value *J,
                 bool Contiguous) {
  IRBuilder<> &B = E.B;
  Value *First = B.CreateMul(J, E.constI64(Lanes));
  if (Contiguous) {
    auto *MemVecTy = FixedVectorType::get(E.memoryType(T), Lanes);
    Value *Vec = B.CreateAlignedLoad(
        MemVecTy, B.CreateGEP(E.memoryType(T), P, First), Align(dtypeSize(T)));
    if (T == DType::Bool)
      Vec = B.CreateICmpNE(Vec, Constant::getNullValue(MemVecTy));
    return Vec;
  }
  Value *Vec = PoisonValue::get(FixedVectorType::get(E.valueType(T), Lanes));
  for (unsigned L = 0; L < Lanes; ++L) {
    Value *At = E.offset(P, B.CreateAdd(First, E.constI64(L)), Stride);
    Vec = B.CreateInsertElement(Vec, E.loadElement(T, At), uint64_t(L));
  }
  return Vec;
}

} // namespace

Value *graphjit::emitBeats(IRBuilder<> &B, Value *V, Value *Acc, DType T,
                           bool IsMax) {
  if (isFloat(T))
    return IsMax ? B.CreateFCmpOGT(V, Acc) : B.CreateFCmpOLT(V, Acc);
  if (isSignedInteger(T))
    return IsMax ? B.CreateICmpSGT(V, Acc) : B.CreateICmpSLT(V, Acc);
  return IsMax ? B.CreateICmpUGT(V, Acc) : B.CreateICmpULT(V, Acc);
}

/// The declaration of a precompiled kernel that only reads memory through
/// its pointers but Out (lib/ops/reduction/PairwiseSumKernels.cpp).
static llvm::Function *declareSumKernel(ThunkEmitter &E, const Twine &Name,
                                        FunctionType *Ty) {
  llvm::Function *F = cast<llvm::Function>(
      E.M.getOrInsertFunction(Name.str(), Ty).getCallee());
  F->setDoesNotThrow();
  F->setWillReturn();
  return F;
}

llvm::Function *graphjit::pairwiseSumFunction(ThunkEmitter &E, DType Acc,
                                              DType Elem) {
  assert(isFloat(Acc) && "pairwise sums accumulate in a float");
  // Precompiled (lib/ops/reduction/PairwiseSumKernels.cpp), shared with
  // perform(): a declaration costs the module nothing to compile.
  Type *PtrTy = PointerType::getUnqual(E.ctx());
  llvm::Function *F = declareSumKernel(
      E, "gj_pairwise_sum_" + dtypeName(Acc) + "_" + dtypeName(Elem),
      FunctionType::get(E.valueType(Acc), {PtrTy, E.i64(), E.i64()}, false));
  F->setOnlyReadsMemory();
  return F;
}

llvm::Function *graphjit::pairwiseColumnsFunction(ThunkEmitter &E, DType Acc,
                                                  DType Elem) {
  assert(isFloat(Acc) && "pairwise sums accumulate in a float");
  Type *PtrTy = PointerType::getUnqual(E.ctx());
  return declareSumKernel(
      E, "gj_pairwise_sum_cols_" + dtypeName(Acc) + "_" + dtypeName(Elem),
      FunctionType::get(E.B.getVoidTy(),
                        {PtrTy, E.i64(), E.i64(), E.i64(), PtrTy}, false));
}

DType graphjit::rowFoldAccType(RowFold K, DType T) {
  switch (K) {
  case RowFold::Sum:
  case RowFold::Prod:
    return isFloat(T) ? T : DType::I64;
  case RowFold::All:
  case RowFold::Any:
    return DType::Bool;
  }
  return T;
}

llvm::Function *graphjit::rowFoldFunction(ThunkEmitter &E, RowFold K, DType T) {
  static const char *Names[] = {"sum", "prod", "all", "any"};
  std::string Name =
      ("gj_row_" + Twine(Names[int(K)]) + "_" + dtypeName(T)).str();
  if (llvm::Function *F = E.M.getFunction(Name))
    return F;
  IRBuilder<> &B = E.B;
  IRBuilderBase::InsertPointGuard Guard(B);
  DType AccT = rowFoldAccType(K, T);
  Type *AccTy = E.valueType(AccT);
  llvm::Function *F =
      startKernel(E, Name, AccTy,
                  {PointerType::getUnqual(E.ctx()), E.i64(), E.i64(), AccTy});
  Value *P = F->getArg(0), *Stride = F->getArg(1), *N = F->getArg(2);
  AllocaInst *Acc = entryAlloca(E, AccTy, "acc");
  B.CreateStore(F->getArg(3), Acc);
  // LLVM vectorizes these reductions except float products, which must
  // multiply in order.
  bool Vectorizable = !(K == RowFold::Prod && isFloat(T));
  emitRowLoop(
      E, N, {{P, Stride, T}},
      [&](Value *, ArrayRef<Value *> Ptrs) {
        Value *X = E.loadElement(T, Ptrs[0]);
        Value *A = B.CreateLoad(AccTy, Acc);
        Value *R = nullptr;
        switch (K) {
        case RowFold::Sum:
        case RowFold::Prod:
          if (!isFloat(T)) // Two's complement bits, as wrapBits.
            X = isSignedInteger(T) ? B.CreateSExt(X, AccTy)
                                   : B.CreateZExt(X, AccTy);
          R = K == RowFold::Sum ? B.CreateAdd(A, X)
              : isFloat(T)      ? B.CreateFMul(A, X)
                                : B.CreateMul(A, X);
          break;
        case RowFold::All:
        case RowFold::Any: {
          Value *True =
              T == DType::Bool ? X
              : isFloat(T)
                  ? B.CreateFCmpUNE(X, ConstantFP::get(X->getType(), 0.0))
                  : B.CreateICmpNE(X, ConstantInt::get(X->getType(), 0));
          R = K == RowFold::All ? B.CreateAnd(A, True) : B.CreateOr(A, True);
          break;
        }
        }
        B.CreateStore(R, Acc);
      },
      Vectorizable);
  B.CreateRet(B.CreateLoad(AccTy, Acc));
  return F;
}

llvm::Function *graphjit::rowExtremeFunction(ThunkEmitter &E, DType T,
                                             bool IsMax) {
  assert(T != DType::Bool && "read bools as u8");
  std::string Name =
      ("gj_row_" + Twine(IsMax ? "max" : "min") + "_" + dtypeName(T)).str();
  if (llvm::Function *F = E.M.getFunction(Name))
    return F;
  IRBuilder<> &B = E.B;
  IRBuilderBase::InsertPointGuard Guard(B);
  Type *Ty = E.valueType(T);
  auto *RetTy = StructType::get(E.ctx(), {Ty, B.getInt1Ty()});
  llvm::Function *F = startKernel(
      E, Name, RetTy, {PointerType::getUnqual(E.ctx()), E.i64(), E.i64()});
  Value *P = F->getArg(0), *Stride = F->getArg(1), *N = F->getArg(2);
  // Start from the identity: what no element beats.
  Constant *Init;
  if (isFloat(T))
    Init = ConstantFP::getInfinity(Ty, /*Negative=*/IsMax);
  else if (isSignedInteger(T))
    Init = ConstantInt::get(
        Ty, IsMax ? APInt::getSignedMinValue(Ty->getIntegerBitWidth())
                  : APInt::getSignedMaxValue(Ty->getIntegerBitWidth()));
  else
    Init = IsMax ? ConstantInt::get(Ty, 0) : Constant::getAllOnesValue(Ty);
  AllocaInst *M = entryAlloca(E, Ty, "m"),
             *NaN = entryAlloca(E, B.getInt1Ty(), "nan");
  B.CreateStore(Init, M);
  B.CreateStore(B.getFalse(), NaN);
  auto *VecTy = FixedVectorType::get(Ty, Lanes);
  auto *MaskTy = FixedVectorType::get(B.getInt1Ty(), Lanes);
  AllocaInst *VM = entryAlloca(E, VecTy, "m8"),
             *VN = entryAlloca(E, MaskTy, "nan8");
  Value *NumBlocks = B.CreateUDiv(N, E.constI64(Lanes));
  // Blocks of 8 in lanes (the lanes' order does not matter: NaNs are only
  // flagged, and equal values other than 0 have equal bits), then the rest.
  emitIf(E, B.CreateICmpSGT(NumBlocks, E.constI64(0)), [&] {
    B.CreateStore(ConstantVector::getSplat(VecTy->getElementCount(), Init), VM);
    B.CreateStore(Constant::getNullValue(MaskTy), VN);
    emitBothLayouts(E, T, Stride, [&](bool Contiguous) {
      E.emitLoop(NumBlocks, "b", [&](Value *J) {
        Value *X = loadBlock(E, T, P, Stride, J, Contiguous);
        Value *Acc = B.CreateLoad(VecTy, VM);
        B.CreateStore(B.CreateSelect(emitBeats(B, X, Acc, T, IsMax), X, Acc),
                      VM);
        if (isFloat(T))
          B.CreateStore(
              B.CreateOr(B.CreateLoad(MaskTy, VN), B.CreateFCmpUNO(X, X)), VN);
      });
    });
    Value *Acc = B.CreateLoad(VecTy, VM);
    // The lanes hold no NaN, so maxnum's reduction is just the maximum.
    Value *Reduced = isFloat(T) ? (IsMax ? B.CreateFPMaxReduce(Acc)
                                         : B.CreateFPMinReduce(Acc))
                     : IsMax    ? B.CreateIntMaxReduce(Acc, isSignedInteger(T))
                                : B.CreateIntMinReduce(Acc, isSignedInteger(T));
    B.CreateStore(Reduced, M);
    B.CreateStore(B.CreateOrReduce(B.CreateLoad(MaskTy, VN)), NaN);
  });
  Value *Done = B.CreateMul(NumBlocks, E.constI64(Lanes));
  E.emitLoop(B.CreateSub(N, Done), "t", [&](Value *I) {
    Value *X = E.loadElement(T, E.offset(P, B.CreateAdd(I, Done), Stride));
    Value *Acc = B.CreateLoad(Ty, M);
    B.CreateStore(B.CreateSelect(emitBeats(B, X, Acc, T, IsMax), X, Acc), M);
    if (isFloat(T))
      B.CreateStore(
          B.CreateOr(B.CreateLoad(B.getInt1Ty(), NaN), B.CreateFCmpUNO(X, X)),
          NaN);
  });
  Value *Ret =
      B.CreateInsertValue(PoisonValue::get(RetTy), B.CreateLoad(Ty, M), 0);
  B.CreateRet(B.CreateInsertValue(Ret, B.CreateLoad(B.getInt1Ty(), NaN), 1));
  return F;
}

llvm::Function *graphjit::rowFindFunction(ThunkEmitter &E, DType T) {
  assert(T != DType::Bool && "read bools as u8");
  std::string Name = ("gj_row_find_" + dtypeName(T)).str();
  if (llvm::Function *F = E.M.getFunction(Name))
    return F;
  IRBuilder<> &B = E.B;
  IRBuilderBase::InsertPointGuard Guard(B);
  Type *Ty = E.valueType(T);
  llvm::Function *F = startKernel(
      E, Name, E.i64(),
      {PointerType::getUnqual(E.ctx()), E.i64(), E.i64(), Ty, B.getInt1Ty()});
  Value *P = F->getArg(0), *Stride = F->getArg(1), *N = F->getArg(2),
        *V = F->getArg(3), *WantNaN = F->getArg(4);
  BasicBlock *Entry = B.GetInsertBlock();
  auto Block = [&](const char *BBName) {
    return BasicBlock::Create(E.ctx(), BBName, F);
  };
  BasicBlock *Head = Block("head"), *Body = Block("body"),
             *Next = Block("next"), *Found = Block("found"),
             *NotFound = Block("not.found");
  B.CreateBr(Head);
  B.SetInsertPoint(Head);
  PHINode *I = B.CreatePHI(E.i64(), 2, "i");
  I->addIncoming(E.constI64(0), Entry);
  B.CreateCondBr(B.CreateICmpSLT(I, N), Body, NotFound);
  B.SetInsertPoint(Body);
  Value *X = E.loadElement(T, E.offset(P, I, Stride));
  Value *Hit = isFloat(T) ? B.CreateSelect(WantNaN, B.CreateFCmpUNO(X, X),
                                           B.CreateFCmpOEQ(X, V))
                          : B.CreateICmpEQ(X, V);
  B.CreateCondBr(Hit, Found, Next);
  B.SetInsertPoint(Next);
  I->addIncoming(B.CreateAdd(I, E.constI64(1), "", true, true), Next);
  B.CreateBr(Head);
  B.SetInsertPoint(Found);
  B.CreateRet(I);
  B.SetInsertPoint(NotFound);
  B.CreateRet(N);
  return F;
}

Value *graphjit::emitRowExtreme(ThunkEmitter &E, DType T, bool IsMax,
                                Value *Row, Value *Stride, Value *N) {
  IRBuilder<> &B = E.B;
  DType KT = T == DType::Bool ? DType::U8 : T;
  Value *R = B.CreateCall(rowExtremeFunction(E, KT, IsMax), {Row, Stride, N});
  Value *M = B.CreateExtractValue(R, 0), *NaN = B.CreateExtractValue(R, 1);
  if (!isFloat(T))
    return T == DType::Bool ? B.CreateICmpNE(M, B.getInt8(0)) : M;
  // Only a NaN, or -0.0 against 0.0, needs the first one found.
  Type *Ty = E.valueType(T);
  AllocaInst *V = entryAlloca(E, Ty, "row.extreme");
  B.CreateStore(M, V);
  Value *Zero = B.CreateFCmpOEQ(M, ConstantFP::get(Ty, 0.0));
  emitIf(E, B.CreateOr(NaN, Zero), [&] {
    Value *I = B.CreateCall(rowFindFunction(E, T), {Row, Stride, N, M, NaN});
    B.CreateStore(E.loadElement(T, E.offset(Row, I, Stride)), V);
  });
  return B.CreateLoad(Ty, V);
}
