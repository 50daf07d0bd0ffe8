//===- Clock.h - The profiler's clocks: TSC or a fallback ---*- C++ -*-===//
//
// Instrumented code counts time in the ticks of the clock its descriptor
// names: the TSC (llvm.readcyclecounter, GJ_PROFILE_CLOCK_TSC) or
// gj_profile_now's nanoseconds (GJ_PROFILE_CLOCK_CALL, the fallback where
// the TSC is not invariant). ProfileClock turns either into seconds: on
// first use it checks for an invariant TSC with cpuid, calibrates the TSC's
// rate against CLOCK_MONOTONIC_RAW (several short windows, the median;
// about 12 ms), and measures the instrumentation's own cost per Apply.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_RUNTIME_CLOCK_H
#define GRAPHJIT_RUNTIME_CLOCK_H

#include "graphjit/runtime/RuntimeABI.h"
#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define GRAPHJIT_HAVE_TSC 1
#else
#define GRAPHJIT_HAVE_TSC 0
#endif

namespace graphjit {

/// The TSC now (0 where there is none): the one place outside JIT code
/// that reads it.
inline uint64_t readTsc() {
#if GRAPHJIT_HAVE_TSC
  return __rdtsc();
#else
  return 0;
#endif
}

/// Ticks of Clock (a gj_profile_desc::clock) now: what instrumented code
/// reads, read from C++ (the py linker's profiler).
inline uint64_t readProfileClock(uint32_t Clock) {
  return Clock == GJ_PROFILE_CLOCK_TSC ? readTsc() : gj_profile_now();
}

/// One calibration window: the TSC and CLOCK_MONOTONIC_RAW (ns) read
/// together at its start and at its end.
struct CalibrationWindow {
  uint64_t Ticks0 = 0, Ns0 = 0;
  uint64_t Ticks1 = 0, Ns1 = 0;
};

/// The TSC's rate in ticks per second: the median of the windows' rates,
/// ignoring windows where either clock did not advance. 0 when none is left.
double ticksPerSecondFromWindows(llvm::ArrayRef<CalibrationWindow> Windows);

/// The median of Values (the mean of the middle two for an even count); 0
/// for none. Values is reordered.
double median(llvm::MutableArrayRef<double> Values);

class ProfileClock {
public:
  /// The process's clock, calibrated on first use. Call it at start-up when
  /// profiling, so that the calibration is not charged to the first call.
  static const ProfileClock &get();

  /// Whether cpuid reports an invariant TSC (constant rate, not stopped in
  /// sleep states) and GRAPHJIT_PROFILE_CLOCK is not `call`.
  bool hasInvariantTsc() const { return InvariantTsc; }
  /// The clock the instrumentation pass should read here:
  /// GJ_PROFILE_CLOCK_TSC with an invariant TSC, else GJ_PROFILE_CLOCK_CALL.
  uint32_t preferredClock() const;
  /// The TSC's calibrated rate; 0 where there is no TSC.
  double tscTicksPerSecond() const { return TscHz; }
  /// Seconds in Ticks of Clock (a gj_profile_desc::clock).
  double seconds(uint64_t Ticks, uint32_t Clock) const;
  /// The ticks of Clock in Seconds (seconds()'s inverse, rounded).
  uint64_t ticks(double Seconds, uint32_t Clock) const;
  /// For the report: which clock, at what rate, calibrated how.
  const std::string &clockName() const { return Name; }
  /// The same for Clock (a gj_profile_desc::clock), which IR instrumented
  /// elsewhere (opt's clock=) may have chosen against preferredClock().
  std::string clockName(uint32_t Clock) const;
  /// What instrumenting one Apply costs with the preferred clock, in ns:
  /// one chained clock read and one counter update, measured at start-up.
  double overheadNsPerApply() const { return OverheadNs; }

  /// Builds a clock from measured facts (for tests).
  ProfileClock(bool InvariantTsc, double TscHz, double OverheadNs);

private:
  bool InvariantTsc;
  double TscHz;
  double OverheadNs;
  std::string Name;
};

/// Whether the CPU reports an invariant TSC (cpuid 0x80000007, EDX bit 8).
bool cpuHasInvariantTsc();

} // namespace graphjit

#endif
