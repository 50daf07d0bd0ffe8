//===- StructuralLoweringUtil.cpp - IR helpers of the lowerings ----------===//

#include "StructuralLoweringUtil.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Function.h"

using namespace graphjit;
using namespace llvm;

ArrayValues graphjit::loadArray(ThunkEmitter &E, const Variable *V) {
  ArrayValues A;
  A.Data = E.data(V);
  for (unsigned D = 0; D < V->type().rank(); ++D) {
    A.Dims.push_back(E.dim(V, D));
    A.Strides.push_back(E.stride(V, D));
  }
  return A;
}

Value *graphjit::advance(ThunkEmitter &E, Value *Base, ArrayRef<Value *> Index,
                         ArrayRef<Value *> Strides) {
  assert(Index.size() == Strides.size() && "one stride per index");
  if (Index.empty())
    return Base;
  // Sum the byte offsets first: one GEP per pointer.
  Value *Off = E.B.CreateMul(Index[0], Strides[0]);
  for (size_t I = 1; I < Index.size(); ++I)
    Off = E.B.CreateAdd(Off, E.B.CreateMul(Index[I], Strides[I]));
  return E.B.CreateGEP(E.B.getInt8Ty(), Base, Off);
}

AllocaInst *graphjit::entryAlloca(ThunkEmitter &E, Type *T, const Twine &Name) {
  BasicBlock &Entry = E.B.GetInsertBlock()->getParent()->getEntryBlock();
  IRBuilder<> AB(&Entry, Entry.getFirstInsertionPt());
  return AB.CreateAlloca(T, nullptr, Name);
}

void graphjit::failUnlessBroadcasts(ThunkEmitter &E, const Variable *V,
                                    ArrayRef<Value *> To) {
  const unsigned Rank = V->type().rank(), Off = To.size() - Rank;
  for (unsigned I = 0; I < Rank; ++I) {
    const Dim &From = V->type().Dims[I];
    auto *Target = dyn_cast<ConstantInt>(To[Off + I]);
    if (From.isKnown() &&
        (From.Size == 1 || (Target && Target->getSExtValue() == From.Size)))
      continue;
    Value *Size = E.dim(V, I);
    E.failUnless(E.B.CreateOr(E.B.CreateICmpEQ(Size, E.constI64(1)),
                              E.B.CreateICmpEQ(Size, To[Off + I])),
                 "broadcasts");
  }
}

void graphjit::emitIf(ThunkEmitter &E, Value *Cond, function_ref<void()> Then) {
  llvm::Function *F = E.B.GetInsertBlock()->getParent();
  BasicBlock *ThenBB = BasicBlock::Create(E.ctx(), "then", F);
  BasicBlock *Done = BasicBlock::Create(E.ctx(), "endif", F);
  E.B.CreateCondBr(Cond, ThenBB, Done);
  E.B.SetInsertPoint(ThenBB);
  Then();
  E.B.CreateBr(Done);
  E.B.SetInsertPoint(Done);
}

void graphjit::emitIfElse(ThunkEmitter &E, Value *Cond, const Twine &Name,
                          function_ref<void()> Then,
                          function_ref<void()> Else) {
  llvm::Function *F = E.B.GetInsertBlock()->getParent();
  BasicBlock *ThenBB = BasicBlock::Create(E.ctx(), Name + ".then", F);
  BasicBlock *ElseBB = BasicBlock::Create(E.ctx(), Name + ".else", F);
  BasicBlock *Join = BasicBlock::Create(E.ctx(), Name + ".join", F);
  E.B.CreateCondBr(Cond, ThenBB, ElseBB);
  E.B.SetInsertPoint(ThenBB);
  Then();
  E.B.CreateBr(Join);
  E.B.SetInsertPoint(ElseBB);
  Else();
  E.B.CreateBr(Join);
  E.B.SetInsertPoint(Join);
}

/// The loop ID that keeps LLVM from vectorizing, interleaving or unrolling
/// a loop: strided rows gain little from either, and code size is compile
/// time.
static MDNode *scalarLoopID(LLVMContext &C) {
  auto Flag = [&](const char *Name) {
    return MDNode::get(
        C, {MDString::get(C, Name),
            ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(C), 1))});
  };
  MDNode *ID = MDNode::getDistinct(
      C, {nullptr, Flag("llvm.loop.vectorize.width"),
          Flag("llvm.loop.interleave.count"),
          MDNode::get(C, MDString::get(C, "llvm.loop.unroll.disable"))});
  ID->replaceOperandWith(0, ID);
  return ID;
}

