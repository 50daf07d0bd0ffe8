//===- FunctionProfiler.cpp - One function's profile while it runs -------===//
//
// The counters of a profiled Function turned into a FunctionProfile
// (FunctionProfiler.h): names and provenance from the graph, the
// optimizer's report, the compile times, the tensors and memory seen, and
// the ticks of the instrumented code or of the interpreter.
//
//===----------------------------------------------------------------------===//

#include "link/profiling/FunctionProfiler.h"
#include "graphjit/Gpu.h"
#include "runtime/Clock.h"
#include "runtime/MemoryRuntime.h"
#include "runtime/ProfileRuntime.h"
#include "runtime/TraceRuntime.h"
#include "llvm/ADT/StringExtras.h"
#include <algorithm>

using namespace graphjit;

FunctionProfiler::FunctionProfiler(const FunctionGraph &F, LinkerKind Linker,
                                   bool IgnoreFirstCall, bool Distributions)
    : Base(describeFunction(F)),
      // Calibrated now, not during the first call.
      Tsc(ProfileClock::get().preferredClock() == GJ_PROFILE_CLOCK_TSC),
      IgnoreFirstCall(IgnoreFirstCall), Distributions(Distributions),
      PyTicks(new std::atomic<uint64_t>[F.numApplies()]()),
      PyCalls(new std::atomic<uint64_t>[F.numApplies()]()),
      DeviceNanos(new std::atomic<uint64_t>[F.numApplies()]()),
      DeviceCalls(new std::atomic<uint64_t>[F.numApplies()]()) {
  Base.Linker = linkerName(Linker).str();
  if (Distributions)
    PyHistograms.reset(
        new std::atomic<uint64_t>[F.numApplies() * TickBuckets]());
  if (Linker == LinkerKind::Py)
    for (ApplyProfile &A : Base.Applies)
      A.Compiled = false;
}

FunctionProfiler::~FunctionProfiler() {
  if (recordsMemory() && !Desc)
    MemoryRuntime::forget(this); // The JIT forgets its descriptor itself.
}

void FunctionProfiler::setRewrites(const RewriteReport &R,
                                   const RewriteOptions &O, bool Record,
                                   unsigned AppliesAsWritten) {
  std::lock_guard<std::mutex> Guard(TensorLock);
  ValidateSeconds = R.ValidateSeconds;
  if (!Record)
    return;
  OptimizerProfile &P = Base.Optimizer;
  P = OptimizerProfile();
  P.Recorded = true;
  P.Name = O.Optimizer;
  P.Excluding = llvm::join(O.Excluding, ":");
  P.Including = llvm::join(O.Including, ":");
  P.Runs = 1;
  P.Seconds = R.Seconds;
  P.ValidateSeconds = R.ValidateSeconds;
  if (O.Optimizer == "None") {
    // Nothing ran: the function is the graph as written.
    P.NodesBefore = P.NodesAfter = AppliesAsWritten;
    return;
  }
  P.NodesBefore = R.NodesBefore;
  P.NodesAfter = R.NodesAfter;
  for (const RewritePhaseStat &S : R.Phases)
    P.Phases.push_back({S.Name, S.Seconds, S.NodesBefore, S.NodesAfter,
                        S.Visits, S.BudgetExhausted});
  for (const RewriteStat &S : R.Rewrites)
    P.Rewrites.push_back({S.Name, S.Tags, S.Seconds, S.Applied, S.NodesBefore,
                          S.NodesAfter, S.NodesCreated});
}

static const char *aliasKindName(OutputAlias::Kind K) {
  switch (K) {
  case OutputAlias::Created: return "created";
  case OutputAlias::View: return "view";
  case OutputAlias::Inplace: return "inplace";
  }
  return "created";
}

void FunctionProfiler::setMemory(const FunctionGraph &F, bool AllowGC,
                                 const StoragePlan *Plan) {
  FunctionMemory &M = Base.Memory;
  M.Recorded = true;
  SeenBytes.reset(new std::atomic<uint64_t>[F.variables().size()]());
  SeenAllocating.reset(new std::atomic<bool>[F.variables().size()]());
  SharesWith.assign(F.variables().size(), -1);
  M.AllowGC = AllowGC;
  for (const Variable *V : F.outputs())
    M.KeptVars.push_back(V->id());
  for (const Update &U : F.updates())
    M.KeptVars.push_back(U.Value->id());
  for (const Apply *A : F.applies()) {
    ApplyProfile &P = Base.Applies[A->id()];
    for (const Variable *In : A->inputs())
      P.InputVars.push_back(In->id());
    for (unsigned I = 0; I < A->outputs().size(); ++I) {
      OutputAlias Alias = A->op().outputAlias(I);
      OutputMemory O;
      O.Var = A->output(I)->id();
      O.Kind = aliasKindName(Alias.K);
      O.Input = Alias.Input;
      if (Plan && Plan->isPlanned(O.Var))
        O.Storage = Plan->StorageOf[O.Var];
      if (Alias.K != OutputAlias::Created && Alias.Input >= 0 &&
          unsigned(Alias.Input) < A->inputs().size())
        SharesWith[O.Var] = A->inputs()[Alias.Input]->id();
      P.OutputMem.push_back(std::move(O));
    }
  }
}

