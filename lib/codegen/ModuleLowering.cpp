//===- ModuleLowering.cpp - A FunctionGraph as one LLVM module -----------===//

#include "ModuleLowering.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/SourceMgr.h"
#include "KernelLibrary.h"
#include "ThunkEmitter.h"
#include "graphjit/runtime/RuntimeABI.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

using namespace graphjit;
using namespace llvm;

// Drivers of more Applies than this are not optimized (see run()).
static constexpr size_t GlueDriverApplies = 256;

namespace {
class ModuleLowerer {
public:
  ModuleLowerer(const FunctionGraph &F, LoweredModule &Out)
      : F(F), Out(Out), C(*Out.Context), M(*Out.Module), B(C), Kernels(M) {
    PtrTy = PointerType::getUnqual(C);
    ThunkTy = FunctionType::get(B.getInt32Ty(), {PtrTy}, false);
    Prepare = M.getOrInsertFunction(
        "gj_prepare", FunctionType::get(B.getInt32Ty(),
                                        {PtrTy, B.getInt32Ty()}, false));
    Perform = M.getOrInsertFunction(
        "gj_perform", FunctionType::get(B.getInt32Ty(),
                                        {PtrTy, B.getInt32Ty()}, false));
    Release = M.getOrInsertFunction(
        "gj_release", FunctionType::get(B.getVoidTy(),
                                        {PtrTy, B.getInt32Ty()}, false));
    Grow = M.getOrInsertFunction(
        "gj_storage_grow",
        FunctionType::get(PtrTy, {PtrTy, PtrTy, B.getInt64Ty()}, false));
    FailCall = M.getOrInsertFunction(
        "gj_fail", FunctionType::get(B.getInt32Ty(),
                                     {PtrTy, B.getInt32Ty()}, false));
  }

  Error run(const Schedule &S, bool AllowGC, bool PlanMemory);

private:
  const FunctionGraph &F;
  const std::vector<std::string> InputSymbols = F.inputSymbols();
  LoweredModule &Out;
  LLVMContext &C;
  Module &M;
  IRBuilder<> B;
  KernelLibrary Kernels;
  Type *PtrTy;
  FunctionType *ThunkTy;
  FunctionCallee Prepare, Perform, Release, Grow, FailCall;

  /// What the driver calls for an Apply, and whether with its id.
  struct DriverCallee {
    FunctionCallee Callee;
    bool TakesId;
  };
  Expected<DriverCallee> unplannedThunk(const Apply &N);
  Expected<llvm::Function *> emitThunk(const Apply &N, const Lowering *L,
                                       const char *Shared);
  Expected<llvm::Function *> plannedThunk(const Apply &N, const Lowering &L);
  SmallVector<Value *, 8> plannedThunkArgs(const Apply &N, Value *Frame,
                                           Value *Slots, Value *Storages,
                                           bool Named);
  void placeOutput(ThunkEmitter &E, const Variable &Var,
                   ArrayRef<Value *> Dims, Value *Entry);
  MDNode *applyMetadata(const Apply &N, bool Compiled);
  void recordPlan();
};
} // namespace

