//===- graphjit.cpp - The graphjit command line --------------------------===//
//
// Reads a .graph file, binds or generates the inputs of one function,
// compiles it with the chosen linker, calls it, prints the outputs and
// optionally writes them (and the shared variables) as .npy files. Or
// prints the functions as the optimizer rewrote them (-print-graph,
// -debugprint).
//
//===----------------------------------------------------------------------===//

#include "ToolVersion.h"
#include "graphjit/Initialize.h"
#include "graphjit/Flags.h"
#include "graphjit/Function.h"
#include "graphjit/Gpu.h"
#include "graphjit/ProfileStats.h"
#include "graphjit/Npy.h"
#include "graphjit/OpRegistry.h"
#include "graphjit/Parser.h"
#include "graphjit/Printer.h"
#include "graphjit/Random.h"
#include "graphjit/Rewrite.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace graphjit;
using namespace llvm;

static cl::OptionCategory Category("graphjit options");
static cl::opt<std::string> InputFile(cl::Positional, cl::desc("<file.graph>"),
                                      cl::cat(Category));
static cl::opt<std::string>
    FunctionName("function", cl::desc("The function to run (default: the "
                                      "first in the file)"),
                 cl::value_desc("name"), cl::cat(Category));
static cl::list<std::string>
    DimArgs("dim", cl::desc("Size of a symbolic dim, e.g. -dim=n=400"),
            cl::value_desc("name=size"), cl::cat(Category));
static cl::list<std::string>
    InputArgs("input", cl::desc("Value of an input from a .npy file, e.g. "
                                "-input=x=a.npy"),
              cl::value_desc("name=file.npy"), cl::cat(Category));
static cl::opt<unsigned> Calls("calls",
                               cl::desc("How many times to call the function "
                                        "(0: only initialise)"),
                               cl::init(1), cl::cat(Category));
static cl::opt<std::string>
    OutputDir("output-dir",
              cl::desc("Write every output, and after the last call every "
                       "shared variable, as NAME.npy into this folder (a "
                       "shared variable that is also an output's name: "
                       "NAME.updated.npy)"),
              cl::value_desc("dir"), cl::cat(Category));
static cl::opt<uint64_t> Seed("seed",
                              cl::desc("Seed for the inputs that are not given"),
                              cl::init(0), cl::cat(Category));
static cl::opt<std::string>
    Linker("linker",
           cl::desc("py (perform only), c|py (JIT code where an op has a "
                    "lowering; the default; also spelled cpy), or c (JIT "
                    "code only)"),
           cl::init("c|py"), cl::cat(Category));
static cl::opt<unsigned> OptLevel("O",
                                  cl::desc("LLVM optimization level (0-3, "
                                           "default 2)"),
                                  cl::init(2), cl::Prefix, cl::cat(Category));
static cl::opt<bool> LLVMPipeline(
    "llvm-pipeline",
    cl::desc("At -O=2, optimize with LLVM's default<O2> instead of "
             "graphjit's kernel pipeline (docs/architecture.md)"),
    cl::init(false), cl::cat(Category));
static cl::list<std::string> PrintAfter(
    "print-after-step",
    cl::desc("Print the function after these compile steps, to stderr: "
             "rewrite, schedule, lower, instrument, optimize, codegen, "
             "link, kernels (docs/architecture.md)"),
    cl::value_desc("step,..."), cl::CommaSeparated, cl::cat(Category));
static cl::opt<std::string>
    EmitLLVM("emit-llvm", cl::desc("Write the LLVM module as lowered"),
             cl::value_desc("file.ll"), cl::cat(Category));
static cl::opt<std::string>
    EmitLLVMOptimized("emit-llvm-optimized",
                      cl::desc("Write the LLVM module after optimization"),
                      cl::value_desc("file.ll"), cl::cat(Category));
static cl::opt<std::string> EmitAsm("emit-asm",
                                    cl::desc("Write the host assembly"),
                                    cl::value_desc("file.s"),
                                    cl::cat(Category));
