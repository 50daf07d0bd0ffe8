//===- ElemwiseLowering.cpp - Elemwise Applies as JIT loops --------------===//
//
// The thunk of an Elemwise Apply: gj_prepare (Elemwise::prepare) has
// broadcast the shapes and made the C-contiguous output; this code fills
// it. Two paths, chosen at run time from the slots:
//
//  - flat: every input read is C-contiguous with the output's shape, or
//    statically a single element (0-d, all dims 1). One loop over the
//    elements with unit-stride pointers and hoisted scalars, which LLVM
//    vectorizes. Outputs too large for the cache are streamed out with
//    non-temporal stores.
//  - strided: a loop nest over the output's dims with each input's byte
//    strides (0 where it is broadcast: a missing dim, or a dim of 1 under
//    a larger one). Rows whose inputs are all unit-stride (or statically
//    invariant along the row) take a unit-stride row loop; others one with
//    the inputs' byte strides, right for any strides (negative, 0). The
//    output's rows are always dense: prepare() made it C-contiguous.
//
// The output is a fresh buffer, so its stores carry an alias scope that
// every input load is declared not to alias; the vectorizer then needs no
// run-time overlap checks.
//
//===----------------------------------------------------------------------===//

#include "ElemwiseLowering.h"
#include "ElemwiseLoweringKernel.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/MDBuilder.h"
#include <atomic>
#include <unistd.h>

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

  /// One output element: Hoisted[k] is input k's converted value where it
  /// is loop-invariant, else Addr(k) is where to load it.
  Value *computeElement(ArrayRef<Value *> Hoisted,
                        function_ref<Value *(unsigned I)> Addr);
  void emitElement(ArrayRef<Value *> Hoisted,
                   function_ref<Value *(unsigned I)> Addr, Value *OutPtr) {
    store(Out.T, computeElement(Hoisted, Addr), OutPtr);
  }
  /// Input I loaded at Ptr and converted to its compute dtype.
  Value *loadInput(unsigned I, Value *Ptr) {
    return K.convertInput(E, I, load(Ops[I].T, Ptr));
  }
  SmallVector<Value *, 4> hoistScalars();
  /// Flat elements [Begin, End).
  void emitFlat(Value *Begin, Value *End, ArrayRef<Value *> Hoisted);
  void emitStreaming(Value *NumElements);
  void emitFlatOrStreaming(Value *NumElements);
  /// `if (Cond) Then(); else Else();`, leaving the builder after both.
  void emitIf(Value *Cond, StringRef Name, function_ref<void()> Then,
              function_ref<void()> Else);
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

// Whether every row can use unit-stride pointers: each input that varies
// along the row steps one element at a time (the output always does).
Value *ElemwiseEmitter::unitRows() {
  Value *Ok = B.getTrue();
  for (const Operand &Op : Ops)
    if (Op.Read && !Op.RowInvariant)
      Ok = B.CreateAnd(
          Ok, B.CreateICmpEQ(Op.LoopStrides[Rank - 1], size(Op.T)));
  return Ok;
}

Value *ElemwiseEmitter::computeElement(ArrayRef<Value *> Hoisted,
                                       function_ref<Value *(unsigned I)> Addr) {
  SmallVector<Value *, 4> In(Ops.size(), nullptr);
  for (unsigned I = 0; I < Ops.size(); ++I)
    if (Ops[I].Read)
      In[I] = Hoisted[I] ? Hoisted[I] : loadInput(I, Addr(I));
  return K.compute(E, In);
}

SmallVector<Value *, 4> ElemwiseEmitter::hoistScalars() {
  SmallVector<Value *, 4> Hoisted(Ops.size(), nullptr);
  for (unsigned I = 0; I < Ops.size(); ++I)
    if (Ops[I].Read && Ops[I].Scalar)
      Hoisted[I] = loadInput(I, Ops[I].Data);
  return Hoisted;
}

void ElemwiseEmitter::emitFlat(Value *Begin, Value *End,
                               ArrayRef<Value *> Hoisted) {
  E.emitLoop(B.CreateSub(End, Begin), "flat", [&](Value *I) {
    Value *J = B.CreateAdd(Begin, I, "j", /*HasNUW=*/true, /*HasNSW=*/true);
    emitElement(
        Hoisted,
        [&](unsigned Arg) {
          return B.CreateInBoundsGEP(E.memoryType(Ops[Arg].T), Ops[Arg].Data,
                                     J);
        },
        B.CreateInBoundsGEP(E.memoryType(Out.T), Out.Data, J));
  });
}

