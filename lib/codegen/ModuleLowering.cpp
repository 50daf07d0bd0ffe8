//===- ModuleLowering.cpp - A FunctionGraph as one LLVM module -----------===//

#include "ModuleLowering.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/SourceMgr.h"
#include "KernelLibrary.h"
#include "ThunkEmitter.h"
#include "llvm/IR/IRBuilder.h"
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
  }

  Error run(const Schedule &S, bool AllowGC);

private:
  const FunctionGraph &F;
  LoweredModule &Out;
  LLVMContext &C;
  Module &M;
  IRBuilder<> B;
  KernelLibrary Kernels;
  Type *PtrTy;
  FunctionType *ThunkTy;
  FunctionCallee Prepare, Perform, Release;

  Expected<llvm::Function *> emitThunk(const Apply &N);
  MDNode *applyMetadata(const Apply &N, bool Compiled);
};
} // namespace

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

MDNode *ModuleLowerer::applyMetadata(const Apply &N, bool Compiled) {
  Metadata *Ops[] = {
      ConstantAsMetadata::get(B.getInt32(N.id())),
      MDString::get(C, N.displayName()),
      MDString::get(C, N.loc().isValid() ? N.loc().fileLine() : ""),
      MDString::get(C, Compiled ? "C" : "Py")};
  return MDNode::get(C, Ops);
}

Error ModuleLowerer::run(const Schedule &S, bool AllowGC) {
  Out.IsCompiled.assign(F.numApplies(), false);
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
    for (Variable *V : Vars)
      if (S.LastUse[V->id()] == int(Pos))
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
                                                const DataLayout &DL,
                                                const std::string &Triple) {
  LoweredModule Out;
  Out.Context = std::make_unique<LLVMContext>();
  Out.Module = std::make_unique<Module>("graphjit." + F.name(), *Out.Context);
  Out.Module->setDataLayout(DL);
  Out.Module->setTargetTriple(Triple);
  ModuleLowerer L(F, Out);
  if (Error E = L.run(S, AllowGC))
    return E;
  return Out;
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
  L.Module->setDataLayout(Lowered.Module->getDataLayout());
  L.Module->setTargetTriple(Lowered.Module->getTargetTriple());
  L.IsCompiled = Lowered.IsCompiled;
  return L;
}
