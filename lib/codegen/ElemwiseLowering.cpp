//===- ElemwiseLowering.cpp - Elemwise Applies as JIT loops --------------===//
//
// The thunk of an Elemwise Apply: gj_prepare (Elemwise::prepare) has
// broadcast the shapes and made the C-contiguous output; this code fills
// it. The element loop that LLVM vectorizes lives in a loop kernel,
// `void gj_ew.<op>.<dtypes and input kinds>(ptr noalias out, i64 n, ptr in...)`,
// emitted once per module for each distinct signature and shared by every
// Apply that has it: compiling one vectorized loop per signature instead of
// several per Apply is most of what keeps JIT compile time low. Each input
// of a kernel is either varying (unit stride) or invariant (loaded once).
// The thunk picks a path at run time from the slots:
//
//  - flat: every input read is C-contiguous with the output's shape, or
//    statically a single element (0-d, all dims 1): one kernel call over
//    all elements; over a large output, a call of the runtime's
//    gj_ew_flat (runtime/FlatElemwise.h), which runs the kernel in pieces on
//    its threads and streams outputs too large for the cache.
//  - strided: a loop nest over the output's outer dims. Rows whose inputs
//    are all unit-stride (or statically invariant along the row) call the
//    row kernel; others run a scalar loop with the inputs' byte strides,
//    right for any strides (negative, 0, broadcast dims of size 1).
//    Rows shorter than 8 elements over more of them (an (n, 2) slice of an
//    (n, 3) array) run down the columns instead, element by element: a
//    row's set-up costs more than its few elements.
//
// The output is a fresh buffer, hence the kernel's noalias out: the
// vectorizer needs no run-time overlap checks. An in-place Elemwise's
// output may instead be the overwritten input itself (prepare() decides at
// run time); its Apply's functions get names of their own (`.ip<k>`), and
// where the output's pointer is that input's they call a variant of the
// loop kernel (`.io<k>`) that reads the input through the output pointer,
// element j before writing element j, so that noalias still holds. Should
// another input share the output's memory too (a view written in the
// graph), only the strided loop, which has no noalias, runs.
//
//===----------------------------------------------------------------------===//

#include "ElemwiseLoweringKernel.h"
#include "StructuralLoweringUtil.h"
#include "ops/elemwise/ElemwiseOps.h"
#include "runtime/FlatElemwise.h"
#include "ops/elemwise/ScalarOps.h"
#include "llvm/IR/CFG.h"
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
  /// Makes the code of an Apply in place on input I, which is read as
  /// the inputs with FromOut (see emitElemwise).
  void setInplace(int I, ArrayRef<bool> FromOut) {
    Inplace = I;
    AliasOut.assign(FromOut.begin(), FromOut.end());
    Anchor = -1;
    for (unsigned K = 0; K < AliasOut.size() && Anchor < 0; ++K)
      if (AliasOut[K])
        Anchor = int(K);
  }
  void emit();

