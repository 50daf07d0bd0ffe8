//===- Function.cpp - Binding inputs, running, applying updates ----------===//

#include "graphjit/Function.h"
#include "link/call/CallPlan.h"
#include "link/call/NodeRunner.h"
#include "link/profiling/FunctionProfiler.h"
#include "graphjit/Flags.h"
#include "graphjit/Printer.h"
#include "graphjit/ProfileStats.h"
#include "ops/gpu/GpuOps.h"
#include "gpu/GpuProgram.h"
#include "jit/JitEngine.h"
#include "link/call/CallFrame.h"
#include "link/compile/JitCode.h"
#include "link/call/ScanOp.h"
#include "runtime/MemoryRuntime.h"
#include "runtime/TraceRuntime.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include <functional>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

Expected<LinkerKind> graphjit::parseLinker(llvm::StringRef Name) {
  std::optional<LinkerKind> K =
      llvm::StringSwitch<std::optional<LinkerKind>>(Name)
          .Case("py", LinkerKind::Py)
          .Cases("c|py", "cpy", LinkerKind::CPy)
          .Case("c", LinkerKind::C)
          .Default(std::nullopt);
  if (!K)
    return llvm::createStringError("unknown linker '" + Name +
                                   "' (known: py, c|py, cpy, c)");
  return *K;
}

llvm::StringRef graphjit::linkerName(LinkerKind K) {
  switch (K) {
  case LinkerKind::Py: return "py";
  case LinkerKind::CPy: return "c|py";
  case LinkerKind::C: return "c";
  }
  return "?";
}


Function::Function(FunctionGraph &F, std::unique_ptr<FunctionGraph> R,
                   const CompileOptions &Opts, Schedule S)
    : Rewritten(std::move(R)), Graph(Rewritten ? *Rewritten : F), Opts(Opts),
      Sched(std::move(S)), ById(Graph.applies()),
      Plan(std::make_unique<CallPlan>(Graph, Sched)) {}

Function::~Function() {
  // The final numbers, while the instrumented code's counters exist.
  if (Stats) {
    Stats->detach(StatsHandle);
    for (unsigned H : LoopBodyHandles)
      Stats->detach(H);
  }
  SpareLease<CallState>::release(SpareStates);
}

// Profiled: report into the stats the options or the flags name, with the
// instrumented driver's descriptor (JIT) or the interpreter's clock (py).
Error Function::startProfiling(const CompiledCode *Code) {
  Expected<const Flags &> F = processFlags();
  if (!F)
    return F.takeError();
  // compile() has pointed ProfileInto at the process's stats for the flags.
  Stats = Opts.ProfileInto ? Opts.ProfileInto
                           : std::make_shared<ProfileStats>();
  Profiler = std::make_unique<FunctionProfiler>(
      Graph, Opts.Linker, F->ProfilingIgnoreFirstCall,
      F->ProfilingDistributions || Opts.ProfileDistributions);
  if (Code) {
    // A GPU Apply runs compiled kernels, though through gj_perform.
    std::vector<bool> Compiled = Jit->IsCompiled;
    for (unsigned I = 0; I < Compiled.size(); ++I)
      Compiled[I] = Compiled[I] || isCompiled(I);
    // The timeline names the calls after the function, not its driver,
    // and types the Applies as the report does.
    if (Opts.Trace && Code->Profile) {
      TraceRuntime::nameFunction(Code->Profile, Graph.name());
      TraceRuntime::markCompiled(Code->Profile, Compiled);
    }
    Profiler->setCompiled(Code->Profile, std::move(Compiled));
  } else if (Opts.Trace) {
    Profiler->traceInterpreter(Graph);
  }
  if (Gpu) {
    // The tips name what could not move, and why.
    std::vector<std::string> HostOnly;
    for (const Apply *N : Graph.applies()) {
      if (isDeviceApply(N->op()))
        continue;
      std::vector<TensorType> Types;
      for (const Variable *V : N->inputs())
        Types.push_back(V->type());
      std::string Why;
      gpuRoleOf(N->op(), Types, &Why);
      std::string Line = N->op().name() + ": " + Why;
      if (!llvm::is_contained(HostOnly, Line))
        HostOnly.push_back(std::move(Line));
    }
    Profiler->setDevice(Gpu->device().name(), std::move(HostOnly));
    // The timeline puts the device's own times on a track of its own,
    // aligned to the host clock where the call's first device Apply was
    // queued.
    if (Opts.Trace) {
      Profiler->setTraced(true);
      Gpu->setHostClock([P = Profiler.get()] { return P->now(); });
    }
  }
  if (Opts.ProfileMemory) {
    // The plan the JIT code would have without profile_memory.
    std::optional<StoragePlan> Plan;
    if (Jit && Opts.PlanMemory)
      Plan = planLoweredStorage(Graph, Sched, Opts.AllowGC);
    Profiler->setMemory(Graph, Opts.AllowGC, Plan ? &*Plan : nullptr);
  }
  Profiler->setCompileTimes(Times);
  std::string Tree;
  if (F->ProfilingDebugprint) {
    llvm::raw_string_ostream OS(Tree);
    debugPrint(Graph, OS);
  }
  StatsHandle = Stats->attach(
      [P = Profiler.get()] { return P->snapshot(); }, std::move(Tree));
  attachLoopBodies();
  return Error::success();
}

