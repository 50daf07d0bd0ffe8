//===- ModuleLowering.cpp - A FunctionGraph as one LLVM module -----------===//

#include "ModuleLowering.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/SourceMgr.h"
#include "KernelLibrary.h"
#include "ThunkEmitter.h"
#include "runtime/RuntimeABI.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

using namespace graphjit;
using namespace llvm;

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
  LoweredModule &Out;
  LLVMContext &C;
  Module &M;
  IRBuilder<> B;
  KernelLibrary Kernels;
  Type *PtrTy;
  FunctionType *ThunkTy;
  FunctionCallee Prepare, Perform, Release, Grow, FailCall;

  Expected<llvm::Function *> emitThunk(const Apply &N);
  void emitPlannedOutputs(ThunkEmitter &E, const Lowering &L);
  void placeOutput(ThunkEmitter &E, const Variable &Var,
                   ArrayRef<Value *> Dims);
  MDNode *applyMetadata(const Apply &N, bool Compiled);
  void recordPlan();
};
} // namespace

// The output's bytes (overflow fails), its storage's memory (grown by the
// runtime when too small or handed out), and its slot: contiguous, as
// NDArray::empty would make it.
void ModuleLowerer::placeOutput(ThunkEmitter &E, const Variable &Var,
                                ArrayRef<Value *> Dims) {
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

  int Storage = Var.id() < Out.Storage.StorageOf.size()
                    ? Out.Storage.StorageOf[Var.id()]
                    : StoragePlan::Unplanned;
  assert(Storage != StoragePlan::Unplanned && "placing an unplanned output");
  StructType *FrameTy = StructType::get(C, {PtrTy, PtrTy, PtrTy});
  StructType *StorageTy = StructType::get(C, {PtrTy, I64});
  llvm::Function *Thunk = B.GetInsertBlock()->getParent();
  Value *Storages = loadInvariant(
      B, B.CreateConstInBoundsGEP2_32(FrameTy, E.frame(), 0, 2), "storages");
  Value *Entry = B.CreateConstInBoundsGEP1_64(StorageTy, Storages, Storage,
                                              Var.displayName() + ".storage");
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

  Value *Slot = E.slotPointer(&Var);
  Type *Dim = ArrayType::get(I64, GJ_MAX_RANK);
  StructType *SlotTy = StructType::get(C, {PtrTy, Dim, Dim});
  tagSlotAccess(B.CreateStore(Data, Slot));
  Value *Step = B.getInt64(dtypeSize(T.Dtype));
  for (unsigned D = Dims.size(); D-- > 0;) {
    Value *ShapeP = B.CreateConstInBoundsGEP2_32(
        Dim, B.CreateConstInBoundsGEP2_32(SlotTy, Slot, 0, 1), 0, D);
    Value *StrideP = B.CreateConstInBoundsGEP2_32(
        Dim, B.CreateConstInBoundsGEP2_32(SlotTy, Slot, 0, 2), 0, D);
    tagSlotAccess(B.CreateStore(Dims[D], ShapeP));
    tagSlotAccess(B.CreateStore(Step, StrideP));
    if (D == 0)
      break;
    // NumPy's strides: a dim of 0 or 1 steps as 1; a product that
    // overflows (only with a dim of 0) saturates.
    Value *Factor = B.CreateBinaryIntrinsic(Intrinsic::smax, Dims[D],
                                            B.getInt64(1));
    Value *R = B.CreateBinaryIntrinsic(Intrinsic::smul_with_overflow, Step,
                                       Factor);
    Step = B.CreateSelect(B.CreateExtractValue(R, 1),
                          B.getInt64(INT64_MAX), B.CreateExtractValue(R, 0));
  }
}

void ModuleLowerer::emitPlannedOutputs(ThunkEmitter &E, const Lowering &L) {
  const Apply &N = E.Node;
  OutputDims Dims(N.outputs().size());
  L.EmitOutputDims(E, Dims);
  for (unsigned I = 0; I < N.outputs().size(); ++I)
    placeOutput(E, *N.output(I), Dims[I]);
}

