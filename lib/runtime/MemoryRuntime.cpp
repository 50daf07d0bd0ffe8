//===- MemoryRuntime.cpp - Measured memory of profiled calls --------------===//

#include "runtime/MemoryRuntime.h"
#include "runtime/AllocationObserver.h"
#include "runtime/Clock.h"
#include "runtime/TraceRuntime.h"
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <unordered_map>

using namespace graphjit;

/// One thread's record of one function: the call in progress, and the
/// totals of its finished calls (read by totals() under Lock).
struct gj_memory_state final : AllocationObserver {
  explicit gj_memory_state(uint32_t NumApplies)
      : CallBytes(NumApplies), CallAllocations(NumApplies) {
    Totals.ApplyBytes.resize(NumApplies);
    Totals.ApplyAllocations.resize(NumApplies);
  }

  uint64_t allocated(size_t Bytes) override {
    Live += Bytes;
    CallPeak = std::max(CallPeak, Live);
    ++CallAllocationsAll;
    if (Apply >= 0 && size_t(Apply) < CallBytes.size()) {
      CallBytes[Apply] += Bytes;
      ++CallAllocations[Apply];
    }
    return Serial;
  }
  void freed(size_t Bytes, uint64_t Tag) override {
    // Only buffers this call made: the caller's, another call's or another
    // thread's were never counted in.
    if (Tag == Serial)
      Live -= std::min<uint64_t>(Live, Bytes);
  }

  void begin(uint64_t NewSerial) {
    Serial = NewSerial;
    Live = CallPeak = CallAllocationsAll = 0;
    Apply = -1;
    Previous = ThreadAllocationObserver;
    ThreadAllocationObserver = this;
  }
  void end() {
    ThreadAllocationObserver = Previous;
    std::lock_guard<std::mutex> Guard(Lock);
    ++Totals.Calls;
    Totals.Peak = std::max(Totals.Peak, CallPeak);
    Totals.Allocations += CallAllocationsAll;
    for (size_t I = 0; I < CallBytes.size(); ++I) {
      Totals.ApplyBytes[I] = std::max(Totals.ApplyBytes[I], CallBytes[I]);
      Totals.ApplyAllocations[I] += CallAllocations[I];
      CallBytes[I] = CallAllocations[I] = 0;
    }
  }

  /// The call's live bytes now.
  uint64_t live() const { return Live; }

  int32_t Apply = -1;
  const gj_profile_desc *Desc = nullptr;
  std::mutex Lock;
  MemoryTotals Totals;

private:
  uint64_t Serial = 0, Live = 0, CallPeak = 0, CallAllocationsAll = 0;
  std::vector<uint64_t> CallBytes, CallAllocations;
  AllocationObserver *Previous = nullptr;
};

namespace {

struct Registry {
  std::mutex Lock;
  std::unordered_map<const void *, std::vector<std::unique_ptr<gj_memory_state>>>
      States;
};

// Never destroyed: threads may end calls during exit.
Registry &registry() {
  static Registry *R = new Registry;
  return *R;
}

// Bumped by forget(): the threads' lists are then stale.
std::atomic<uint64_t> Generation{1};
// Tags buffers per call; 0 means "not watched".
std::atomic<uint64_t> NextSerial{1};

struct ThreadStates {
  uint64_t Generation = 0;
  std::vector<std::pair<const void *, gj_memory_state *>> Entries;
};
thread_local ThreadStates Mine;

gj_memory_state *stateFor(const void *Key, uint32_t NumApplies) {
  uint64_t Gen = Generation.load(std::memory_order_acquire);
  if (Mine.Generation != Gen) {
    Mine.Entries.clear();
    Mine.Generation = Gen;
  }
  for (auto &[K, S] : Mine.Entries)
    if (K == Key)
      return S;
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  auto &List = R.States[Key];
  List.push_back(std::make_unique<gj_memory_state>(NumApplies));
  Mine.Entries.emplace_back(Key, List.back().get());
  return List.back().get();
}

/// What the gj_memory_* hooks handed out while a call was recorded, to
/// count them out when freed (wherever that happens).
struct HookedBlocks {
  std::mutex Lock;
  std::unordered_map<void *, std::pair<size_t, uint64_t>> Blocks;
  std::atomic<size_t> Count{0};
};
HookedBlocks &hooked() {
  static HookedBlocks *H = new HookedBlocks;
  return *H;
}

void *noteHooked(void *P, size_t Bytes) {
  AllocationObserver *O = ThreadAllocationObserver;
  if (!P || !O)
    return P;
  uint64_t Tag = O->allocated(Bytes);
  HookedBlocks &H = hooked();
  std::lock_guard<std::mutex> Guard(H.Lock);
  H.Blocks[P] = {Bytes, Tag};
  H.Count.store(H.Blocks.size(), std::memory_order_relaxed);
  return P;
}

/// Counts P out if a hook counted it in.
void forgetHooked(void *P) {
  HookedBlocks &H = hooked();
  if (!P || H.Count.load(std::memory_order_relaxed) == 0)
    return;
  std::pair<size_t, uint64_t> Block;
  {
    std::lock_guard<std::mutex> Guard(H.Lock);
    auto It = H.Blocks.find(P);
    if (It == H.Blocks.end())
      return;
    Block = It->second;
    H.Blocks.erase(It);
    H.Count.store(H.Blocks.size(), std::memory_order_relaxed);
  }
  if (AllocationObserver *O = ThreadAllocationObserver)
    O->freed(Block.first, Block.second);
}

} // namespace

