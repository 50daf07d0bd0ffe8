//===- ElemwiseLowering.cpp - Elemwise Applies as JIT loops --------------===//
//
// The thunk of an Elemwise Apply: gj_prepare (Elemwise::prepare) has
// broadcast the shapes and made the C-contiguous output; this code fills
// it. Two paths, chosen at run time from the slots:
//
//  - flat: every input read is C-contiguous with the output's shape, or
//    statically a single element (0-d, all dims 1). One loop over the
//    elements with unit-stride pointers and hoisted scalars, which LLVM
//    vectorizes.
//  - strided: a loop nest over the output's dims with each input's byte
//    strides (0 where it is broadcast: a missing dim, or a dim of 1 under
//    a larger one). Rows whose operands are all unit-stride (or statically
//    invariant along the row) take a vectorizable row loop; others a
//    scalar one, right for any strides.
//
// The output is a fresh buffer, so its stores carry an alias scope that
// every input load is declared not to alias; the vectorizer then needs no
// run-time overlap checks.
//
//===----------------------------------------------------------------------===//

#include "ElemwiseLoweringKernel.h"
#include "llvm/IR/MDBuilder.h"

using namespace graphjit;
using namespace llvm;

namespace {

/// An input as the loops see it, its dims aligned to the output's right.
struct Operand {
  DType T = DType::F64;
  bool Read = true;
  /// Statically one element (rank 0 or every dim known 1): loaded once.
  bool Scalar = false;
  /// Statically stride 0 along the output's last dim: loaded once a row.
  bool RowInvariant = false;
  Value *Data = nullptr;
  SmallVector<Value *, 8> Dims, Strides; ///< Its own.
  /// Its byte stride per output dim, 0 where it is broadcast.
  SmallVector<Value *, 8> LoopStrides;
};

class ElemwiseEmitter {
public:
  ElemwiseEmitter(ThunkEmitter &E, const ElementKernel &K)
      : E(E), B(E.B), K(K) {}
  void emit();

private:
  ThunkEmitter &E;
  IRBuilder<> &B;
  const ElementKernel &K;
  SmallVector<Operand, 4> Ops;
  Operand Out;
  unsigned Rank = 0;
  MDNode *OutScope = nullptr; ///< The output buffer's alias scope list.

  void loadOperand(Operand &Op, const Variable *V);
  Value *load(DType T, Value *Ptr);
  void store(DType T, Value *V, Value *Ptr);
  Value *size(DType T) { return E.constI64(dtypeSize(T)); }
  Value *isContiguous(const Operand &Op);
  Value *isFlat(Value *NumElements);
  Value *unitRows();

  /// Computes and stores one element: Hoisted[k] is input k's converted
  /// value where it is loop-invariant, else Addr(k) is where to load it.
  void emitElement(ArrayRef<Value *> Hoisted,
                   function_ref<Value *(unsigned I)> Addr, Value *OutPtr);
  /// Input K loaded at Ptr and converted to its compute dtype.
  Value *loadInput(unsigned I, Value *Ptr) {
    return K.convertInput(E, I, load(Ops[I].T, Ptr));
  }
  void emitFlat(Value *NumElements);
  void emitStrided(Value *UnitRows);
  void emitRow(ArrayRef<Value *> Index, Value *UnitRows);
};

} // namespace

void ElemwiseEmitter::loadOperand(Operand &Op, const Variable *V) {
  const TensorType &Ty = V->type();
  Op.T = Ty.Dtype;
  Op.Data = E.data(V);
  unsigned Off = Rank - Ty.rank();
  Op.Scalar = llvm::all_of(Ty.Dims, [](const Dim &D) { return D.Size == 1; });
  Op.RowInvariant = Op.Scalar || Ty.Dims.back().Size == 1;
  for (unsigned D = 0; D < Ty.rank(); ++D) {
    Op.Dims.push_back(E.dim(V, D));
    Op.Strides.push_back(E.stride(V, D));
  }
  for (unsigned D = 0; D < Rank; ++D) {
    if (D < Off || Ty.Dims[D - Off].Size == 1) {
      Op.LoopStrides.push_back(E.constI64(0));
      continue;
    }
    // A dim of 1 repeats its element; under a dim of 1 the stride is moot.
    unsigned J = D - Off;
    Value *One = B.CreateICmpEQ(Op.Dims[J], E.constI64(1));
    Op.LoopStrides.push_back(
        B.CreateSelect(One, E.constI64(0), Op.Strides[J], "bstride"));
  }
}

Value *ElemwiseEmitter::load(DType T, Value *Ptr) {
  LoadInst *L = B.CreateLoad(E.memoryType(T), Ptr);
  L->setMetadata(LLVMContext::MD_noalias, OutScope);
  return T == DType::Bool ? B.CreateICmpNE(L, B.getInt8(0)) : L;
}