/// Whether Out, declared to share the memory of variable SharedVar (-1:
/// created), has memory of its own.
static bool allocatedAlone(const NDArray &Out, int SharedVar,
                           const std::vector<NDArray> &Values) {
  return SharedVar >= 0 && !Out.sharesBufferWith(Values[SharedVar]);
}

void FunctionProfiler::recordOutputSizes(const Apply &A,
                                         const std::vector<NDArray> &Values) {
  // Every call comes here: take the lock only for what is new (a larger
  // size, a view seen allocating for the first time). OutputMem's Var
  // fields never change after setMemory().
  const ApplyProfile &Unlocked = Base.Applies[A.id()];
  bool News = false;
  for (const OutputMemory &O : Unlocked.OutputMem) {
    const NDArray &Out = Values[O.Var];
    // Device arrays are not host memory (the pool counts them).
    News |= !Out.isNull() && !Out.onDevice() &&
            (Out.numBytes() + 1 >
                 SeenBytes[O.Var].load(std::memory_order_relaxed) ||
             (!SeenAllocating[O.Var].load(std::memory_order_relaxed) &&
              allocatedAlone(Out, SharesWith[O.Var], Values)));
  }
  if (!News)
    return;
  std::lock_guard<std::mutex> Guard(TensorLock);
  for (OutputMemory &O : Base.Applies[A.id()].OutputMem) {
    const NDArray &Out = Values[O.Var];
    if (Out.isNull() || Out.onDevice())
      continue;
    // The largest over all calls, with its shape (SeenBytes: largest + 1).
    if (Out.numBytes() + 1 > SeenBytes[O.Var].load()) {
      SeenBytes[O.Var].store(Out.numBytes() + 1);
      O.Bytes = Out.numBytes();
      O.Shape.assign(Out.shape().begin(), Out.shape().end());
    }
    if (allocatedAlone(Out, SharesWith[O.Var], Values)) {
      SeenAllocating[O.Var].store(true);
      O.Allocated = true;
    }
  }
}

void FunctionProfiler::addMeasuredMemory(FunctionProfile &P) const {
  MemoryTotals T = MemoryRuntime::totals(memoryKey());
  P.Memory.MeasuredPeak = T.Peak;
  P.Memory.Calls = T.Calls;
  P.Memory.Allocations = T.Allocations;
  for (ApplyProfile &A : P.Applies)
    if (A.Id < T.ApplyBytes.size()) {
      A.AllocatedBytes = T.ApplyBytes[A.Id];
      A.Allocations = T.ApplyAllocations[A.Id];
    }
}

void FunctionProfiler::setCompiled(const gj_profile_desc *D,
                                   const std::vector<bool> &C) {
  Desc = D;
  // Calls are timed on the descriptor's clock, which IR instrumented by
  // opt (-jit-llvm) may have chosen: the call's time and the Applies' must
  // be in the same ticks.
  if (D)
    Tsc = D->clock == GJ_PROFILE_CLOCK_TSC;
  // A sampled function's ticks are the sampler's, not per call.
  if (D && Distributions && !gj_profile_clock_is_sampled(D->clock))
    ProfileRuntime::recordDistributions(*D);
  for (ApplyProfile &A : Base.Applies)
    A.Compiled = A.Id < C.size() && C[A.Id];
}

void FunctionProfiler::setHostCompileTimes(
    std::vector<std::pair<std::string, double>> Steps) {
  std::lock_guard<std::mutex> Guard(TensorLock);
  Times.Host = std::move(Steps);
}

void FunctionProfiler::setTerms(unsigned Id, std::vector<std::string> Terms,
                                bool Gradient) {
  std::lock_guard<std::mutex> Guard(TensorLock);
  ApplyProfile &A = Base.Applies[Id];
  A.Terms = std::move(Terms);
  A.Gradient = Gradient;
}

void FunctionProfiler::setDevice(std::string Name,
                                  std::vector<std::string> HostOnly) {
  std::lock_guard<std::mutex> Guard(TensorLock);
  Base.Device = std::move(Name);
  Base.HostOnly = std::move(HostOnly);
}

