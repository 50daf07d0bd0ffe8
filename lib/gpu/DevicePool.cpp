//===- DevicePool.cpp - The tracked, caching device allocator ------------===//
//
// The policy is DevicePool.h's. The device is called outside the lock when
// allocating (cuMemAlloc may take long and should not hold up threads that
// only need a cached block); cached blocks are freed under it, which is
// rare (gpu_empty_cache(), out of memory, the pool's end).
//
//===----------------------------------------------------------------------===//

#include "DevicePool.h"
#include <algorithm>
#include <limits>

using namespace graphjit;
using namespace llvm;

/// Requests up to SmallLimit are rounded to SmallRound, larger ones to
/// LargeRound.
static constexpr size_t SmallRound = 512;
static constexpr size_t SmallLimit = size_t(1) << 20;
static constexpr size_t LargeRound = size_t(2) << 20;
/// The largest request with a size class.
static constexpr size_t MaxRequest =
    std::numeric_limits<size_t>::max() / LargeRound * LargeRound;

std::shared_ptr<DevicePool> DevicePool::create(Device &D) {
  return std::shared_ptr<DevicePool>(new DevicePool(D));
}

DevicePool::~DevicePool() {
  // Live buffers hold the pool: only cached blocks are left.
  std::lock_guard<std::mutex> Guard(Lock);
  releaseCachedLocked();
}

size_t DevicePool::roundUp(size_t Bytes) {
  if (Bytes <= SmallLimit)
    return std::max(SmallRound,
                    (Bytes + SmallRound - 1) / SmallRound * SmallRound);
  if (Bytes > MaxRequest)
    return MaxRequest; // allocate() refuses these before asking.
  return (Bytes + LargeRound - 1) / LargeRound * LargeRound;
}

static void raisePeaks(GpuMemoryStats &S) {
  S.PeakAllocated = std::max(S.PeakAllocated, S.Allocated);
  S.PeakReserved = std::max(S.PeakReserved, S.Reserved);
}

Expected<std::shared_ptr<Buffer>> DevicePool::allocate(size_t Bytes) {
  if (Bytes > MaxRequest)
    return createStringError(inconvertibleErrorCode(),
                             "cannot allocate %zu bytes on %s: too large",
                             Bytes, Dev.name().c_str());
  size_t Class = roundUp(Bytes);
  DeviceAddress Addr = 0;
  bool Hit = false;
  {
    std::lock_guard<std::mutex> Guard(Lock);
    auto It = Free.find(Class);
    if (It != Free.end() && !It->second.empty()) {
      Addr = It->second.back();
      It->second.pop_back();
      Hit = true;
    }
  }
  if (!Hit) {
    Expected<DeviceAddress> A = Dev.rawAlloc(Class);
    if (!A) {
      // Most likely out of memory: what the cache holds may be enough, in
      // other classes. Try once more without it.
      bool Cached;
      {
        std::lock_guard<std::mutex> Guard(Lock);
        Cached = std::any_of(Free.begin(), Free.end(),
                             [](const auto &F) { return !F.second.empty(); });
      }
      if (Cached) {
        consumeError(A.takeError());
        releaseCached();
        A = Dev.rawAlloc(Class);
      }
      if (!A)
        return createStringError(
            inconvertibleErrorCode(), "cannot allocate %zu bytes on %s: %s",
            Bytes, Dev.name().c_str(), toString(A.takeError()).c_str());
    }
    Addr = *A;
  }

  {
    std::lock_guard<std::mutex> Guard(Lock);
    ++Stats.Allocations;
    if (Hit) {
      ++Stats.CacheHits;
    } else {
      ++Stats.DeviceAllocations;
      Stats.Reserved += Class;
    }
    Stats.Allocated += Bytes;
    raisePeaks(Stats);
  }
  // The buffer holds the pool, so that the pool is there to take the
  // block back whoever drops the buffer last.
  std::shared_ptr<DevicePool> Self = shared_from_this();
  return std::shared_ptr<Buffer>(
      new Buffer(Buffer::OnDeviceTag(), Addr, Bytes),
      [Self, Class, Bytes](Buffer *B) {
        DeviceAddress A = reinterpret_cast<DeviceAddress>(B->data());
        delete B;
        Self->release(A, Class, Bytes);
      });
}

Expected<NDArray> DevicePool::empty(DType T, const Shape &S) {
  Expected<int64_t> N = checkedNumElements(S, dtypeSize(T));
  if (!N)
    return N.takeError();
  Expected<std::shared_ptr<Buffer>> B = allocate(size_t(*N) * dtypeSize(T));
  if (!B)
    return B.takeError();
  return NDArray::onBuffer(std::move(*B), T, S);
}

void DevicePool::release(DeviceAddress Addr, size_t Class, size_t Requested) {
  std::lock_guard<std::mutex> Guard(Lock);
  Stats.Allocated -= Requested;
  Free[Class].push_back(Addr);
}

GpuMemoryStats DevicePool::stats() const {
  std::lock_guard<std::mutex> Guard(Lock);
  return Stats;
}

void DevicePool::resetPeaks() {
  std::lock_guard<std::mutex> Guard(Lock);
  Stats.PeakAllocated = Stats.Allocated;
  Stats.PeakReserved = Stats.Reserved;
}

void DevicePool::releaseCached() {
  std::lock_guard<std::mutex> Guard(Lock);
  releaseCachedLocked();
}

void DevicePool::releaseCachedLocked() {
  for (auto &[Class, Blocks] : Free) {
    for (DeviceAddress A : Blocks)
      Dev.rawFree(A);
    Stats.Reserved -= Class * Blocks.size();
  }
  Free.clear();
}
