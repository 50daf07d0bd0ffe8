//===- CompilePipeline.cpp - Compiling a function, step by step -----------===//
//
// Function::compile as one linear sequence, in the manner of Halide's
// Lower.cpp:
//
//   rewrite -> schedule -> lower -> instrument -> optimize -> codegen
//           -> link -> kernels
//
// Each step is timed into the function's CompileTimes (the profile's
// compile split) and, when CompileOptions::PrintAfter names it, its result
// is printed (`graphjit -print-after-step=STEP`). Device placement is the
// rewrite step's gpu phase: the inplace phase after it must know where
// values live. The host steps (lower to link) are skipped by the py
// linker; kernels runs only for a function with device Applies.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Flags.h"
#include "graphjit/Function.h"
#include "graphjit/Initialize.h"
#include "graphjit/Printer.h"
#include "graphjit/ProfileStats.h"
#include "codegen/ModuleLowering.h"
#include "codegen/ThunkEmitter.h"
#include "gpu/DevicePool.h"
#include "jit/GlueModule.h"
#include "gpu/GpuProgram.h"
#include "link/call/CallFrame.h"
#include "link/profiling/FunctionProfiler.h"
#include "link/compile/JitCode.h"
#include "link/profiling/TraceFile.h"
#include "ops/gpu/GpuOps.h"
#include "passes/InstrumentApplies.h"
#include "runtime/Clock.h"
#include "runtime/SampleRuntime.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

namespace graphjit {

/// The pipeline's state: what each step hands the next.
class CompilePipeline {
public:
  CompilePipeline(FunctionGraph &Source, CompileOptions Opts)
      : Source(Source), Opts(std::move(Opts)) {}

  Expected<std::unique_ptr<Function>> run();

private:
  // The steps, in order.
  Error rewrite();
  Error schedule();
  Error lower();
  Error instrument();
  Error optimize();
  /// Splits off a long driver and optimizes the rest.
  Error optimizeModule();
  Error codegen();
  Error link();
  Error kernels();

  Error resolveOptions();
  Optimization optimization() const {
    return {Opts.OptLevel, Opts.LLVMPipeline};
  }
  bool isProfiled() const {
    return Opts.Profile || Opts.ProfileMemory || Opts.ProfileOptimizer ||
           Opts.ProfileDistributions || Opts.ProfileSample || Opts.Trace ||
           Opts.ProfileInto;
  }
  /// Runs Step's Body, adds its time and prints its result if asked.
  Error step(CompileStep Step, llvm::function_ref<Error()> Body);
  void printAfter(CompileStep Step, llvm::raw_ostream &OS) const;
  Error writeFile(llvm::StringRef Path,
                  llvm::function_ref<void(llvm::raw_ostream &)> Write) const;
  /// The module is freed before its context.
  void freeModule() {
    Glue.reset();
    Lowered.Module.reset();
    Lowered.Context.reset();
  }

  FunctionGraph &Source;
  CompileOptions Opts;
  RewriteOptions Rewrite;
  std::string Device;
  CompileTimes Times;
  // rewrite
  std::unique_ptr<FunctionGraph> Rewritten;
  RewriteReport Report;
  // schedule
  std::unique_ptr<Function> Fn;
  // lower .. link
  LoweredModule Lowered;
  bool Instrumented = false;
  JitEngine *Engine = nullptr;
  std::string CacheKey;
  // A long driver, split from the module before optimizing (GlueModule.h).
  std::unique_ptr<llvm::Module> Glue;
  ObjectFiles Objects;
  // Optimized and compiled at once in parts (optimize(); Times.PartThreads
  // says so): the threads' seconds in each step, which divide the step's
  // wall time between them.
  PartTimes InParts;
  std::unique_ptr<Function::JitCode> Code;
};

} // namespace graphjit