// The output's bytes (overflow fails), its storage's memory (grown by the
// runtime when too small or handed out), and its slot: contiguous, as
// NDArray::empty would make it.
void ModuleLowerer::placeOutput(ThunkEmitter &E, const Variable &Var,
                                ArrayRef<Value *> Dims, Value *Entry) {
  const TensorType &T = Var.type();
  Type *I64 = B.getInt64Ty();
  Value *Bytes = B.getInt64(dtypeSize(T.Dtype));
  Value *Overflow = B.getFalse();
  for (Value *D : Dims) {
    Value *R = B.CreateBinaryIntrinsic(Intrinsic::smul_with_overflow, Bytes, D);
    Bytes = B.CreateExtractValue(R, 0, "bytes");
    Overflow = B.CreateOr(Overflow, B.CreateExtractValue(R, 1));
  }
  E.failUnless(B.CreateNot(Overflow), "fits");

  Type *PtrTy = B.getPtrTy();
  StructType *StorageTy = StructType::get(C, {PtrTy, I64});
  llvm::Function *Thunk = B.GetInsertBlock()->getParent();
  Value *Capacity = tagDescriptorAccess(B.CreateLoad(
      I64, B.CreateConstInBoundsGEP2_32(StorageTy, Entry, 0, 1), "capacity"));
  Value *Held = tagDescriptorAccess(B.CreateLoad(PtrTy, Entry, "held"));
  BasicBlock *Before = B.GetInsertBlock();
  BasicBlock *GrowBB = BasicBlock::Create(C, "grow", Thunk);
  BasicBlock *Placed = BasicBlock::Create(C, "placed", Thunk);
  B.CreateCondBr(B.CreateICmpSLE(Bytes, Capacity), Placed, GrowBB,
                 MDBuilder(C).createBranchWeights(1000, 1));
  B.SetInsertPoint(GrowBB);
  Value *Grown =
      markNoSlotAccess(B.CreateCall(Grow, {E.frame(), Entry, Bytes}, "grown"));
  BasicBlock *GrownBB = BasicBlock::Create(C, "grown", Thunk);
  B.CreateCondBr(B.CreateIsNull(Grown), E.FailBlock, GrownBB);
  B.SetInsertPoint(GrownBB);
  B.CreateBr(Placed);
  B.SetInsertPoint(Placed);
  PHINode *Data = B.CreatePHI(PtrTy, 2, Var.displayName() + ".data");
  Data->addIncoming(Held, Before);
  Data->addIncoming(Grown, GrownBB);

  E.setSlot(&Var, Data, Dims, E.contiguousStrides(Dims, dtypeSize(T.Dtype)));
}

// A planned Apply's thunk, shared by the Applies whose code is the same
// (Lowering::ThunkKey) and called as
//   i32 @gj_planned.<key>(ptr frame, i32 node, ptr storage entry...,
//                         ptr output slot..., ptr input slot...)
// so that a graph of a thousand similar Applies compiles a few thunks, not
// a thousand. It computes the outputs' dims, places them in their
// storages, and runs the lowering's code on them.
Expected<llvm::Function *> ModuleLowerer::plannedThunk(const Apply &N,
                                                       const Lowering &L) {
  std::string Shared = L.ThunkKey ? L.ThunkKey(N) : "";
  std::string Key = "gj_planned." +
                    (Shared.empty() ? "apply" + std::to_string(N.id()) : Shared);
  if (llvm::Function *Shared = M.getFunction(Key))
    return Shared;
  unsigned NumOut = N.outputs().size(), NumIn = N.inputs().size();
  SmallVector<Type *, 8> Params{PtrTy, B.getInt32Ty()};
  Params.append(2 * NumOut + NumIn, PtrTy);
  llvm::Function *T = llvm::Function::Create(
      FunctionType::get(B.getInt32Ty(), Params, false),
      GlobalValue::InternalLinkage, Key, M);
  T->addFnAttr(Attribute::NoUnwind);
  Value *Frame = T->getArg(0), *Node = T->getArg(1);
  Frame->setName("frame");
  Node->setName("node");
  DenseMap<const Variable *, Value *> SlotOf;
  for (unsigned I = 0; I < NumOut; ++I)
    SlotOf[N.output(I)] = T->getArg(2 + NumOut + I);
  for (unsigned I = 0; I < NumIn; ++I)
    SlotOf.try_emplace(N.inputs()[I], T->getArg(2 + 2 * NumOut + I));
  B.SetInsertPoint(BasicBlock::Create(C, "entry", T));
  ThunkEmitter E =
      ThunkEmitter::forSharedThunk(B, M, Frame, Node, N, Kernels,
                                   std::move(SlotOf));
  E.FailBlock = BasicBlock::Create(C, "failed", T);
  E.Planned = true;
  E.InputSymbols = InputSymbols;
  if (L.EmitViewOutputs) {
    L.EmitViewOutputs(E);
  } else {
    OutputDims Dims(NumOut);
    L.EmitOutputDims(E, Dims);
    for (unsigned I = 0; I < NumOut; ++I)
      placeOutput(E, *N.output(I), Dims[I], T->getArg(2 + I));
  }
  if (L.Emit)
    if (Error Err = L.Emit(E))
      return Err;
  B.CreateRet(B.getInt32(0));
  // gj_fail returns non-zero; saying so lets the driver's error test
  // fold away, so that no failed path rejoins the Applies after it.
  B.SetInsertPoint(E.FailBlock);
  B.CreateCall(FailCall, {Frame, Node});
  B.CreateRet(B.getInt32(1));
  return T;
}