private:
  ThunkEmitter &E;
  IRBuilder<> &B;
  const ElementKernel &K;
  SmallVector<Operand, 4> Ops;
  Operand Out;
  unsigned Rank = 0;
  /// In place: the input whose buffer the output may be, else -1; and the
  /// inputs that are that same value (it may be read twice), which the
  /// `.io` kernels read through the output pointer.
  int Inplace = -1;
  SmallVector<bool, 4> AliasOut;
  /// The first input in AliasOut (second's first input, which is never
  /// read, may be the overwritten one), or -1.
  int Anchor = -1;

  void loadOperand(Operand &Op, const Variable *V);
  Value *size(DType T) { return E.constI64(dtypeSize(T)); }
  Value *isContiguous(const Operand &Op);
  Value *isFlat(Value *NumElements);
  Value *unitRows();

  /// The module's loop kernel for this Apply's signature with input I
  /// invariant where Invariant[I], emitted on first use; inputs with
  /// FromOut[I] are read through the output pointer (in place).
  Function *loopKernel(ArrayRef<bool> Invariant, ArrayRef<bool> FromOut = {});
  /// Kern(Dst, Count, each input at element Begin unless invariant or
  /// Begin is null); unread inputs get null.
  void callLoopKernel(Function *Kern, ArrayRef<bool> Invariant,
                      ArrayRef<Value *> Inputs, Value *Begin, Value *Dst,
                      Value *Count);
  /// The same with the kernel for Invariant; in place, its `.io` variant
  /// where Dst is the overwritten input's element Begin.
  void callKernelAt(ArrayRef<bool> Invariant, ArrayRef<Value *> Inputs,
                    Value *Begin, Value *Dst, Value *Count);
  /// In place: whether an input other than the overwritten value has the
  /// output's memory (then only the strided loop may run).
  Value *tangled();
  SmallVector<bool, 4> flatInvariants() const;
  void emitFlat(Value *NumElements);
  /// gj_ew_flat(record, NumElements), the record on the stack.
  void callFlatRuntime(ArrayRef<bool> Inv, ArrayRef<Value *> Inputs,
                       Value *NumElements);
  void emitStrided(Value *UnitRows, Value *Tangled);
  void emitRow(ArrayRef<Value *> Index, Value *UnitRows);
  /// Short rows (an (n, 2) slice of an (n, 3) array): the loop nest with
  /// the last two dims swapped, each line along the next-to-last dim
  /// element by element with the strides.
  void emitColumns();
  /// The same through unit-stride buffers and the row kernel, for a
  /// costly element.
  void emitPackedColumns();
  void emitColumnNest(
      llvm::function_ref<void(Value *OutStart, ArrayRef<Value *> Starts)> Body);
  Value *columnStart(const Operand &Op, ArrayRef<Value *> Strides,
                     ArrayRef<Value *> Index);
  void emitScalarRow(ArrayRef<Value *> Row, Value *OutRow, Value *Count);
  /// Whether strided rows run packed (emitPackedRow): for a costly
  /// element, or many operands.
  bool packsRows() const;
  /// A row with a strided input through unit-stride buffers and the row
  /// kernel (not in place: the output is a fresh buffer).
  void emitPackedRow(ArrayRef<Value *> Row, Value *OutRow, Value *Count);
  /// A stack buffer of PackedLine elements of T.
  AllocaInst *lineBuffer(DType T, const char *Name);
  /// Copies Len elements of T between Line (Stride bytes apart) and
  /// Buffer: into the buffer if In, out of it otherwise. The runtime's
  /// gj_ew_pack and gj_ew_unpack (runtime/FlatElemwise.h): a copy loop per
  /// operand in every Apply's code cost a fifth more compile time.
  void copyLine(DType T, Value *Line, Value *Stride, Value *Len,
                Value *Buffer, bool In);
  /// Loops over pieces of at most PackedLine of Count elements: Body(Begin,
  /// Len).
  void emitPieces(Value *Count,
                  llvm::function_ref<void(Value *Begin, Value *Len)> Body);
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

