//===- SampleRuntimeTest.cpp - The sampler thread --------------------------===//

#include "runtime/ProfileRuntime.h"
#include "runtime/SampleRuntime.h"
#include "gtest/gtest.h"
#include <atomic>
#include <chrono>
#include <csignal>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace graphjit;

namespace {

const gj_profile_apply SampledApplies[] = {{0, "A", "", "C"},
                                           {1, "B", "", "C"}};
const gj_profile_desc SampledDesc = {GRAPHJIT_RUNTIME_ABI_VERSION, 2,
                                     "sampled", 2, SampledApplies,
                                     GJ_PROFILE_CLOCK_SAMPLE};

const gj_profile_apply OtherApplies[] = {{0, "Other", "", "C"}};
const gj_profile_desc OtherDesc = {GRAPHJIT_RUNTIME_ABI_VERSION, 1, "other",
                                   1, OtherApplies, GJ_PROFILE_CLOCK_SAMPLE};

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

// After fork() the child has only the forking thread: it samples with a
// sampler of its own and reads no slot of the threads it does not have.
TEST(SampleRuntime, AChildAfterForkSamplesItsOwnThreadOnly) {
  SampleRuntime::setIntervalNs(1000000);
  gj_apply_counter *C = gj_profile_enter(&SampledDesc);
  gj_sample_enter(&SampledDesc, C); // The parent's sampler runs.
  // Another thread inside an Apply when the process forks.
  gj_apply_counter *OtherC = gj_profile_enter(&OtherDesc);
  std::atomic<bool> InApply{false}, Done{false};
  std::thread Other([&] {
    gj_sample_slot *Slot = gj_sample_enter(&OtherDesc, OtherC);
    __atomic_store_n(&Slot->apply, 0, __ATOMIC_RELAXED);
    InApply = true;
    while (!Done)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    __atomic_store_n(&Slot->apply, -1, __ATOMIC_RELAXED);
  });
  while (!InApply)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  waitForSamples(2);

  // This thread and the other at least (a whole test binary's other
  // threads may hold slots too).
  ASSERT_GE(SampleRuntime::threads(), 2u);
  pid_t Child = fork();
  ASSERT_GE(Child, 0);
  if (Child == 0) {
    size_t Threads = SampleRuntime::threads();
    uint64_t Before = ticksOf(C[1]);
    gj_sample_slot *Slot = gj_sample_enter(&SampledDesc, C);
    __atomic_store_n(&Slot->apply, 1, __ATOMIC_RELAXED);
    uint64_t Until = SampleRuntime::samples() + 3;
    auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (SampleRuntime::samples() < Until &&
           std::chrono::steady_clock::now() < Deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    bool Sampled = SampleRuntime::samples() >= Until;
    bool Charged = ticksOf(C[1]) > Before;
    _exit(!Sampled ? 1 : !Charged ? 2 : Threads != 1 ? 3 : 0);
  }
  // A child stuck on a lock it inherited held would never exit.
  int Status = 0;
  auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  pid_t Waited = 0;
  while ((Waited = waitpid(Child, &Status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < Deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (Waited == 0) {
    kill(Child, SIGKILL);
    waitpid(Child, &Status, 0);
  }
  Done = true;
  Other.join();
  ProfileRuntime::forget(OtherDesc);
  ProfileRuntime::forget(SampledDesc);
  SampleRuntime::setIntervalNs(100000);
  ASSERT_NE(Waited, 0) << "the child did not exit: it waits on a lock";
  ASSERT_TRUE(WIFEXITED(Status));
  // 1: no sample in the child; 2: its Apply not charged; 3: the other
  // thread's slot still read.
  EXPECT_EQ(WEXITSTATUS(Status), 0);
}
