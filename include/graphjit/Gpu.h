//===- graphjit/Gpu.h - Device memory, always counted ----------*- C++ -*-===//
//
// The GPU path's memory counters (docs/gpu.md): every device buffer comes
// from a tracked, caching pool, so what is live and the peaks are always
// known, with no special build: `graphjit::gpu_allocated()` is the seed's
// `theano_allocated()`. Counts cover every device the process opened
// (`device=cuda` and `device=cuda-emulated`); all are 0 before any GPU
// function ran.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_GPU_H
#define GRAPHJIT_GPU_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>

namespace graphjit {

/// Which device `device=` names.
enum class DeviceKind { Cpu, Cuda, CudaEmulated };

/// "cpu", "cuda", "cuda-emulated".
llvm::Expected<DeviceKind> parseDeviceKind(llvm::StringRef Name);
llvm::StringRef deviceKindName(DeviceKind K);

struct GpuMemoryStats {
  uint64_t Allocated = 0;     ///< Bytes in live device arrays (requested).
  uint64_t PeakAllocated = 0; ///< The largest Allocated since the reset.
  uint64_t Reserved = 0;      ///< Bytes the pool holds: live and cached.
  uint64_t PeakReserved = 0;
  uint64_t Allocations = 0;   ///< Blocks handed out.
  uint64_t CacheHits = 0;     ///< Of those, blocks the pool had cached.
  uint64_t DeviceAllocations = 0; ///< Blocks taken from the device itself.
};

/// Bytes of device memory in live arrays now (Theano's theano_allocated()).
uint64_t gpu_allocated();
/// The largest gpu_allocated() since the start or gpu_reset_peak().
uint64_t gpu_peak_allocated();
GpuMemoryStats gpu_memory_stats();
void gpu_reset_peak();
/// Gives the pools' cached blocks back to the devices.
void gpu_empty_cache();

} // namespace graphjit

#endif