void graphjit::emitRowLoop(ThunkEmitter &E, Value *Count,
                           ArrayRef<RowOperand> Ops,
                           function_ref<void(Value *, ArrayRef<Value *>)> Body,
                           bool Versioned) {
  IRBuilder<> &B = E.B;
  SmallVector<Value *, 4> Ptrs(Ops.size());
  auto Strided = [&] {
    BasicBlock *Before = B.GetInsertBlock();
    E.emitLoop(Count, "s", [&](Value *I) {
      for (size_t K = 0; K < Ops.size(); ++K)
        Ptrs[K] = E.offset(Ops[K].Base, I, Ops[K].Stride);
      Body(I, Ptrs);
    });
    // emitLoop's header follows Before; its other predecessor is the latch.
    BasicBlock *Header = Before->getTerminator()->getSuccessor(0);
    for (BasicBlock *Pred : predecessors(Header))
      if (Pred != Before)
        Pred->getTerminator()->setMetadata(LLVMContext::MD_loop,
                                           scalarLoopID(E.ctx()));
  };
  if (!Versioned) {
    Strided();
    return;
  }
  Value *Contiguous = B.getTrue();
  for (const RowOperand &Op : Ops)
    Contiguous = B.CreateAnd(
        Contiguous,
        B.CreateICmpEQ(Op.Stride, E.constI64(int64_t(dtypeSize(Op.T)))));
  llvm::Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *Fast = BasicBlock::Create(E.ctx(), "row.contiguous", F);
  BasicBlock *Slow = BasicBlock::Create(E.ctx(), "row.strided", F);
  BasicBlock *Done = BasicBlock::Create(E.ctx(), "row.done", F);
  B.CreateCondBr(Contiguous, Fast, Slow);
  B.SetInsertPoint(Fast);
  E.emitLoop(Count, "c", [&](Value *I) {
    for (size_t K = 0; K < Ops.size(); ++K)
      Ptrs[K] = B.CreateInBoundsGEP(E.memoryType(Ops[K].T), Ops[K].Base, I);
    Body(I, Ptrs);
  });
  B.CreateBr(Done);
  B.SetInsertPoint(Slow);
  Strided();
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
}

void graphjit::emitStridedNest(ThunkEmitter &E, ArrayRef<Value *> Extents,
                               ArrayRef<Value *> Bases,
                               ArrayRef<SmallVector<Value *, 8>> Strides,
                               function_ref<void(ArrayRef<Value *>)> Body) {
  E.emitLoopNest(Extents, [&](ArrayRef<Value *> Index) {
    SmallVector<Value *, 4> Ptrs;
    for (size_t K = 0; K < Bases.size(); ++K)
      Ptrs.push_back(advance(E, Bases[K], Index, Strides[K]));
    Body(Ptrs);
  });
}

/// Emits Nest(Dims, Strides...) for arrays whose last dim is short (a
/// column or two of a join, a fill of (n, 1)) with the two innermost dims
/// swapped, so that the long one is the inner loop: row by row, each
/// element would pay a loop's entry. Strides holds each operand's strides.
static void emitShortRowsSwapped(
    ThunkEmitter &E, ArrayRef<Value *> Dims,
    ArrayRef<SmallVector<Value *, 8>> Strides,
    function_ref<void(ArrayRef<Value *>,
                      ArrayRef<SmallVector<Value *, 8>>)>
        Nest) {
  const size_t N = Dims.size();
  if (N < 2)
    return Nest(Dims, Strides);
  IRBuilder<> &B = E.B;
  Value *Short =
      B.CreateAnd(B.CreateICmpSLT(Dims[N - 1], E.constI64(ShortCopyRow)),
                  B.CreateICmpSGT(Dims[N - 2], Dims[N - 1]));
  SmallVector<Value *, 8> SwappedDims(Dims.begin(), Dims.end());
  std::swap(SwappedDims[N - 1], SwappedDims[N - 2]);
  SmallVector<SmallVector<Value *, 8>, 2> SwappedStrides(Strides.begin(),
                                                         Strides.end());
  for (auto &S : SwappedStrides)
    std::swap(S[N - 1], S[N - 2]);
  emitIfElse(
      E, Short, "short.rows", [&] { Nest(SwappedDims, SwappedStrides); },
      [&] { Nest(Dims, Strides); });
}

