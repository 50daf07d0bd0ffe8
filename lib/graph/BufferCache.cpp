//===- BufferCache.cpp - Recycling small array buffers per thread --------===//

#include "BufferCache.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"
#include <cstdint>
#include <cstdlib>

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
#endif

void *graphjit::allocateBufferMemory(size_t Bytes) {
  size_t Capacity = bufferCapacity(Bytes);
#ifndef GRAPHJIT_NO_BUFFER_CACHE
  if (Capacity <= LargestCached) {
    unsigned C = classOf(Capacity);
    if (Lists.Count[C])
      return Lists.Blocks[C][--Lists.Count[C]];
  }
#endif
  void *P = std::aligned_alloc(Alignment, Capacity);
  if (!P)
    llvm::report_fatal_error("graphjit: out of memory allocating " +
                             llvm::Twine(Bytes) + " bytes");
  return P;
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
  }
#else
  (void)Bytes;
#endif
  std::free(P);
}