Function *ElemwiseEmitter::loopKernel(ArrayRef<bool> Invariant,
                                      ArrayRef<bool> FromOut) {
  // The element computation depends on the scalar op (a Composite's whole
  // program), the input dtypes and the output dtype (cast's target) only.
  std::string Name = "gj_ew." + K.computationName();
  for (unsigned I = 0; I < Ops.size(); ++I) {
    Name += "." + dtypeName(K.inputType(I)).str();
    Name += !Ops[I].Read ? "x" : Invariant[I] ? "s" : "v";
  }
  Name += "." + dtypeName(K.outputType()).str();
  auto ViaOut = [&](unsigned I) {
    return I < FromOut.size() && FromOut[I] && Ops[I].Read;
  };
  std::string Via;
  for (unsigned I = 0; I < Ops.size(); ++I)
    if (ViaOut(I))
      Via += (Via.empty() ? ".io" : "_") + std::to_string(I);
  Name += Via;
  if (Function *F = E.M.getFunction(Name))
    return F;

  LLVMContext &C = E.ctx();
  Type *Ptr = PointerType::getUnqual(C);
  SmallVector<Type *, 6> Params{Ptr, Type::getInt64Ty(C)};
  Params.append(Ops.size(), Ptr);
  Function *F = Function::Create(
      FunctionType::get(Type::getVoidTy(C), Params, false),
      GlobalValue::InternalLinkage, Name, E.M);
  // Out of line on purpose: one vectorized copy per signature.
  F->addFnAttr(Attribute::NoInline);
  F->addFnAttr(Attribute::NoUnwind);
  F->addParamAttr(0, Attribute::NoAlias);
  for (unsigned I = 0; I < Ops.size(); ++I)
    F->addParamAttr(2 + I, Attribute::ReadOnly);

  IRBuilder<> KB(BasicBlock::Create(C, "entry", F));
  ThunkEmitter KE = E.forHelper(KB);
  Value *OutArg = F->getArg(0), *N = F->getArg(1);
  // In place, the overwritten input is the output: read through the
  // noalias pointer, each element before it is written.
  auto InArg = [&](unsigned I) {
    return ViaOut(I) ? OutArg : F->getArg(2 + I);
  };
  SmallVector<Value *, 4> Hoisted(Ops.size(), nullptr);
  for (unsigned I = 0; I < Ops.size(); ++I)
    if (Ops[I].Read && Invariant[I])
      Hoisted[I] =
          K.convertInput(KE, I, KE.loadElement(Ops[I].T, InArg(I)));
  KE.emitLoop(N, "i", [&](Value *J) {
    SmallVector<Value *, 4> In(Ops.size(), nullptr);
    for (unsigned I = 0; I < Ops.size(); ++I) {
      if (!Ops[I].Read)
        continue;
      In[I] = Hoisted[I]
                  ? Hoisted[I]
                  : K.convertInput(
                        KE, I,
                        KE.loadElement(
                            Ops[I].T,
                            KB.CreateInBoundsGEP(KE.memoryType(Ops[I].T),
                                                 InArg(I), J)));
    }
    KE.storeElement(
        Out.T, K.compute(KE, In),
        KB.CreateInBoundsGEP(KE.memoryType(Out.T), OutArg, J));
  });
  KB.CreateRetVoid();
  return F;
}

void ElemwiseEmitter::callLoopKernel(Function *Kern, ArrayRef<bool> Invariant,
                                     ArrayRef<Value *> Inputs, Value *Begin,
                                     Value *Dst, Value *Count) {
  SmallVector<Value *, 6> Args{Dst, Count};
  for (unsigned I = 0; I < Ops.size(); ++I) {
    if (!Ops[I].Read)
      Args.push_back(ConstantPointerNull::get(B.getPtrTy()));
    else if (Invariant[I] || !Begin)
      Args.push_back(Inputs[I]);
    else
      Args.push_back(
          B.CreateInBoundsGEP(E.memoryType(Ops[I].T), Inputs[I], Begin));
  }
  B.CreateCall(Kern, Args);
}

void ElemwiseEmitter::callKernelAt(ArrayRef<bool> Invariant,
                                   ArrayRef<Value *> Inputs, Value *Begin,
                                   Value *Dst, Value *Count) {
  if (Anchor < 0)
    return callLoopKernel(loopKernel(Invariant), Invariant, Inputs, Begin,
                          Dst, Count);
  // prepare() made the output the overwritten input itself, or a new
  // buffer that nothing else points into.
  Value *In = Inputs[Anchor];
  if (Begin && !Invariant[Anchor])
    In = B.CreateInBoundsGEP(E.memoryType(Ops[Anchor].T), In, Begin);
  emitIfElse(
      E, B.CreateICmpEQ(Dst, In), "inplace",
      [&] {
        callLoopKernel(loopKernel(Invariant, AliasOut), Invariant, Inputs,
                       Begin, Dst, Count);
      },
      [&] {
        callLoopKernel(loopKernel(Invariant), Invariant, Inputs, Begin, Dst,
                       Count);
      });
}

Value *ElemwiseEmitter::tangled() {
  Value *Any = B.getFalse();
  if (Inplace < 0)
    return Any;
  for (unsigned I = 0; I < Ops.size(); ++I)
    if (Ops[I].Read && !AliasOut[I])
      Any = B.CreateOr(Any, B.CreateICmpEQ(Ops[I].Data, Out.Data));
  return Any;
}

SmallVector<bool, 4> ElemwiseEmitter::flatInvariants() const {
  SmallVector<bool, 4> Inv;
  for (const Operand &Op : Ops)
    Inv.push_back(Op.Scalar);
  return Inv;
}