Expected<std::unique_ptr<Function>> CompilePipeline::run() {
  if (Error E = resolveOptions())
    return E;
  if (Error E = step(CompileStep::Rewrite, [&] { return rewrite(); }))
    return E;
  // The optimizer's own measure, so that the compile split and the
  // Optimizer Profile agree.
  if (Rewritten)
    Times.Rewrite = Report.Seconds;
  if (Error E = step(CompileStep::Schedule, [&] { return schedule(); }))
    return E;
  if (Opts.Linker != LinkerKind::Py) {
    auto Free = llvm::make_scope_exit([&] { freeModule(); });
    if (Error E = step(CompileStep::Lower, [&] { return lower(); }))
      return E;
    if (Error E = step(CompileStep::Instrument, [&] { return instrument(); }))
      return E;
    if (Error E = step(CompileStep::Optimize, [&] { return optimize(); }))
      return E;
    if (Error E = step(CompileStep::Codegen, [&] { return codegen(); }))
      return E;
    // The compile cache's object: no code was generated (only the check
    // that there was nothing to do was timed).
    if (Times.Cached)
      Times.Codegen = 0;
    if (Times.PartThreads) {
      double Wall = Times.Optimize + Times.Codegen;
      double Threads = InParts.Optimize + InParts.Codegen;
      Times.Optimize = Threads > 0 ? Wall * InParts.Optimize / Threads : Wall;
      Times.Codegen = Wall - Times.Optimize;
    }
    if (Error E = step(CompileStep::Link, [&] { return link(); }))
      return E;
    Fn->Jit = std::move(Code);
  }
  if (hasDeviceApplies(Fn->Graph))
    if (Error E = step(CompileStep::Kernels, [&] { return kernels(); }))
      return E;

  Fn->Rewrites = std::move(Report);
  Fn->Times = Times;
  if (isProfiled()) {
    if (Error E = Fn->startProfiling(Fn->Jit ? &Fn->Jit->Code : nullptr))
      return E;
    // The validate time always; what each rewrite did with
    // profile_optimizer.
    Fn->Profiler->setRewrites(Fn->Rewrites, Rewrite, Opts.ProfileOptimizer,
                              Source.numApplies());
  }
  return std::move(Fn);
}

Expected<std::unique_ptr<Function>>
Function::compile(FunctionGraph &F, const CompileOptions &Opts) {
  initialize(); // For programs that build graphs without the registry.
  return CompilePipeline(F, Opts).run();
}

//===--- Options ----------------------------------------------------------===//

// The options as given, completed by GRAPHJIT_FLAGS: profiling, allow_gc,
// the optimizer's settings and the device.
Error CompilePipeline::resolveOptions() {
  if (Opts.OptLevel > 3)
    return llvm::createStringError("optimization level " +
                                   llvm::Twine(Opts.OptLevel) +
                                   " is not one of 0, 1, 2, 3");
  Expected<const Flags &> Fl = processFlags();
  if (!Fl)
    return Fl.takeError();
  Opts.ProfileMemory |= Fl->ProfileMemory;
  Opts.ProfileOptimizer |= Fl->ProfileOptimizer;
  Opts.Trace |= !Fl->ProfilingTrace.empty();
  if (Fl->ProfilingMode != "exact" && Fl->ProfilingMode != "sample")
    return llvm::createStringError("profiling__mode is '" +
                                   Fl->ProfilingMode +
                                   "'; expected exact or sample");

  Opts.AllowGC &= Fl->AllowGC;
  Opts.LLVMPipeline |= Fl->LLVMPipeline;
  // A trace alone times the Applies but reports nothing at exit.
  if ((Fl->Profile || Fl->ProfileMemory || Fl->ProfileOptimizer) &&
      !Opts.ProfileInto && !Opts.Profile)
    Opts.ProfileInto = processProfileStats();
  // The mode only says how a profiled function is timed.
  if (Fl->ProfilingMode == "sample" && isProfiled())
    Opts.ProfileSample = true;
  if (Opts.ProfileSample && Opts.Trace)
    return llvm::createStringError(
        "profiling__mode=sample cannot record a timeline (profiling__trace): "
        "a slice needs each Apply's own times");
  if (Opts.ProfileSample)
    SampleRuntime::setIntervalNs(uint64_t(Fl->ProfilingSampleUs) * 1000);
  if (Opts.Trace)
    startProcessTrace(*Fl);
  if (Opts.Rewrite) {
    Rewrite = *Opts.Rewrite;
  } else {
    Rewrite.Optimizer = Fl->Optimizer;
    Rewrite.Excluding = splitRewriteTags(Fl->OptimizerExcluding);
    Rewrite.Including = splitRewriteTags(Fl->OptimizerIncluding);
    // Checked here, so that a bad flag is reported even for optimizer=None.
    if (Expected<std::vector<std::string>> Names = selectedRewrites(Rewrite);
        !Names)
      return Names.takeError();
  }
  Device = Opts.Device ? *Opts.Device : Fl->Device;
  Expected<DeviceKind> Kind = parseDeviceKind(Device);
  if (!Kind)
    return Kind.takeError();
  Rewrite.Gpu = *Kind != DeviceKind::Cpu;
  return Error::success();
}