void graphjit::emitCopy(ThunkEmitter &E, ArrayRef<Value *> Dims, Value *Dst,
                        ArrayRef<Value *> DstStrides, DType DstT, Value *Src,
                        ArrayRef<Value *> SrcStrides, DType SrcT) {
  auto CopyOne = [&](Value *D, Value *S) {
    E.storeElement(DstT, E.convert(E.loadElement(SrcT, S), SrcT, DstT), D);
  };
  if (Dims.empty()) {
    CopyOne(Dst, Src);
    return;
  }
  SmallVector<Value *, 8> DS(DstStrides.begin(), DstStrides.end()),
      SS(SrcStrides.begin(), SrcStrides.end());
  emitShortRowsSwapped(
      E, Dims, {DS, SS},
      [&](ArrayRef<Value *> Ds, ArrayRef<SmallVector<Value *, 8>> St) {
        size_t Last = Ds.size() - 1;
        SmallVector<Value *, 8> DstOuter(St[0].begin(), St[0].end() - 1);
        SmallVector<Value *, 8> SrcOuter(St[1].begin(), St[1].end() - 1);
        emitStridedNest(E, Ds.drop_back(), {Dst, Src}, {DstOuter, SrcOuter},
                        [&](ArrayRef<Value *> P) {
                          emitRowLoop(E, Ds[Last],
                                      {{P[0], St[0][Last], DstT},
                                       {P[1], St[1][Last], SrcT}},
                                      [&](Value *, ArrayRef<Value *> Ptrs) {
                                        CopyOne(Ptrs[0], Ptrs[1]);
                                      });
                        });
      });
}

void graphjit::emitFill(ThunkEmitter &E, ArrayRef<Value *> Dims, Value *Dst,
                        ArrayRef<Value *> DstStrides, DType T, Value *V) {
  if (Dims.empty()) {
    E.storeElement(T, V, Dst);
    return;
  }
  // One walk through as much as one stride covers: a contiguous fill is
  // one row, and a column of (n, 1) is a row of n.
  SmallVector<Value *, 8> DD(Dims.begin(), Dims.end()),
      DS(DstStrides.begin(), DstStrides.end());
  coalesceDims(E, DD, DS);
  emitShortRowsSwapped(
      E, DD, {DS},
      [&](ArrayRef<Value *> Ds, ArrayRef<SmallVector<Value *, 8>> St) {
        size_t Last = Ds.size() - 1;
        SmallVector<Value *, 8> Outer(St[0].begin(), St[0].end() - 1);
        emitStridedNest(E, Ds.drop_back(), {Dst}, {Outer},
                        [&](ArrayRef<Value *> P) {
                          emitRowLoop(E, Ds[Last], {{P[0], St[0][Last], T}},
                                      [&](Value *, ArrayRef<Value *> Ptrs) {
                                        E.storeElement(T, V, Ptrs[0]);
                                      });
                        });
      });
}