// The flat path: one kernel call over all the elements, or, for large
// outputs, the runtime's gj_ew_flat (runtime/FlatElemwise.h), which cuts the
// loop into pieces for its threads and streams the output past the cache.
void ElemwiseEmitter::emitFlat(Value *NumElements) {
  SmallVector<bool, 4> Inv = flatInvariants();
  SmallVector<Value *, 4> Inputs;
  for (const Operand &Op : Ops)
    Inputs.push_back(Op.Data);
  auto Direct = [&] {
    callKernelAt(Inv, Inputs, /*Begin=*/nullptr, Out.Data, NumElements);
  };
  if (Ops.size() > FlatElemwiseMaxInputs)
    return Direct();
  Value *Bytes = B.CreateMul(NumElements, size(Out.T));
  emitIfElse(
      E, B.CreateICmpUGE(Bytes, E.constI64(int64_t(elemwiseFlatCallThreshold()))),
      "large", [&] { callFlatRuntime(Inv, Inputs, NumElements); }, Direct);
}

void ElemwiseEmitter::callFlatRuntime(ArrayRef<bool> Inv,
                                      ArrayRef<Value *> Inputs,
                                      Value *NumElements) {
  unsigned K = Ops.size();
  Type *I64 = B.getInt64Ty();
  AllocaInst *Record =
      entryAlloca(E, ArrayType::get(I64, 5 + 2 * K), "flat.record");
  auto Word = [&](unsigned W, Value *V) {
    B.CreateStore(V, B.CreateConstInBoundsGEP2_32(Record->getAllocatedType(),
                                                  Record, 0, W));
  };
  Function *Plain = loopKernel(Inv);
  Value *Kernel = Plain;
  // In place, on the overwritten input itself: the kernel that reads it
  // through the output pointer (as callKernelAt picks).
  if (Anchor >= 0)
    Kernel = B.CreateSelect(B.CreateICmpEQ(Out.Data, Inputs[Anchor]),
                            loopKernel(Inv, AliasOut), Plain);
  Word(0, Kernel);
  Word(1, Plain);
  Word(2, Out.Data);
  Word(3, size(Out.T));
  Word(4, E.constI64(K));
  Value *Null = ConstantPointerNull::get(B.getPtrTy());
  for (unsigned I = 0; I < K; ++I) {
    bool Varies = Ops[I].Read && !Inv[I];
    Word(5 + I, Ops[I].Read ? Inputs[I] : Null);
    Word(5 + K + I, Varies ? size(Ops[I].T) : E.constI64(0));
  }
  FunctionCallee Flat = E.M.getOrInsertFunction(
      "gj_ew_flat",
      FunctionType::get(B.getVoidTy(), {B.getPtrTy(), I64}, false));
  B.CreateCall(Flat, {Record, NumElements});
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
    Metadata *NoUnroll[] = {MDString::get(C, "llvm.loop.unroll.disable")};
    MDNode *Loop = MDNode::getDistinct(
        C, {nullptr, MDNode::get(C, Off), MDNode::get(C, NoUnroll)});
    Loop->replaceOperandWith(0, Loop);
    Latch->getTerminator()->setMetadata(LLVMContext::MD_loop, Loop);
  }
}

// Rows shorter than this, over more of them, run as columns: a row's own
// set-up (a start per operand, a kernel call) costs more than its elements.
static constexpr int64_t ShortRow = 8;

void ElemwiseEmitter::emitStrided(Value *UnitRows, Value *Tangled) {
  ArrayRef<Value *> Outer = ArrayRef(Out.Dims).drop_back();
  auto Rows = [&] {
    E.emitLoopNest(Outer, [&](ArrayRef<Value *> Index) {
      emitRow(Index, UnitRows);
    });
  };
  if (Rank < 2)
    return Rows();
  // Not in place over another input: the columns change the order in
  // which elements are written.
  Value *Last = Out.Dims[Rank - 1], *Next = Out.Dims[Rank - 2];
  Value *Short = B.CreateAnd(
      B.CreateAnd(B.CreateICmpSLT(Last, E.constI64(ShortRow)),
                  B.CreateICmpSGT(Next, Last)),
      B.CreateNot(Tangled));
  emitIfElse(E, Short, "short.rows", [&] { emitColumns(); }, Rows);
}