// The driver's arguments to N's planned thunk: its id, its outputs'
// storage entries and slots, its inputs' slots.
SmallVector<Value *, 8>
ModuleLowerer::plannedThunkArgs(const Apply &N, Value *Frame, Value *Slots,
                                Value *Storages, bool Named) {
  StructType *StorageTy = StructType::get(C, {PtrTy, B.getInt64Ty()});
  Type *Dim = ArrayType::get(B.getInt64Ty(), GJ_MAX_RANK);
  StructType *SlotTy = StructType::get(C, {PtrTy, Dim, Dim});
  auto SlotOf = [&](const Variable *V) {
    return B.CreateConstInBoundsGEP1_64(SlotTy, Slots, V->id(),
                                        Named ? V->displayName() + ".slot"
                                              : "");
  };
  SmallVector<Value *, 8> Args{Frame, B.getInt32(N.id())};
  for (const Variable *V : N.outputs())
    Args.push_back(Out.Storage.isPlanned(V->id())
                       ? B.CreateConstInBoundsGEP1_64(
                             StorageTy, Storages,
                             Out.Storage.StorageOf[V->id()],
                             Named ? V->displayName() + ".storage" : "")
                       : ConstantPointerNull::get(B.getPtrTy())); // A view.
  for (const Variable *V : N.outputs())
    Args.push_back(SlotOf(V));
  for (const Variable *In : N.inputs())
    Args.push_back(SlotOf(In));
  return Args;
}

// An unplanned Apply's thunk. Where its code would depend on its id alone
// (perform, a view's prepare, prepare then compute), the runtime's entry
// or one thunk shared by id, so that a graph of many such Applies
// compiles no function per Apply.
Expected<ModuleLowerer::DriverCallee>
ModuleLowerer::unplannedThunk(const Apply &N) {
  const Lowering *L = findLowering(N);
  if (!L)
    return DriverCallee{Perform, true};
  if (L->NeedsPrepare && !L->Emit)
    return DriverCallee{Prepare, true};
  if (L->SharedThunk) {
    if (llvm::Function *T = M.getFunction(L->SharedThunk))
      return DriverCallee{T, true};
  }
  Expected<llvm::Function *> T = emitThunk(N, L, L->SharedThunk);
  if (!T)
    return T.takeError();
  return DriverCallee{*T, L->SharedThunk != nullptr};
}

