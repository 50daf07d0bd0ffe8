//===- ProfileRuntime.h - Per-thread Apply counters ------------*- C++ -*-===//
//
// The runtime side of the instrumentation pass (RuntimeABI.h, "Profiling").
// Each thread that calls an instrumented function gets its own counter
// block for that function's descriptor, registered on its first call and
// owned by the registry (it outlives the thread); JIT code updates it with
// plain loads and stores. gj_profile_enter finds the block through a
// one-entry thread_local cache (a few loads), then a per-thread list, and
// only on a thread's first call of a function takes the registry's lock.
// totals() sums every thread's block.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_RUNTIME_PROFILERUNTIME_H
#define GRAPHJIT_RUNTIME_PROFILERUNTIME_H

#include "graphjit/runtime/RuntimeABI.h"
#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <vector>

namespace graphjit {

/// One instrumented function's counters, summed over threads.
struct ProfileTotals {
  uint64_t Calls = 0;       ///< Calls of the function (gj_profile_exit).
  uint64_t DriverTicks = 0; ///< Their whole time, in the descriptor's clock.
  /// Per Apply id (num_counters entries): ticks and calls.
  std::vector<gj_apply_counter> Applies;
  unsigned Threads = 0; ///< Threads that called the function.
  /// With distributions: per Apply id, TickBuckets counts of its per-call
  /// times (TickHistogram.h); else empty.
  std::vector<uint64_t> Histograms;
};

/// A runtime entry point that JIT code calls, for binding in the JIT.
struct RuntimeSymbol {
  const char *Name;
  void *Address;
};

class ProfileRuntime {
public:
  /// Every thread's counters for Desc, summed. Counts of calls still
  /// running may be partly included.
  static ProfileTotals totals(const gj_profile_desc &Desc);
  /// Zeroes Desc's counters in every thread. Call it while no call of the
  /// function runs, or updates made meanwhile may survive or be lost.
  static void reset(const gj_profile_desc &Desc);
  /// Drops Desc's counters. Call it before the code that holds Desc is
  /// freed (JitEngine::release): a later descriptor at the same address
  /// then starts afresh. No call of the function may be running.
  static void forget(const gj_profile_desc &Desc);
  /// Keeps the distribution of every Apply's per-call time for Desc too
  /// (a few ns per Apply per call, at gj_profile_exit). Call it before the
  /// function's first call: threads that called it before count only
  /// the calls after.
  static void recordDistributions(const gj_profile_desc &Desc);
  /// The descriptors with counters, in order of registration.
  static std::vector<const gj_profile_desc *> descriptors();

  /// gj_profile_enter, gj_profile_exit and gj_profile_now by name.
  static llvm::ArrayRef<RuntimeSymbol> symbols();
};

} // namespace graphjit

#endif
