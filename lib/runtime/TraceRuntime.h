//===- TraceRuntime.h - Per-thread rings of Apply slices -------*- C++ -*-===//
//
// The timeline's runtime side (RuntimeABI.h, "Timeline"). Code instrumented
// with the pass's `trace` option asks gj_trace_enter for its thread's ring
// once per call and writes a slice into it inline after every Apply and at
// the end of the call: a few stores into memory the thread owns, no call.
// While a trace is on (start()) the ring holds Capacity slices, the oldest
// overwritten, so a trace of millions of calls stays bounded; otherwise
// the slices go to a one-slot ring nothing reads. Only a thread's first
// call takes the registry's lock. snapshot() reads the rings: take it
// while no traced call runs.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_RUNTIME_TRACERUNTIME_H
#define GRAPHJIT_RUNTIME_TRACERUNTIME_H

#include "runtime/ProfileRuntime.h"
#include "graphjit/runtime/RuntimeABI.h"
#include <cstdint>
#include <string>
#include <vector>

namespace graphjit {

/// One Apply's run (Apply -1: a whole call) on one thread, in the ticks of
/// its descriptor's clock.
struct TraceSlice {
  const gj_profile_desc *Desc;
  int32_t Apply;
  uint64_t Start, End;
};

/// One thread's slices, oldest first; or a device's (Device set), on the
/// device's own timeline aligned to the host clock.
struct ThreadTrace {
  unsigned Thread = 0; ///< In order of the threads' first slice, from 1.
  std::string Device;  ///< Non-empty: a device's track (Thread counts those).
  std::string Name;    ///< The OS's name of a host thread, or empty.
  std::vector<TraceSlice> Slices;
  uint64_t Dropped = 0; ///< Older slices the ring overwrote.
};

class TraceRuntime {
public:
  /// Turns the trace on, each thread keeping its last Capacity slices
  /// (at least 1); what was recorded before is dropped.
  static void start(size_t Capacity);
  /// Turns it off; what was recorded stays for snapshot().
  static void stop();
  static bool active();
  /// Whether the trace holds slices of Desc's function (its code must
  /// then outlive the trace: JitEngine::release keeps it).
  static bool recorded(const gj_profile_desc *Desc);
  /// Apply of Desc's function ran on device Device from Start to End (ticks
  /// of Desc's clock): a slice on that device's track, kept in a ring of
  /// the same capacity as a thread's. Nothing while the trace is off.
  static void deviceSlice(const std::string &Device,
                          const gj_profile_desc *Desc, int32_t Apply,
                          uint64_t Start, uint64_t End);
  /// A sample of the live-bytes counter of Desc's call on this thread, at
  /// Ticks of its clock (a slice with Apply GJ_TRACE_LIVE_BYTES).
  static void sample(const gj_profile_desc *Desc, uint64_t Ticks,
                     uint64_t Bytes);
  /// Every thread's slices, then every device's.
  static std::vector<ThreadTrace> snapshot();
  /// The name the timeline gives Desc's calls (the graph function's, where
  /// the descriptor only knows the LLVM function's).
  static void nameFunction(const gj_profile_desc *Desc, std::string Name);
  static std::string functionName(const gj_profile_desc *Desc);
  /// Which of Desc's Applies (by id) the report counts as compiled where
  /// the descriptor's kind says otherwise (a GPU Apply runs compiled
  /// kernels, though the host calls them through gj_perform).
  static void markCompiled(const gj_profile_desc *Desc,
                           std::vector<bool> ById);
  /// What markCompiled() said of Desc (empty: nothing).
  static std::vector<bool> compiledApplies(const gj_profile_desc *Desc);
  /// gj_trace_slice by name, for binding in the JIT.
  static llvm::ArrayRef<RuntimeSymbol> symbols();
};

} // namespace graphjit

#endif
