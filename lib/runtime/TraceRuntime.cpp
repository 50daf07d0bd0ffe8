//===- TraceRuntime.cpp - Per-thread rings of Apply slices ----------------===//

#include "runtime/TraceRuntime.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Compiler.h"
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <unordered_map>
#include <unordered_set>

using namespace graphjit;

static_assert(sizeof(gj_trace_slot) == 32 && alignof(gj_trace_slot) == 8,
              "the pass writes gj_trace_slot as {ptr, i32, i64, i64}");

namespace {

struct Ring {
  gj_trace_ring Abi; // What JIT code writes; first, for the cast back.
  std::vector<gj_trace_slot> Slots;
  unsigned Thread;
  uint64_t Generation;
  std::string Device; // A device's ring (written under the lock).
  std::string ThreadName; // The OS's name of a host ring's thread.
};

void push(gj_trace_ring &R, const gj_trace_slot &S) {
  R.slots[R.next] = S;
  if (++R.next == R.capacity)
    R.next = 0;
  ++R.written;
}

struct Registry {
  std::mutex Lock;
  std::vector<std::unique_ptr<Ring>> Rings;
  std::vector<std::unique_ptr<Ring>> Devices;
  /// Rings of traces started over: a call in flight may still write one.
  std::vector<std::unique_ptr<Ring>> Retired;
  /// Descriptors whose functions recorded slices since start().
  std::unordered_set<const gj_profile_desc *> Recorded;
  std::unordered_map<const gj_profile_desc *, std::string> Names;
  std::unordered_map<const gj_profile_desc *, std::vector<bool>> Compiled;
  size_t Capacity = 0;
};

// Never destroyed: threads may record during exit.
Registry &registry() {
  static Registry *R = new Registry;
  return *R;
}

std::atomic<bool> On{false};
// Bumped by start(): every thread's cached ring is then stale.
std::atomic<uint64_t> Generation{1};

// Trivially constructible: no TLS init guard on the fast path.
thread_local Ring *Mine = nullptr;
// Where slices go while no trace is on: one slot, never read.
thread_local gj_trace_slot Nowhere;
thread_local gj_trace_ring NowhereRing = {&Nowhere, 0, 1, 0};

// A ring of the trace's capacity, numbered after the others of its list
// (R's lock held).
Ring &addRing(Registry &R, std::vector<std::unique_ptr<Ring>> &List) {
  auto Fresh = std::make_unique<Ring>();
  Fresh->Slots.resize(R.Capacity);
  Fresh->Abi = {Fresh->Slots.data(), 0, Fresh->Slots.size(), 0};
  Fresh->Thread = unsigned(List.size()) + 1;
  Fresh->Generation = Generation.load(std::memory_order_relaxed);
  List.push_back(std::move(Fresh));
  return *List.back();
}

// The calling thread's name where the OS keeps one (a sampler's chain
// threads may be named), else empty.
std::string currentThreadName() {
#if defined(__linux__)
  char Name[16] = {0};
  if (pthread_getname_np(pthread_self(), Name, sizeof(Name)) == 0)
    return Name;
#endif
  return "";
}

LLVM_ATTRIBUTE_NOINLINE Ring *registerThread() {
  std::string Name = currentThreadName();
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  Mine = &addRing(R, R.Rings);
  Mine->ThreadName = std::move(Name);
  return Mine;
}

} // namespace

extern "C" gj_trace_ring *gj_trace_enter(void) {
  if (!On.load(std::memory_order_relaxed))
    return &NowhereRing;
  Ring *R = Mine;
  if (LLVM_UNLIKELY(!R || R->Generation !=
                              Generation.load(std::memory_order_relaxed)))
    R = registerThread();
  return &R->Abi;
}

extern "C" void gj_trace_slice(const gj_profile_desc *Desc, int32_t Apply,
                               uint64_t Start, uint64_t End) {
  push(*gj_trace_enter(), {Desc, Apply, Start, End});
}