void FunctionProfiler::deviceRan(unsigned Id, double Seconds,
                                 uint64_t FirstQueued, double Start) {
  if (Traced && Desc && TraceRuntime::active()) {
    const ProfileClock &Clock = ProfileClock::get();
    uint64_t From = FirstQueued + Clock.ticks(Start, Desc->clock);
    TraceRuntime::deviceSlice(Base.Device, Desc, int32_t(Id), From,
                              From + Clock.ticks(Seconds, Desc->clock));
  }
  // A first call left out leaves its device time out too.
  if (IgnoreFirstCall && !FirstCallDone.load(std::memory_order_relaxed))
    return;
  DeviceNanos[Id].fetch_add(uint64_t(Seconds * 1e9 + 0.5),
                            std::memory_order_relaxed);
  DeviceCalls[Id].fetch_add(1, std::memory_order_relaxed);
}

void FunctionProfiler::callEnded(uint64_t Start) {
  uint64_t Ticks = now() - Start;
  if (!FirstCallDone.exchange(true)) {
    // Remember where the counters stood after the first call: the first
    // call apart, and what snapshot() subtracts.
    std::lock_guard<std::mutex> Guard(TensorLock);
    FirstCallTicks = Ticks;
    if (Desc) {
      ProfileTotals T = ProfileRuntime::totals(*Desc);
      FirstCall = T.Applies;
      FirstCallDriverTicks = T.DriverTicks;
      FirstCallHistograms = histograms(&T);
    } else {
      FirstCall.resize(Base.Applies.size());
      for (unsigned I = 0; I < FirstCall.size(); ++I)
        FirstCall[I] = {PyTicks[I].load(), PyCalls[I].load()};
      FirstCallDriverTicks = DriverTicks.load();
      FirstCallHistograms = histograms(nullptr);
    }
    if (IgnoreFirstCall)
      return; // The next call records the tensors again.
  }
  TensorsRecorded.store(true, std::memory_order_relaxed);
  Calls.fetch_add(1, std::memory_order_relaxed);
  CallTicks.fetch_add(Ticks, std::memory_order_relaxed);
}

void FunctionProfiler::recordTensors(const Apply &A,
                                     const std::vector<NDArray> &Values) {
  llvm::SmallVector<NDArray, 4> In, Out;
  for (const Variable *V : A.inputs())
    In.push_back(Values[V->id()]);
  for (const Variable *V : A.outputs())
    Out.push_back(Values[V->id()]);
  std::lock_guard<std::mutex> Guard(TensorLock);
  graphjit::recordTensors(Base.Applies[A.id()], A, In, Out);
}

FunctionProfile FunctionProfiler::snapshot() const {
  FunctionProfile P;
  {
    std::lock_guard<std::mutex> Guard(TensorLock);
    P = Base;
    P.Compile = Times;
  }
  const ProfileClock &Clock = ProfileClock::get();
  uint32_t ClockKind = Desc ? Desc->clock : Clock.preferredClock();
  auto Seconds = [&](uint64_t Ticks) { return Clock.seconds(Ticks, ClockKind); };
  double Overhead = instrumentationSeconds();

  P.Calls = Calls.load();
  P.CallSeconds = Seconds(CallTicks.load());
  P.Clock = Clock.clockName(ClockKind);
  P.InstrumentationNsPerApply = Overhead * 1e9;
  P.Compile.Validate = ValidateSeconds;

  std::vector<gj_apply_counter> Counts(P.Applies.size());
  uint64_t Driver = 0;
  std::vector<uint64_t> Histograms;
  if (Desc) {
    ProfileTotals T = ProfileRuntime::totals(*Desc);
    for (unsigned I = 0; I < Counts.size() && I < T.Applies.size(); ++I)
      Counts[I] = T.Applies[I];
    Driver = T.DriverTicks;
    Histograms = histograms(&T);
  } else {
    for (unsigned I = 0; I < Counts.size(); ++I)
      Counts[I] = {PyTicks[I].load(), PyCalls[I].load()};
    Driver = DriverTicks.load();
    Histograms = histograms(nullptr);
  }
  {
    std::lock_guard<std::mutex> Guard(TensorLock);
    if (FirstCallTicks) {
      P.FirstCallSeconds = Seconds(*FirstCallTicks);
      P.FirstCallInTotals = !IgnoreFirstCall;
    }
    for (unsigned I = 0; I < Counts.size() && I < FirstCall.size(); ++I) {
      if (FirstCall[I].calls)
        P.Applies[I].FirstCallSeconds = std::max(
            0.0, Seconds(FirstCall[I].ticks) -
                     Overhead * double(FirstCall[I].calls));
      if (!IgnoreFirstCall)
        continue;
      Counts[I].ticks -= std::min(Counts[I].ticks, FirstCall[I].ticks);
      Counts[I].calls -= std::min(Counts[I].calls, FirstCall[I].calls);
    }
    if (IgnoreFirstCall)
      Driver -= std::min(Driver, FirstCallDriverTicks);
    addDistributions(P, Histograms, [&](uint64_t Ticks) {
      return std::max(0.0, Seconds(Ticks) - Overhead);
    });
  }
  P.DriverSeconds = Seconds(Driver);
  for (ApplyProfile &A : P.Applies) {
    const gj_apply_counter &C = Counts[A.Id];
    A.Calls = C.calls;
    A.Seconds = std::max(0.0, Seconds(C.ticks) - Overhead * double(C.calls));
    // A GPU Apply's time is the device's: its host side only queued work.
    if (uint64_t DC = DeviceCalls[A.Id].load()) {
      // The host's view of it is not the device's: no first call or
      // distribution of its own.
      A.FirstCallSeconds.reset();
      A.Distribution.reset();
      A.OnDevice = true;
      A.Calls = DC;
      A.Seconds = double(DeviceNanos[A.Id].load()) * 1e-9;
    }
  }
  if (!P.Device.empty()) {
    GpuMemoryStats G = gpu_memory_stats();
    P.GpuPeakBytes = G.PeakAllocated;
    P.GpuPeakReservedBytes = G.PeakReserved;
  }
  if (P.Memory.Recorded)
    addMeasuredMemory(P);
  return P;
}