void graphjit::coalesceDims(ThunkEmitter &E, SmallVectorImpl<Value *> &Dims,
                            SmallVectorImpl<Value *> &Strides) {
  IRBuilder<> &B = E.B;
  Value *One = E.constI64(1), *Zero = E.constI64(0);
  const unsigned K = Dims.size();
  if (K == 0) {
    // A walk over no dims visits one element.
    Dims.assign({One});
    Strides.assign({Zero});
    return;
  }
  if (K == 1)
    return; // Nothing to merge; a dim of size 1 is a row of one.
  // Merge from the innermost dim outwards (the same merges as the
  // reference's left-to-right pass: each test compares neighbours).
  // Filled entries are [K - Filled, K); the top one is the outermost so far.
  // Selects rather than branches: this runs once per call.
  SmallVector<Value *, 8> CD(K, One), CS(K, Zero);
  Value *Filled = Zero;
  for (int R = int(K) - 1; R >= 0; --R) {
    Value *D = Dims[R], *S = Strides[R];
    Value *Top = B.CreateSub(E.constI64(K), Filled);
    Value *TopD = One, *TopS = Zero;
    for (unsigned J = 0; J < K; ++J) {
      Value *IsTop = B.CreateICmpEQ(Top, E.constI64(J));
      TopD = B.CreateSelect(IsTop, CD[J], TopD);
      TopS = B.CreateSelect(IsTop, CS[J], TopS);
    }
    Value *NotOne = B.CreateICmpNE(D, One);
    // The outer dim continues the group when its stride spans it.
    Value *Merge =
        B.CreateAnd(B.CreateAnd(NotOne, B.CreateICmpSGT(Filled, Zero)),
                    B.CreateICmpEQ(S, B.CreateMul(TopS, TopD)));
    Value *Push = B.CreateAnd(NotOne, B.CreateNot(Merge));
    Value *NewAt = B.CreateSub(Top, One);
    for (unsigned J = 0; J < K; ++J) {
      Value *MergeHere = B.CreateAnd(Merge, B.CreateICmpEQ(Top, E.constI64(J)));
      Value *PushHere = B.CreateAnd(Push, B.CreateICmpEQ(NewAt, E.constI64(J)));
      CD[J] = B.CreateSelect(MergeHere, B.CreateMul(TopD, D),
                             B.CreateSelect(PushHere, D, CD[J]));
      CS[J] = B.CreateSelect(PushHere, S, CS[J]);
    }
    Filled = B.CreateAdd(Filled, B.CreateZExt(Push, E.i64()));
  }
  Dims.assign(CD.begin(), CD.end());
  Strides.assign(CS.begin(), CS.end());
}

// Per output dim, a dim other than 1 sets it and any other must agree.
void graphjit::emitBroadcastDims(ThunkEmitter &E,
                                 SmallVectorImpl<Value *> &Out) {
  const Apply &N = E.Node;
  IRBuilder<> &B = E.B;
  unsigned Rank = N.output(0)->type().rank();
  Out.assign(Rank, E.constI64(1));
  Value *Ok = B.getTrue();
  for (const Variable *In : N.inputs()) {
    const TensorType &T = In->type();
    unsigned Off = Rank - T.rank();
    for (unsigned D = 0; D < T.rank(); ++D) {
      if (T.Dims[D].isKnown() && T.Dims[D].Size == 1)
        continue;
      Value *X = E.dim(In, D), *&O = Out[Off + D];
      if (auto *C = dyn_cast<ConstantInt>(O); C && C->isOne()) {
        O = X;
        continue;
      }
      Value *IsOne = B.CreateICmpEQ(X, E.constI64(1));
      Ok = B.CreateAnd(Ok, B.CreateOr(IsOne, B.CreateOr(
                                                 B.CreateICmpEQ(X, O),
                                                 B.CreateICmpEQ(O, E.constI64(1)))));
      O = B.CreateSelect(B.CreateICmpEQ(O, E.constI64(1)), X, O);
    }
  }
  E.failUnless(Ok, "broadcasts");
}

void graphjit::computeUnless(ThunkEmitter &E, Value *Ok, const Twine &BadName,
                             const Twine &GoodName) {
  IRBuilder<> &B = E.B;
  llvm::Function *Thunk = B.GetInsertBlock()->getParent();
  BasicBlock *Bad = BasicBlock::Create(E.ctx(), BadName, Thunk);
  BasicBlock *Good = BasicBlock::Create(E.ctx(), GoodName, Thunk);
  B.CreateCondBr(Ok, Good, Bad);
  B.SetInsertPoint(Bad);
  B.CreateRet(E.callNodeEntry("gj_compute"));
  B.SetInsertPoint(Good);
}

Value *graphjit::checkedIndex(ThunkEmitter &E, Value *V, Value *Len) {
  IRBuilder<> &B = E.B;
  computeUnless(E,
                B.CreateAnd(B.CreateICmpSGE(V, B.CreateNeg(Len)),
                            B.CreateICmpSLT(V, Len)),
                "index.out.of.range", "index.ok");
  return B.CreateSelect(B.CreateICmpSLT(V, B.getInt64(0)),
                        B.CreateAdd(V, Len), V, "index");
}