static cl::opt<std::string>
    DeviceOpt("device",
              cl::desc("Where Applies run: cpu, cuda (an NVIDIA GPU) or "
                       "cuda-emulated (the GPU path on the host)"),
              cl::init("cpu"), cl::cat(Category));
static cl::opt<std::string>
    EmitPtx("emit-ptx",
            cl::desc("Write the GPU kernels as PTX (device cuda or "
                     "cuda-emulated; no GPU needed)"),
            cl::value_desc("file"), cl::cat(Category));
static cl::opt<std::string>
    GpuArch("gpu-arch", cl::desc("The PTX target of -emit-ptx: sm_80 or sm_90"),
            cl::init("sm_90"), cl::cat(Category));
static cl::opt<std::string> JitLLVM(
    "jit-llvm",
    cl::desc("JIT-compile this IR instead of lowering the function: what "
             "-emit-llvm wrote for it, e.g. instrumented by opt-19"),
    cl::value_desc("file.ll"), cl::cat(Category));
static cl::opt<std::string> CacheDir(
    "cache-dir",
    cl::desc("Keep compiled objects in this directory; empty: no cache "
             "(default: $GRAPHJIT_CACHE_DIR, else ~/.cache/graphjit)"),
    cl::value_desc("dir"), cl::cat(Category));
static cl::opt<unsigned> CodegenThreads(
    "codegen-threads",
    cl::desc("The most threads optimization and code generation may use "
             "per module (0: as many as are worth it, the default)"),
    cl::init(0), cl::cat(Category));
// Profiling: the options share their names with GRAPHJIT_FLAGS, which
// gives their defaults (graphjit/Flags.h).
static cl::OptionCategory ProfileCategory("Profiling options");
static cl::opt<std::string> ProfileTrace(
    "profile-trace",
    cl::desc("Write a timeline of the calls, one slice per Apply per call, "
             "as trace-event JSON that Perfetto's UI and chrome://tracing "
             "open (implies -profile's timers; profiling__trace)"),
    cl::value_desc("file.json"), cl::cat(ProfileCategory));
static cl::opt<unsigned> ProfileTraceEvents(
    "profile-trace-events",
    cl::desc("The most slices the timeline keeps per thread, the last ones "
             "(profiling__trace_events; default 1000000)"),
    cl::init(0), cl::cat(ProfileCategory));
static cl::opt<bool> ProfileOpt(
    "profile",
    cl::desc("Profile the function and print Theano's report after the "
             "calls"),
    cl::cat(ProfileCategory));
// The optimizer: the options share their names with GRAPHJIT_FLAGS.
static cl::opt<std::string> OptimizerOpt(
    "optimizer",
    cl::desc("The graph optimizer: fast_run (default), fast_compile, merge "
             "or None (docs/optimizer.md)"),
    cl::cat(Category));
static cl::opt<std::string> OptimizerExcluding(
    "optimizer_excluding",
    cl::desc("Rewrites or tags to leave out, separated by ':' (e.g. "
             "fusion:inplace)"),
    cl::cat(Category));
static cl::opt<std::string> OptimizerIncluding(
    "optimizer_including",
    cl::desc("Rewrites or tags to add, separated by ':'"), cl::cat(Category));
static cl::opt<bool> ProfileMemory(
    "profile-memory",
    cl::desc("Profile (as -profile) with the Memory Profile section: "
             "measured and simulated peaks, per-Apply bytes"),
    cl::cat(ProfileCategory));
static cl::opt<bool> ProfileOptimizer(
    "profile-optimizer",
    cl::desc("Profile (as -profile) with the Optimizer Profile section: "
             "what each rewrite did and the run time of its Applies"),
    cl::cat(ProfileCategory));
static cl::opt<unsigned> MinMemorySize(
    "profiling__min_memory_size",
    cl::desc("Memory Profile rows under this many bytes are only counted "
             "(default 1024)"),
    cl::cat(ProfileCategory));
static cl::opt<std::string> ProfileJSON(
    "profile-json",
    cl::desc("Also write the raw profile as JSON (docs/profile-json.md)"),
    cl::value_desc("file.json"), cl::cat(ProfileCategory));