//===--- The steps --------------------------------------------------------===//

Error CompilePipeline::step(CompileStep Step,
                            llvm::function_ref<Error()> Body) {
  auto Start = std::chrono::steady_clock::now();
  Error E = Body();
  Times.of(Step) += std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - Start)
                        .count();
  if (E)
    return E;
  if (llvm::is_contained(Opts.PrintAfter, Step))
    printAfter(Step, Opts.PrintTo ? *Opts.PrintTo : llvm::errs());
  return Error::success();
}

// The optimizer's phases, placement on the device (the gpu phase) among
// them; optimizer=None keeps the graph as written (but placed on a device
// when one is asked for, and with adds too wide for a kernel split).
Error CompilePipeline::rewrite() {
  if (needsRewriting(Source, Rewrite)) {
    Expected<std::unique_ptr<FunctionGraph>> G =
        rewriteFunction(Source, Rewrite, &Report);
    if (!G)
      return G.takeError();
    Rewritten = std::move(*G);
    return Error::success();
  }
  // The graph as written must still be sound: an in-place op written by
  // hand may not overwrite an input, a constant or a value read later.
  return validateFunction(Source);
}

// The order the Applies run in; the Function is made around it.
Error CompilePipeline::schedule() {
  const FunctionGraph &G = Rewritten ? *Rewritten : Source;
  Schedule Sched = makeSchedule(G);
  Fn.reset(new Function(Source, std::move(Rewritten), Opts, std::move(Sched)));
  return Error::success();
}

// LLVM IR: a thunk per Apply and the driver (or the IR file given instead).
Error CompilePipeline::lower() {
  if (Opts.Linker == LinkerKind::C) {
    std::vector<std::string> Missing;
    for (Apply *N : Fn->Sched.Order)
      // GPU Applies run compiled kernels through the runtime (GpuProgram).
      if (!findLowering(*N) && !isDeviceApply(N->op()) &&
          !llvm::is_contained(Missing, N->op().name()))
        Missing.push_back(N->op().name());
    if (!Missing.empty())
      return llvm::createStringError(
          "the c linker needs a JIT lowering for every op; these have none: " +
          llvm::join(Missing, ", ") + " (use -linker=c|py to run them "
                                      "through perform)");
  }
  Expected<JitEngine &> E = JitEngine::get();
  if (!E)
    return E.takeError();
  Engine = &*E;
  Expected<LoweredModule> LM =
      lowerFunction(Fn->Graph, Fn->Sched, Opts.AllowGC,
                    Opts.PlanMemory && !Opts.ProfileMemory,
                    Engine->dataLayout(), Engine->triple());
  if (!LM)
    return LM.takeError();
  Lowered = std::move(*LM);
  if (!Opts.LLVMInput.empty()) {
    Expected<LoweredModule> Loaded =
        loadLoweredModule(Opts.LLVMInput, Lowered);
    if (!Loaded)
      return Loaded.takeError();
    freeModule();
    Lowered = std::move(*Loaded);
  }
  if (!Opts.Emit.LLVM.empty())
    return writeFile(Opts.Emit.LLVM, [&](llvm::raw_ostream &OS) {
      Lowered.Module->print(OS, nullptr);
    });
  return Error::success();
}

