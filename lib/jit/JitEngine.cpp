//===- JitEngine.cpp - ORC LLJIT for the host CPU ------------------------===//

#include "JitEngine.h"
#include "CompileCache.h"
#include "IRPipeline.h"
#include "ObjectLinkage.h"
#include "SplitCodegen.h"
#include "TargetMachinePool.h"
#include "VectorMath.h"
#include "graphjit/Flags.h"
#include "runtime/MemoryRuntime.h"
#include "runtime/ParallelRuntime.h"
#include "runtime/ProfileRuntime.h"
#include "runtime/TraceRuntime.h"
#include "graphjit/runtime/RuntimeABI.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include <atomic>
#include <mutex>

using namespace graphjit;
using namespace llvm;

struct JitEngine::Impl {
  std::unique_ptr<orc::LLJIT> J;
  /// The host's TargetMachines, one per thread that compiles.
  std::unique_ptr<TargetMachinePool> Machines;
  /// The most threads codegen uses (0: as many as it finds worth it).
  unsigned CodegenThreads = 0;
  DataLayout DL{""};
  std::string Triple;
  std::string Cpu;
  std::string Features;
  mutable std::mutex Lock;
  std::atomic<unsigned> Counter{0};
  CompileCache Cache{CompileCache::defaultDirectory()};
};

JitEngine::JitEngine() : P(std::make_unique<Impl>()) {}
JitEngine::~JitEngine() = default;

const DataLayout &JitEngine::dataLayout() const { return P->DL; }
const std::string &JitEngine::triple() const { return P->Triple; }
StringRef JitEngine::cpuName() const { return P->Cpu; }

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
                     TraceRuntime::symbols(), ParallelRuntime::symbols(),
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
    // Not the JIT's default large code model, whose absolute calls fast
    // instruction selection does not handle (ObjectLinkage.h).
    useSmallCodeModel(*JTMB);
    std::unique_ptr<JitEngine> E(new JitEngine());
    E->P->Machines = std::make_unique<TargetMachinePool>(*JTMB);
    {
      auto TM = E->P->Machines->lease(); // Kept for the first compile.
      if (!TM)
        return Fail(TM.takeError());
      E->P->DL = (*TM)->createDataLayout();
      E->P->Triple = (*TM)->getTargetTriple().str();
      E->P->Cpu = (*TM)->getTargetCPU().str();
      E->P->Features = (*TM)->getTargetFeatureString().str();
    }
    // graphjit hands the JIT objects only: an IR compiler that makes its
    // TargetMachine when used (never) saves making one now.
    auto J = orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(*JTMB)
                 .setCompileFunctionCreator(
                     [](orc::JITTargetMachineBuilder B)
                         -> Expected<
                             std::unique_ptr<orc::IRCompileLayer::IRCompiler>> {
                       return std::make_unique<orc::ConcurrentIRCompiler>(
                           std::move(B));
                     })
                 .create();
    if (!J)
      return Fail(J.takeError());
    E->P->J = std::move(*J);
    loadVectorMathLibrary(); // Before the process's symbols are searched.
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

// Bump when the pipeline or the code generation options change, so that
// cached objects compiled the old way are not used.
static constexpr unsigned PipelineVersion = 6; // 2: libmvec, 3: O0 glue,
                                               // 4: kernel pipeline,
                                               // 5: small code model, PIC,
                                               // 6: looping thunks apart
                                               // from the glue

void JitEngine::setTarget(Module &M) const {
  for (llvm::Function &F : M)
    if (!F.isDeclaration()) {
      F.addFnAttr("target-cpu", P->Cpu);
      F.addFnAttr("target-features", P->Features);
    }
}

std::string JitEngine::cacheKey(const Module &M, Optimization Opt) const {
  {
    std::lock_guard<std::mutex> Guard(P->Lock);
    if (!P->Cache.enabled())
      return "";
  }
  return CompileCache::key(M, cacheConfiguration(Opt));
}

std::string JitEngine::cacheConfiguration(Optimization Opt) const {
  std::lock_guard<std::mutex> Guard(P->Lock);
  return (Twine(Opt.name()) + " " + P->Triple + " " + P->Cpu + " " +
          P->Features + " LLVM " + LLVM_VERSION_STRING + " pipeline " +
          Twine(PipelineVersion) + " graphjit " + GRAPHJIT_VERSION +
          (loadVectorMathLibrary() ? " libmvec" : ""))
      .str();
}