static cl::opt<unsigned>
    NApply("profiling__n_apply",
           cl::desc("Rows of the Apply table (default 20)"),
           cl::cat(ProfileCategory));
static cl::opt<unsigned>
    NOps("profiling__n_ops",
         cl::desc("Rows of the Class and Ops tables (default 20)"),
         cl::cat(ProfileCategory));
static cl::opt<std::string> Destination(
    "profiling__destination",
    cl::desc("Where the report goes: stdout (default here), stderr or a "
             "file"),
    cl::cat(ProfileCategory));
static cl::opt<bool> ProfileDebugPrint(
    "profiling__debugprint",
    cl::desc("Print the function's graph before its profile"),
    cl::cat(ProfileCategory));
static cl::opt<bool> IgnoreFirstCall(
    "profiling__ignore_first_call",
    cl::desc("Leave the first call out of the profile"),
    cl::cat(ProfileCategory));
static cl::opt<std::string> ProfileMode(
    "profile-mode",
    cl::desc("How -profile times the Applies: exact (a clock read around "
             "each; the default) or sample (one store per Apply and a "
             "sampler thread; profiling__mode)"),
    cl::value_desc("exact|sample"), cl::cat(ProfileCategory));
static cl::opt<bool> ProfileDistributions(
    "profile-distributions",
    cl::desc("Profile (as -profile) and keep every Apply's time per call: "
             "min, median, p90 and max, the first call apart "
             "(profiling__distributions)"),
    cl::cat(ProfileCategory));

static cl::opt<bool>
    PrintCompileTime("print-compile-time",
                     cl::desc("Print how long each compilation step took"),
                     cl::cat(Category));
static cl::opt<bool> AllowGC("allow-gc",
                             cl::desc("Free intermediates after their last "
                                      "use (default true)"),
                             cl::init(true), cl::cat(Category));
static cl::opt<bool> PlanMemory(
    "plan-memory",
    cl::desc("Let lowered Applies compute their shapes and place their "
             "outputs in planned memory with no runtime call (default "
             "true; -profile-memory turns it off)"),
    cl::init(true), cl::cat(Category));
static cl::opt<bool> PrintGraph(
    "print-graph",
    cl::desc("Print the functions (or the one of -function) as .graph text, "
             "as the optimizer rewrote them (-optimizer=None: as written, but for "
             "adds too wide for a kernel), "
             "and exit"),
    cl::cat(Category));
static cl::opt<bool> DebugPrint(
    "debugprint",
    cl::desc("Print the function's graph as a tree, as the optimizer "
             "rewrote it, and exit"),
    cl::cat(Category));
static cl::opt<bool> ListOps("list-ops", cl::desc("List the ops and exit"),
                             cl::cat(Category));
static cl::opt<unsigned>
    PrintElements("print-elements",
                  cl::desc("Values printed per output (default 10)"),
                  cl::init(10), cl::cat(Category));

static int fail(const Twine &Message) {
  WithColor::error(errs(), "graphjit") << Message << "\n";
  return 1;
}

static int fail(Error E) {
  std::string Msg = toString(std::move(E));
  // Parse errors are already formatted as FILE:LINE:COL: error: ...
  if (StringRef(Msg).contains(": error: ")) {
    errs() << Msg;
    if (!StringRef(Msg).ends_with("\n"))
      errs() << "\n";
    return 1;
  }
  return fail(Msg);
}

// Splits "name=value" from option -Flag.
static Expected<std::pair<StringRef, StringRef>>
splitAssignment(StringRef Arg, StringRef Flag) {
  auto [Name, Value] = Arg.split('=');
  if (Name.empty() || Value.empty() || !Arg.contains('='))
    return createStringError("-" + Flag + "=" + Arg +
                             ": expected -" + Flag + "=NAME=VALUE");
  return std::make_pair(Name, Value);
}