void ElemwiseEmitter::emitColumns() {
  if (K.isCostly())
    return emitPackedColumns();
  emitColumnNest([&](Value *OutStart, ArrayRef<Value *> Starts) {
    BasicBlock *Pre = B.GetInsertBlock();
    E.emitLoop(Out.Dims[Rank - 2], "column", [&](Value *J) {
      SmallVector<Value *, 4> In(Ops.size(), nullptr);
      for (unsigned I = 0; I < Ops.size(); ++I)
        if (Ops[I].Read)
          In[I] = K.convertInput(
              E, I,
              E.loadElement(Ops[I].T, E.offset(Starts[I], J,
                                               Ops[I].LoopStrides[Rank - 2])));
      E.storeElement(Out.T, K.compute(E, In),
                     E.offset(OutStart, J, Out.Strides[Rank - 2]));
    });
    keepScalar(Pre, B.GetInsertBlock());
  });
}

// Loops over the dims before the last two, then the last, with where the
// output's column and each read operand's start.
void ElemwiseEmitter::emitColumnNest(
    function_ref<void(Value *OutStart, ArrayRef<Value *> Starts)> Body) {
  SmallVector<Value *, 8> Outer(Out.Dims.begin(), Out.Dims.end() - 2);
  Outer.push_back(Out.Dims[Rank - 1]);
  E.emitLoopNest(Outer, [&](ArrayRef<Value *> Index) {
    Value *OutStart = columnStart(Out, Out.Strides, Index);
    SmallVector<Value *, 4> Starts(Ops.size(), nullptr);
    for (unsigned I = 0; I < Ops.size(); ++I)
      if (Ops[I].Read)
        Starts[I] = columnStart(Ops[I], Ops[I].LoopStrides, Index);
    Body(OutStart, Starts);
  });
}

// Where the columns' lines of Op start: the dims before the last two at
// Index, the last dim at Index.back().
Value *ElemwiseEmitter::columnStart(const Operand &Op,
                                    ArrayRef<Value *> Strides,
                                    ArrayRef<Value *> Index) {
  Value *Offset = E.constI64(0);
  for (unsigned D = 0; D + 2 < Rank; ++D)
    Offset = B.CreateAdd(Offset, B.CreateMul(Index[D], Strides[D]));
  Offset = B.CreateAdd(Offset, B.CreateMul(Index.back(), Strides[Rank - 1]));
  return B.CreateInBoundsGEP(B.getInt8Ty(), Op.Data, Offset);
}

// Elements a packed line (a column, or a strided row) holds at a time:
// its buffers stay in L1.
static constexpr int64_t PackedLine = 64;

AllocaInst *ElemwiseEmitter::lineBuffer(DType T, const char *Name) {
  return entryAlloca(E, ArrayType::get(E.memoryType(T), PackedLine), Name);
}

void ElemwiseEmitter::copyLine(DType T, Value *Line, Value *Stride,
                               Value *Len, Value *Buffer, bool In) {
  Type *I64 = B.getInt64Ty(), *Ptr = B.getPtrTy();
  FunctionCallee Copy = E.M.getOrInsertFunction(
      In ? "gj_ew_pack" : "gj_ew_unpack",
      FunctionType::get(B.getVoidTy(), {Ptr, Ptr, I64, I64, I64}, false));
  Value *Dst = In ? Buffer : Line, *Src = In ? Line : Buffer;
  B.CreateCall(Copy, {Dst, Src, Stride, Len, size(T)});
}

void ElemwiseEmitter::emitPieces(
    Value *Count, function_ref<void(Value *Begin, Value *Len)> Body) {
  Value *Pieces = B.CreateUDiv(B.CreateAdd(Count, E.constI64(PackedLine - 1)),
                               E.constI64(PackedLine));
  E.emitLoop(Pieces, "piece", [&](Value *P) {
    Value *Begin = B.CreateMul(P, E.constI64(PackedLine));
    Value *Len = B.CreateSub(Count, Begin);
    Len = B.CreateSelect(B.CreateICmpSLT(Len, E.constI64(PackedLine)), Len,
                         E.constI64(PackedLine));
    Body(Begin, Len);
  });
}