// i32 @gj_thunk_<id>(ptr frame), or, Shared, i32 @<Shared>(ptr frame,
// i32 node).
Expected<llvm::Function *> ModuleLowerer::emitThunk(const Apply &N,
                                                    const Lowering *L,
                                                    const char *Shared) {
  FunctionType *Ty =
      Shared ? FunctionType::get(B.getInt32Ty(), {PtrTy, B.getInt32Ty()},
                                 false)
             : ThunkTy;
  llvm::Function *T = llvm::Function::Create(
      Ty, GlobalValue::InternalLinkage,
      Shared ? Twine(Shared) : "gj_thunk_" + Twine(N.id()), M);
  Value *Frame = T->getArg(0);
  Frame->setName("frame");
  Value *Id = B.getInt32(N.id());
  if (Shared) {
    Id = T->getArg(1);
    Id->setName("node");
  }
  BasicBlock *Entry = BasicBlock::Create(C, "entry", T);
  B.SetInsertPoint(Entry);
  if (L->NeedsPrepare) {
    Value *Rc = B.CreateCall(Prepare, {Frame, Id}, "rc");
    BasicBlock *Fail = BasicBlock::Create(C, "prepare.failed", T);
    BasicBlock *Body = BasicBlock::Create(C, "body", T);
    B.CreateCondBr(B.CreateICmpNE(Rc, B.getInt32(0)), Fail, Body);
    B.SetInsertPoint(Fail);
    B.CreateRet(Rc);
    B.SetInsertPoint(Body);
  }
  if (L->Emit) {
    ThunkEmitter E =
        Shared ? ThunkEmitter::forSharedThunk(
                     B, M, Frame, Id, N, Kernels,
                     DenseMap<const Variable *, Value *>())
               : ThunkEmitter(B, M, Frame, N, Kernels);
    if (Error Err = L->Emit(E))
      return Err;
  }
  B.CreateRet(B.getInt32(0));
  return T;
}

// The plan as module metadata, by Variable id, so that IR read back
// (-jit-llvm) can be checked to have been emitted with the same plan.
void ModuleLowerer::recordPlan() {
  SmallVector<Metadata *, 16> Ops;
  for (int S : Out.Storage.StorageOf)
    Ops.push_back(ConstantAsMetadata::get(B.getInt32(S)));
  M.getOrInsertNamedMetadata(StoragePlanMetadata)
      ->addOperand(MDNode::get(C, Ops));
}

MDNode *ModuleLowerer::applyMetadata(const Apply &N, bool Compiled) {
  Metadata *Ops[] = {
      ConstantAsMetadata::get(B.getInt32(N.id())),
      MDString::get(C, N.displayName()),
      MDString::get(C, N.loc().isValid() ? N.loc().fileLine() : ""),
      MDString::get(C, Compiled ? "C" : "Py")};
  return MDNode::get(C, Ops);
}

