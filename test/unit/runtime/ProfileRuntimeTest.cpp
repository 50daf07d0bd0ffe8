//===- ProfileRuntimeTest.cpp - Clock calibration and per-thread counters ===//
//
// The calibration arithmetic (medians, windows, tick conversions), the
// process clock's start-up facts, and the per-thread counter registry:
// threads that enter and exit a function many times at once lose no
// counts, reset and forget work, and the JIT gets every entry point.
//
//===----------------------------------------------------------------------===//

#include "runtime/ProfileRuntime.h"
#include "runtime/Clock.h"
#include "gtest/gtest.h"
#include <cstdio>
#include <thread>

using namespace graphjit;

namespace {

TEST(ProfileClock, MedianOfOddAndEvenCounts) {
  std::vector<double> Odd = {5, 1, 3};
  EXPECT_EQ(median(Odd), 3);
  std::vector<double> Even = {4, 1, 3, 2};
  EXPECT_EQ(median(Even), 2.5);
  std::vector<double> None;
  EXPECT_EQ(median(None), 0);
}

TEST(ProfileClock, RateFromWindowsIsTheMedian) {
  // 2.6 GHz windows of 2 ms, and one that was preempted between its reads
  // (the TSC moved on while the clock reading was older).
  std::vector<CalibrationWindow> W;
  for (uint64_t I = 0; I < 4; ++I)
    W.push_back({1000 + I, 1'000'000, 1000 + I + 5'200'000, 3'000'000});
  W.push_back({0, 0, 9'000'000, 2'000'000}); // 4.5 GHz: an outlier
  EXPECT_DOUBLE_EQ(ticksPerSecondFromWindows(W), 2.6e9);
}

TEST(ProfileClock, WindowsWhereAClockStoodStillAreIgnored) {
  std::vector<CalibrationWindow> W = {
      {100, 50, 100, 60},       // the TSC did not move
      {100, 50, 200, 50},       // the clock did not move
      {100, 1000, 3100, 2000}}; // 3 GHz
  EXPECT_DOUBLE_EQ(ticksPerSecondFromWindows(W), 3e9);
  EXPECT_EQ(ticksPerSecondFromWindows({}), 0);
  EXPECT_EQ(ticksPerSecondFromWindows(llvm::ArrayRef(W).take_front(2)), 0);
}

TEST(ProfileClock, TicksToSeconds) {
  ProfileClock Tsc(/*InvariantTsc=*/true, 2.5e9, 8);
  EXPECT_DOUBLE_EQ(Tsc.seconds(5'000'000'000, GJ_PROFILE_CLOCK_TSC), 2.0);
  EXPECT_DOUBLE_EQ(Tsc.seconds(1500, GJ_PROFILE_CLOCK_CALL), 1.5e-6);
  EXPECT_EQ(Tsc.preferredClock(), uint32_t(GJ_PROFILE_CLOCK_TSC));
  EXPECT_EQ(Tsc.clockName(), "TSC at 2.500 GHz (invariant; calibrated against "
                             "CLOCK_MONOTONIC_RAW)");
  ProfileClock NoTsc(false, 0, 20);
  EXPECT_EQ(NoTsc.preferredClock(), uint32_t(GJ_PROFILE_CLOCK_CALL));
  EXPECT_DOUBLE_EQ(NoTsc.seconds(2000, GJ_PROFILE_CLOCK_CALL), 2e-6);
  EXPECT_EQ(NoTsc.seconds(2000, GJ_PROFILE_CLOCK_TSC), 0);
  EXPECT_NE(NoTsc.clockName().find("no invariant TSC"), std::string::npos);
}

TEST(ProfileClock, StartUpMeasurementsArePlausible) {
  const ProfileClock &C = ProfileClock::get();
  std::printf("clock: %s; instrumentation %.1f ns per Apply\n",
              C.clockName().c_str(), C.overheadNsPerApply());
  EXPECT_FALSE(C.clockName().empty());
  EXPECT_GT(C.overheadNsPerApply(), 0);
  EXPECT_LT(C.overheadNsPerApply(), 10'000);
  if (C.hasInvariantTsc()) {
    EXPECT_GT(C.tscTicksPerSecond(), 1e8);
    EXPECT_LT(C.tscTicksPerSecond(), 1e10);
  }
  uint64_t A = gj_profile_now(), B = gj_profile_now();
  EXPECT_LE(A, B);
}

// A descriptor as the pass would emit it, for a function with Applies 0..2
// (id 1 unused, as when an Apply is not marked).
gj_profile_apply TestApplies[] = {{0, "a", "t.graph:1", "C"},
                                  {2, "c", "t.graph:3", "Py"}};
gj_profile_desc makeDesc(const char *Name) {
  return {GRAPHJIT_RUNTIME_ABI_VERSION, 3, Name, 2, TestApplies,
          GJ_PROFILE_CLOCK_TSC};
}

// What an instrumented call does to the runtime's counters.
void fakeCall(const gj_profile_desc &D, uint64_t T0, uint64_t T2) {
  gj_apply_counter *C = gj_profile_enter(&D);
  C[0].ticks += T0;
  C[0].calls += 1;
  C[2].ticks += T2;
  C[2].calls += 1;
  gj_profile_exit(&D, C, T0 + T2 + 1);
}

TEST(ProfileRuntime, ThreadsLoseNoCounts) {
  static gj_profile_desc D = makeDesc("threads");
  constexpr int Threads = 4, Calls = 200'000;
  std::vector<std::thread> Ts;
  for (int T = 0; T < Threads; ++T)
    Ts.emplace_back([T] {
      static gj_profile_desc Other = makeDesc("other");
      for (int I = 0; I < Calls; ++I) {
        fakeCall(D, 3, uint64_t(T) + 1);
        if (I % 1000 == 0) // Alternate functions: the cache must follow.
          fakeCall(Other, 1, 1);
      }
    });
  for (std::thread &T : Ts)
    T.join();
  ProfileTotals Tot = ProfileRuntime::totals(D);
  EXPECT_EQ(Tot.Threads, unsigned(Threads));
  EXPECT_EQ(Tot.Calls, uint64_t(Threads) * Calls);
  ASSERT_EQ(Tot.Applies.size(), 3u);
  EXPECT_EQ(Tot.Applies[0].calls, uint64_t(Threads) * Calls);
  EXPECT_EQ(Tot.Applies[0].ticks, uint64_t(Threads) * Calls * 3);
  EXPECT_EQ(Tot.Applies[1].calls, 0u);
  EXPECT_EQ(Tot.Applies[2].calls, uint64_t(Threads) * Calls);
  EXPECT_EQ(Tot.Applies[2].ticks, uint64_t(Calls) * (1 + 2 + 3 + 4));
  EXPECT_EQ(Tot.DriverTicks, Tot.Applies[0].ticks + Tot.Applies[2].ticks +
                                 uint64_t(Threads) * Calls);
  EXPECT_EQ(ProfileRuntime::totals(makeDesc("x")).Calls, 0u);
  ProfileRuntime::forget(D);
}

TEST(ProfileRuntime, SameThreadSameBlock) {
  static gj_profile_desc A = makeDesc("a"), B = makeDesc("b");
  gj_apply_counter *CA = gj_profile_enter(&A);
  gj_apply_counter *CB = gj_profile_enter(&B);
  EXPECT_NE(CA, CB);
  EXPECT_EQ(gj_profile_enter(&A), CA);
  EXPECT_EQ(gj_profile_enter(&B), CB);
  std::vector<const gj_profile_desc *> Ds = ProfileRuntime::descriptors();
  auto PA = std::find(Ds.begin(), Ds.end(), &A);
  auto PB = std::find(Ds.begin(), Ds.end(), &B);
  ASSERT_NE(PA, Ds.end());
  ASSERT_NE(PB, Ds.end());
  EXPECT_LT(PA, PB);
  ProfileRuntime::forget(A);
  ProfileRuntime::forget(B);
}

TEST(ProfileRuntime, ResetAndForget) {
  static gj_profile_desc D = makeDesc("reset");
  fakeCall(D, 5, 7);
  EXPECT_EQ(ProfileRuntime::totals(D).Applies[2].ticks, 7u);
  ProfileRuntime::reset(D);
  ProfileTotals T = ProfileRuntime::totals(D);
  EXPECT_EQ(T.Calls, 0u);
  EXPECT_EQ(T.Applies[0].calls, 0u);
  EXPECT_EQ(T.Threads, 1u);
  fakeCall(D, 5, 7);
  EXPECT_EQ(ProfileRuntime::totals(D).Calls, 1u);
  // After forget the same address is a new function: fresh counters, even
  // though this thread's cache still points at the old ones.
  ProfileRuntime::forget(D);
  EXPECT_EQ(ProfileRuntime::totals(D).Threads, 0u);
  fakeCall(D, 5, 7);
  T = ProfileRuntime::totals(D);
  EXPECT_EQ(T.Calls, 1u);
  EXPECT_EQ(T.Applies[0].ticks, 5u);
  ProfileRuntime::forget(D);
}

TEST(ProfileRuntime, SymbolsForTheJit) {
  llvm::ArrayRef<RuntimeSymbol> S = ProfileRuntime::symbols();
  ASSERT_EQ(S.size(), 4u);
  EXPECT_STREQ(S[0].Name, "gj_profile_enter");
  EXPECT_EQ(S[0].Address, reinterpret_cast<void *>(&gj_profile_enter));
  EXPECT_STREQ(S[1].Name, "gj_profile_exit");
  EXPECT_STREQ(S[2].Name, "gj_profile_now");
  EXPECT_STREQ(S[3].Name, "gj_sample_enter");
  EXPECT_EQ(S[3].Address, reinterpret_cast<void *>(&gj_sample_enter));
}

} // namespace
