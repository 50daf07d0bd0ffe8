//===- SampleRuntime.cpp - The sampling profiler's thread -----------------===//

#include "runtime/SampleRuntime.h"
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <vector>

using namespace graphjit;

namespace {

// Never destroyed: the sampler and exiting threads use them during exit.
struct Sampler {
  std::mutex Lock; ///< Slots, and what they point at while read.
  std::vector<gj_sample_slot *> Slots;
  std::atomic<uint64_t> IntervalNs{100000};
  std::atomic<uint64_t> Samples{0};
  /// Whether this process has a sampler thread.
  std::atomic<bool> Running{false};
};

/// This thread's slot while it is registered.
thread_local gj_sample_slot *OwnSlot = nullptr;

void forkedChild();

Sampler &sampler() {
  static Sampler *S = [] {
    auto *New = new Sampler;
    // No thread holds the lock across fork(), or the child would inherit
    // it held forever.
    pthread_atfork([] { sampler().Lock.lock(); },
                   [] { sampler().Lock.unlock(); }, forkedChild);
    return New;
  }();
  return *S;
}

// A child after fork() has only the thread that forked: no sampler, and no
// other thread (their slots lie in memory the child reuses for its own
// threads' stacks). Its next sampled call starts a sampler of its own.
void forkedChild() {
  Sampler &S = sampler();
  S.Slots.clear(); // Keeps its memory: nothing is allocated here.
  if (OwnSlot)
    S.Slots.push_back(OwnSlot);
  S.Running.store(false, std::memory_order_relaxed);
  S.Lock.unlock();
}

int32_t relaxedLoad(const int32_t &X) {
  return __atomic_load_n(&X, __ATOMIC_RELAXED);
}

[[noreturn]] void sampleForever() {
  Sampler &S = sampler();
  uint64_t Last = gj_profile_now();
  for (;;) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(
        S.IntervalNs.load(std::memory_order_relaxed)));
    uint64_t Now = gj_profile_now(), Elapsed = Now - Last;
    Last = Now;
    std::lock_guard<std::mutex> Guard(S.Lock);
    for (gj_sample_slot *Slot : S.Slots) {
      int32_t Apply = relaxedLoad(Slot->apply);
      const gj_profile_desc *D = Slot->desc;
      if (Apply < 0 || !D || uint32_t(Apply) >= D->num_counters)
        continue;
      // Only the sampler writes ticks in this mode; its owner, calls.
      __atomic_fetch_add(&Slot->counters[Apply].ticks, Elapsed,
                         __ATOMIC_RELAXED);
    }
    S.Samples.fetch_add(1, std::memory_order_relaxed);
  }
}

/// A thread's slot, registered while the thread lives.
struct ThreadSlot {
  gj_sample_slot Slot{nullptr, nullptr, -1};
  ThreadSlot() {
    Sampler &S = sampler();
    std::lock_guard<std::mutex> Guard(S.Lock);
    S.Slots.push_back(&Slot);
    OwnSlot = &Slot;
  }
  ~ThreadSlot() {
    Sampler &S = sampler();
    std::lock_guard<std::mutex> Guard(S.Lock);
    S.Slots.erase(std::remove(S.Slots.begin(), S.Slots.end(), &Slot),
                  S.Slots.end());
    OwnSlot = nullptr;
  }
};

} // namespace

extern "C" gj_sample_slot *gj_sample_enter(const gj_profile_desc *D,
                                           gj_apply_counter *Counters) {
  thread_local ThreadSlot T;
  // A sampled call starts the sampler, if none runs in this process.
  Sampler &S = sampler();
  if (!S.Running.load(std::memory_order_relaxed) &&
      !S.Running.exchange(true))
    std::thread(sampleForever).detach();
  // desc and counters change only between calls, under the lock, so that
  // the sampler never pairs one function's id with another's counters.
  if (T.Slot.desc != D || T.Slot.counters != Counters) {
    std::lock_guard<std::mutex> Guard(sampler().Lock);
    T.Slot.desc = D;
    T.Slot.counters = Counters;
  }
  return &T.Slot;
}

void SampleRuntime::setIntervalNs(uint64_t Ns) {
  sampler().IntervalNs.store(std::max<uint64_t>(Ns, 1000),
                             std::memory_order_relaxed);
}

uint64_t SampleRuntime::intervalNs() {
  return sampler().IntervalNs.load(std::memory_order_relaxed);
}

uint64_t SampleRuntime::samples() {
  return sampler().Samples.load(std::memory_order_relaxed);
}

size_t SampleRuntime::threads() {
  Sampler &S = sampler();
  std::lock_guard<std::mutex> Guard(S.Lock);
  return S.Slots.size();
}

void SampleRuntime::forget(const gj_profile_desc &Desc) {
  Sampler &S = sampler();
  std::lock_guard<std::mutex> Guard(S.Lock);
  for (gj_sample_slot *Slot : S.Slots)
    if (Slot->desc == &Desc) {
      Slot->desc = nullptr;
      Slot->counters = nullptr;
    }
}
