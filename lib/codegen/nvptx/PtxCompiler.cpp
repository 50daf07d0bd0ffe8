//===- PtxCompiler.cpp - NVPTX modules to PTX text -----------------------===//
//
// compileToPtx: libdevice's math linked in (Libdevice.cpp), the O2
// pipeline of the NVPTX target machine (whose callbacks add NVVMReflect,
// which folds libdevice's __nvvm_reflect tests), then the PTX printer.
// Default target options: no FMA contraction and IEEE division and square
// roots, so the GPU rounds as the host does wherever the math is the same.
// Two checks keep a bad module from reaching the driver, or from aborting
// the process: math the backend cannot select is an error before code
// generation, and a PTX that still declares an external function (which
// would fail at load) is an error naming it.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include <mutex>

using namespace graphjit;
using namespace llvm;

static constexpr const char *NvptxTriple = "nvptx64-nvidia-cuda";
/// PTX ISA 7.8: enough for sm_90, and what CUDA 12 and 13's ptxas accept.
static constexpr const char *PtxFeatures = "+ptx78";

Expected<std::unique_ptr<TargetMachine>>
graphjit::createNvptxTargetMachine(StringRef Arch) {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  if (!Arch.starts_with("sm_"))
    return createStringError("'" + Arch +
                             "' is not a GPU architecture "
                             "(sm_80, sm_90, ...)");
  std::string Error;
  const Target *T = TargetRegistry::lookupTarget(NvptxTriple, Error);
  if (!T)
    return createStringError("no NVPTX target in this LLVM: " + Error);
  std::unique_ptr<TargetMachine> TM(T->createTargetMachine(
      NvptxTriple, Arch, PtxFeatures, TargetOptions(), std::nullopt,
      std::nullopt, CodeGenOptLevel::Default));
  if (!TM)
    return createStringError("cannot make an NVPTX target machine for " + Arch);
  return TM;
}

/// Math that reached code generation without a lowering (a bug: the
/// libdevice step missed it): an error instead of LLVM's fatal one.
static Error checkSelectable(Module &M) {
  static const char *Unselectable[] = {
      "llvm.sin.",   "llvm.cos.",  "llvm.tan.",  "llvm.exp.",   "llvm.exp2.",
      "llvm.exp10.", "llvm.log.",  "llvm.log2.", "llvm.log10.", "llvm.pow.",
      "llvm.powi.",  "llvm.tanh.", "llvm.sinh.", "llvm.cosh.",  "llvm.asin.",
      "llvm.acos.",  "llvm.atan."};
  for (llvm::Function &F : M)
    for (Instruction &I : instructions(F)) {
      if (I.getOpcode() == Instruction::FRem)
        return createStringError("frem in " + F.getName() +
                                 " has no exact NVPTX lowering");
      auto *Call = dyn_cast<CallInst>(&I);
      llvm::Function *Callee = Call ? Call->getCalledFunction() : nullptr;
      if (!Callee || !Callee->isIntrinsic())
        continue;
      for (const char *Prefix : Unselectable)
        if (Callee->getName().starts_with(Prefix))
          return createStringError(Callee->getName() + " in " + F.getName() +
                                   " has no NVPTX lowering");
    }
  return Error::success();
}

/// The functions PTX declares `.extern .func` (called, never defined).
static SmallVector<std::string, 4> externFunctions(StringRef Ptx) {
  SmallVector<std::string, 4> Names;
  StringRef Rest = Ptx;
  while (true) {
    size_t At = Rest.find(".extern .func");
    if (At == StringRef::npos)
      return Names;
    Rest = Rest.drop_front(At + strlen(".extern .func")).ltrim();
    // `.extern .func (.param .b32 func_retval0) fmodf(`: skip the result.
    if (Rest.starts_with("("))
      Rest =
          Rest.drop_until([](char C) { return C == ')'; }).drop_front().ltrim();
    Names.push_back(Rest.take_while([](char C) {
                          return isAlnum(C) || C == '_' || C == '$';
                        })
                        .str());
  }
}

Expected<std::string> graphjit::compileToPtx(std::unique_ptr<Module> M,
                                             StringRef Arch) {
  Expected<std::unique_ptr<TargetMachine>> TMOr =
      createNvptxTargetMachine(Arch);
  if (!TMOr)
    return TMOr.takeError();
  TargetMachine &TM = **TMOr;
  M->setTargetTriple(NvptxTriple);
  M->setDataLayout(TM.createDataLayout());
  if (Error E = linkLibdevice(*M))
    return E;

  {
    LoopAnalysisManager LAM;
    FunctionAnalysisManager FAM;
    CGSCCAnalysisManager CGAM;
    ModuleAnalysisManager MAM;
    PassBuilder PB(&TM); // registers NVPTX's callbacks: NVVMReflect
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    ModulePassManager MPM =
        PB.buildPerModuleDefaultPipeline(OptimizationLevel::O2);
    MPM.run(*M, MAM);
  }
  if (Error E = checkSelectable(*M))
    return E;

  SmallString<0> Ptx;
  {
    raw_svector_ostream OS(Ptx);
    legacy::PassManager PM;
    if (TM.addPassesToEmitFile(PM, OS, nullptr, CodeGenFileType::AssemblyFile))
      return createStringError("the NVPTX target cannot emit PTX");
    PM.run(*M);
  }
  SmallVector<std::string, 4> Missing = externFunctions(Ptx);
  if (!Missing.empty())
    return createStringError("the PTX calls functions nothing defines: " +
                             join(Missing, ", "));
  return std::string(Ptx.str());
}
