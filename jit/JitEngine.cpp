//===- JitEngine.cpp - ORC LLJIT for the host CPU ------------------------===//

#include "JitEngine.h"
#include "CompileCache.h"
#include "passes/InstrumentApplies.h"
#include "runtime/Clock.h"
#include "runtime/MemoryRuntime.h"
#include "runtime/ProfileRuntime.h"
#include "runtime/RuntimeABI.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include <atomic>
#include <chrono>
#include <mutex>

using namespace graphjit;
using namespace llvm;

struct JitEngine::Impl {
  std::unique_ptr<orc::LLJIT> J;
  std::unique_ptr<TargetMachine> TM;
  DataLayout DL{""};
  std::string Triple;
  std::string Cpu;
  mutable std::mutex Lock;
  std::atomic<unsigned> Counter{0};
  CompileCache Cache{CompileCache::defaultDirectory()};
};

JitEngine::JitEngine() : P(std::make_unique<Impl>()) {}
JitEngine::~JitEngine() = default;

const DataLayout &JitEngine::dataLayout() const { return P->DL; }
const std::string &JitEngine::triple() const { return P->Triple; }
StringRef JitEngine::cpuName() const { return P->Cpu; }

static double secondsSince(std::chrono::steady_clock::time_point T) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T)
      .count();
}

// Entry points of the layers above (the linkers' gj_prepare, gj_perform,
// ...), registered from the top before the JIT starts.
static std::mutex RegisteredLock;
static std::vector<RuntimeSymbol> &registeredSymbols() {
  static std::vector<RuntimeSymbol> Symbols;
  return Symbols;
}
/// The started JIT, once its symbols are defined (under RegisteredLock).
static orc::LLJIT *StartedJit = nullptr;

// Entry points bound by address: graphjit is not linked with -rdynamic, so
// the process's symbol table does not have them.
static Error defineSymbols(orc::LLJIT &J, ArrayRef<RuntimeSymbol> Group) {
  orc::SymbolMap Symbols;
  for (const RuntimeSymbol &S : Group)
    Symbols[J.mangleAndIntern(S.Name)] = {
        orc::ExecutorAddr::fromPtr(S.Address), JITSymbolFlags::Exported};
  return J.getMainJITDylib().define(orc::absoluteSymbols(std::move(Symbols)));
}

void JitEngine::registerSymbols(ArrayRef<RuntimeSymbol> Symbols) {
  std::lock_guard<std::mutex> G(RegisteredLock);
  llvm::append_range(registeredSymbols(), Symbols);
  // Registered late (the JIT was used before graphjit::initialize()).
  if (StartedJit)
    llvm::cantFail(defineSymbols(*StartedJit, Symbols));
}

static Error defineRuntimeSymbols(orc::LLJIT &J) {
  std::lock_guard<std::mutex> G(RegisteredLock);
  for (auto Group : {ProfileRuntime::symbols(), MemoryRuntime::symbols(),
                     ArrayRef<RuntimeSymbol>(registeredSymbols())})
    if (Error E = defineSymbols(J, Group))
      return E;
  StartedJit = &J;
  return Error::success();
}

Expected<JitEngine &> JitEngine::get() {
  static std::unique_ptr<JitEngine> Engine;
  static std::string Failure;
  static std::once_flag Once;
  std::call_once(Once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
    InitializeNativeTargetAsmParser();
    auto Fail = [](Error E) { Failure = toString(std::move(E)); };
    auto JTMB = orc::JITTargetMachineBuilder::detectHost();
    if (!JTMB)
      return Fail(JTMB.takeError());
    JTMB->setCodeGenOptLevel(CodeGenOptLevel::Aggressive);
    std::unique_ptr<JitEngine> E(new JitEngine());
    auto TM = JTMB->createTargetMachine();
    if (!TM)
      return Fail(TM.takeError());
    E->P->TM = std::move(*TM);
    E->P->DL = E->P->TM->createDataLayout();
    E->P->Triple = E->P->TM->getTargetTriple().str();
    E->P->Cpu = E->P->TM->getTargetCPU().str();
    auto J = orc::LLJITBuilder().setJITTargetMachineBuilder(*JTMB).create();
    if (!J)
      return Fail(J.takeError());
    E->P->J = std::move(*J);
    auto Process = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        E->P->DL.getGlobalPrefix());
    if (!Process)
      return Fail(Process.takeError());
    E->P->J->getMainJITDylib().addGenerator(std::move(*Process));
    if (Error Err = defineRuntimeSymbols(*E->P->J))
      return Fail(std::move(Err));
    Engine = std::move(E);
  });
  if (!Engine)
    return createStringError("cannot start the JIT: " + Failure);
  return *Engine;
}