// The function's input values: from -input files, else generated from the
// seed with the dims from -dim or from the given files.
static Expected<std::vector<NDArray>> makeInputs(const FunctionGraph &F,
                                                 DimBindings &Dims) {
  StringMap<NDArray> Given;
  for (StringRef Arg : InputArgs) {
    auto NV = splitAssignment(Arg, "input");
    if (!NV)
      return NV.takeError();
    StringRef Name = NV->first, Path = NV->second;
    if (!llvm::any_of(F.inputs(),
                      [&](Variable *V) { return V->name() == Name; }))
      return createStringError("-input=" + Arg + ": function '" + F.name() +
                               "' has no input named '" + Name + "'");
    Expected<NDArray> A = readNpy(Path);
    if (!A)
      return createStringError("-input=" + Arg + ": " +
                               toString(A.takeError()));
    Given[Name] = std::move(*A);
  }
  std::vector<std::string> Symbols = F.symbolicDims();
  for (StringRef Arg : DimArgs) {
    auto NV = splitAssignment(Arg, "dim");
    if (!NV)
      return NV.takeError();
    auto [Name, Value] = *NV;
    int64_t Size;
    if (Value.getAsInteger(10, Size) || Size < 0)
      return createStringError("-dim=" + Arg + ": '" + Value +
                               "' is not a size (a non-negative integer)");
    if (!llvm::is_contained(Symbols, Name))
      return createStringError("-dim=" + Arg + ": function '" + F.name() +
                               "' has no symbolic dim '" + Name + "'");
    Dims[Name] = Size;
  }
  // Dims of given inputs fill in (and must agree with) -dim.
  for (Variable *In : F.inputs()) {
    auto It = Given.find(In->name());
    if (It == Given.end() || It->second.rank() != In->type().rank())
      continue; // A wrong rank is reported by the call itself.
    for (unsigned D = 0; D < In->type().rank(); ++D) {
      const Dim &Want = In->type().Dims[D];
      if (!Want.isSymbolic())
        continue;
      auto [Slot, New] = Dims.try_emplace(Want.Symbol, It->second.dim(D));
      if (!New && Slot->second != It->second.dim(D))
        return createStringError(
            "input '" + In->name() + "' dim " + Twine(D) + " is " +
            Twine(It->second.dim(D)) + ", but '" + Want.Symbol + "' is " +
            Twine(Slot->second));
    }
  }
  Rng R(Seed);
  std::vector<NDArray> Inputs;
  for (Variable *In : F.inputs()) {
    auto It = Given.find(In->name());
    if (It != Given.end()) {
      Inputs.push_back(It->second);
      continue;
    }
    Shape S;
    for (const Dim &D : In->type().Dims) {
      if (D.isKnown()) {
        S.push_back(D.Size);
        continue;
      }
      auto Bound = Dims.find(D.Symbol);
      if (Bound == Dims.end())
        return createStringError("input '" + In->name() + "' has type " +
                                 In->type().str() + ", and no size for '" +
                                 D.Symbol + "' was given: use -dim=" +
                                 D.Symbol + "=SIZE or -input=" + In->name() +
                                 "=FILE.npy");
      S.push_back(Bound->second);
    }
    Expected<NDArray> A = NDArray::create(In->type().Dtype, S);
    if (!A)
      return createStringError("input '" + In->name() + "': " +
                               toString(A.takeError()));
    fillDefaultInput(*A, R);
    Inputs.push_back(std::move(*A));
  }
  return Inputs;
}

static void printValue(StringRef Name, const NDArray &A) {
  outs() << "  " << Name << ": " << dtypeName(A.dtype()) << " "
         << shapeStr(A.shape()) << " =";
  std::string Text = A.str(PrintElements);
  if (!StringRef(Text).contains('\n')) {
    outs() << " " << Text << "\n";
    return;
  }
  // Arrays of several rows start on their own line, indented.
  outs() << "\n    ";
  for (char C : Text) {
    outs() << C;
    if (C == '\n')
      outs() << "    ";
  }
  outs() << "\n";
}

