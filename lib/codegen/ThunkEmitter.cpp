//===- ThunkEmitter.cpp - Writing one Apply's thunk in LLVM IR -----------===//

#include "ThunkEmitter.h"
#include "KernelLibrary.h"
#include "graphjit/runtime/RuntimeABI.h"
#include "llvm/IR/MDBuilder.h"
#include <array>
#include <optional>

using namespace graphjit;
using namespace llvm;

static StructType *slotType(LLVMContext &C) {
  Type *Dims = ArrayType::get(Type::getInt64Ty(C), GJ_MAX_RANK);
  return StructType::get(C, {PointerType::getUnqual(C), Dims, Dims});
}

// Type-based alias information: the runtime's descriptors (slots,
// storages) and array elements are different memory, so that a slot
// written by a planned thunk is read back from a register even across the
// element stores in between.
static MDNode *tbaaTag(LLVMContext &C, StringRef Kind) {
  MDBuilder MDB(C);
  MDNode *Root = MDB.createTBAARoot("graphjit");
  MDNode *Type = MDB.createTBAAScalarTypeNode(Kind, Root);
  return MDB.createTBAAStructTagNode(Type, Type, 0);
}

Instruction *graphjit::tagDescriptorAccess(Instruction *I) {
  I->setMetadata(LLVMContext::MD_tbaa, tbaaTag(I->getContext(), "gj_slot"));
  return I;
}

Instruction *graphjit::tagElementAccess(Instruction *I) {
  I->setMetadata(LLVMContext::MD_tbaa,
                 tbaaTag(I->getContext(), "gj_element"));
  return I;
}

static MDNode *slotScopeList(LLVMContext &C) {
  // Named (not self-referencing), so that every use in the module gets the
  // same node.
  MDNode *NamedDomain = MDNode::get(C, MDString::get(C, "graphjit.slots"));
  MDNode *Scope = MDNode::get(
      C, {MDString::get(C, "graphjit.slot"), NamedDomain});
  return MDNode::get(C, Scope);
}

Instruction *graphjit::tagSlotAccess(Instruction *I) {
  tagDescriptorAccess(I);
  I->setMetadata(LLVMContext::MD_alias_scope, slotScopeList(I->getContext()));
  return I;
}

CallInst *graphjit::markNoSlotAccess(CallInst *Call) {
  Call->setMetadata(LLVMContext::MD_noalias,
                    slotScopeList(Call->getContext()));
  return Call;
}

// A frame's slot and storage arrays never move while its calls run, so
// that their addresses need not be reloaded after every store through them.
Value *graphjit::loadInvariant(IRBuilder<> &B, Value *Ptr, const Twine &Name) {
  LoadInst *L = B.CreateLoad(B.getPtrTy(), Ptr, Name);
  L->setMetadata(LLVMContext::MD_invariant_load,
                 MDNode::get(B.getContext(), {}));
  return tagDescriptorAccess(L);
}

ThunkEmitter::ThunkEmitter(IRBuilder<> &B, Module &M, Value *Frame,
                           const Apply &Node, KernelLibrary &Kernels)
    : B(B), M(M), Node(Node), Frame(Frame), Kernels(Kernels) {
  // gj_frame's first field is the slot array.
  Slots = loadInvariant(B, Frame, "slots");
}

Value *ThunkEmitter::slotPointer(const Variable *V) {
  if (Value *Slot = SlotOf.lookup(V))
    return Slot;
  assert(Slots && "slot array access from a helper function");
  return B.CreateConstInBoundsGEP1_64(slotType(ctx()), Slots, V->id(),
                                      V->displayName() + ".slot");
}

void ThunkEmitter::failUnless(Value *Ok, const Twine &Name) {
  assert(FailBlock && "a shape check outside a planned thunk");
  if (auto *C = dyn_cast<ConstantInt>(Ok); C && C->isOne())
    return;
  BasicBlock *Cont =
      BasicBlock::Create(ctx(), Name, B.GetInsertBlock()->getParent());
  B.CreateCondBr(Ok, Cont, FailBlock);
  B.SetInsertPoint(Cont);
}

Value *ThunkEmitter::callNodeEntry(StringRef Entry) {
  FunctionCallee F = M.getOrInsertFunction(
      Entry, FunctionType::get(B.getInt32Ty(),
                               {B.getPtrTy(), B.getInt32Ty()}, false));
  return B.CreateCall(F, {frame(), nodeId()}, "rc");
}

void ThunkEmitter::returnIfFailed(Value *Rc) {
  llvm::Function *Thunk = B.GetInsertBlock()->getParent();
  BasicBlock *Failed = BasicBlock::Create(ctx(), "entry.failed", Thunk);
  BasicBlock *Done = BasicBlock::Create(ctx(), "entry.done", Thunk);
  B.CreateCondBr(B.CreateICmpNE(Rc, B.getInt32(0)), Failed, Done);
  B.SetInsertPoint(Failed);
  B.CreateRet(Rc);
  B.SetInsertPoint(Done);
}