ObjectFiles JitEngine::cachedObjects(StringRef Key) const {
  if (Key.empty())
    return {};
  std::lock_guard<std::mutex> Guard(P->Lock);
  return P->Cache.lookup(Key.str());
}

void JitEngine::dropCachedObject(StringRef Key) {
  std::lock_guard<std::mutex> Guard(P->Lock);
  P->Cache.remove(Key.str());
}

Error JitEngine::optimize(Module &M, Optimization Opt) {
  std::lock_guard<std::mutex> Guard(P->Lock);
  auto TM = P->Machines->lease();
  if (!TM)
    return TM.takeError();
  optimizeIR(M, **TM, Opt);
  return Error::success();
}

// setCodegenThreads, else GRAPHJIT_FLAGS=compile_threads=N; 0: no cap.
// Called under the lock.
unsigned JitEngine::threadCap() const {
  if (P->CodegenThreads)
    return P->CodegenThreads;
  if (Expected<const Flags &> F = processFlags())
    return F->CompileThreads;
  else
    consumeError(F.takeError());
  return 0;
}

unsigned JitEngine::compileParts(const Module &M, StringRef Entry) const {
  if (TimePassesIsEnabled) // Its timers are the process's, not a thread's.
    return 0;
  unsigned Parts = compilePartsFor(M, Entry);
  std::lock_guard<std::mutex> Guard(P->Lock);
  unsigned Cap = threadCap();
  return Cap ? std::min(Parts, Cap) : Parts;
}

Expected<ObjectFiles> JitEngine::optimizeAndCodegen(Module &M, StringRef Entry,
                                                    unsigned Parts,
                                                    Optimization Opt,
                                                    StringRef Key,
                                                    PartTimes &Times) {
  std::lock_guard<std::mutex> Guard(P->Lock);
  PartCompiler Compiler;
  Compiler.MakeTM = [&] { return P->Machines->take(); };
  Compiler.GiveBackTM = [&](std::unique_ptr<TargetMachine> TM) {
    P->Machines->give(std::move(TM));
  };
  // The glue as the long drivers' (GlueModule.h): optimizing a call and
  // a test per Apply does not pay for itself (the train steps ran as fast).
  Compiler.Optimize = [&](Module &Part, TargetMachine &TM, bool Glue) {
    optimizeIR(Part, TM, Glue ? Optimization{0} : Opt);
  };
  Expected<ObjectFiles> Objects =
      compileInParts(M, Entry, Parts, Compiler, Times);
  if (!Objects)
    return Objects.takeError();
  if (!Key.empty())
    if (Error E = P->Cache.store(Key.str(), *Objects))
      errs() << "graphjit: warning: " << toString(std::move(E)) << "\n";
  return Objects;
}

// Runs Emit with TM at O0 for glue (GlueModule.h). The pass pipeline
// reads the level when it is built; O0 turns on fast instruction
// selection, which must not outlive the glue.
template <typename EmitT>
static auto atGlueLevel(TargetMachine &TM, bool Glue, EmitT Emit) {
  CodeGenOptLevel Level = TM.getOptLevel();
  bool FastISel = TM.Options.EnableFastISel;
  auto Restore = make_scope_exit([&] {
    TM.setOptLevel(Level);
    TM.setFastISel(FastISel);
  });
  if (Glue)
    TM.setOptLevel(CodeGenOptLevel::None);
  return Emit();
}

Error JitEngine::writeAssembly(const Module &M, const Module *Glue,
                               StringRef Path) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_Text);
  if (EC)
    return createStringError("cannot write '" + Path + "': " + EC.message());
  std::lock_guard<std::mutex> Guard(P->Lock);
  auto TM = P->Machines->lease();
  if (!TM)
    return TM.takeError();
  for (auto [Part, IsGlue] : {std::pair{&M, false}, {Glue, true}}) {
    if (!Part)
      continue;
    const Module &Code = *Part;
    Error E = atGlueLevel(**TM, IsGlue, [&]() -> Error {
      legacy::PassManager PM;
      if ((*TM)->addPassesToEmitFile(PM, OS, nullptr,
                                     CodeGenFileType::AssemblyFile))
        return createStringError("the target cannot emit assembly");
      // Code generation rewrites the IR it runs on: give it a copy.
      std::unique_ptr<Module> Copy = CloneModule(Code);
      PM.run(*Copy);
      return Error::success();
    });
    if (E)
      return E;
  }
  return Error::success();
}