static Error writeOutputs(const FunctionGraph &F,
                          const std::vector<NDArray> &Results) {
  if (std::error_code EC = sys::fs::create_directories(OutputDir))
    return createStringError("cannot create '" + OutputDir +
                             "': " + EC.message());
  auto Write = [&](StringRef Name, const NDArray &A) -> Error {
    SmallString<256> Path(OutputDir);
    sys::path::append(Path, Name + ".npy");
    return writeNpy(Path, A);
  };
  StringSet<> Outputs;
  for (unsigned I = 0; I < Results.size(); ++I) {
    Outputs.insert(F.outputName(I));
    if (Error E = Write(F.outputName(I), Results[I]))
      return E;
  }
  // Never over an output: an output that is a shared variable holds its
  // value at the call, the variable its value after it.
  for (const auto &S : F.module()->sharedVariables())
    if (Error E = Write(Outputs.contains(S->Name) ? S->Name + ".updated"
                                                  : S->Name,
                        S->Value))
      return E;
  return Error::success();
}

// Prints the report where the flags say and writes the JSON if asked.
static Error reportProfile(const ProfileStats &Stats, const Flags &PF) {
  outs().flush(); // The report writes to the file descriptor itself.
  if (ProfileOpt || ProfileMemory || ProfileOptimizer || ProfileDistributions)
    if (Error E = Stats.report(PF))
      return E;
  if (ProfileJSON.empty())
    return Error::success();
  std::error_code EC;
  raw_fd_ostream OS(ProfileJSON, EC, sys::fs::OF_Text);
  if (EC)
    return createStringError("cannot write '" + ProfileJSON +
                             "': " + EC.message());
  writeProfileJSON(OS, Stats.profile());
  return Error::success();
}

// GRAPHJIT_FLAGS, overridden by the options of the same names.
static Expected<Flags> commandLineFlags() {
  Expected<const Flags &> EnvFlags = processFlags();
  if (!EnvFlags)
    return EnvFlags.takeError();
  Flags PF = *EnvFlags;
  if (NApply.getNumOccurrences())
    PF.ProfilingNApply = NApply;
  if (NOps.getNumOccurrences())
    PF.ProfilingNOps = NOps;
  if (ProfileDebugPrint.getNumOccurrences())
    PF.ProfilingDebugprint = ProfileDebugPrint;
  if (IgnoreFirstCall.getNumOccurrences())
    PF.ProfilingIgnoreFirstCall = IgnoreFirstCall;
  if (ProfileDistributions)
    PF.ProfilingDistributions = true;
  if (ProfileMode.getNumOccurrences())
    PF.ProfilingMode = ProfileMode;
  if (OptimizerOpt.getNumOccurrences())
    PF.Optimizer = OptimizerOpt;
  if (OptimizerExcluding.getNumOccurrences())
    PF.OptimizerExcluding = OptimizerExcluding;
  if (OptimizerIncluding.getNumOccurrences())
    PF.OptimizerIncluding = OptimizerIncluding;
  if (MinMemorySize.getNumOccurrences())
    PF.ProfilingMinMemorySize = MinMemorySize;
  if (DeviceOpt.getNumOccurrences())
    PF.Device = DeviceOpt;
  if (AllowGC.getNumOccurrences())
    PF.AllowGC = AllowGC;
  if (ProfileMemory)
    PF.ProfileMemory = true;
  if (ProfileOptimizer)
    PF.ProfileOptimizer = true;
  if (ProfileTrace.getNumOccurrences())
    PF.ProfilingTrace = ProfileTrace;
  if (ProfileTraceEvents.getNumOccurrences())
    PF.ProfilingTraceEvents = ProfileTraceEvents;
  return PF;
}

// The function -function names, else the first.
static Expected<FunctionGraph *> chosenFunction(const GraphModule &M) {
  if (M.functions().empty())
    return createStringError(InputFile + ": the file defines no function");
  if (FunctionName.empty())
    return M.functions().front().get();
  if (FunctionGraph *F = M.lookupFunction(FunctionName))
    return F;
  std::string Known;
  for (const auto &G : M.functions())
    Known += (Known.empty() ? "" : ", ") + G->name();
  return createStringError("no function named '" + FunctionName + "' in " +
                           InputFile + " (it defines: " + Known + ")");
}

