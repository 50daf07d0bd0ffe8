//===- Clock.cpp - The profiler's clocks: calibrated TSC or a fallback ----===//

#include "runtime/Clock.h"
#include "graphjit/runtime/RuntimeABI.h"
#include "runtime/SampleRuntime.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#if GRAPHJIT_HAVE_TSC
#include <cpuid.h>
#endif

using namespace graphjit;

extern "C" uint64_t gj_profile_now(void) {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC_RAW, &T);
  return uint64_t(T.tv_sec) * 1000000000u + uint64_t(T.tv_nsec);
}

bool graphjit::cpuHasInvariantTsc() {
#if GRAPHJIT_HAVE_TSC
  unsigned A, B, C, D;
  if (!__get_cpuid(0x80000000u, &A, &B, &C, &D) || A < 0x80000007u)
    return false;
  if (!__get_cpuid(0x80000007u, &A, &B, &C, &D))
    return false;
  return D & (1u << 8);
#else
  return false;
#endif
}

double graphjit::median(llvm::MutableArrayRef<double> Values) {
  if (Values.empty())
    return 0;
  std::sort(Values.begin(), Values.end());
  size_t N = Values.size();
  return N % 2 ? Values[N / 2] : (Values[N / 2 - 1] + Values[N / 2]) / 2;
}

double
graphjit::ticksPerSecondFromWindows(llvm::ArrayRef<CalibrationWindow> Windows) {
  std::vector<double> Rates;
  for (const CalibrationWindow &W : Windows)
    if (W.Ticks1 > W.Ticks0 && W.Ns1 > W.Ns0)
      Rates.push_back(double(W.Ticks1 - W.Ticks0) * 1e9 /
                      double(W.Ns1 - W.Ns0));
  return median(Rates);
}

// The TSC and the monotonic clock read as close together as we can: the
// TSC's midpoint around clock_gettime, retried when the pair took long (an
// interrupt or a preemption between the reads).
static void readPair(uint64_t &Ticks, uint64_t &Ns) {
  uint64_t BestSpan = UINT64_MAX;
  for (int Try = 0; Try < 8; ++Try) {
    uint64_t Before = readTsc();
    uint64_t N = gj_profile_now();
    uint64_t After = readTsc();
    if (After - Before < BestSpan) {
      BestSpan = After - Before;
      Ticks = Before + (After - Before) / 2;
      Ns = N;
    }
    if (BestSpan < 2000)
      break;
  }
}

static double calibrateTsc() {
  constexpr int NumWindows = 5;
  constexpr uint64_t WindowNs = 2'500'000;
  CalibrationWindow Windows[NumWindows];
  for (CalibrationWindow &W : Windows) {
    readPair(W.Ticks0, W.Ns0);
    while (gj_profile_now() - W.Ns0 < WindowNs)
      ;
    readPair(W.Ticks1, W.Ns1);
  }
  return ticksPerSecondFromWindows(Windows);
}

// What one instrumented Apply adds to a call: one clock read chained with
// the next, and the counter update, as the pass emits them. The best of a
// few runs, so that an interrupt does not inflate it.
static double measureOverheadNs(bool UseTsc) {
  constexpr int Iterations = 20000;
  gj_apply_counter Counters[8] = {};
  double Best = 0;
  for (int Run = 0; Run < 5; ++Run) {
    uint64_t Begin = gj_profile_now();
    uint64_t Prev = UseTsc ? readTsc() : gj_profile_now();
    for (int I = 0; I < Iterations; ++I) {
      uint64_t T = UseTsc ? readTsc() : gj_profile_now();
      gj_apply_counter &C = Counters[I & 7];
      C.ticks += T - Prev;
      C.calls += 1;
      Prev = T;
      asm volatile("" ::: "memory"); // Keep every update, as JIT code does.
    }
    double Ns = double(gj_profile_now() - Begin) / Iterations;
    if (Run == 0 || Ns < Best)
      Best = Ns;
  }
  return Best;
}

ProfileClock::ProfileClock(bool InvariantTsc, double TscHz, double OverheadNs)
    : InvariantTsc(InvariantTsc), TscHz(TscHz), OverheadNs(OverheadNs) {
  llvm::raw_string_ostream OS(Name);
  if (InvariantTsc)
    OS << "TSC at " << llvm::format("%.3f", TscHz / 1e9)
       << " GHz (invariant; calibrated against CLOCK_MONOTONIC_RAW)";
  else
    OS << "CLOCK_MONOTONIC_RAW through gj_profile_now (no invariant TSC)";
}

std::string ProfileClock::clockName(uint32_t Clock) const {
  if (gj_profile_clock_is_sampled(Clock))
    return "sampled every " +
           std::to_string(SampleRuntime::intervalNs() / 1000) +
           " us by a sampler thread (profiling__mode=sample: the Applies' "
           "times are estimates, their calls exact)";
  if (Clock == preferredClock())
    return Name;
  if (Clock == GJ_PROFILE_CLOCK_CALL)
    return "CLOCK_MONOTONIC_RAW through gj_profile_now (the IR's clock=call)";
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << "TSC at " << llvm::format("%.3f", TscHz / 1e9)
     << " GHz (the IR's clock=tsc, though the TSC is not invariant here)";
  return S;
}

const ProfileClock &ProfileClock::get() {
  // Calibrated once, and never destroyed: reports at exit may still use it.
  static const ProfileClock *Clock = [] {
    bool Invariant = cpuHasInvariantTsc();
    if (const char *Force = std::getenv("GRAPHJIT_PROFILE_CLOCK"))
      if (std::strcmp(Force, "call") == 0)
        Invariant = false;
    double Hz = GRAPHJIT_HAVE_TSC ? calibrateTsc() : 0;
    if (Hz <= 0)
      Invariant = false;
    return new ProfileClock(Invariant, Hz, measureOverheadNs(Invariant));
  }();
  return *Clock;
}

uint32_t ProfileClock::preferredClock() const {
  return InvariantTsc ? GJ_PROFILE_CLOCK_TSC : GJ_PROFILE_CLOCK_CALL;
}

double ProfileClock::seconds(uint64_t Ticks, uint32_t Clock) const {
  if (Clock == GJ_PROFILE_CLOCK_CALL || gj_profile_clock_is_sampled(Clock))
    return double(Ticks) * 1e-9;
  return TscHz > 0 ? double(Ticks) / TscHz : 0;
}

uint64_t ProfileClock::ticks(double Seconds, uint32_t Clock) const {
  double PerSecond =
      Clock == GJ_PROFILE_CLOCK_CALL || gj_profile_clock_is_sampled(Clock)
          ? 1e9
          : TscHz;
  return Seconds > 0 ? uint64_t(Seconds * PerSecond + 0.5) : 0;
}