SmallVector<Value *, 8>
ThunkEmitter::contiguousStrides(ArrayRef<Value *> Dims, int64_t ElementSize) {
  SmallVector<Value *, 8> Strides(Dims.size());
  Value *Step = B.getInt64(ElementSize);
  for (unsigned D = Dims.size(); D-- > 0;) {
    Strides[D] = Step;
    if (D == 0)
      break;
    Value *Factor = B.CreateBinaryIntrinsic(Intrinsic::smax, Dims[D],
                                            B.getInt64(1));
    Value *R = B.CreateBinaryIntrinsic(Intrinsic::smul_with_overflow, Step,
                                       Factor);
    Step = B.CreateSelect(B.CreateExtractValue(R, 1), B.getInt64(INT64_MAX),
                          B.CreateExtractValue(R, 0));
  }
  return Strides;
}

void ThunkEmitter::setSlot(const Variable *V, Value *Data,
                           ArrayRef<Value *> Dims, ArrayRef<Value *> Strides) {
  StructType *ST = slotType(ctx());
  Value *Slot = slotPointer(V);
  tagSlotAccess(B.CreateStore(Data, Slot));
  for (unsigned Field : {1u, 2u}) {
    ArrayRef<Value *> Values = Field == 1 ? Dims : Strides;
    Value *Array = B.CreateConstInBoundsGEP2_32(ST, Slot, 0, Field);
    for (unsigned D = 0; D < Values.size(); ++D)
      tagSlotAccess(B.CreateStore(
          Values[D], B.CreateConstInBoundsGEP2_32(ST->getElementType(Field),
                                                  Array, 0, D)));
  }
}

Value *ThunkEmitter::slotField(const Variable *V, unsigned Field,
                               unsigned Index) {
  StructType *ST = slotType(ctx());
  Value *Slot = SlotOf.lookup(V);
  if (!Slot)
    Slot = slotPointer(V);
  if (Field == 0)
    return tagSlotAccess(B.CreateLoad(PointerType::getUnqual(ctx()), Slot,
                                      V->displayName() + ".data"));
  Value *P = B.CreateConstInBoundsGEP2_32(ST, Slot, 0, Field);
  P = B.CreateConstInBoundsGEP2_32(ST->getElementType(Field), P, 0, Index);
  return tagSlotAccess(B.CreateLoad(
      B.getInt64Ty(), P, (Field == 1 ? "dim" : "stride") + Twine(Index)));
}

Value *ThunkEmitter::data(const Variable *V) { return slotField(V, 0, 0); }
Value *ThunkEmitter::dim(const Variable *V, unsigned D) {
  return slotField(V, 1, D);
}
Value *ThunkEmitter::stride(const Variable *V, unsigned D) {
  return slotField(V, 2, D);
}

Value *ThunkEmitter::numElements(const Variable *V) {
  Value *N = B.getInt64(1);
  for (unsigned D = 0; D < V->type().rank(); ++D)
    N = B.CreateMul(N, dim(V, D), "", /*HasNUW=*/true, /*HasNSW=*/true);
  return N;
}

Value *ThunkEmitter::symbolSize(StringRef Symbol) {
  const auto *It = llvm::find(InputSymbols, Symbol);
  assert(It != InputSymbols.end() && Frame && "a symbol the call does not bind");
  // gj_frame's fourth field; the sizes stay the same during the call.
  Type *Ptr = B.getPtrTy();
  Value *Dims = loadInvariant(
      B,
      B.CreateConstInBoundsGEP2_32(
          StructType::get(ctx(), {Ptr, Ptr, Ptr, Ptr}), Frame, 0, 3),
      "dims");
  LoadInst *L = B.CreateLoad(
      i64(),
      B.CreateConstInBoundsGEP1_64(i64(), Dims, It - InputSymbols.begin()),
      Symbol);
  L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(ctx(), {}));
  tagDescriptorAccess(L);
  return L;
}

Type *ThunkEmitter::valueType(DType T) {
  switch (T) {
  case DType::Bool: return B.getInt1Ty();
  case DType::I8:
  case DType::U8: return B.getInt8Ty();
  case DType::I16: return B.getInt16Ty();
  case DType::I32: return B.getInt32Ty();
  case DType::I64: return B.getInt64Ty();
  case DType::F32: return B.getFloatTy();
  case DType::F64: return B.getDoubleTy();
  }
  return nullptr;
}

Type *ThunkEmitter::memoryType(DType T) {
  return T == DType::Bool ? B.getInt8Ty() : valueType(T);
}

