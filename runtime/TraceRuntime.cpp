//===- TraceRuntime.cpp - Per-thread rings of Apply slices ----------------===//

#include "runtime/TraceRuntime.h"
#include "llvm/Support/Compiler.h"
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

using namespace graphjit;

namespace {

struct Ring {
  std::vector<TraceSlice> Slots;
  size_t Next = 0;      ///< Where the next slice goes (no division).
  uint64_t Written = 0; ///< Slices ever written.
  unsigned Thread;
  uint64_t Generation;
};

struct Registry {
  std::mutex Lock;
  std::vector<std::unique_ptr<Ring>> Rings;
  /// Descriptors whose functions recorded slices since start().
  std::unordered_set<const gj_profile_desc *> Recorded;
  std::unordered_map<const gj_profile_desc *, std::string> Names;
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

LLVM_ATTRIBUTE_NOINLINE Ring *registerThread() {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  auto Fresh = std::make_unique<Ring>();
  Fresh->Slots.resize(R.Capacity);
  Fresh->Thread = unsigned(R.Rings.size()) + 1;
  Fresh->Generation = Generation.load(std::memory_order_relaxed);
  R.Rings.push_back(std::move(Fresh));
  return Mine = R.Rings.back().get();
}

} // namespace

extern "C" void gj_trace_slice(const gj_profile_desc *Desc, int32_t Apply,
                               uint64_t Start, uint64_t End) {
  if (!On.load(std::memory_order_relaxed))
    return;
  Ring *R = Mine;
  if (LLVM_UNLIKELY(!R ||
                    R->Generation != Generation.load(std::memory_order_relaxed)))
    R = registerThread();
  R->Slots[R->Next] = {Desc, Apply, Start, End};
  if (++R->Next == R->Slots.size())
    R->Next = 0;
  ++R->Written;
}

void TraceRuntime::start(size_t Capacity) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  R.Rings.clear();
  R.Recorded.clear();
  R.Capacity = Capacity ? Capacity : 1;
  Generation.fetch_add(1, std::memory_order_relaxed);
  On.store(true, std::memory_order_release);
}

void TraceRuntime::stop() { On.store(false, std::memory_order_release); }

bool TraceRuntime::recorded(const gj_profile_desc *Desc) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  if (R.Recorded.count(Desc))
    return true;
  for (const auto &Ring : R.Rings)
    for (uint64_t I = 0; I < std::min<uint64_t>(Ring->Written,
                                                 Ring->Slots.size());
         ++I)
      if (Ring->Slots[I].Desc == Desc) {
        R.Recorded.insert(Desc);
        return true;
      }
  return false;
}

bool TraceRuntime::active() { return On.load(std::memory_order_acquire); }

std::vector<ThreadTrace> TraceRuntime::snapshot() {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  std::vector<ThreadTrace> Threads;
  for (const auto &Ring : R.Rings) {
    ThreadTrace T;
    T.Thread = Ring->Thread;
    size_t Size = Ring->Slots.size();
    uint64_t Kept = std::min<uint64_t>(Ring->Written, Size);
    T.Dropped = Ring->Written - Kept;
    // The oldest kept slice is at Next once the ring has wrapped.
    size_t First = Ring->Written > Size ? Ring->Next : 0;
    for (uint64_t I = 0; I < Kept; ++I)
      T.Slices.push_back(Ring->Slots[(First + I) % Size]);
    Threads.push_back(std::move(T));
  }
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

llvm::ArrayRef<RuntimeSymbol> TraceRuntime::symbols() {
  static const RuntimeSymbol Symbols[] = {
      {"gj_trace_slice", reinterpret_cast<void *>(&gj_trace_slice)},
  };
  return Symbols;
}