void ElemwiseEmitter::store(DType T, Value *V, Value *Ptr) {
  if (T == DType::Bool)
    V = B.CreateZExt(V, B.getInt8Ty());
  StoreInst *S = B.CreateStore(V, Ptr);
  S->setMetadata(LLVMContext::MD_alias_scope, OutScope);
}

// C-contiguous: going outwards, each dim of size other than 1 steps over
// all the elements inside it.
Value *ElemwiseEmitter::isContiguous(const Operand &Op) {
  Value *Ok = B.getTrue();
  Value *Step = size(Op.T);
  for (unsigned D = Op.Dims.size(); D-- > 0;) {
    Value *Unit = B.CreateICmpEQ(Op.Dims[D], E.constI64(1));
    Value *Dense = B.CreateICmpEQ(Op.Strides[D], Step);
    Ok = B.CreateAnd(Ok, B.CreateOr(Unit, Dense));
    Step = B.CreateMul(Step, Op.Dims[D]);
  }
  return Ok;
}

// Whether the flat loop may run: every varying input holds as many
// elements as the (non-empty) output, hence its shape up to leading 1s,
// in C order. The output is prepare()'s fresh C-contiguous array.
Value *ElemwiseEmitter::isFlat(Value *NumElements) {
  Value *Ok = B.getTrue();
  for (const Operand &Op : Ops) {
    if (!Op.Read || Op.Scalar)
      continue;
    Value *N = E.constI64(1);
    for (Value *D : Op.Dims)
      N = B.CreateMul(N, D);
    Ok = B.CreateAnd(Ok, B.CreateICmpEQ(N, NumElements));
    Ok = B.CreateAnd(Ok, isContiguous(Op));
  }
  return Ok;
}

// Whether every row can use unit-stride pointers: the output and each
// input that varies along the row step one element at a time.
Value *ElemwiseEmitter::unitRows() {
  Value *Ok = B.CreateICmpEQ(Out.Strides[Rank - 1], size(Out.T));
  for (const Operand &Op : Ops)
    if (Op.Read && !Op.RowInvariant)
      Ok = B.CreateAnd(
          Ok, B.CreateICmpEQ(Op.LoopStrides[Rank - 1], size(Op.T)));
  return Ok;
}

void ElemwiseEmitter::emitElement(ArrayRef<Value *> Hoisted,
                                  function_ref<Value *(unsigned I)> Addr,
                                  Value *OutPtr) {
  SmallVector<Value *, 4> In(Ops.size(), nullptr);
  for (unsigned I = 0; I < Ops.size(); ++I)
    if (Ops[I].Read)
      In[I] = Hoisted[I] ? Hoisted[I] : loadInput(I, Addr(I));
  store(Out.T, K.compute(E, In), OutPtr);
}

void ElemwiseEmitter::emitFlat(Value *NumElements) {
  SmallVector<Value *, 4> Hoisted(Ops.size(), nullptr);
  for (unsigned I = 0; I < Ops.size(); ++I)
    if (Ops[I].Read && Ops[I].Scalar)
      Hoisted[I] = loadInput(I, Ops[I].Data);
  E.emitLoop(NumElements, "flat", [&](Value *J) {
    emitElement(
        Hoisted,
        [&](unsigned I) {
          return B.CreateInBoundsGEP(E.memoryType(Ops[I].T), Ops[I].Data, J);
        },
        B.CreateInBoundsGEP(E.memoryType(Out.T), Out.Data, J));
  });
}

void ElemwiseEmitter::emitStrided(Value *UnitRows) {
  ArrayRef<Value *> Outer = ArrayRef(Out.Dims).drop_back();
  E.emitLoopNest(Outer, [&](ArrayRef<Value *> Index) {
    emitRow(Index, UnitRows);
  });
}