Expected<llvm::Function *> ModuleLowerer::emitThunk(const Apply &N) {
  llvm::Function *T = llvm::Function::Create(ThunkTy, GlobalValue::InternalLinkage,
                                 "gj_thunk_" + Twine(N.id()), M);
  Value *Frame = T->getArg(0);
  Frame->setName("frame");
  BasicBlock *Entry = BasicBlock::Create(C, "entry", T);
  B.SetInsertPoint(Entry);
  Value *Id = B.getInt32(N.id());
  const Lowering *L = findLowering(N);
  if (!L) {
    B.CreateRet(B.CreateCall(Perform, {Frame, Id}));
    return T;
  }
  if (Out.Storage.PlannedApply[N.id()]) {
    ThunkEmitter E(B, M, Frame, N, Kernels);
    E.FailBlock = BasicBlock::Create(C, "failed", T);
    E.Planned = true;
    emitPlannedOutputs(E, *L);
    if (L->Emit)
      if (Error Err = L->Emit(E))
        return Err;
    B.CreateRet(B.getInt32(0));
    // gj_fail returns non-zero; saying so lets the driver's error test
    // fold away, so that no failed path rejoins the Applies after it.
    B.SetInsertPoint(E.FailBlock);
    B.CreateCall(FailCall, {Frame, Id});
    B.CreateRet(B.getInt32(1));
    return T;
  }
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
    ThunkEmitter E(B, M, Frame, N, Kernels);
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
  std::vector<bool> Planned(F.numApplies(), false);
  if (PlanMemory)
    for (const Apply *N : S.Order)
      Planned[N->id()] = canPlanOutputs(*N);
  Out.Storage = planStorage(F, S, AllowGC, Planned);
  recordPlan();
  std::vector<llvm::Function *> Thunks;
  for (Apply *N : S.Order) {
    Expected<llvm::Function *> T = emitThunk(*N);
    if (!T)
      return T.takeError();
    Thunks.push_back(*T);
    Out.IsCompiled[N->id()] = findLowering(*N) != nullptr;
  }

  llvm::Function *Driver = llvm::Function::Create(ThunkTy, GlobalValue::ExternalLinkage,
                                      DriverName, M);
  Value *Frame = Driver->getArg(0);
  Frame->setName("frame");
  B.SetInsertPoint(BasicBlock::Create(C, "entry", Driver));
  BasicBlock *Fail = BasicBlock::Create(C, "failed", Driver);
  std::vector<Variable *> Vars = F.variables();
  std::vector<std::pair<BasicBlock *, Value *>> Failures;
  for (unsigned Pos = 0; Pos < S.Order.size(); ++Pos) {
    const Apply &N = *S.Order[Pos];
    CallInst *Call = B.CreateCall(Thunks[Pos], {Frame}, "rc" + Twine(N.id()));
    Call->setMetadata("graphjit.apply",
                      applyMetadata(N, Out.IsCompiled[N.id()]));
    BasicBlock *Next =
        BasicBlock::Create(C, "after" + Twine(N.id()), Driver);
    B.CreateCondBr(B.CreateICmpNE(Call, B.getInt32(0)), Fail, Next);
    Failures.push_back({B.GetInsertBlock(), Call});
    B.SetInsertPoint(Next);
    if (!AllowGC)
      continue;
    // Planned values stay in their storages.
    for (Variable *V : Vars)
      if (S.LastUse[V->id()] == int(Pos) && !Out.Storage.isPlanned(V->id()))
        B.CreateCall(Release, {Frame, B.getInt32(V->id())});
  }
  B.CreateRet(B.getInt32(0));
  // The first failing thunk's code is the call's result.
  if (Failures.empty()) {
    Fail->eraseFromParent();
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