std::vector<uint64_t>
FunctionProfiler::histograms(const ProfileTotals *T) const {
  if (!Distributions)
    return {};
  if (T)
    return T->Histograms;
  std::vector<uint64_t> H(Base.Applies.size() * TickBuckets);
  for (size_t I = 0; I < H.size(); ++I)
    H[I] = PyHistograms[I].load(std::memory_order_relaxed);
  return H;
}

// The steady state's distribution of each Apply's per-call time: the
// histograms now less the first call's, each bucket's bounds as one call's
// seconds (PerCall, the instrumentation's cost subtracted).
void FunctionProfiler::addDistributions(
    FunctionProfile &P, const std::vector<uint64_t> &Now,
    llvm::function_ref<double(uint64_t)> PerCall) const {
  if (Now.empty())
    return;
  for (ApplyProfile &A : P.Applies) {
    size_t From = size_t(A.Id) * TickBuckets;
    if (From + TickBuckets > Now.size())
      continue;
    std::vector<TimeBucket> Buckets;
    for (unsigned B = 0; B < TickBuckets; ++B) {
      uint64_t Count = Now[From + B];
      if (From + B < FirstCallHistograms.size())
        Count -= std::min(Count, FirstCallHistograms[From + B]);
      if (Count)
        Buckets.push_back({PerCall(tickBucketLower(B)),
                           PerCall(tickBucketUpper(B)), Count});
    }
    if (!Buckets.empty())
      A.Distribution = distributionOf(std::move(Buckets));
  }
}

double FunctionProfiler::instrumentationSeconds() const {
  // The sampler's ticks include none of the instrumentation's cost.
  if (!Desc || gj_profile_clock_is_sampled(Desc->clock))
    return 0;
  return ProfileClock::get().overheadNsPerApply() * 1e-9;
}

void FunctionProfiler::traceInterpreter(const FunctionGraph &F) {
  // What the instrumentation pass would emit for JIT code, built here and
  // kept for the process's life, with the strings it points at.
  struct Owned {
    gj_profile_desc Desc;
    std::vector<gj_profile_apply> Applies;
    std::vector<std::string> Strings;
  };
  auto *O = new Owned;
  O->Strings.reserve(2 * F.numApplies() + 1);
  O->Strings.push_back(F.name());
  for (const Apply *N : F.applies()) {
    O->Strings.push_back(N->displayName());
    O->Strings.push_back(N->loc().isValid() ? N->loc().fileLine() : "");
  }
  for (const Apply *N : F.applies())
    O->Applies.push_back({int32_t(N->id()),
                          O->Strings[1 + 2 * O->Applies.size()].c_str(),
                          O->Strings[2 + 2 * O->Applies.size()].c_str(),
                          "Py"});
  O->Desc = {GRAPHJIT_RUNTIME_ABI_VERSION,
             uint32_t(F.numApplies()),
             O->Strings[0].c_str(),
             uint32_t(O->Applies.size()),
             O->Applies.data(),
             Tsc ? uint32_t(GJ_PROFILE_CLOCK_TSC) : uint32_t(GJ_PROFILE_CLOCK_CALL)};
  InterpreterTrace = &O->Desc;
  TraceRuntime::nameFunction(InterpreterTrace, F.name());
}