Error ModuleLowerer::run(const Schedule &S, bool AllowGC, bool PlanMemory) {
  Out.IsCompiled.assign(F.numApplies(), false);
  Out.Storage = PlanMemory
                    ? planLoweredStorage(F, S, AllowGC)
                    : planStorage(F, S, AllowGC,
                                  std::vector<bool>(F.numApplies(), false));
  recordPlan();
  std::vector<DriverCallee> Thunks;
  for (Apply *N : S.Order) {
    const Lowering *L = findLowering(*N);
    if (Out.Storage.PlannedApply[N->id()]) {
      Expected<llvm::Function *> T = plannedThunk(*N, *L);
      if (!T)
        return T.takeError();
      Thunks.push_back({*T, false});
    } else {
      Expected<DriverCallee> T = unplannedThunk(*N);
      if (!T)
        return T.takeError();
      Thunks.push_back(*T);
    }
    Out.IsCompiled[N->id()] = L != nullptr;
  }

  llvm::Function *Driver = llvm::Function::Create(
      ThunkTy, GlobalValue::ExternalLinkage, DriverName, M);
  // A long driver is glue (a call and a test per Apply) that optimizing
  // would not speed up but would cost time growing faster than the
  // Applies: it is left as emitted, and its thunks are not inlined. Its
  // values are local to each Apply's block (the frame, the return code in
  // stack slots), since the register allocator's cost grows with the
  // length of live ranges that cross many calls.
  bool Glue = S.Order.size() > GlueDriverApplies;
  if (Glue) {
    Driver->addFnAttr(Attribute::OptimizeNone);
    Driver->addFnAttr(Attribute::NoInline);
  }
  Value *Frame = Driver->getArg(0);
  Frame->setName("frame");
  B.SetInsertPoint(BasicBlock::Create(C, "entry", Driver));
  bool AnyPlanned = llvm::is_contained(Out.Storage.PlannedApply, true);
  Value *FrameAddr = nullptr, *RcAddr = nullptr;
  if (Glue) {
    FrameAddr = B.CreateAlloca(PtrTy, nullptr, "frame.addr");
    RcAddr = B.CreateAlloca(B.getInt32Ty(), nullptr, "rc.addr");
    B.CreateStore(Frame, FrameAddr);
  }
  Value *Slots = nullptr, *Storages = nullptr;
  // A long driver's values go unnamed: naming 100,000 of them costs time.
  auto LoadFrame = [&] {
    if (Glue)
      Frame = B.CreateLoad(PtrTy, FrameAddr);
    if (!AnyPlanned)
      return;
    Slots = loadInvariant(B, Frame, Glue ? "" : "slots");
    Storages = loadInvariant(
        B,
        B.CreateConstInBoundsGEP2_32(StructType::get(C, {PtrTy, PtrTy, PtrTy}),
                                     Frame, 0, 2),
        Glue ? "" : "storages");
  };
  if (!Glue)
    LoadFrame();
  BasicBlock *Fail = BasicBlock::Create(C, "failed", Driver);
  // By schedule position: the unplanned values that die there (planned
  // values stay in their storages), once no planned view reads them.
  std::vector<SmallVector<unsigned, 2>> Dying(S.Order.size());
  if (AllowGC)
    for (Variable *V : F.variables()) {
      int Last = Out.Storage.LiveUntil[V->id()];
      if (Last >= 0 && !Out.Storage.isPlanned(V->id()))
        Dying[Last].push_back(V->id());
    }
  std::vector<std::pair<BasicBlock *, Value *>> Failures;
  for (unsigned Pos = 0; Pos < S.Order.size(); ++Pos) {
    const Apply &N = *S.Order[Pos];
    if (Glue)
      LoadFrame();
    SmallVector<Value *, 8> Args{Frame};
    if (Out.Storage.PlannedApply[N.id()])
      Args = plannedThunkArgs(N, Frame, Slots, Storages, !Glue);
    else if (Thunks[Pos].TakesId)
      Args.push_back(B.getInt32(N.id()));
    CallInst *Call = B.CreateCall(Thunks[Pos].Callee, Args,
                                  Glue ? Twine() : "rc" + Twine(N.id()));
    Call->setMetadata("graphjit.apply",
                      applyMetadata(N, Out.IsCompiled[N.id()]));
    if (Glue)
      B.CreateStore(Call, RcAddr);
    BasicBlock *Next = BasicBlock::Create(
        C, Glue ? Twine() : "after" + Twine(N.id()), Driver);
    B.CreateCondBr(B.CreateICmpNE(Call, B.getInt32(0)), Fail, Next);
    Failures.push_back({B.GetInsertBlock(), Call});
    B.SetInsertPoint(Next);
    for (unsigned Id : Dying[Pos])
      B.CreateCall(Release, {Frame, B.getInt32(Id)});
  }
  B.CreateRet(B.getInt32(0));
  // The first failing thunk's code is the call's result.
  if (Failures.empty()) {
    Fail->eraseFromParent();
  } else if (Glue) {
    B.SetInsertPoint(Fail);
    B.CreateRet(B.CreateLoad(B.getInt32Ty(), RcAddr, "rc"));
  } else {
    B.SetInsertPoint(Fail);
    PHINode *Rc = B.CreatePHI(B.getInt32Ty(), Failures.size(), "rc");
    for (auto [Block, Code] : Failures)
      Rc->addIncoming(Code, Block);
    B.CreateRet(Rc);
  }

  if (Error E = Kernels.linkUsed())
    return E;
  std::string Problems;
  raw_string_ostream OS(Problems);
  if (verifyModule(M, &OS))
    return createStringError("graphjit produced invalid IR for function '" +
                             F.name() + "':\n" + OS.str());
  return Error::success();
}

