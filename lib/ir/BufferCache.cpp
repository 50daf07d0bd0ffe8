//===- BufferCache.cpp - Recycling small array buffers per thread --------===//

#include "BufferCache.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"
#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <mutex>

using namespace graphjit;

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define GRAPHJIT_NO_BUFFER_CACHE 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define GRAPHJIT_NO_BUFFER_CACHE 1
#endif

static constexpr size_t Alignment = 64;
static constexpr unsigned NumClasses = 7; // 64 B to 4 KiB.
static constexpr unsigned PerClass = 8;
static constexpr size_t LargestCached = Alignment << (NumClasses - 1);

size_t graphjit::bufferCapacity(size_t Bytes) {
  if (Bytes <= Alignment)
    return Alignment; // A zero size still gets a unique pointer.
  if (Bytes <= LargestCached)
    return llvm::PowerOf2Ceil(Bytes);
  // aligned_alloc wants a multiple of the alignment.
  return llvm::alignTo(Bytes, Alignment);
}

#ifndef GRAPHJIT_NO_BUFFER_CACHE
namespace {
/// One thread's free lists. Trivially constructed and destroyed, so that
/// using it needs no guard and it stays usable (closed) while the thread's
/// other thread_local and static objects are destroyed.
struct FreeLists {
  void *Blocks[NumClasses][PerClass];
  uint8_t Count[NumClasses];
  bool Registered; ///< The Reaper exists.
  bool Closed;     ///< The thread is exiting: free blocks at once.
};
thread_local FreeLists Lists;

/// Frees the thread's cached blocks when it exits.
struct Reaper {
  bool Armed = false;
  ~Reaper() {
    Lists.Closed = true;
    for (unsigned C = 0; C < NumClasses; ++C)
      while (Lists.Count[C])
        std::free(Lists.Blocks[C][--Lists.Count[C]]);
  }
};
thread_local Reaper TheReaper;
} // namespace

static unsigned classOf(size_t Capacity) {
  return llvm::Log2_64(Capacity / Alignment);
}

namespace {
/// Large buffers, shared by all threads: glibc returns them to the system
/// (munmap) when freed, so that the next call's buffer of the same size
/// page-faults on every 4 KiB it writes, which costs more than computing
/// it. A few are kept, by exact capacity, the most recently freed first.
struct LargeBlocks {
  static constexpr unsigned Slots = 8;
  static constexpr size_t MaxBytes = size_t(1) << 30;
  std::mutex Lock;
  struct Block {
    void *P;
    size_t Capacity;
  } Blocks[Slots] = {};
  unsigned Count = 0;
  size_t Bytes = 0;

  void *take(size_t Capacity) {
    std::lock_guard<std::mutex> Guard(Lock);
    for (unsigned I = Count; I-- > 0;)
      if (Blocks[I].Capacity == Capacity) {
        void *P = Blocks[I].P;
        Bytes -= Capacity;
        std::copy(Blocks + I + 1, Blocks + Count, Blocks + I);
        --Count;
        return P;
      }
    return nullptr;
  }
  /// Keeps P unless that would hold too much; evicts the oldest.
  bool keep(void *P, size_t Capacity) {
    if (Capacity > MaxBytes / 2)
      return false;
    std::lock_guard<std::mutex> Guard(Lock);
    while (Count && (Count == Slots || Bytes + Capacity > MaxBytes)) {
      std::free(Blocks[0].P);
      Bytes -= Blocks[0].Capacity;
      std::copy(Blocks + 1, Blocks + Count, Blocks);
      --Count;
    }
    Blocks[Count++] = {P, Capacity};
    Bytes += Capacity;
    return true;
  }
};
// Never destroyed: buffers may be freed during static destruction.
LargeBlocks &largeBlocks() {
  static LargeBlocks *L = new LargeBlocks();
  return *L;
}
constexpr size_t LargeFrom = size_t(256) << 10;
} // namespace
#endif

void *graphjit::allocateBufferMemory(size_t Bytes) {
  void *P = tryAllocateBufferMemory(Bytes);
  if (!P)
    llvm::report_fatal_error("graphjit: out of memory allocating " +
                             llvm::Twine(Bytes) + " bytes");
  return P;
}

void *graphjit::tryAllocateBufferMemory(size_t Bytes) {
  size_t Capacity = bufferCapacity(Bytes);
#ifndef GRAPHJIT_NO_BUFFER_CACHE
  if (Capacity <= LargestCached) {
    unsigned C = classOf(Capacity);
    if (Lists.Count[C])
      return Lists.Blocks[C][--Lists.Count[C]];
  } else if (Capacity >= LargeFrom) {
    if (void *P = largeBlocks().take(Capacity))
      return P;
  }
#endif
  return std::aligned_alloc(Alignment, Capacity);
}

void graphjit::freeBufferMemory(void *P, size_t Bytes) {
#ifndef GRAPHJIT_NO_BUFFER_CACHE
  size_t Capacity = bufferCapacity(Bytes);
  if (Capacity <= LargestCached && !Lists.Closed) {
    if (!Lists.Registered) {
      Lists.Registered = true;
      TheReaper.Armed = true; // Its first use schedules its destructor.
    }
    unsigned C = classOf(Capacity);
    if (Lists.Count[C] < PerClass) {
      Lists.Blocks[C][Lists.Count[C]++] = P;
      return;
    }
  } else if (Capacity >= LargeFrom && largeBlocks().keep(P, Capacity)) {
    return;
  }
#else
  (void)Bytes;
#endif
  std::free(P);
}