// The Apply timers, when profiling. A function the optimizer reduced to
// no Apply has nothing to instrument (the pass makes no descriptor for
// it): its profile has only the call times.
Error CompilePipeline::instrument() {
  Instrumented = isProfiled() && Fn->Graph.numApplies() > 0;
  if (!Instrumented)
    return Error::success();
  InstrumentAppliesOptions IO;
  IO.Clock = ProfileClock::get().preferredClock() == GJ_PROFILE_CLOCK_TSC
                 ? CounterClock::Tsc
                 : CounterClock::Call;
  if (Opts.ProfileSample)
    IO.Clock = CounterClock::Sample;
  IO.Memory = Opts.ProfileMemory;
  IO.Trace = Opts.Trace;
  if (Error E = instrumentApplies(*Lowered.Module, IO).takeError())
    return E;
  // IR instrumented elsewhere (-jit-llvm) is left as it is: without its
  // allocation hooks there is nothing for profile_memory to measure.
  if (Opts.ProfileMemory && !Opts.LLVMInput.empty() &&
      !Lowered.Module->getFunction("gj_memory_enter"))
    return llvm::createStringError(
        Opts.LLVMInput + " was instrumented without allocation hooks, so "
        "profile_memory has nothing to measure: instrument it with "
        "-passes='graphjit-instrument<memory>', or not at all");
  return Error::success();
}

// LLVM's pipeline for the host, unless the compile cache has the object.
// The dumps of the optimized module and of the assembly need the real
// pipeline to run: they bypass the cache.
Error CompilePipeline::optimize() {
  Engine->setTarget(*Lowered.Module);
  bool UseCache = Opts.Emit.LLVMOptimized.empty() && Opts.Emit.Asm.empty() &&
                  !llvm::is_contained(Opts.PrintAfter, CompileStep::Optimize);
  if (UseCache) {
    CacheKey = Engine->cacheKey(*Lowered.Module, optimization());
    Objects = Engine->cachedObjects(CacheKey);
    Times.Cached = !Objects.empty();
    if (Times.Cached)
      return Error::success();
    // Optimize and codegen at once, in parts on several threads, where
    // the module is worth cutting (jit/CompileInParts.h).
    unsigned Parts = Engine->compileParts(*Lowered.Module, DriverName);
    if (Parts > 0) {
      Expected<ObjectFiles> Objs = Engine->optimizeAndCodegen(
          *Lowered.Module, DriverName, Parts, optimization(), CacheKey,
          InParts);
      if (!Objs)
        return Objs.takeError();
      Objects = std::move(*Objs);
      Times.PartThreads = Parts;
      return Error::success();
    }
  }
  if (Error E = optimizeModule())
    return E;
  if (!Opts.Emit.LLVMOptimized.empty())
    if (Error E = writeFile(Opts.Emit.LLVMOptimized, [&](llvm::raw_ostream &OS) {
          printAfter(CompileStep::Optimize, OS);
        }))
      return E;
  if (!Opts.Emit.Asm.empty())
    return Engine->writeAssembly(*Lowered.Module, Glue.get(), Opts.Emit.Asm);
  return Error::success();
}

Error CompilePipeline::optimizeModule() {
  if (std::unique_ptr<llvm::Module> Kernels = splitGlue(*Lowered.Module)) {
    Glue = std::move(Lowered.Module);
    Lowered.Module = std::move(Kernels);
  }
  return Engine->optimize(*Lowered.Module, optimization());
}

// Machine code, stored in the cache (a cached object skips this step).
Error CompilePipeline::codegen() {
  if (!Objects.empty())
    return Error::success();
  Expected<ObjectFiles> Objs =
      Engine->codegen(*Lowered.Module, Glue.get(), CacheKey);
  if (!Objs)
    return Objs.takeError();
  Objects = std::move(*Objs);
  return Error::success();
}

Error CompilePipeline::link() {
  Expected<CompiledCode> C = Engine->link(std::move(Objects), DriverName,
                                          Instrumented);
  if (!C && Times.Cached) {
    // A cached object that does not link (another LLVM wrote it, say):
    // compile afresh, replacing it.
    llvm::consumeError(C.takeError());
    Engine->dropCachedObject(CacheKey);
    Times.Cached = false;
    if (Error E = optimizeModule())
      return E;
    if (Error E = codegen())
      return E;
    C = Engine->link(std::move(Objects), DriverName, Instrumented);
  }
  if (!C)
    return C.takeError();
  Code = std::make_unique<Function::JitCode>();
  Code->Code = *C;
  Code->Driver = reinterpret_cast<int32_t (*)(gj_frame *)>(C->Driver);
  Code->IsCompiled = Lowered.IsCompiled;
  Code->Storage = Lowered.Storage;
  return Error::success();
}