// A scan's body profiled with it reports with it, after it, marked as the
// body of its Apply (Theano's scan profile). Bodies of bodies come along:
// they report to their body's stats, each marked already.
void Function::attachLoopBodies() {
  for (const Apply *N : Graph.applies()) {
    const auto *Scan = llvm::dyn_cast<ScanOp>(&N->op());
    if (!Scan || !Scan->body().profile() ||
        Scan->body().profile() == Stats.get())
      continue;
    std::shared_ptr<Function> Body = Scan->sharedBody();
    std::string Label = "Apply " + std::to_string(N->id()) + " " +
                        N->op().name() + " of '" + Graph.name() + "'";
    if (N->loc().isValid())
      Label += " (" + N->loc().fileLine() + ")";
    size_t Count = Body->profile()->profile().Functions.size();
    for (size_t I = 0; I < Count; ++I)
      LoopBodyHandles.push_back(Stats->attach(
          [Body, I, Label] {
            FunctionProfile P = Body->profile()->profile().Functions.at(I);
            if (P.InnerOf.empty())
              P.InnerOf = Label;
            return P;
          },
          ""));
  }
}

llvm::Error Function::setApplyTerms(unsigned ApplyId,
                                    std::vector<std::string> Terms,
                                    bool Gradient) {
  if (ApplyId >= ById.size() || !ById[ApplyId])
    return llvm::createStringError("setApplyTerms: the function has no Apply " +
                                   std::to_string(ApplyId));
  if (Profiler)
    Profiler->setTerms(ApplyId, std::move(Terms), Gradient);
  return llvm::Error::success();
}

void Function::setHostCompileTimes(
    std::vector<std::pair<std::string, double>> Steps) {
  if (Profiler)
    Profiler->setHostCompileTimes(std::move(Steps));
}

bool Function::isCompiled(unsigned ApplyId) const {
  // On the device everything is compiled code: kernels, cuBLAS, the
  // driver's copies, and views made as the JIT makes them on the host.
  if (Gpu && isDeviceApply(ById[ApplyId]->op()))
    return true;
  return Jit && Jit->IsCompiled[ApplyId];
}

Expected<DimBindings>
Function::bindInputs(llvm::ArrayRef<NDArray> Inputs,
                     const DimBindings &Given) const {
  llvm::ArrayRef<Variable *> Params = Graph.inputs();
  if (Inputs.size() != Params.size())
    return llvm::createStringError(
        "function '" + Graph.name() + "' takes " +
        std::to_string(Params.size()) + " inputs, got " +
        std::to_string(Inputs.size()));
  DimBindings Dims;
  llvm::StringMap<std::string> BoundBy; // symbol -> "input 'x' dim 0"
  for (const auto &G : Given) {
    Dims[G.getKey()] = G.getValue();
    BoundBy[G.getKey()] = "the sizes given";
  }
  for (unsigned I = 0; I < Params.size(); ++I) {
    const TensorType &T = Params[I]->type();
    const NDArray &A = Inputs[I];
    std::string Who = "input '" + Params[I]->name() + "'";
    if (A.isNull())
      return llvm::createStringError(Who + " has no value");
    if (A.dtype() != T.Dtype)
      return llvm::createStringError(Who + " is declared " + T.str() +
                                     " but the array given is " +
                                     dtypeName(A.dtype()).str());
    if (A.rank() != T.rank())
      return llvm::createStringError(
          Who + " is declared " + T.str() + " (rank " +
          std::to_string(T.rank()) + ") but the array given has shape " +
          shapeStr(A.shape()));
    for (unsigned D = 0; D < T.rank(); ++D) {
      const Dim &Want = T.Dims[D];
      int64_t Got = A.dim(D);
      std::string Where = Who + " dim " + std::to_string(D);
      if (Want.isKnown() && Want.Size != Got)
        return llvm::createStringError(Where + " is " + std::to_string(Got) +
                                       ", but the type " + T.str() +
                                       " says " + std::to_string(Want.Size));
      if (!Want.isSymbolic())
        continue;
      auto [It, New] = Dims.try_emplace(Want.Symbol, Got);
      if (New) {
        BoundBy[Want.Symbol] = Where;
      } else if (It->second != Got) {
        return llvm::createStringError(
            Where + " is " + std::to_string(Got) + ", but '" + Want.Symbol +
            "' is " + std::to_string(It->second) + " from " +
            BoundBy[Want.Symbol]);
      }
    }
  }
  return Dims;
}