static Error writeText(StringRef Path, function_ref<void(raw_ostream &)> Fn) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_Text);
  if (EC)
    return createStringError("cannot write '" + Path + "': " + EC.message());
  Fn(OS);
  return Error::success();
}

static void optimize(Module &M, TargetMachine &TM, unsigned OptLevel) {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PipelineTuningOptions PTO;
  PassBuilder PB(&TM, PTO);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  OptimizationLevel Level = OptLevel == 0   ? OptimizationLevel::O0
                            : OptLevel == 1 ? OptimizationLevel::O1
                            : OptLevel == 2 ? OptimizationLevel::O2
                                            : OptimizationLevel::O3;
  ModulePassManager MPM = OptLevel == 0
                              ? PB.buildO0DefaultPipeline(Level)
                              : PB.buildPerModuleDefaultPipeline(Level);
  MPM.run(M, MAM);
}

// Bump when the pipeline or the code generation options change, so that
// cached objects compiled the old way are not used.
static constexpr unsigned PipelineVersion = 1;

Expected<CompiledCode> JitEngine::compile(std::unique_ptr<Module> M,
                                          std::unique_ptr<LLVMContext> Ctx,
                                          StringRef Entry, unsigned OptLevel,
                                          const EmitOptions &Emit,
                                          CompileTimes &Times, bool Profile,
                                          bool ProfileMemory) {
  // The module must be destroyed before its context, whatever the order
  // in which the caller destroys the arguments.
  auto FreeModule = make_scope_exit([&] {
    M.reset();
    Ctx.reset();
  });
  std::lock_guard<std::mutex> Guard(P->Lock);
  if (!Emit.LLVM.empty())
    if (Error E = writeText(Emit.LLVM, [&](raw_ostream &OS) { M->print(OS, nullptr); }))
      return E;

  auto Start = std::chrono::steady_clock::now();
  if (Profile) {
    InstrumentAppliesOptions IO;
    IO.Clock = ProfileClock::get().preferredClock() == GJ_PROFILE_CLOCK_TSC
                   ? CounterClock::Tsc
                   : CounterClock::Call;
    IO.Memory = ProfileMemory;
    Expected<InstrumentAppliesResult> R = instrumentApplies(*M, IO);
    if (!R)
      return R.takeError();
  }
  for (llvm::Function &F : *M)
    if (!F.isDeclaration()) {
      F.addFnAttr("target-cpu", P->Cpu);
      F.addFnAttr("target-features", P->TM->getTargetFeatureString());
    }

  // The dumps of the optimized module and of the assembly need the real
  // pipeline to run: they bypass the cache.
  bool UseCache = P->Cache.enabled() && Emit.LLVMOptimized.empty() &&
                  Emit.Asm.empty();
  std::string Key;
  std::unique_ptr<MemoryBuffer> Object;
  if (UseCache) {
    Key = CompileCache::key(
        *M, (Twine("O") + Twine(OptLevel) + " " + P->Triple + " " + P->Cpu +
             " " + P->TM->getTargetFeatureString() + " LLVM " +
             LLVM_VERSION_STRING + " pipeline " + Twine(PipelineVersion))
                .str());
    Object = P->Cache.lookup(Key);
  }

  auto Link = [&](std::unique_ptr<MemoryBuffer> Obj) -> Expected<CompiledCode> {
    auto LinkStart = std::chrono::steady_clock::now();
    auto &ES = P->J->getExecutionSession();
    auto JD = ES.createJITDylib("graphjit.fn" + std::to_string(P->Counter++));
    if (!JD)
      return JD.takeError();
    JD->addToLinkOrder(P->J->getMainJITDylib());
    if (Error E = P->J->addObjectFile(*JD, std::move(Obj))) {
      consumeError(ES.removeJITDylib(*JD));
      return E;
    }
    auto Sym = P->J->lookup(*JD, Entry);
    if (!Sym) {
      consumeError(ES.removeJITDylib(*JD));
      return Sym.takeError();
    }
    CompiledCode Code{Sym->toPtr<void *>(), &*JD, nullptr};
    if (Profile) {
      auto Desc = P->J->lookup(*JD, profileDescriptorName(Entry));
      if (!Desc) {
        consumeError(ES.removeJITDylib(*JD));
        return Desc.takeError();
      }
      Code.Profile = Desc->toPtr<const gj_profile_desc *>();
    }
    Times.Link = secondsSince(LinkStart);
    return Code;
  };

  if (Object) {
    Expected<CompiledCode> Code = Link(std::move(Object));
    if (Code) {
      Times.Cached = true;
      return Code;
    }
    // An entry that does not link (another LLVM wrote it, say): compile
    // afresh and replace it.
    consumeError(Code.takeError());
    P->Cache.remove(Key);
  }

  optimize(*M, *P->TM, OptLevel);
  Times.Optimize = secondsSince(Start);

  if (!Emit.LLVMOptimized.empty())
    if (Error E = writeText(Emit.LLVMOptimized,
                            [&](raw_ostream &OS) { M->print(OS, nullptr); }))
      return E;
  if (!Emit.Asm.empty()) {
    std::error_code EC;
    raw_fd_ostream OS(Emit.Asm, EC, sys::fs::OF_Text);
    if (EC)
      return createStringError("cannot write '" + Emit.Asm +
                               "': " + EC.message());
    legacy::PassManager PM;
    if (P->TM->addPassesToEmitFile(PM, OS, nullptr,
                                   CodeGenFileType::AssemblyFile))
      return createStringError("the target cannot emit assembly");
    // Code generation rewrites the IR it runs on: give it a copy.
    std::unique_ptr<Module> Copy = CloneModule(*M);
    PM.run(*Copy);
  }

  Start = std::chrono::steady_clock::now();
  orc::SimpleCompiler Compiler(*P->TM);
  auto Obj = Compiler(*M);
  if (!Obj)
    return Obj.takeError();
  Times.Codegen = secondsSince(Start);
  if (UseCache)
    if (Error E = P->Cache.store(Key, **Obj))
      errs() << "graphjit: warning: " << toString(std::move(E)) << "\n";
  return Link(std::move(*Obj));
}

void JitEngine::setCacheDirectory(std::string Dir) {
  std::lock_guard<std::mutex> Guard(P->Lock);
  P->Cache = CompileCache(std::move(Dir));
}

std::string JitEngine::cacheDirectory() const {
  std::lock_guard<std::mutex> Guard(P->Lock);
  return P->Cache.directory();
}

Expected<void *> JitEngine::lookup(const CompiledCode &Code, StringRef Name) {
  if (!Code.Dylib)
    return createStringError("lookup of '" + Name + "' in released code");
  std::lock_guard<std::mutex> Guard(P->Lock);
  auto Sym = P->J->lookup(*Code.Dylib, Name);
  if (!Sym)
    return Sym.takeError();
  return Sym->toPtr<void *>();
}

void JitEngine::release(CompiledCode &Code) {
  if (!Code.Dylib)
    return;
  std::lock_guard<std::mutex> Guard(P->Lock);
  // Another function's descriptor may land at the same address later.
  if (Code.Profile) {
    ProfileRuntime::forget(*Code.Profile);
    MemoryRuntime::forget(Code.Profile);
  }
  consumeError(P->J->getExecutionSession().removeJITDylib(*Code.Dylib));
  Code = CompiledCode();
}