// The size of the chunks the streaming loop computes into a buffer on the
// stack: small enough to stay in L1, a whole number of cache lines.
static constexpr unsigned ChunkBytes = 1024;
static constexpr unsigned LineBytes = 64;

// Large outputs are written with non-temporal stores: they would not stay
// in the cache anyway, and streaming them saves the read of each line
// before it is overwritten (memcpy does the same). The vectorizer only
// makes non-temporal stores of aligned vectors, which element stores are
// not; so chunks are computed into an aligned stack buffer by a loop it
// vectorizes, then streamed out a line at a time. For cheap kernels LLVM
// unrolls the chunk and keeps the buffer in registers.
void ElemwiseEmitter::emitStreaming(Value *NumElements) {
  Function *F = B.GetInsertBlock()->getParent();
  IRBuilder<> EntryB(&F->getEntryBlock(), F->getEntryBlock().begin());
  AllocaInst *Chunk =
      EntryB.CreateAlloca(ArrayType::get(B.getInt8Ty(), ChunkBytes), nullptr,
                          "chunk");
  Chunk->setAlignment(Align(LineBytes));
  Value *ChunkSize = E.constI64(ChunkBytes);
  B.CreateLifetimeStart(Chunk, cast<ConstantInt>(ChunkSize));

  unsigned PerChunk = ChunkBytes / dtypeSize(Out.T);
  Value *NumChunks = B.CreateUDiv(NumElements, E.constI64(PerChunk));
  SmallVector<Value *, 4> Hoisted = hoistScalars();
  Type *OutTy = E.memoryType(Out.T);
  Type *LineTy = FixedVectorType::get(B.getInt64Ty(), LineBytes / 8);
  MDNode *NonTemporal = MDNode::get(
      E.ctx(), ConstantAsMetadata::get(B.getInt32(1)));
  E.emitLoop(NumChunks, "chunks", [&](Value *C) {
    Value *Begin = B.CreateMul(C, E.constI64(PerChunk), "", true, true);
    E.emitLoop(E.constI64(PerChunk), "chunk", [&](Value *I) {
      Value *J = B.CreateAdd(Begin, I, "j", true, true);
      Value *V = computeElement(Hoisted, [&](unsigned Arg) {
        return B.CreateInBoundsGEP(E.memoryType(Ops[Arg].T), Ops[Arg].Data, J);
      });
      if (Out.T == DType::Bool)
        V = B.CreateZExt(V, B.getInt8Ty());
      B.CreateStore(V, B.CreateInBoundsGEP(OutTy, Chunk, I));
    });
    Value *Dst = B.CreateInBoundsGEP(OutTy, Out.Data, Begin);
    for (unsigned L = 0; L < ChunkBytes / LineBytes; ++L) {
      Value *Line = B.CreateAlignedLoad(
          LineTy, B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Chunk,
                                               L * LineBytes),
          Align(LineBytes));
      StoreInst *S = B.CreateAlignedStore(
          Line,
          B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Dst, L * LineBytes),
          Align(LineBytes));
      S->setMetadata(LLVMContext::MD_nontemporal, NonTemporal);
      S->setMetadata(LLVMContext::MD_alias_scope, OutScope);
    }
  });
  B.CreateLifetimeEnd(Chunk, cast<ConstantInt>(ChunkSize));
  emitFlat(B.CreateMul(NumChunks, E.constI64(PerChunk), "", true, true),
           NumElements, Hoisted);
  // Non-temporal stores are weakly ordered: make them visible before
  // anything after the thunk (another thread, say) looks at the output.
  B.CreateFence(AtomicOrdering::SequentiallyConsistent);
}

// Outputs from half the last-level cache on are streamed: they would
// evict most of it anyway (memcpy's rule is similar). The JIT compiles for
// this host.
static std::atomic<uint64_t> &streamingThreshold() {
  static std::atomic<uint64_t> Bytes([] {
    long LLC = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
    LLC = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    return LLC > 0 ? uint64_t(LLC) / 2 : uint64_t(8) << 20;
  }());
  return Bytes;
}