Error Function::runNodes(CallState &S, const ExecContext &Ctx) {
  if (Jit) {
    CallFrame &Frame = *S.Frame;
    Frame.Profiler = Profiler.get();
    Frame.begin(Ctx, Plan->SetIds);
    if (Jit->Driver(Frame.abi()) != 0)
      return llvm::createStringError(Frame.Error);
    Frame.materialize(Plan->ResultIds);
    Frame.reportPlannedApplies(Sched.Order);
    return Error::success();
  }
  // The interpreter's loop is its driver, and does what the instrumented
  // driver's hooks do.
  uint64_t LoopStart = Profiler ? Profiler->now() : 0;
  gj_memory_state *Memory =
      Profiler && Profiler->recordsMemory()
          ? MemoryRuntime::enter(Profiler->memoryKey(), Sched.Order.size())
          : nullptr;
  auto EndLoop = llvm::make_scope_exit([&] {
    if (Memory)
      gj_memory_exit(Memory);
    if (Profiler) {
      uint64_t End = Profiler->now();
      Profiler->driverRan(End - LoopStart);
      Profiler->interpreterSlice(-1, LoopStart, End);
    }
  });
  for (unsigned Pos = 0; Pos < Sched.Order.size(); ++Pos) {
    const Apply &N = *Sched.Order[Pos];
    if (Pos == Plan->Commit.Start)
      if (Error E = commitUpdates(Plan->Commit, S.Values, S.Runner, Ctx,
                                  [](unsigned) {}))
        return E;
    uint64_t Start = Profiler ? Profiler->now() : 0;
    if (Memory)
      gj_memory_apply(Memory, N.id());
    Error E = S.Runner.run(N, NodeStep::Perform, S.Values, Ctx);
    if (Memory)
      gj_memory_apply(Memory, -1);
    if (E)
      return E;
    if (Profiler) {
      uint64_t End = Profiler->now();
      Profiler->applyRan(N.id(), End - Start);
      Profiler->interpreterSlice(int32_t(N.id()), Start, End);
      Profiler->nodeRan(N, S.Values);
    }
    if (Opts.AllowGC)
      for (unsigned Id : Plan->ReleaseAfter[Pos])
        S.Values[Id].dropBuffer();
  }
  return Error::success();
}


Expected<std::vector<NDArray>>
Function::call(llvm::ArrayRef<NDArray> Inputs, const DimBindings &Given) {
  std::vector<NDArray> Results;
  Results.reserve(Plan->OutputIds.size());
  if (llvm::Error E = callWith(Inputs, Given, Results, /*Reuse=*/false))
    return E;
  return Results;
}

llvm::Error Function::callInto(llvm::ArrayRef<NDArray> Inputs,
                               std::vector<NDArray> &Outputs,
                               const DimBindings &Given) {
  // Outputs is cleared and resized: an input that is one of its elements
  // would be lost (a copy of one keeps its memory).
  std::less<const NDArray *> Before; // A total order on any pointers.
  for (unsigned I = 0; I < Inputs.size(); ++I)
    if (!Before(&Inputs[I], Outputs.data()) &&
        Before(&Inputs[I], Outputs.data() + Outputs.size()))
      return llvm::createStringError(
          "callInto: input " + std::to_string(I) +
          " is an element of the outputs vector, which the call overwrites; "
          "pass a copy of it");
  // The last call's results let go of their memory first, so that the
  // planned storages they came from can be reused rather than replaced.
  for (NDArray &Out : Outputs)
    Out.dropBuffer();
  Outputs.resize(Plan->OutputIds.size());
  llvm::Error E = callWith(Inputs, Given, Outputs, /*Reuse=*/true);
  if (E)
    for (NDArray &Out : Outputs)
      Out.dropBuffer();
  return E;
}

llvm::Error Function::callWith(llvm::ArrayRef<NDArray> Inputs,
                               const DimBindings &Given,
                               std::vector<NDArray> &Results, bool Reuse) {
  CallStateLease S(SpareStates, *Plan, ById, Jit != nullptr,
                   Jit ? &Jit->Storage : nullptr);
  if (!Profiler)
    return callIn(*S, Inputs, Given, Results, Reuse);
  uint64_t Start = Profiler->now();
  llvm::Error E = callIn(*S, Inputs, Given, Results, Reuse);
  Profiler->callEnded(Start);
  return E;
}

