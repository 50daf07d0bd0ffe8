//===- FunctionProfiler.h - One function's profile while it runs -*- C++ -*-===//
//
// What a profiled Function keeps besides the instrumented code's counters
// (runtime/ProfileRuntime.h): the time of whole calls, the interpreter's
// per-Apply ticks (the py linker has no instrumented code), and the tensors
// each Apply saw, recorded on one call only. With profile_memory it also
// keeps the largest size of every output over all calls and reads the
// measured memory (runtime/MemoryRuntime.h), and with profile_optimizer
// what the graph optimizer did. snapshot() turns it all into
// a FunctionProfile in seconds, the instrumentation's cost subtracted.
// Thread-safe: calls may run concurrently.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_LINK_FUNCTIONPROFILER_H
#define GRAPHJIT_LINK_FUNCTIONPROFILER_H

#include "codegen/StoragePlan.h"
#include "graphjit/CompileOptions.h"
#include "graphjit/Graph.h"
#include "graphjit/NDArray.h"
#include "graphjit/Profile.h"
#include "runtime/Clock.h"
#include "runtime/ProfileRuntime.h"
#include "runtime/TickHistogram.h"
#include "graphjit/runtime/RuntimeABI.h"
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

namespace graphjit {

class FunctionProfiler {
public:
  /// Distributions: keep each Apply's per-call times as a histogram
  /// (profiling__distributions).
  FunctionProfiler(const FunctionGraph &F, LinkerKind Linker,
                   bool IgnoreFirstCall, bool Distributions = false);

  /// The JIT's instrumented driver and which Applies run JIT code.
  void setCompiled(const gj_profile_desc *Desc, const std::vector<bool> &C);
  void setCompileTimes(const CompileTimes &T) { Times = T; }
  /// The steps before graphjit's (CompileTimes::Host).
  void setHostCompileTimes(std::vector<std::pair<std::string, double>> Steps);
  /// What the optimizer did to the function (R, run with O on a function
  /// of AppliesAsWritten Applies): its validate time, and with Record
  /// everything (the Optimizer Profile). O.Optimizer "None": nothing ran.
  void setRewrites(const RewriteReport &R, const RewriteOptions &O, bool Record,
                   unsigned AppliesAsWritten);
  /// Apply Id works for model terms Terms (its gradient: Gradient).
  void setTerms(unsigned Id, std::vector<std::string> Terms, bool Gradient);
  /// The function runs Applies on device Name; Applies HostOnly stay on
  /// the host ("op: why").
  void setDevice(std::string Name, std::vector<std::string> HostOnly);
  /// GPU Apply Id took Seconds of device time in one call (its timers).
  /// Traced (setTraced), it is also a slice on the device's timeline:
  /// Start seconds after the call's first device Apply, which was queued
  /// at FirstQueued (ticks of now()).
  void deviceRan(unsigned Id, double Seconds, uint64_t FirstQueued = 0,
                 double Start = 0);
  /// The function's calls go on the timeline (CompileOptions::Trace).
  void setTraced(bool On) { Traced = On; }
  /// The py linker's calls go on the timeline too, under a descriptor of
  /// their own made from F (never freed: the trace is written at exit,
  /// when the function may be gone).
  void traceInterpreter(const FunctionGraph &F);
  /// With traceInterpreter(): Apply Id (-1: the whole call) ran from Start
  /// to End (ticks of now()).
  void interpreterSlice(int32_t Id, uint64_t Start, uint64_t End) const {
    if (InterpreterTrace)
      gj_trace_slice(InterpreterTrace, Id, Start, End);
  }
  /// Records memory too (profile_memory), for F run with or without gc;
  /// Plan: where its values would live without profile_memory (null: the
  /// py linker, which plans nothing).
  void setMemory(const FunctionGraph &F, bool AllowGC,
                 const StoragePlan *Plan);
  bool recordsMemory() const { return Base.Memory.Recorded; }
  /// The key the function's calls record their memory under
  /// (MemoryRuntime): the JIT's descriptor, or this profiler for py.
  const void *memoryKey() const {
    return Desc ? static_cast<const void *>(Desc) : this;
  }
  ~FunctionProfiler();