// The device Applies' kernels: PTX (also written without a GPU), then
// compiled and loaded on the device.
Error CompilePipeline::kernels() {
  if (!Opts.Emit.Ptx.empty()) {
    Expected<std::string> Ptx = functionPtx(Fn->Graph, Opts.Emit.PtxArch);
    if (!Ptx)
      return Ptx.takeError();
    if (Error E = writeFile(Opts.Emit.Ptx,
                            [&](llvm::raw_ostream &OS) { OS << *Ptx; }))
      return E;
  }
  Expected<DeviceKind> K = parseDeviceKind(Device);
  if (!K)
    return K.takeError();
  Expected<DevicePool &> Pool = devicePool(*K);
  if (!Pool)
    return Pool.takeError();
  Expected<std::unique_ptr<GpuProgram>> P =
      GpuProgram::create(Fn->Graph, Pool->device(), *Pool, isProfiled());
  if (!P)
    return P.takeError();
  Fn->Gpu = std::move(*P);
  return Error::success();
}

//===--- Printing ---------------------------------------------------------===//

void CompilePipeline::printAfter(CompileStep Step,
                                 llvm::raw_ostream &OS) const {
  OS << "; *** graphjit: '" << Source.name() << "' after "
     << compileStepName(Step) << " ***\n";
  switch (Step) {
  case CompileStep::Rewrite:
    printFunction(Rewritten ? *Rewritten : Source, OS);
    break;
  case CompileStep::Schedule: {
    const Schedule &S = Fn->Sched;
    const FunctionGraph &G = Fn->Graph;
    auto NameOf = [](const Variable *V) {
      return V->name().empty() ? "%" + std::to_string(V->id()) : V->name();
    };
    for (size_t I = 0; I < S.Order.size(); ++I) {
      const Apply &N = *S.Order[I];
      std::vector<std::string> Outs;
      for (const Variable *V : N.outputs())
        Outs.push_back(NameOf(V));
      OS << "; " << I << ": " << llvm::join(Outs, ", ") << " = "
         << N.op().name();
      std::vector<std::string> Dead;
      for (const Variable *V : G.variables())
        if (S.LastUse[V->id()] == int(I))
          Dead.push_back(NameOf(V));
      if (!Dead.empty())
        OS << "  (last use of " << llvm::join(Dead, ", ") << ")";
      OS << "\n";
    }
    break;
  }
  case CompileStep::Lower:
  case CompileStep::Instrument:
  case CompileStep::Optimize:
    if (Lowered.Module)
      Lowered.Module->print(OS, nullptr);
    if (Glue) {
      OS << "\n; The long driver, compiled apart at O0 (GlueModule.h):\n";
      Glue->print(OS, nullptr);
    }
    break;
  case CompileStep::Codegen: {
    size_t Bytes = 0;
    for (const auto &Object : Objects)
      Bytes += Object->getBufferSize();
    OS << "; " << Bytes << " bytes of machine code"
       << (Times.Cached ? " (cached)" : "") << "\n";
    break;
  }
  case CompileStep::Link:
    OS << "; linked: " << DriverName
       << (Instrumented ? " and its profile descriptor" : "") << "\n";
    break;
  case CompileStep::Kernels:
    OS << "; " << Fn->Gpu->numKernels() << " kernels on "
       << Fn->Gpu->device().name()
       << (Fn->Gpu->binaryFromCache() ? " (PTX and device code cached)"
           : Fn->Gpu->ptxFromCache()  ? " (PTX cached)"
                                      : "")
       << "\n";
    break;
  }
}

Error CompilePipeline::writeFile(
    llvm::StringRef Path,
    llvm::function_ref<void(llvm::raw_ostream &)> Write) const {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_Text);
  if (EC)
    return llvm::createStringError("cannot write '" + Path +
                                   "': " + EC.message());
  Write(OS);
  return Error::success();
}