// Whether the call's value of Var is an array of its own, contiguous from
// the start of a buffer that nothing else holds (a planned value's
// storage is given up to it).
static bool ownsExclusively(CallState &S, unsigned Var) {
  const NDArray &V = S.Values[Var];
  if (V.isNull() || V.onDevice() || V.isBorrowed() || !V.isContiguous() ||
      V.data() != V.buffer()->data())
    return false;
  if (S.Frame)
    S.Frame->giveUpStorage(Var);
  return V.buffer().use_count() == 1;
}

llvm::Error Function::callIn(CallState &S, llvm::ArrayRef<NDArray> Inputs,
                             const DimBindings &Given,
                             std::vector<NDArray> &Results, bool Reuse) {
  // The plan checks and binds without building strings; bindInputs() words
  // the errors, and binds the sizes given.
  std::optional<DimBindings> GivenDims;
  ExecContext Ctx;
  Ctx.Dims = &S.Dims;
  if (!Given.empty() || !Plan->bind(Inputs, S.DimSlots)) {
    Expected<DimBindings> Dims = bindInputs(Inputs, Given);
    if (!Dims)
      return Dims.takeError();
    GivenDims = std::move(*Dims);
    Ctx.Dims = &*GivenDims;
  }
  S.setSymbolSizes(*Plan, GivenDims ? &*GivenDims : nullptr);
  // The caller keeps the inputs alive during the call: borrow them (no
  // reference counting), and reown any result that is a view of one.
  for (unsigned I = 0; I < Inputs.size(); ++I)
    S.Values[Plan->InputIds[I]].borrow(Inputs[I]);
  for (auto [Id, Shared] : Plan->SharedReads)
    S.Values[Id] = Shared->Value;
  std::unique_lock<std::mutex> GpuLock;
  if (Gpu) {
    GpuLock = std::unique_lock<std::mutex>(Gpu->lock());
    Ctx.Gpu = Gpu.get();
  }
  Error Ran = runNodes(S, Ctx);
  if (Gpu) {
    // Device times are read once the call has waited for the device.
    Error Ended = Gpu->endCall([&](unsigned Id, double Start,
                                   double Seconds) {
      if (Profiler)
        Profiler->deviceRan(Id, Seconds, Gpu->firstMarkHost(), Start);
    });
    if (Ran)
      llvm::consumeError(std::move(Ended));
    else
      Ran = std::move(Ended);
  }
  if (Ran)
    return Ran;

  // Check every update before applying any, so that a failing call changes
  // nothing.
  llvm::ArrayRef<Update> Updates = Graph.updates();
  std::vector<NDArray> NewValues;
  std::vector<bool> Moved(Updates.size(), false);
  for (unsigned I = 0; I < Updates.size(); ++I) {
    const Update &U = Updates[I];
    const NDArray &V = S.Values[U.Value->id()];
    if (V.shape() != Plan->Commit.TargetShapes[I])
      return updateShapeError(U, V.shape());
    // Keep shared values contiguous and independent of any other value:
    // a value the call alone holds becomes the shared value as it is (a
    // Gemm's output, say: no copy of the weights), others are copied. An
    // update in place is in memory only the shared variable and the call
    // hold (commitUpdates saw to it).
    if (Plan->Commit.ByUpdate[I] ||
        (Plan->MoveUpdate[I] && ownsExclusively(S, U.Value->id()))) {
      Moved[I] = true;
      NewValues.emplace_back();
      continue;
    }
    NewValues.push_back(V.copy());
  }
  for (unsigned I = 0; I < NewValues.size(); ++I)
    Updates[I].Target->Value = Moved[I]
                                   ? std::move(S.Values[Updates[I].Value->id()])
                                   : std::move(NewValues[I]);

  for (unsigned I = 0; I < Plan->OutputIds.size(); ++I) {
    NDArray &V = S.Values[Plan->OutputIds[I]];
    // Reusing, the value is copied into the caller's array (its shape
    // storage reused; the call state keeps its own, and drops the buffer
    // when it is cleared). Else it is moved out where it may be.
    if (Reuse)
      Results[I] = V;
    else
      Results.push_back(Plan->MoveOutput[I] ? std::move(V) : V);
    NDArray &R = Results[I];
    if (R.isBorrowed())
      for (const NDArray &In : Inputs)
        R.reown(In);
    // Only an input that itself borrows could leave a result borrowing.
    if (R.isBorrowed())
      R = R.copy();
  }
  return llvm::Error::success();
}

llvm::Error graphjit::setCodegenThreads(unsigned N) {
  Expected<JitEngine &> Engine = JitEngine::get();
  if (!Engine)
    return Engine.takeError();
  Engine->setCodegenThreads(N);
  return llvm::Error::success();
}

llvm::Error graphjit::setCompileCacheDirectory(std::string Dir) {
  Expected<JitEngine &> Engine = JitEngine::get();
  if (!Engine)
    return Engine.takeError();
  Engine->setCacheDirectory(std::move(Dir));
  return llvm::Error::success();
}
