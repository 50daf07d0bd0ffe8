//===- SampleRuntimeTest.cpp - The sampler thread --------------------------===//

#include "runtime/ProfileRuntime.h"
#include "runtime/SampleRuntime.h"
#include "gtest/gtest.h"
#include <chrono>
#include <thread>

using namespace graphjit;

namespace {

const gj_profile_apply SampledApplies[] = {{0, "A", "", "C"},
                                           {1, "B", "", "C"}};
const gj_profile_desc SampledDesc = {GRAPHJIT_RUNTIME_ABI_VERSION, 2,
                                     "sampled", 2, SampledApplies,
                                     GJ_PROFILE_CLOCK_SAMPLE};

uint64_t ticksOf(const gj_apply_counter &C) {
  return __atomic_load_n(&C.ticks, __ATOMIC_RELAXED);
}

// Waits until the sampler has looked N more times (it looks every 1 ms here).
void waitForSamples(uint64_t N) {
  uint64_t Until = SampleRuntime::samples() + N;
  while (SampleRuntime::samples() < Until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

} // namespace

TEST(SampleRuntime, TheSamplerChargesTheCurrentApplyOnly) {
  SampleRuntime::setIntervalNs(1000000);
  gj_apply_counter *C = gj_profile_enter(&SampledDesc);
  gj_sample_slot *Slot = gj_sample_enter(&SampledDesc, C);
  ASSERT_EQ(Slot->desc, &SampledDesc);
  ASSERT_EQ(Slot->counters, C);
  __atomic_store_n(&Slot->apply, 0, __ATOMIC_RELAXED);
  waitForSamples(3);
  EXPECT_GT(ticksOf(C[0]), 0u);
  EXPECT_EQ(ticksOf(C[1]), 0u);
  // Between Applies (-1) nothing is charged.
  __atomic_store_n(&Slot->apply, -1, __ATOMIC_RELAXED);
  waitForSamples(2);
  uint64_t Before = ticksOf(C[0]);
  waitForSamples(3);
  EXPECT_EQ(ticksOf(C[0]), Before);
  EXPECT_EQ(ticksOf(C[1]), 0u);
  // A forgotten descriptor's counters are never written again: the slot
  // points nowhere until the next call.
  __atomic_store_n(&Slot->apply, 1, __ATOMIC_RELAXED);
  ProfileRuntime::forget(SampledDesc);
  EXPECT_EQ(Slot->desc, nullptr);
  waitForSamples(2);
  __atomic_store_n(&Slot->apply, -1, __ATOMIC_RELAXED);
  SampleRuntime::setIntervalNs(100000);
}
