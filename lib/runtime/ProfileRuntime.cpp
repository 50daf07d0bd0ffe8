//===- ProfileRuntime.cpp - Per-thread Apply counters ---------------------===//

#include "runtime/ProfileRuntime.h"
#include "runtime/ProfileExport.h"
#include "runtime/SampleRuntime.h"
#include "runtime/TickHistogram.h"
#include "llvm/Support/Compiler.h"
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <unordered_map>

using namespace graphjit;

namespace {

/// One thread's counters for one descriptor: entry 0 is the function's
/// own {driver ticks, calls}, entries 1.. the Applies' (what enter returns).
struct CounterBlock {
  gj_apply_counter *Entries; // num_counters + 1, cache-line aligned
  size_t Size;
  explicit CounterBlock(uint32_t NumCounters) : Size(size_t(NumCounters) + 1) {
    size_t Bytes = (Size * sizeof(gj_apply_counter) + 63) / 64 * 64;
    Entries = static_cast<gj_apply_counter *>(std::aligned_alloc(64, Bytes));
    if (!Entries)
      throw std::bad_alloc();
    std::fill(Entries, Entries + Size, gj_apply_counter{0, 0});
  }
  ~CounterBlock() { std::free(Entries); }
  CounterBlock(const CounterBlock &) = delete;
  CounterBlock &operator=(const CounterBlock &) = delete;

  /// With distributions (ProfileRuntime::recordDistributions): by Apply,
  /// its counters at the end of the thread's last call, and the
  /// histogram (TickBuckets counts) of its time in each call.
  std::vector<gj_apply_counter> Last;
  std::vector<uint32_t> Histograms;
  void recordDistributions() {
    Last.assign(Size - 1, gj_apply_counter{0, 0});
    Histograms.assign((Size - 1) * TickBuckets, 0);
  }
};

struct DescriptorState {
  std::vector<std::unique_ptr<CounterBlock>> Blocks; // one per thread
  uint64_t Order;
  bool Distributions = false;
};

struct Registry {
  std::mutex Lock;
  std::unordered_map<const gj_profile_desc *, DescriptorState> States;
  uint64_t NextOrder = 0;

  /// D's state, made in order of first sight (with Lock held); a
  /// program's profile is then written at exit if it asks for one.
  DescriptorState &stateOf(const gj_profile_desc *D) {
    auto [It, New] = States.try_emplace(D);
    if (New) {
      It->second.Order = NextOrder++;
      arrangeProfileAtExit();
    }
    return It->second;
  }
};

// Never destroyed: threads and reports may use it during exit.
Registry &registry() {
  static Registry *R = new Registry;
  return *R;
}

// Bumped by forget(): every thread's cache and list are then stale, since a
// descriptor address may come back for another function.
std::atomic<uint64_t> Generation{1};

// The fast path: trivially constructible, so no TLS init guard.
struct OneEntryCache {
  const gj_profile_desc *Desc;
  uint64_t Generation;
  gj_apply_counter *Counters;
  CounterBlock *Block;
};
thread_local OneEntryCache Cache;

template <typename T> T relaxedLoad(const T &X) {
  return __atomic_load_n(&X, __ATOMIC_RELAXED);
}
template <typename T> void relaxedStore(T &X, T V) {
  __atomic_store_n(&X, V, __ATOMIC_RELAXED);
}

LLVM_ATTRIBUTE_NOINLINE gj_apply_counter *enterSlow(const gj_profile_desc *D) {
  struct ThreadList {
    uint64_t Generation = 0;
    std::vector<std::pair<const gj_profile_desc *, CounterBlock *>> Entries;
  };
  thread_local ThreadList List;
  uint64_t Gen = Generation.load(std::memory_order_acquire);
  if (List.Generation != Gen) {
    List.Entries.clear();
    List.Generation = Gen;
  }
  CounterBlock *Block = nullptr;
  for (auto &[Desc, B] : List.Entries)
    if (Desc == D)
      Block = B;
  if (!Block) {
    Registry &R = registry();
    std::lock_guard<std::mutex> Guard(R.Lock);
    DescriptorState &State = R.stateOf(D);
    State.Blocks.push_back(std::make_unique<CounterBlock>(D->num_counters));
    Block = State.Blocks.back().get();
    if (State.Distributions)
      Block->recordDistributions();
    // Read under the lock: a forget() before it invalidates this entry.
    Gen = Generation.load(std::memory_order_relaxed);
    if (List.Generation != Gen) {
      List.Entries.clear();
      List.Generation = Gen;
    }
    List.Entries.emplace_back(D, Block);
  }
  Cache = {D, Gen, Block->Entries + 1, Block};
  return Cache.Counters;
}

// One call of the thread's Block ended: each Apply that ran once in it
// adds its time to its histogram.
LLVM_ATTRIBUTE_NOINLINE void recordCall(CounterBlock &Block) {
  const gj_apply_counter *C = Block.Entries + 1;
  uint32_t *Histogram = Block.Histograms.data();
  for (size_t I = 0; I + 1 < Block.Size; ++I, Histogram += TickBuckets) {
    gj_apply_counter &Last = Block.Last[I];
    uint64_t Calls = C[I].calls;
    if (Calls == Last.calls)
      continue;
    if (Calls == Last.calls + 1) {
      uint32_t &Count = Histogram[tickBucket(C[I].ticks - Last.ticks)];
      relaxedStore(Count, Count + 1);
    }
    Last = C[I];
  }
}

} // namespace

