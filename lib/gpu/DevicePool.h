//===- DevicePool.h - The tracked, caching device allocator ----*- C++ -*-===//
//
// Every device buffer of the GPU path comes from the pool of its device:
// freed blocks are kept, by size class, for the next allocation of that
// class (device allocation synchronizes the GPU and costs microseconds), and
// the pool counts what is live and what it holds, with their peaks. The
// counting is a few additions under the lock the pool takes anyway, so
// gpu_allocated() and the Memory Profile's device peak cost nothing extra
// and need no special build (the seed's users rebuilt Theano for them).
//
// Size classes: requests are rounded up to 512 bytes below 1 MiB and to
// 2 MiB above (as PyTorch's caching allocator does); a block is reused
// only for requests of its exact class. When the device is out of memory,
// the pool releases its cached blocks and tries once more.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_GPU_DEVICEPOOL_H
#define GRAPHJIT_GPU_DEVICEPOOL_H

#include "Device.h"
#include "graphjit/Gpu.h"
#include "graphjit/NDArray.h"
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace graphjit {

class DevicePool : public std::enable_shared_from_this<DevicePool> {
public:
  /// A pool on D, which must outlive it.
  static std::shared_ptr<DevicePool> create(Device &D);
  ~DevicePool();

  Device &device() const { return Dev; }

  /// A device buffer of at least Bytes (0 is allowed); dropping the last
  /// reference returns its block to the pool (the pool outlives its
  /// buffers: they keep it alive).
  llvm::Expected<std::shared_ptr<Buffer>> allocate(size_t Bytes);
  /// A new C-contiguous device array (uninitialised).
  llvm::Expected<NDArray> empty(DType T, const Shape &S);

  GpuMemoryStats stats() const;
  /// Peaks start again from the current values.
  void resetPeaks();
  /// Returns every cached (free) block to the device.
  void releaseCached();

  /// The size class of a request of Bytes.
  static size_t roundUp(size_t Bytes);

private:
  explicit DevicePool(Device &D) : Dev(D) {}
  void release(DeviceAddress Addr, size_t Class, size_t Requested);
  void releaseCachedLocked();

  Device &Dev;
  mutable std::mutex Lock;
  std::map<size_t, std::vector<DeviceAddress>> Free; ///< By size class.
  GpuMemoryStats Stats;
};

/// The pool of the process's device of kind K (opening the device).
llvm::Expected<DevicePool &> devicePool(DeviceKind K);

} // namespace graphjit

#endif