Expected<ObjectFiles> JitEngine::codegen(Module &M, Module *Glue,
                                         StringRef Key) {
  std::lock_guard<std::mutex> Guard(P->Lock);
  ObjectFiles Objects;
  for (auto [Part, IsGlue] : {std::pair{&M, false}, {Glue, true}}) {
    if (!Part)
      continue;
    Module &Code = *Part;
    // Glue is compiled at O0, fast; the rest in parts on several threads
    // where it is worth it (SplitCodegen.h).
    unsigned Parts = IsGlue ? 1 : codegenPartsFor(Code);
    if (unsigned Cap = threadCap())
      Parts = std::min(Parts, Cap);
    if (Parts > 1) {
      auto InParts = codegenInParts(
          Code, Parts, [&] { return P->Machines->take(); },
          [&](std::unique_ptr<TargetMachine> Used) {
            P->Machines->give(std::move(Used));
          });
      if (!InParts)
        return InParts.takeError();
      for (std::unique_ptr<MemoryBuffer> &Obj : *InParts)
        Objects.push_back(std::move(Obj));
      continue;
    }
    auto TM = P->Machines->lease();
    if (!TM)
      return TM.takeError();
    auto Obj = atGlueLevel(**TM, IsGlue, [&] {
      return orc::SimpleCompiler(**TM)(Code);
    });
    if (!Obj)
      return Obj.takeError();
    Objects.push_back(std::move(*Obj));
  }
  if (!Key.empty())
    if (Error E = P->Cache.store(Key.str(), Objects))
      errs() << "graphjit: warning: " << toString(std::move(E)) << "\n";
  return Objects;
}

Expected<CompiledCode> JitEngine::link(ObjectFiles Objects, StringRef Entry,
                                       bool Profiled) {
  std::lock_guard<std::mutex> Guard(P->Lock);
  auto &ES = P->J->getExecutionSession();
  auto JD = ES.createJITDylib("graphjit.fn" + std::to_string(P->Counter++));
  if (!JD)
    return JD.takeError();
  JD->addToLinkOrder(P->J->getMainJITDylib());
  for (std::unique_ptr<MemoryBuffer> &Object : Objects)
    if (Error E = P->J->addObjectFile(*JD, std::move(Object))) {
      consumeError(ES.removeJITDylib(*JD));
      return E;
    }
  auto Sym = P->J->lookup(*JD, Entry);
  if (!Sym) {
    consumeError(ES.removeJITDylib(*JD));
    return Sym.takeError();
  }
  CompiledCode Code{Sym->toPtr<void *>(), &*JD, nullptr};
  if (Profiled) {
    auto Desc = P->J->lookup(*JD, (Entry + GJ_PROFILE_DESC_SUFFIX).str());
    if (!Desc) {
      consumeError(ES.removeJITDylib(*JD));
      return Desc.takeError();
    }
    Code.Profile = Desc->toPtr<const gj_profile_desc *>();
  }
  return Code;
}

Expected<CompiledCode> JitEngine::compile(std::unique_ptr<Module> M,
                                          std::unique_ptr<LLVMContext> Ctx,
                                          StringRef Entry, Optimization Opt) {
  // The module must be destroyed before its context, whatever the order
  // in which the caller destroys the arguments.
  auto FreeModule = make_scope_exit([&] {
    M.reset();
    Ctx.reset();
  });
  setTarget(*M);
  std::string Key = cacheKey(*M, Opt);
  if (ObjectFiles Objects = cachedObjects(Key); !Objects.empty()) {
    Expected<CompiledCode> Code = link(std::move(Objects), Entry, false);
    if (Code)
      return Code;
    // An entry that does not link (another LLVM wrote it, say): compile
    // afresh and replace it.
    consumeError(Code.takeError());
    dropCachedObject(Key);
  }
  if (Error E = optimize(*M, Opt))
    return E;
  Expected<ObjectFiles> Objects = codegen(*M, nullptr, Key);
  if (!Objects)
    return Objects.takeError();
  return link(std::move(*Objects), Entry, false);
}

void JitEngine::setCodegenThreads(unsigned N) {
  std::lock_guard<std::mutex> Guard(P->Lock);
  P->CodegenThreads = N;
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
  // The timeline names its slices from their descriptors when it is
  // written, at exit: code that recorded some stays until then.
  if (Code.Profile && TraceRuntime::recorded(Code.Profile)) {
    Code = CompiledCode();
    return;
  }
  // Another function's descriptor may land at the same address later.
  if (Code.Profile) {
    ProfileRuntime::forget(*Code.Profile);
    MemoryRuntime::forget(Code.Profile);
  }
  consumeError(P->J->getExecutionSession().removeJITDylib(*Code.Dylib));
  Code = CompiledCode();
}