void TraceRuntime::deviceSlice(const std::string &Device,
                               const gj_profile_desc *Desc, int32_t Apply,
                               uint64_t Start, uint64_t End) {
  if (!On.load(std::memory_order_relaxed))
    return;
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  auto It = llvm::find_if(R.Devices, [&](const std::unique_ptr<Ring> &D) {
    return D->Device == Device;
  });
  Ring &Track = It != R.Devices.end() ? **It : addRing(R, R.Devices);
  Track.Device = Device;
  push(Track.Abi, {Desc, Apply, Start, End});
  R.Recorded.insert(Desc);
}

void TraceRuntime::sample(const gj_profile_desc *Desc, uint64_t Ticks,
                          uint64_t Bytes) {
  gj_trace_slice(Desc, GJ_TRACE_LIVE_BYTES, Ticks, Bytes);
}

void TraceRuntime::start(size_t Capacity) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  for (auto &Old : R.Rings)
    R.Retired.push_back(std::move(Old));
  R.Rings.clear();
  R.Devices.clear();
  R.Recorded.clear();
  R.Capacity = Capacity ? Capacity : 1;
  Generation.fetch_add(1, std::memory_order_relaxed);
  On.store(true, std::memory_order_release);
}

void TraceRuntime::stop() { On.store(false, std::memory_order_release); }

bool TraceRuntime::active() { return On.load(std::memory_order_acquire); }

bool TraceRuntime::recorded(const gj_profile_desc *Desc) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  if (R.Recorded.count(Desc))
    return true;
  for (const auto &Ring : R.Rings)
    for (uint64_t I = 0; I < std::min(Ring->Abi.written, Ring->Abi.capacity);
         ++I)
      if (Ring->Slots[I].desc == Desc) {
        R.Recorded.insert(Desc);
        return true;
      }
  return false;
}

std::vector<ThreadTrace> TraceRuntime::snapshot() {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  std::vector<ThreadTrace> Threads;
  auto Read = [&](const Ring &Ring) {
    ThreadTrace T;
    T.Thread = Ring.Thread;
    T.Device = Ring.Device;
    T.Name = Ring.ThreadName;
    const gj_trace_ring &A = Ring.Abi;
    uint64_t Kept = std::min(A.written, A.capacity);
    T.Dropped = A.written - Kept;
    // The oldest kept slice is at next once the ring has wrapped.
    uint64_t First = A.written > A.capacity ? A.next : 0;
    for (uint64_t I = 0; I < Kept; ++I) {
      const gj_trace_slot &S = Ring.Slots[(First + I) % A.capacity];
      T.Slices.push_back({S.desc, S.apply, S.start, S.end});
    }
    Threads.push_back(std::move(T));
  };
  for (const auto &Ring : R.Rings)
    Read(*Ring);
  for (const auto &Ring : R.Devices)
    Read(*Ring);
  return Threads;
}

void TraceRuntime::nameFunction(const gj_profile_desc *Desc, std::string Name) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  R.Names[Desc] = std::move(Name);
}

std::string TraceRuntime::functionName(const gj_profile_desc *Desc) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  auto It = R.Names.find(Desc);
  return It != R.Names.end() ? It->second : std::string(Desc->function);
}

void TraceRuntime::markCompiled(const gj_profile_desc *Desc,
                                std::vector<bool> ById) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  R.Compiled[Desc] = std::move(ById);
}

std::vector<bool> TraceRuntime::compiledApplies(const gj_profile_desc *Desc) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  auto It = R.Compiled.find(Desc);
  return It != R.Compiled.end() ? It->second : std::vector<bool>();
}

llvm::ArrayRef<RuntimeSymbol> TraceRuntime::symbols() {
  static const RuntimeSymbol Symbols[] = {
      {"gj_trace_enter", reinterpret_cast<void *>(&gj_trace_enter)},
      {"gj_trace_slice", reinterpret_cast<void *>(&gj_trace_slice)},
  };
  return Symbols;
}