gj_memory_state *MemoryRuntime::enter(const void *Key, uint32_t NumApplies) {
  gj_memory_state *S = stateFor(Key, NumApplies);
  S->begin(NextSerial.fetch_add(1, std::memory_order_relaxed));
  return S;
}

MemoryTotals MemoryRuntime::totals(const void *Key) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  MemoryTotals Sum;
  auto It = R.States.find(Key);
  if (It == R.States.end())
    return Sum;
  for (const auto &S : It->second) {
    std::lock_guard<std::mutex> G(S->Lock);
    const MemoryTotals &T = S->Totals;
    Sum.Calls += T.Calls;
    Sum.Peak = std::max(Sum.Peak, T.Peak);
    Sum.Allocations += T.Allocations;
    Sum.ApplyBytes.resize(std::max(Sum.ApplyBytes.size(), T.ApplyBytes.size()));
    Sum.ApplyAllocations.resize(Sum.ApplyBytes.size());
    for (size_t I = 0; I < T.ApplyBytes.size(); ++I) {
      Sum.ApplyBytes[I] = std::max(Sum.ApplyBytes[I], T.ApplyBytes[I]);
      Sum.ApplyAllocations[I] += T.ApplyAllocations[I];
    }
  }
  return Sum;
}

void MemoryRuntime::forget(const void *Key) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  R.States.erase(Key);
  Generation.fetch_add(1, std::memory_order_acq_rel);
}

extern "C" {

gj_memory_state *gj_memory_enter(const gj_profile_desc *D) {
  gj_memory_state *S = MemoryRuntime::enter(D, D->num_counters);
  S->Desc = D;
  return S;
}

void gj_memory_exit(gj_memory_state *S) { S->end(); }

void gj_memory_apply(gj_memory_state *S, int32_t Apply) {
  // At the end of each Apply, the timeline's live-bytes counter.
  if (Apply < 0 && S->Apply >= 0 && TraceRuntime::active())
    TraceRuntime::sample(S->Desc, readProfileClock(S->Desc->clock),
                         S->live());
  S->Apply = Apply;
}

void *gj_memory_malloc(size_t Bytes) {
  return noteHooked(std::malloc(Bytes), Bytes);
}

void *gj_memory_calloc(size_t Count, size_t Bytes) {
  size_t Total;
  if (__builtin_mul_overflow(Count, Bytes, &Total))
    return nullptr;
  return noteHooked(std::calloc(Count, Bytes), Total);
}

void *gj_memory_realloc(void *P, size_t Bytes) {
  forgetHooked(P);
  return noteHooked(std::realloc(P, Bytes), Bytes);
}

void *gj_memory_aligned_alloc(size_t Alignment, size_t Bytes) {
  return noteHooked(std::aligned_alloc(Alignment, Bytes), Bytes);
}

void gj_memory_free(void *P) {
  forgetHooked(P);
  std::free(P);
}
}

llvm::ArrayRef<RuntimeSymbol> MemoryRuntime::symbols() {
  static const RuntimeSymbol Symbols[] = {
      {"gj_memory_enter", reinterpret_cast<void *>(&gj_memory_enter)},
      {"gj_memory_exit", reinterpret_cast<void *>(&gj_memory_exit)},
      {"gj_memory_apply", reinterpret_cast<void *>(&gj_memory_apply)},
      {"gj_memory_malloc", reinterpret_cast<void *>(&gj_memory_malloc)},
      {"gj_memory_calloc", reinterpret_cast<void *>(&gj_memory_calloc)},
      {"gj_memory_realloc", reinterpret_cast<void *>(&gj_memory_realloc)},
      {"gj_memory_aligned_alloc",
       reinterpret_cast<void *>(&gj_memory_aligned_alloc)},
      {"gj_memory_free", reinterpret_cast<void *>(&gj_memory_free)},
  };
  return Symbols;
}