extern "C" gj_apply_counter *gj_profile_enter(const gj_profile_desc *D) {
  if (LLVM_LIKELY(Cache.Desc == D &&
                  Cache.Generation ==
                      Generation.load(std::memory_order_relaxed)))
    return Cache.Counters;
  return enterSlow(D);
}

extern "C" void gj_profile_exit(const gj_profile_desc *, gj_apply_counter *C,
                                uint64_t DriverTicks) {
  // Only this thread writes its block; relaxed atomics let totals() read it.
  gj_apply_counter &Fn = C[-1];
  relaxedStore(Fn.ticks, relaxedLoad(Fn.ticks) + DriverTicks);
  relaxedStore(Fn.calls, relaxedLoad(Fn.calls) + 1);
  // The block enter found, unless a call of another function came between
  // (its calls then go uncounted in the distributions).
  if (LLVM_UNLIKELY(Cache.Counters == C && !Cache.Block->Last.empty()))
    recordCall(*Cache.Block);
}

ProfileTotals ProfileRuntime::totals(const gj_profile_desc &Desc) {
  ProfileTotals T;
  T.Applies.assign(Desc.num_counters, gj_apply_counter{0, 0});
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  auto It = R.States.find(&Desc);
  if (It == R.States.end())
    return T;
  for (const auto &B : It->second.Blocks) {
    T.DriverTicks += relaxedLoad(B->Entries[0].ticks);
    T.Calls += relaxedLoad(B->Entries[0].calls);
    size_t N = std::min(B->Size - 1, T.Applies.size());
    for (size_t I = 0; I < N; ++I) {
      T.Applies[I].ticks += relaxedLoad(B->Entries[I + 1].ticks);
      T.Applies[I].calls += relaxedLoad(B->Entries[I + 1].calls);
    }
  }
  T.Threads = It->second.Blocks.size();
  // A sampled chain counted only the calls that left after each Apply:
  // each ran in the function's calls less those that left before it.
  if (Desc.clock == GJ_PROFILE_CLOCK_SAMPLE_CHAIN) {
    uint64_t Reached = T.Calls;
    for (uint32_t I = 0; I < Desc.num_applies; ++I) {
      int32_t Id = Desc.applies[I].id;
      if (Id < 0 || size_t(Id) >= T.Applies.size())
        continue;
      uint64_t Left = T.Applies[Id].calls;
      T.Applies[Id].calls = Reached;
      Reached -= std::min(Reached, Left);
    }
  }
  if (It->second.Distributions) {
    T.Histograms.assign(size_t(Desc.num_counters) * TickBuckets, 0);
    for (const auto &B : It->second.Blocks) {
      size_t N = std::min(B->Histograms.size(), T.Histograms.size());
      for (size_t I = 0; I < N; ++I)
        T.Histograms[I] += relaxedLoad(B->Histograms[I]);
    }
  }
  return T;
}

void ProfileRuntime::recordDistributions(const gj_profile_desc &Desc) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  DescriptorState &State = R.stateOf(&Desc);
  if (State.Distributions)
    return;
  State.Distributions = true;
  for (const auto &B : State.Blocks)
    B->recordDistributions();
}

void ProfileRuntime::reset(const gj_profile_desc &Desc) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  auto It = R.States.find(&Desc);
  if (It == R.States.end())
    return;
  for (const auto &B : It->second.Blocks) {
    for (size_t I = 0; I < B->Size; ++I) {
      relaxedStore(B->Entries[I].ticks, uint64_t(0));
      relaxedStore(B->Entries[I].calls, uint64_t(0));
    }
    if (!B->Last.empty())
      B->recordDistributions();
  }
}

void ProfileRuntime::forget(const gj_profile_desc &Desc) {
  SampleRuntime::forget(Desc);
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  Generation.fetch_add(1, std::memory_order_acq_rel);
  R.States.erase(&Desc);
}

std::vector<const gj_profile_desc *> ProfileRuntime::descriptors() {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  std::vector<std::pair<uint64_t, const gj_profile_desc *>> Sorted;
  for (auto &[Desc, State] : R.States)
    Sorted.emplace_back(State.Order, Desc);
  std::sort(Sorted.begin(), Sorted.end());
  std::vector<const gj_profile_desc *> Out;
  for (auto &[Order, Desc] : Sorted)
    Out.push_back(Desc);
  return Out;
}

llvm::ArrayRef<RuntimeSymbol> ProfileRuntime::symbols() {
  static const RuntimeSymbol Symbols[] = {
      {"gj_profile_enter", reinterpret_cast<void *>(&gj_profile_enter)},
      {"gj_profile_exit", reinterpret_cast<void *>(&gj_profile_exit)},
      {"gj_profile_now", reinterpret_cast<void *>(&gj_profile_now)},
      {"gj_sample_enter", reinterpret_cast<void *>(&gj_sample_enter)},
  };
  return Symbols;
}