  /// The clock's ticks now (the instrumentation's clock).
  uint64_t now() const {
    return readProfileClock(Tsc ? GJ_PROFILE_CLOCK_TSC : GJ_PROFILE_CLOCK_CALL);
  }
  /// One call ended, started at Start.
  void callEnded(uint64_t Start);
  /// The py linker's loop ran Ticks (the JIT's driver reports its own).
  void driverRan(uint64_t Ticks) {
    DriverTicks.fetch_add(Ticks, std::memory_order_relaxed);
  }
  /// The py linker: Apply Id ran Ticks.
  void applyRan(unsigned Id, uint64_t Ticks) {
    PyTicks[Id].fetch_add(Ticks, std::memory_order_relaxed);
    PyCalls[Id].fetch_add(1, std::memory_order_relaxed);
    if (PyHistograms)
      PyHistograms[size_t(Id) * TickBuckets + tickBucket(Ticks)].fetch_add(
          1, std::memory_order_relaxed);
  }

  /// Whether this call should record the tensors each Apply sees (one call
  /// does; the first is skipped when it is ignored).
  bool wantsTensors() const {
    return !TensorsRecorded.load(std::memory_order_relaxed);
  }
  /// Apply A has just made its outputs in Values (by Variable id): records
  /// the tensors (on the call that wants them) and the outputs' sizes
  /// (with memory).
  void nodeRan(const Apply &A, const std::vector<NDArray> &Values) {
    if (wantsTensors())
      recordTensors(A, Values);
    if (recordsMemory())
      recordOutputSizes(A, Values);
  }

  FunctionProfile snapshot() const;

private:
  void recordTensors(const Apply &A, const std::vector<NDArray> &Values);
  void recordOutputSizes(const Apply &A, const std::vector<NDArray> &Values);
  void addMeasuredMemory(FunctionProfile &P) const;
  /// What the instrumentation costs per Apply call, subtracted (0 where
  /// nothing is instrumented, or the times are sampled).
  double instrumentationSeconds() const;
  /// Every Apply's histogram now (TickBuckets counts each; empty without
  /// distributions); with the lock held for the first call's.
  std::vector<uint64_t> histograms(const ProfileTotals *T) const;
  void addDistributions(FunctionProfile &P, const std::vector<uint64_t> &Now,
                        llvm::function_ref<double(uint64_t)> PerCall) const;

  FunctionProfile Base; ///< Names, ops, locations, C/Py, tensors.
  const gj_profile_desc *Desc = nullptr;
  /// The clock now() reads: the TSC, or gj_profile_now (decided once).
  bool Tsc;
  bool Traced = false;
  const gj_profile_desc *InterpreterTrace = nullptr;
  CompileTimes Times;
  double ValidateSeconds = 0;
  bool IgnoreFirstCall;
  bool Distributions;
  std::atomic<bool> FirstCallDone{false};
  std::atomic<bool> TensorsRecorded{false};
  std::atomic<uint64_t> Calls{0}, CallTicks{0}, DriverTicks{0};
  std::unique_ptr<std::atomic<uint64_t>[]> PyTicks, PyCalls;
  /// The py linker's histograms, by Apply id (with distributions).
  std::unique_ptr<std::atomic<uint64_t>[]> PyHistograms;
  /// By Apply id, for GPU Applies: device nanoseconds and calls.
  std::unique_ptr<std::atomic<uint64_t>[]> DeviceNanos, DeviceCalls;
  /// By Variable id: the largest size an output was seen with, plus one
  /// (0: never seen); read without the lock (profile_memory).
  std::unique_ptr<std::atomic<uint64_t>[]> SeenBytes;
  /// By Variable id: a view or in-place output was seen with memory of its
  /// own; and the variable whose memory it is declared to share (-1: none).
  std::unique_ptr<std::atomic<bool>[]> SeenAllocating;
  std::vector<int> SharesWith;
  mutable std::mutex TensorLock;
  /// Counters when the first call ended: its own figures, subtracted from
  /// the totals when it is ignored, and always from the distributions.
  std::vector<gj_apply_counter> FirstCall;
  std::vector<uint64_t> FirstCallHistograms;
  uint64_t FirstCallDriverTicks = 0;
  std::optional<uint64_t> FirstCallTicks; ///< The whole first call.
};

} // namespace graphjit

#endif
