//===- SampleRuntime.h - The sampling profiler's thread --------*- C++ -*-===//
//
// Sampling mode (profiling__mode=sample; the pass's clock=sample), as
// Halide's profiler does it: instrumented code only stores the id of the
// Apply it is about to run in its thread's gj_sample_slot, and a sampler
// thread wakes every interval, reads every thread's slot and adds the time
// since its last look to that Apply's ticks (nanoseconds). The Applies'
// times are then estimates whose error shrinks with the number of samples;
// calls are still counted exactly. Slots live as long as their threads;
// the sampler starts on the first gj_sample_enter and runs until exit. A
// child after fork() keeps only the forking thread's slot and starts a
// sampler of its own on its first sampled call.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_RUNTIME_SAMPLERUNTIME_H
#define GRAPHJIT_RUNTIME_SAMPLERUNTIME_H

#include "runtime/ProfileRuntime.h"
#include "graphjit/runtime/RuntimeABI.h"
#include <cstddef>
#include <cstdint>

namespace graphjit {

class SampleRuntime {
public:
  /// How often the sampler looks (default 100 us); takes effect at its
  /// next wake.
  static void setIntervalNs(uint64_t Ns);
  static uint64_t intervalNs();
  /// Samples taken so far (each a look at every thread's slot).
  static uint64_t samples();
  /// Threads whose slots the sampler reads.
  static size_t threads();
  /// Slots that point at Desc point nowhere from now on (ProfileRuntime::
  /// forget calls it before Desc's counters are freed).
  static void forget(const gj_profile_desc &Desc);
};

} // namespace graphjit

#endif