// F as the optimizer of the flags rewrites it (Place: placed on their
// device); null where that is a copy (optimizer=None: F as written).
static Expected<std::unique_ptr<FunctionGraph>>
rewritten(const FunctionGraph &F, const Flags &PF, bool Place = true) {
  RewriteOptions O;
  O.Optimizer = PF.Optimizer;
  O.Excluding = splitRewriteTags(PF.OptimizerExcluding);
  O.Including = splitRewriteTags(PF.OptimizerIncluding);
  Expected<DeviceKind> Device = parseDeviceKind(PF.Device);
  if (!Device)
    return Device.takeError();
  O.Gpu = Place && *Device != DeviceKind::Cpu;
  // Checked for None too, as Function::compile does.
  if (Expected<std::vector<std::string>> Names = selectedRewrites(O); !Names)
    return Names.takeError();
  if (!needsRewriting(F, O))
    return nullptr;
  return rewriteFunction(F, O);
}

// Comment lines after a rewritten function: what each rewritten Apply
// stands for and which rewrites made it (the printer has no place for them
// in the statements).
static void printProvenance(const FunctionGraph &G, raw_ostream &OS) {
  FunctionProfile P = describeFunction(G);
  bool Header = false;
  for (const ApplyProfile &A : P.Applies) {
    std::string From = profile::provenanceText(A);
    if (From.empty())
      continue;
    if (!Header)
      OS << "# rewritten by the optimizer:\n";
    Header = true;
    OS << "#   " << A.Name << ": " << From << "\n";
  }
}

// -print-graph: the shared variables as printModule writes them, then each
// function (or the one of -function) as the optimizer rewrote it. With a
// device, the text format having no device ops, the function is printed
// as the optimizer rewrote it for the host, which compiled with that device
// is placed the same way, and the placed graph follows as comments.
static Error printRewritten(const GraphModule &M, const Flags &PF) {
  std::vector<const FunctionGraph *> Functions;
  if (FunctionName.empty()) {
    for (const auto &F : M.functions())
      Functions.push_back(F.get());
  } else {
    Expected<FunctionGraph *> F = chosenFunction(M);
    if (!F)
      return F.takeError();
    Functions.push_back(*F);
  }
  // Everything is rewritten before anything is printed: an error prints
  // nothing.
  Expected<DeviceKind> Device = parseDeviceKind(PF.Device);
  if (!Device)
    return Device.takeError();
  std::vector<std::unique_ptr<FunctionGraph>> Rewritten, Placed;
  for (const FunctionGraph *F : Functions) {
    Expected<std::unique_ptr<FunctionGraph>> G = rewritten(*F, PF, false);
    if (!G)
      return G.takeError();
    Rewritten.push_back(std::move(*G));
    Placed.emplace_back();
    if (*Device == DeviceKind::Cpu)
      continue;
    Expected<std::unique_ptr<FunctionGraph>> P = rewritten(*F, PF);
    if (!P)
      return P.takeError();
    Placed.back() = std::move(*P);
  }
  for (const auto &S : M.sharedVariables())
    outs() << "shared " << S->Name << ": " << S->Type.str() << " = "
           << S->Init.str() << "\n";
  bool First = M.sharedVariables().empty();
  for (size_t I = 0; I < Functions.size(); ++I) {
    if (!First)
      outs() << "\n";
    First = false;
    const FunctionGraph &G = Rewritten[I] ? *Rewritten[I] : *Functions[I];
    printFunction(G, outs());
    if (Rewritten[I])
      printProvenance(G, outs());
    if (!Placed[I])
      continue;
    std::string Text;
    raw_string_ostream TS(Text);
    printFunction(*Placed[I], TS);
    outs() << "# placed with -device=" << PF.Device << ":\n";
    SmallVector<StringRef, 16> Lines;
    StringRef(Text).rtrim('\n').split(Lines, '\n');
    for (StringRef Line : Lines)
      outs() << "#   " << Line << "\n";
  }
  return Error::success();
}