uint64_t graphjit::elemwiseStreamingThreshold() {
  return streamingThreshold().load();
}

void graphjit::setElemwiseStreamingThreshold(uint64_t Bytes) {
  streamingThreshold().store(Bytes);
}

void ElemwiseEmitter::emitFlatOrStreaming(Value *NumElements) {
  Value *Bytes = B.CreateMul(NumElements, size(Out.T));
  Value *Big =
      B.CreateICmpUGE(Bytes, E.constI64(elemwiseStreamingThreshold()));
  // prepare()'s buffers are aligned to a cache line; a check costs nothing.
  Value *Aligned = B.CreateICmpEQ(
      B.CreateAnd(B.CreatePtrToInt(Out.Data, B.getInt64Ty()),
                  LineBytes - 1),
      E.constI64(0));
  emitIf(
      B.CreateAnd(Big, Aligned), "stream",
      [&] { emitStreaming(NumElements); },
      [&] { emitFlat(E.constI64(0), NumElements, hoistScalars()); });
}

// Marks the loop emitLoop() just made, entered from Pre and left to Exit,
// as not to be vectorized. Strided loads become gathers, which save little
// over scalar loads while compiling a large loop.
static void keepScalar(BasicBlock *Pre, BasicBlock *Exit) {
  BasicBlock *Header = Exit->getSinglePredecessor();
  LLVMContext &C = Exit->getContext();
  for (BasicBlock *Latch : predecessors(Header)) {
    if (Latch == Pre)
      continue;
    Metadata *Off[] = {MDString::get(C, "llvm.loop.vectorize.enable"),
                       ConstantAsMetadata::get(ConstantInt::getFalse(C))};
    MDNode *Loop = MDNode::getDistinct(C, {nullptr, MDNode::get(C, Off)});
    Loop->replaceOperandWith(0, Loop);
    Latch->getTerminator()->setMetadata(LLVMContext::MD_loop, Loop);
  }
}

void ElemwiseEmitter::emitIf(Value *Cond, StringRef Name,
                             function_ref<void()> Then,
                             function_ref<void()> Else) {
  Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *ThenBB = BasicBlock::Create(E.ctx(), Name + ".then", F);
  BasicBlock *ElseBB = BasicBlock::Create(E.ctx(), Name + ".else", F);
  BasicBlock *Join = BasicBlock::Create(E.ctx(), Name + ".join", F);
  B.CreateCondBr(Cond, ThenBB, ElseBB);
  B.SetInsertPoint(ThenBB);
  Then();
  B.CreateBr(Join);
  B.SetInsertPoint(ElseBB);
  Else();
  B.CreateBr(Join);
  B.SetInsertPoint(Join);
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

  emitIf(
      UnitRows, "row.unit",
      [&] {
        E.emitLoop(Count, "unit", [&](Value *J) {
          emitElement(
              Hoisted,
              [&](unsigned I) {
                return B.CreateInBoundsGEP(E.memoryType(Ops[I].T), Row[I], J);
              },
              B.CreateInBoundsGEP(E.memoryType(Out.T), OutRow, J));
        });
      },
      [&] {
        BasicBlock *Pre = B.GetInsertBlock();
        E.emitLoop(Count, "strided", [&](Value *J) {
          emitElement(
              Hoisted,
              [&](unsigned I) {
                return E.offset(Row[I], J, Ops[I].LoopStrides[Rank - 1]);
              },
              B.CreateInBoundsGEP(E.memoryType(Out.T), OutRow, J));
        });
        keepScalar(Pre, B.GetInsertBlock());
      });
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
  Out.LoopStrides = Out.Strides;
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

  emitIf(
      B.CreateICmpEQ(NumElements, E.constI64(0)), "empty", [] {},
      [&] {
        Value *Flat = isFlat(NumElements);
        // Only loop-invariant inputs (a 0-d output, say): one element.
        if (auto *C = dyn_cast<ConstantInt>(Flat); C && C->isOne())
          return emitFlat(E.constI64(0), NumElements, hoistScalars());
        emitIf(
            Flat, "flat", [&] { emitFlatOrStreaming(NumElements); },
            [&] { emitStrided(unitRows()); });
      });
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