// Short rows of a costly element (erfc, log, a Composite of them): each
// line down the columns is copied in pieces into unit-stride buffers on
// the stack, the row kernel (vectorized, with libmvec's functions) fills
// an output buffer, and that is copied out. The copies cost a few
// nanoseconds an element against tens for the scalar functions. Inputs
// statically broadcast along the columns are passed as invariants.
void ElemwiseEmitter::emitPackedColumns() {
  SmallVector<bool, 4> Inv;
  SmallVector<AllocaInst *, 4> Buf(Ops.size(), nullptr);
  for (unsigned I = 0; I < Ops.size(); ++I) {
    auto *Step = dyn_cast<ConstantInt>(Ops[I].LoopStrides[Rank - 2]);
    Inv.push_back(Ops[I].Read && Step && Step->isZero());
    if (Ops[I].Read && !Inv.back())
      Buf[I] = lineBuffer(Ops[I].T, "column.in");
  }
  AllocaInst *OutBuf = lineBuffer(Out.T, "column.out");
  Function *Kern = loopKernel(Inv);
  emitColumnNest([&](Value *OutStart, ArrayRef<Value *> Starts) {
    emitPieces(Out.Dims[Rank - 2], [&](Value *Begin, Value *Len) {
      SmallVector<Value *, 4> Inputs(Ops.size(), nullptr);
      for (unsigned I = 0; I < Ops.size(); ++I) {
        if (!Ops[I].Read)
          continue;
        if (Inv[I]) {
          Inputs[I] = Starts[I];
          continue;
        }
        Value *Stride = Ops[I].LoopStrides[Rank - 2];
        copyLine(Ops[I].T, E.offset(Starts[I], Begin, Stride), Stride, Len,
                 Buf[I], true);
        Inputs[I] = Buf[I];
      }
      callLoopKernel(Kern, Inv, Inputs, /*Begin=*/nullptr, OutBuf, Len);
      Value *Stride = Out.Strides[Rank - 2];
      copyLine(Out.T, E.offset(OutStart, Begin, Stride), Stride, Len, OutBuf,
               false);
    });
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
  SmallVector<bool, 4> Inv;
  for (unsigned I = 0; I < Ops.size(); ++I) {
    Inv.push_back(Ops[I].RowInvariant);
    if (Ops[I].Read)
      Row[I] = RowStart(Ops[I]);
  }
  Value *Count = Out.Dims[Rank - 1];

  emitIfElse(
      E, UnitRows, "row.unit",
      [&] { callKernelAt(Inv, Row, /*Begin=*/nullptr, OutRow, Count); },
      [&] {
        if (Inplace < 0 && packsRows())
          emitPackedRow(Row, OutRow, Count);
        else
          emitScalarRow(Row, OutRow, Count);
      });
}

// Operands read along a row, at or above which a strided row is packed:
// with fewer, and a cheap element, the scalar loop is as fast (a*b.T+c).
static constexpr unsigned PackedRowOperands = 4;

bool ElemwiseEmitter::packsRows() const {
  unsigned Varying = 0;
  for (const Operand &Op : Ops)
    Varying += Op.Read && !Op.RowInvariant;
  return K.isCostly() || Varying >= PackedRowOperands;
}

// A row with a strided input (a transposed matrix beside C-contiguous
// ones): each strided input's row is copied in pieces into a unit-stride
// buffer and the row kernel, vectorized, runs on the piece; the others
// are passed where they are. The copy is one load and store an element;
// the scalar loop it replaces loaded every input with its stride.
void ElemwiseEmitter::emitPackedRow(ArrayRef<Value *> Row, Value *OutRow,
                                    Value *Count) {
  SmallVector<bool, 4> Inv;
  SmallVector<AllocaInst *, 4> Buf(Ops.size(), nullptr);
  for (unsigned I = 0; I < Ops.size(); ++I) {
    Inv.push_back(Ops[I].RowInvariant);
    if (Ops[I].Read && !Inv.back())
      Buf[I] = lineBuffer(Ops[I].T, "row.in");
  }
  Function *Kern = loopKernel(Inv);
  emitPieces(Count, [&](Value *Begin, Value *Len) {
    SmallVector<Value *, 4> Inputs(Ops.size(), nullptr);
    for (unsigned I = 0; I < Ops.size(); ++I) {
      if (!Ops[I].Read || Inv[I]) {
        Inputs[I] = Row[I];
        continue;
      }
      Value *Stride = Ops[I].LoopStrides[Rank - 1];
      Value *Unit = B.CreateICmpEQ(Stride, size(Ops[I].T));
      Value *Here = E.offset(Row[I], Begin, Stride);
      emitIf(E, B.CreateNot(Unit), [&] {
        copyLine(Ops[I].T, Here, Stride, Len, Buf[I], true);
      });
      Inputs[I] = B.CreateSelect(Unit, Here, Buf[I]);
    }
    Value *Dst = B.CreateInBoundsGEP(E.memoryType(Out.T), OutRow, Begin);
    callLoopKernel(Kern, Inv, Inputs, /*Begin=*/nullptr, Dst, Len);
  });
}

// A row with a strided input, element by element with the inputs'
// strides, in order: right for any strides, and however the inputs of an
// in-place Apply overlap its output.
void ElemwiseEmitter::emitScalarRow(ArrayRef<Value *> Row, Value *OutRow,
                                    Value *Count) {
  SmallVector<Value *, 4> Hoisted(Ops.size(), nullptr);
  for (unsigned I = 0; I < Ops.size(); ++I)
    if (Ops[I].Read && Ops[I].RowInvariant)
      Hoisted[I] = K.convertInput(E, I, E.loadElement(Ops[I].T, Row[I]));
  BasicBlock *Pre = B.GetInsertBlock();
  E.emitLoop(Count, "strided", [&](Value *J) {
    SmallVector<Value *, 4> In(Ops.size(), nullptr);
    for (unsigned I = 0; I < Ops.size(); ++I)
      if (Ops[I].Read)
        In[I] = Hoisted[I]
                    ? Hoisted[I]
                    : K.convertInput(
                          E, I,
                          E.loadElement(Ops[I].T,
                                        E.offset(Row[I], J,
                                                 Ops[I].LoopStrides[Rank - 1])));
    E.storeElement(Out.T, K.compute(E, In),
                   B.CreateInBoundsGEP(E.memoryType(Out.T), OutRow, J));
  });
  keepScalar(Pre, B.GetInsertBlock());
}

void ElemwiseEmitter::emit() {
  const Apply &N = E.Node;
  const Variable *OutVar = N.output(0);
  Rank = OutVar->type().rank();

  // Every slot field is read up front, before any output is written.
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
  // The output is statically one element (then so is every input read):
  // no loop at all. (second(a, b) takes its shape from a, which it does
  // not read: the output's type decides, not the inputs read.)
  if (llvm::all_of(OutVar->type().Dims,
                   [](const Dim &D) { return D.Size == 1; })) {
    SmallVector<Value *, 4> In(Ops.size(), nullptr);
    for (unsigned I = 0; I < Ops.size(); ++I)
      if (Ops[I].Read)
        In[I] = K.convertInput(E, I, E.loadElement(Ops[I].T, Ops[I].Data));
    E.storeElement(Out.T, K.compute(E, In), Out.Data);
    return;
  }
  Value *NumElements = E.constI64(1);
  for (Value *D : Out.Dims)
    NumElements = B.CreateMul(NumElements, D, "", /*HasNUW=*/true,
                              /*HasNSW=*/true);

  emitIfElse(
      E, B.CreateICmpEQ(NumElements, E.constI64(0)), "empty", [] {},
      [&] {
        Value *Flat = isFlat(NumElements);
        // In place with the output's memory read as another input too:
        // the strided loop only.
        Value *Tangled = tangled();
        Flat = B.CreateAnd(Flat, B.CreateNot(Tangled));
        // Only loop-invariant inputs (a 0-d output, say): the flat path.
        if (auto *C = dyn_cast<ConstantInt>(Flat); C && C->isOne())
          return emitFlat(NumElements);
        emitIfElse(
            E, Flat, "flat", [&] { emitFlat(NumElements); },
            [&] {
              emitStrided(B.CreateAnd(unitRows(), B.CreateNot(Tangled)),
                          Tangled);
            });
      });
}

// What an Elemwise thunk's code depends on besides the slots' run-time
// contents: the element kernel, the output's rank, and each input's
// dtype, rank, statically broadcast dims (known 1) and whether it repeats
// an earlier input (add(x, x)). Applies that agree on all of it share one
// node function.
static std::string nodeKey(const Apply &N, const ElementKernel &K,
                           int Inplace) {
  std::string Key = "gj_ewnode." + K.computationName();
  for (unsigned I = 0; I < N.inputs().size(); ++I) {
    const TensorType &T = N.inputs()[I]->type();
    Key += "." + dtypeName(T.Dtype).str();
    if (!K.reads(I))
      Key += "x";
    for (const Dim &D : T.Dims)
      Key += D.Size == 1 ? "1" : "n";
    for (unsigned J = 0; J < I; ++J)
      if (N.inputs()[J] == N.inputs()[I]) {
        Key += "=" + std::to_string(J);
        break;
      }
  }
  Key += "." + dtypeName(K.outputType()).str() + "r" +
         std::to_string(N.output(0)->type().rank());
  if (Inplace >= 0)
    Key += ".ip" + std::to_string(Inplace);
  return Key;
}

// The thunk calls `void gj_ewnode.<key>(ptr out_slot, ptr in_slot...)`,
// emitted on first use, which holds the whole Elemwise code above.
static Error emitElemwise(ThunkEmitter &E) {
  Expected<ElementKernel> K = ElementKernel::get(E.Node);
  if (!K)
    return K.takeError();
  const Apply &N = E.Node;
  // In place: the output may be that input, read in every slot that
  // holds the same value (none, if it is only second's unread first).
  int Inplace = E.Planned ? -1 : llvm::cast<Elemwise>(N.op()).inplaceInput();
  SmallVector<bool, 4> FromOut(N.inputs().size(), false);
  if (Inplace >= 0)
    for (unsigned I = 0; I < N.inputs().size(); ++I)
      FromOut[I] = K->reads(I) && N.inputs()[I] == N.inputs()[Inplace];
  std::string Key = nodeKey(N, *K, Inplace);
  Function *F = E.M.getFunction(Key);
  if (!F) {
    LLVMContext &C = E.ctx();
    SmallVector<Type *, 6> Params(1 + N.inputs().size(),
                                  PointerType::getUnqual(C));
    F = Function::Create(FunctionType::get(Type::getVoidTy(C), Params, false),
                         GlobalValue::InternalLinkage, Key, E.M);
    // Shared by the Applies of the same key, except a 0-d one: a few
    // instructions, cheaper inlined than called.
    if (N.output(0)->type().rank() != 0)
      F->addFnAttr(Attribute::NoInline);
    F->addFnAttr(Attribute::NoUnwind);
    DenseMap<const Variable *, Value *> SlotOf;
    SlotOf[N.output(0)] = F->getArg(0);
    for (unsigned I = 0; I < N.inputs().size(); ++I)
      SlotOf.try_emplace(N.inputs()[I], F->getArg(1 + I));
    IRBuilder<> HB(BasicBlock::Create(C, "entry", F));
    ThunkEmitter HE = E.forHelper(HB, std::move(SlotOf));
    ElemwiseEmitter Emitter(HE, *K);
    Emitter.setInplace(Inplace, FromOut);
    Emitter.emit();
    HB.CreateRetVoid();
  }
  SmallVector<Value *, 6> Args{E.slotPointer(N.output(0))};
  for (const Variable *V : N.inputs())
    Args.push_back(E.slotPointer(V));
  E.B.CreateCall(F, Args);
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

// NumPy's broadcasting of the inputs' dims, as Elemwise::prepare does it.
static void emitElemwiseDims(ThunkEmitter &E, OutputDims &Dims) {
  emitBroadcastDims(E, Dims[0]);
}

// Planned unless prepare has a value check to make: an integer power's
// exponents (Elemwise::prepare's checkExponents).
static bool plansElemwise(const Apply &N, llvm::ArrayRef<std::string>) {
  const auto &Op = llvm::cast<Elemwise>(N.op());
  if (Op.composite() || Op.scalarOp() != ScalarOpKind::Pow)
    return true;
  for (const Variable *In : N.inputs())
    if (!isFloat(In->type().Dtype))
      return false;
  return true;
}

void graphjit::registerElemwiseLowerings() {
  Lowering L{/*NeedsPrepare=*/true, &emitElemwise, &supportsElemwise};
  L.EmitOutputDims = &emitElemwiseDims;
  L.PlansOutputs = &plansElemwise;
  // Planned Elemwise code depends on what its node function does (and a
  // planned output is never its input).
  L.ThunkKey = [](const Apply &N) {
    Expected<ElementKernel> K = ElementKernel::get(N);
    return K ? nodeKey(N, *K, -1) : (consumeError(K.takeError()), std::string());
  };
  registerLowering(OpKind::Elemwise, L);
}