Expected<LoweredModule> graphjit::lowerFunction(const FunctionGraph &F,
                                                const Schedule &S,
                                                bool AllowGC,
                                                bool PlanMemory,
                                                const DataLayout &DL,
                                                const std::string &Triple) {
  LoweredModule Out;
  Out.Context = std::make_unique<LLVMContext>();
  Out.Module = std::make_unique<Module>("graphjit." + F.name(), *Out.Context);
  Out.Module->setDataLayout(DL);
  Out.Module->setTargetTriple(Triple);
  ModuleLowerer L(F, Out);
  if (Error E = L.run(S, AllowGC, PlanMemory))
    return E;
  return Out;
}

// The !graphjit.storage operands as text ("" when absent).
static std::string storagePlanOf(const llvm::Module &M) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  if (const llvm::NamedMDNode *MD = M.getNamedMetadata(StoragePlanMetadata))
    for (const llvm::MDNode *Op : MD->operands())
      Op->print(OS, &M);
  return Text;
}

std::vector<std::string> graphjit::applyMarkings(const llvm::Module &M) {
  std::vector<std::string> Marks;
  const llvm::Function *Driver = M.getFunction(DriverName);
  if (!Driver)
    return Marks;
  for (const llvm::BasicBlock &BB : *Driver)
    for (const llvm::Instruction &I : BB) {
      const llvm::MDNode *MD = I.getMetadata("graphjit.apply");
      if (!MD || MD->getNumOperands() != 4)
        continue;
      std::string Mark;
      if (auto *Id = llvm::mdconst::dyn_extract<llvm::ConstantInt>(
              MD->getOperand(0)))
        Mark = std::to_string(Id->getSExtValue());
      for (unsigned Op : {1u, 3u})
        if (auto *S = llvm::dyn_cast<llvm::MDString>(MD->getOperand(Op)))
          Mark += " " + S->getString().str();
      Marks.push_back(std::move(Mark));
    }
  return Marks;
}

llvm::Expected<LoweredModule>
graphjit::loadLoweredModule(llvm::StringRef File,
                            const LoweredModule &Lowered) {
  LoweredModule L;
  L.Context = std::make_unique<llvm::LLVMContext>();
  llvm::SMDiagnostic Diag;
  L.Module = llvm::parseIRFile(File, Diag, *L.Context);
  if (!L.Module) {
    std::string Msg;
    llvm::raw_string_ostream OS(Msg);
    Diag.print("graphjit", OS, /*ShowColors=*/false);
    return llvm::createStringError(llvm::StringRef(Msg).rtrim());
  }
  std::string Broken;
  llvm::raw_string_ostream BS(Broken);
  if (llvm::verifyModule(*L.Module, &BS))
    return llvm::createStringError(File + ": invalid IR: " +
                                   llvm::StringRef(Broken).trim());
  if (!L.Module->getFunction(DriverName))
    return llvm::createStringError(File + ": no function @" + DriverName);
  std::vector<std::string> Want = applyMarkings(*Lowered.Module);
  std::vector<std::string> Got = applyMarkings(*L.Module);
  for (unsigned I = 0; I < std::max(Want.size(), Got.size()); ++I)
    if (I >= Want.size() || I >= Got.size() || Want[I] != Got[I])
      return llvm::createStringError(
          File + ": its driver's Applies differ from this function's: "
                 "Apply call " + std::to_string(I) + " is '" +
          (I < Got.size() ? Got[I] : std::string("(none)")) +
          "', the function's is '" +
          (I < Want.size() ? Want[I] : std::string("(none)")) +
          "' (use the IR that -emit-llvm wrote for this function)");
  if (storagePlanOf(*L.Module) != storagePlanOf(*Lowered.Module))
    return llvm::createStringError(
        File + ": its memory plan differs from this function's (it was "
               "emitted with other options: -profile-memory plans nothing)");
  L.Module->setDataLayout(Lowered.Module->getDataLayout());
  L.Module->setTargetTriple(Lowered.Module->getTargetTriple());
  L.IsCompiled = Lowered.IsCompiled;
  L.Storage = Lowered.Storage;
  return L;
}