Value *ThunkEmitter::loadElement(DType T, Value *Ptr) {
  Value *V = tagElementAccess(B.CreateLoad(memoryType(T), Ptr));
  return T == DType::Bool ? B.CreateICmpNE(V, B.getInt8(0)) : V;
}

void ThunkEmitter::storeElement(DType T, Value *V, Value *Ptr) {
  if (T == DType::Bool)
    V = B.CreateZExt(V, B.getInt8Ty());
  tagElementAccess(B.CreateStore(V, Ptr));
}

Value *ThunkEmitter::offset(Value *Ptr, Value *Index, Value *Stride) {
  return B.CreateGEP(B.getInt8Ty(), Ptr, B.CreateMul(Index, Stride));
}

Value *ThunkEmitter::callKernel(StringRef Name, ArrayRef<Value *> Args) {
  Expected<Function *> F = Kernels.get(Name);
  if (!F)
    report_fatal_error(F.takeError()); // A lowering asked for a kernel that
                                       // does not exist: a bug in graphjit.
  return B.CreateCall(*F, Args);
}

Value *ThunkEmitter::convert(Value *V, DType From, DType To) {
  if (From == To)
    return V;
  return callKernel(("gj_convert_" + dtypeName(To) + "_" + dtypeName(From)).str(),
                    {V});
}

void ThunkEmitter::emitLoop(Value *Count, StringRef Name,
                            function_ref<void(Value *)> Body) {
  Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *Pre = B.GetInsertBlock();
  BasicBlock *Header = BasicBlock::Create(ctx(), Name + ".head", F);
  BasicBlock *Loop = BasicBlock::Create(ctx(), Name + ".body", F);
  BasicBlock *Exit = BasicBlock::Create(ctx(), Name + ".exit", F);
  B.CreateBr(Header);
  B.SetInsertPoint(Header);
  PHINode *I = B.CreatePHI(B.getInt64Ty(), 2, Name);
  I->addIncoming(B.getInt64(0), Pre);
  B.CreateCondBr(B.CreateICmpSLT(I, Count), Loop, Exit);
  B.SetInsertPoint(Loop);
  Body(I);
  Value *Next = B.CreateAdd(I, B.getInt64(1), Name + ".next", true, true);
  I->addIncoming(Next, B.GetInsertBlock());
  B.CreateBr(Header);
  B.SetInsertPoint(Exit);
}

void ThunkEmitter::emitLoopNest(
    ArrayRef<Value *> Extents, function_ref<void(ArrayRef<Value *>)> Body) {
  SmallVector<Value *, 8> Index;
  std::function<void(unsigned)> Level = [&](unsigned D) {
    if (D == Extents.size()) {
      Body(Index);
      return;
    }
    emitLoop(Extents[D], "i" + std::to_string(D), [&](Value *I) {
      Index.push_back(I);
      Level(D + 1);
      Index.pop_back();
    });
  };
  Level(0);
}

// The host backend's lowering table, by op kind (the NVPTX backend's
// kernels are chosen in lib/gpu/KernelPlan.cpp).
static std::array<std::optional<Lowering>, NumOpKinds> &loweringTable() {
  static std::array<std::optional<Lowering>, NumOpKinds> Table;
  return Table;
}

void graphjit::registerLowering(OpKind Kind, Lowering L) {
  loweringTable()[unsigned(Kind)] = L;
}

const Lowering *graphjit::findLowering(const Apply &N) {
  static bool Registered = [] {
    registerElemwiseLowerings();
    registerStructuralLowerings();
    return true;
  }();
  (void)Registered;
  // Foreign ops (the Python package's) have perform() only.
  if (N.op().kind() == OpKind::Foreign)
    return nullptr;
  // Every variable a thunk touches must fit in a slot.
  for (const Variable *V : N.inputs())
    if (V->type().rank() > GJ_MAX_RANK)
      return nullptr;
  for (const Variable *V : N.outputs())
    if (V->type().rank() > GJ_MAX_RANK)
      return nullptr;
  const std::optional<Lowering> &L = loweringTable()[unsigned(N.op().kind())];
  if (!L || (L->Supports && !L->Supports(N)))
    return nullptr;
  return &*L;
}

bool graphjit::canPlanOutputs(const Apply &N,
                              llvm::ArrayRef<std::string> InputSymbols) {
  // An update in place writes over the shared variable's memory, which
  // the runtime owns and checks before it is written (lib/link/
  // UpdateCommit.h): its thunk asks gj_prepare for it.
  if (sharedInputOverwritten(N) >= 0)
    return false;
  const Lowering *L = findLowering(N);
  return L && (L->EmitOutputDims || L->EmitViewOutputs) &&
         (!L->PlansOutputs || L->PlansOutputs(N, InputSymbols));
}
