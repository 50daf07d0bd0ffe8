//===- GpuMemory.cpp - The process's pools and their counters ------------===//
//
// One DevicePool per device the process opened, made with the device and
// kept, as the device is, until exit (never destroyed: freeing device
// memory at exit could race the driver's own shutdown). The counters of
// graphjit/Gpu.h add up the pools that exist; they open nothing, so they
// cost nothing and say 0 in a process that never used a GPU.
//
//===----------------------------------------------------------------------===//

#include "DevicePool.h"
#include "graphjit/Gpu.h"
#include <mutex>
#include <vector>

using namespace graphjit;
using namespace llvm;

namespace {
struct PoolRegistry {
  std::mutex Lock;
  /// By kind: Cuda, CudaEmulated.
  std::shared_ptr<DevicePool> Pools[2];

  /// The pools made so far.
  std::vector<std::shared_ptr<DevicePool>> all() {
    std::lock_guard<std::mutex> Guard(Lock);
    std::vector<std::shared_ptr<DevicePool>> V;
    for (const std::shared_ptr<DevicePool> &P : Pools)
      if (P)
        V.push_back(P);
    return V;
  }
};
} // namespace

static PoolRegistry &registry() {
  static PoolRegistry *R = new PoolRegistry; // Reachable until exit.
  return *R;
}

Expected<DevicePool &> graphjit::devicePool(DeviceKind K) {
  Expected<Device &> D = openDevice(K);
  if (!D)
    return D.takeError();
  PoolRegistry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  std::shared_ptr<DevicePool> &P = R.Pools[K == DeviceKind::Cuda ? 0 : 1];
  if (!P)
    P = DevicePool::create(*D);
  return *P;
}

GpuMemoryStats graphjit::gpu_memory_stats() {
  GpuMemoryStats Sum;
  // The peaks add the pools' own peaks: exact with one device, an upper
  // bound with two (their peaks may not have coincided).
  for (const std::shared_ptr<DevicePool> &P : registry().all()) {
    GpuMemoryStats S = P->stats();
    Sum.Allocated += S.Allocated;
    Sum.PeakAllocated += S.PeakAllocated;
    Sum.Reserved += S.Reserved;
    Sum.PeakReserved += S.PeakReserved;
    Sum.Allocations += S.Allocations;
    Sum.CacheHits += S.CacheHits;
    Sum.DeviceAllocations += S.DeviceAllocations;
  }
  return Sum;
}

uint64_t graphjit::gpu_allocated() { return gpu_memory_stats().Allocated; }

uint64_t graphjit::gpu_peak_allocated() {
  return gpu_memory_stats().PeakAllocated;
}

void graphjit::gpu_reset_peak() {
  for (const std::shared_ptr<DevicePool> &P : registry().all())
    P->resetPeaks();
}

void graphjit::gpu_empty_cache() {
  for (const std::shared_ptr<DevicePool> &P : registry().all())
    P->releaseCached();
}
