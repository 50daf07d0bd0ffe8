//===- MemoryRuntime.h - Measured memory of profiled calls -----*- C++ -*-===//
//
// The runtime side of profile_memory (RuntimeABI.h, "Memory"). A call
// being recorded installs a MemoryRecorder as its thread's allocation
// observer (lib/graph/AllocationObserver.h): every array buffer made or
// freed on the thread until the call ends moves the call's live bytes, and
// each allocation is charged to the Apply running then. When the call ends
// its peak and per-Apply bytes are folded into the function's totals.
//
// Functions are keyed by an address: the instrumented driver's descriptor
// for JIT code, the profiler for the py linker. Each thread has its own
// recorder per function, so calls never contend; totals() merges them.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_RUNTIME_MEMORYRUNTIME_H
#define GRAPHJIT_RUNTIME_MEMORYRUNTIME_H

#include "runtime/ProfileRuntime.h"
#include <cstdint>
#include <vector>

namespace graphjit {

/// One function's measured memory, over its calls and threads.
struct MemoryTotals {
  uint64_t Calls = 0;
  /// The most bytes live at once in one call (buffers the call made).
  uint64_t Peak = 0;
  uint64_t Allocations = 0;
  /// Per Apply id: the most bytes allocated while it ran in one call, and
  /// the buffers allocated while it ran, all calls.
  std::vector<uint64_t> ApplyBytes, ApplyAllocations;
};

class MemoryRuntime {
public:
  /// Starts recording a call of the function Key (NumApplies Applies) on
  /// this thread; what gj_memory_enter does for a descriptor.
  static gj_memory_state *enter(const void *Key, uint32_t NumApplies);
  static MemoryTotals totals(const void *Key);
  /// Drops Key's records (no call of it may be running).
  static void forget(const void *Key);
  /// The gj_memory_* entry points by name, for binding in the JIT.
  static llvm::ArrayRef<RuntimeSymbol> symbols();
};

} // namespace graphjit

#endif