void ElemwiseEmitter::emitRow(ArrayRef<Value *> Index, Value *UnitRows) {
  // Where each operand's row starts.
  auto RowStart = [&](const Operand &Op) {
    Value *Offset = E.constI64(0);
    for (unsigned D = 0; D < Index.size(); ++D)
      Offset = B.CreateAdd(Offset, B.CreateMul(Index[D], Op.LoopStrides[D]));
    return B.CreateInBoundsGEP(B.getInt8Ty(), Op.Data, Offset);
  };
  Value *OutRow = RowStart(Out);
  SmallVector<Value *, 4> Row(Ops.size(), nullptr);
  SmallVector<Value *, 4> Hoisted(Ops.size(), nullptr);
  for (unsigned I = 0; I < Ops.size(); ++I) {
    if (!Ops[I].Read)
      continue;
    Row[I] = RowStart(Ops[I]);
    if (Ops[I].RowInvariant)
      Hoisted[I] = loadInput(I, Row[I]);
  }
  Value *Count = Out.Dims[Rank - 1];

  Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *Unit = BasicBlock::Create(E.ctx(), "row.unit", F);
  BasicBlock *Strided = BasicBlock::Create(E.ctx(), "row.strided", F);
  BasicBlock *Next = BasicBlock::Create(E.ctx(), "row.next", F);
  B.CreateCondBr(UnitRows, Unit, Strided);

  B.SetInsertPoint(Unit);
  E.emitLoop(Count, "unit", [&](Value *J) {
    emitElement(
        Hoisted,
        [&](unsigned I) {
          return B.CreateInBoundsGEP(E.memoryType(Ops[I].T), Row[I], J);
        },
        B.CreateInBoundsGEP(E.memoryType(Out.T), OutRow, J));
  });
  B.CreateBr(Next);

  B.SetInsertPoint(Strided);
  E.emitLoop(Count, "strided", [&](Value *J) {
    emitElement(
        Hoisted,
        [&](unsigned I) {
          return E.offset(Row[I], J, Ops[I].LoopStrides[Rank - 1]);
        },
        E.offset(OutRow, J, Out.Strides[Rank - 1]));
  });
  B.CreateBr(Next);
  B.SetInsertPoint(Next);
}

void ElemwiseEmitter::emit() {
  const Apply &N = E.Node;
  const Variable *OutVar = N.output(0);
  Rank = OutVar->type().rank();
  MDBuilder MDB(E.ctx());
  MDNode *Domain = MDB.createAnonymousAliasScopeDomain("gj.elemwise");
  OutScope = MDNode::get(
      E.ctx(), {MDB.createAnonymousAliasScope(Domain, "gj.elemwise.out")});

  // Every slot field is read up front: the output's stores cannot then
  // be suspected of changing them.
  Out.T = K.outputType();
  Out.Data = E.data(OutVar);
  for (unsigned D = 0; D < Rank; ++D) {
    Out.Dims.push_back(E.dim(OutVar, D));
    Out.Strides.push_back(E.stride(OutVar, D));
  }
  for (unsigned I = 0; I < N.inputs().size(); ++I) {
    Ops.emplace_back();
    Ops.back().Read = K.reads(I);
    if (Ops.back().Read)
      loadOperand(Ops.back(), N.inputs()[I]);
  }
  Value *NumElements = E.constI64(1);
  for (Value *D : Out.Dims)
    NumElements = B.CreateMul(NumElements, D, "", /*HasNUW=*/true,
                              /*HasNSW=*/true);

  Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *Done = BasicBlock::Create(E.ctx(), "elemwise.done", F);
  BasicBlock *Check = BasicBlock::Create(E.ctx(), "elemwise.check", F);
  B.CreateCondBr(B.CreateICmpEQ(NumElements, E.constI64(0)), Done, Check);
  B.SetInsertPoint(Check);
  Value *Flat = isFlat(NumElements);
  // Only loop-invariant inputs (a 0-d output, say): nothing else to emit.
  if (auto *C = dyn_cast<ConstantInt>(Flat); C && C->isOne()) {
    emitFlat(NumElements);
    B.CreateBr(Done);
    B.SetInsertPoint(Done);
    return;
  }
  Value *UnitRows = unitRows();
  BasicBlock *FlatBB = BasicBlock::Create(E.ctx(), "elemwise.flat", F);
  BasicBlock *StridedBB = BasicBlock::Create(E.ctx(), "elemwise.strided", F);
  B.CreateCondBr(Flat, FlatBB, StridedBB);
  B.SetInsertPoint(FlatBB);
  emitFlat(NumElements);
  B.CreateBr(Done);
  B.SetInsertPoint(StridedBB);
  emitStrided(UnitRows);
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
}

static Error emitElemwise(ThunkEmitter &E) {
  Expected<ElementKernel> K = ElementKernel::get(E.Node);
  if (!K)
    return K.takeError();
  ElemwiseEmitter(E, *K).emit();
  return Error::success();
}

// Every Elemwise that type-checked has a signature, hence kernels; ranks
// beyond the slots never get here (findLowering).
static bool supportsElemwise(const Apply &N) {
  Expected<ElementKernel> K = ElementKernel::get(N);
  if (!K) {
    consumeError(K.takeError());
    return false;
  }
  return true;
}

void graphjit::registerElemwiseLowerings() {
  registerLowering("Elemwise",
                   Lowering{/*NeedsPrepare=*/true, &emitElemwise,
                            &supportsElemwise});
}