static int run() {
  if (ListOps) {
    for (const std::string &Name : OpRegistry::get().names())
      outs() << Name << "  " << OpRegistry::get().lookup(Name)->Summary
             << "\n";
    return 0;
  }
  if (InputFile.empty())
    return fail("no input file; usage: graphjit FILE.graph [options]");
  Expected<std::unique_ptr<GraphModule>> M = parseGraphFile(InputFile);
  if (!M)
    return fail(M.takeError());
  // GRAPHJIT_FLAGS first, then the options of the same names.
  Expected<Flags> PF = commandLineFlags();
  if (!PF)
    return fail(PF.takeError());
  if (PrintGraph) {
    if (Error E = printRewritten(**M, *PF))
      return fail(std::move(E));
    return 0;
  }
  Expected<FunctionGraph *> Chosen = chosenFunction(**M);
  if (!Chosen)
    return fail(Chosen.takeError());
  FunctionGraph *F = *Chosen;
  if (DebugPrint) {
    Expected<std::unique_ptr<FunctionGraph>> G = rewritten(*F, *PF);
    if (!G)
      return fail(G.takeError());
    debugPrint(*G ? **G : *F, outs());
    return 0;
  }
  if (Error E = (*M)->initShared())
    return fail(std::move(E));
  DimBindings Dims;
  Expected<std::vector<NDArray>> Inputs = makeInputs(*F, Dims);
  if (!Inputs)
    return fail(Inputs.takeError());

  CompileOptions Opts;
  Expected<LinkerKind> K = parseLinker(Linker);
  if (!K)
    return fail(K.takeError());
  Opts.Linker = *K;
  Opts.OptLevel = OptLevel;
  Opts.LLVMPipeline = LLVMPipeline;
  Opts.PlanMemory = PlanMemory;
  Opts.Emit = {EmitLLVM, EmitLLVMOptimized, EmitAsm, EmitPtx, GpuArch};
  Opts.LLVMInput = JitLLVM;
  for (const std::string &Name : PrintAfter) {
    CompileStep Step;
    if (!parseCompileStep(Name, Step))
      return fail("-print-after-step: unknown compile step '" + Name +
                  "' (known: rewrite, schedule, lower, instrument, optimize, "
                  "codegen, link, kernels)");
    Opts.PrintAfter.push_back(Step);
  }
  if (Opts.Linker == LinkerKind::Py && !JitLLVM.empty())
    return fail("-jit-llvm needs a JIT linker (c|py or c), not py");
  if (Opts.Linker == LinkerKind::Py &&
      !(EmitLLVM.empty() && EmitLLVMOptimized.empty() && EmitAsm.empty()))
    return fail("-emit-llvm, -emit-llvm-optimized and -emit-asm need a JIT "
                "linker (c|py or c), not py");
  // Function::compile reads profile_memory, profile_optimizer and
  // allow_gc from the flags.
  std::shared_ptr<ProfileStats> Stats;
  if (ProfileOpt || ProfileMemory || ProfileOptimizer || ProfileDistributions ||
      !ProfileJSON.empty()) {
    Stats = std::make_shared<ProfileStats>();
    Opts.ProfileInto = Stats;
  }
  if (Destination.getNumOccurrences())
    PF->ProfilingDestination = Destination;
  else if (Stats && !std::getenv("GRAPHJIT_FLAGS"))
    PF->ProfilingDestination = "stdout";
  // Functions the library profiles on its own (GRAPHJIT_FLAGS=profile=True
  // without -profile) see the same settings.
  setProcessFlags(*PF);

  if (CacheDir.getNumOccurrences() && Opts.Linker != LinkerKind::Py)
    if (Error E = setCompileCacheDirectory(CacheDir))
      return fail(std::move(E));
  if (CodegenThreads.getNumOccurrences() && Opts.Linker != LinkerKind::Py)
    if (Error E = setCodegenThreads(CodegenThreads))
      return fail(std::move(E));
  Expected<std::unique_ptr<Function>> Fn = Function::compile(*F, Opts);
  if (!Fn)
    return fail(Fn.takeError());

  std::vector<NDArray> Results;
  for (unsigned I = 0; I < Calls; ++I) {
    Expected<std::vector<NDArray>> R = (*Fn)->call(*Inputs, Dims);
    if (R) {
      Results = std::move(*R);
      continue;
    }
    Error E = R.takeError();
    if (Calls > 1)
      E = createStringError("call " + Twine(I + 1) + " of " + Twine(Calls) +
                            " failed: " + toString(std::move(E)));
    // A long run keeps what it computed: the last good call's outputs and
    // the shared variables as they stood after it (a failed call updates
    // none of them).
    if (!OutputDir.empty()) {
      if (Error W = writeOutputs(*F, Results))
        return fail(joinErrors(std::move(E), std::move(W)));
      errs() << "graphjit: -output-dir has the shared variables as they "
             << "stood "
             << (I ? "after call " + std::to_string(I)
                   : std::string("before the first call"))
             << (I ? " and that call's outputs" : "") << "\n";
    }
    return fail(std::move(E));
  }
  outs() << "function " << F->name() << " (linker " << linkerName(*K)
         << "): " << Calls << (Calls == 1 ? " call" : " calls") << "\n";
  if (PrintCompileTime) {
    const CompileTimes &T = (*Fn)->compileTimes();
    unsigned Compiled = 0;
    const FunctionGraph &Ran = (*Fn)->graph();
    for (unsigned I = 0; I < Ran.numApplies(); ++I)
      Compiled += (*Fn)->isCompiled(I);
    // Each step of the pipeline; kernels only for a function with some.
    outs() << format("  compile time %.6fs:", T.total());
    for (unsigned I = 0; I < NumCompileSteps; ++I) {
      CompileStep Step = CompileStep(I);
      if (Step != CompileStep::Kernels || T.Kernels > 0)
        outs() << (I ? ", " : " ") << compileStepName(Step)
               << format(" %.6fs", T.of(Step));
    }
    if (T.Cached)
      outs() << " (object from the compile cache)";
    else if (T.PartThreads > 0)
      outs() << " (optimize and codegen in parts on " << T.PartThreads
             << (T.PartThreads == 1 ? " thread)" : " threads)");
    outs() << "\n";
    outs() << "  " << Compiled << " of " << Ran.numApplies()
           << " Apply nodes run JIT code (C), the others perform (Py)\n";
  }
  for (unsigned I = 0; I < Results.size(); ++I)
    printValue(F->outputName(I), Results[I]);
  // With -calls=0 there are no outputs, and the shared variables are as
  // initialised.
  for (const Update &U : F->updates())
    printValue((Calls == 0 ? "initial " : "updated ") + U.Target->Name,
               U.Target->Value);
  if (!OutputDir.empty())
    if (Error E = writeOutputs(*F, Results))
      return fail(std::move(E));
  if (Stats)
    if (Error E = reportProfile(*Stats, *PF))
      return fail(std::move(E));
  // GRAPHJIT_FLAGS=profile=True without -profile: the library's own
  // profile, printed now so that one that cannot be written fails the run.
  outs().flush();
  if (Error E = reportProcessProfile())
    return fail(std::move(E));
  if (Error E = writeProcessTrace())
    return fail(std::move(E));
  return 0;
}

int main(int argc, char **argv) {
  graphjit::initialize();
  cl::HideUnrelatedOptions({&Category, &ProfileCategory});
  setToolVersionPrinter("graphjit");
  cl::ParseCommandLineOptions(
      argc, argv,
      "graphjit: compile and run a function of a .graph file\n\n"
      "  graphjit FILE.graph [-function=NAME] [-dim=n=400]... [-calls=N]\n"
      "           [-input=x=a.npy]... [-output-dir=DIR] [-seed=S]\n"
      "           [-linker=py|c|py|c] [-O=0..3] [-llvm-pipeline]\n"
      "           [-emit-llvm=FILE]\n"
      "           [-emit-llvm-optimized=FILE] [-emit-asm=FILE] [-print-graph]\n"
      "           [-profile] [-profile-memory] [-profile-optimizer]\n"
      "           [-profile-json=FILE] [-optimizer=fast_run|None]\n"
      "           [-device=cpu|cuda|cuda-emulated] [-emit-ptx=FILE]\n");
  return run();
}
