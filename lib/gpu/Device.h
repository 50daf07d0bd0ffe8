//===- Device.h - What the GPU path asks of a device -----------*- C++ -*-===//
//
// The GPU path (docs/gpu.md) runs on a Device: raw memory (the caching pool
// of DevicePool.h sits on top), copies, kernels, a matrix product, and
// timers that the device itself keeps. Two devices implement it:
//
//  - CudaDevice (CudaDevice.cpp): an NVIDIA GPU through the CUDA driver API
//    found at run time (dlopen of libcuda.so.1) and cuBLAS; kernels are PTX.
//  - EmulatedDevice (EmulatedDevice.cpp): the same path on the host, for
//    machines without a GPU: "device memory" is host memory, kernels are the
//    same kernel bodies compiled for the host (KernelSpec.h) and run over
//    their whole grid, the product is the host's BLAS, timers read the
//    steady clock. Tests run every GPU graph on it in CI.
//
// Work is ordered as on one CUDA stream: launches and device-to-device
// copies may return before they finish; copyToHost() and synchronize()
// wait for everything queued before them.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_GPU_DEVICE_H
#define GRAPHJIT_GPU_DEVICE_H

#include "graphjit/DType.h"
#include "graphjit/Gpu.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace graphjit {

/// A device address (CUdeviceptr; a host address on the emulated device).
using DeviceAddress = uint64_t;
/// A loaded kernel (CUfunction; a host function on the emulated device).
using KernelHandle = void *;

/// Compiled kernels to load: PTX text for a CUDA device, or a lookup of
/// host-compiled kernel entry points (`void(const uint64_t *Args)`) for the
/// emulated device.
struct KernelImage {
  std::string Ptx;
  /// The device's own code for Ptx (compileBinary's), loaded instead of
  /// the PTX where set.
  std::string Binary;
  std::function<void *(llvm::StringRef Name)> HostLookup;
};

/// Where the device's own clock stood when mark() was called; only
/// meaningful to elapsedSeconds() of the same device, after synchronize().
using TimerMark = unsigned;

/// A general matrix product on device memory, row-major as NumPy's:
/// C[M,N] = Alpha * op(A)[M,K] * op(B)[K,N] + Beta * C, where op(A) is A or
/// its transpose; LdX is the row stride of X in elements.
struct DeviceGemm {
  DType Dtype = DType::F64; ///< F32 or F64.
  bool TransA = false, TransB = false;
  int64_t M = 0, N = 0, K = 0;
  double Alpha = 1, Beta = 0;
  DeviceAddress A = 0, B = 0, C = 0;
  int64_t LdA = 0, LdB = 0, LdC = 0;
};

class Device {
public:
  virtual ~Device();

  /// "NVIDIA H100 80GB HBM3", "host (emulated GPU)".
  virtual std::string name() const = 0;
  /// The NVPTX target of its kernels: "sm_90"; empty for the emulated
  /// device (kernels are compiled for the host).
  virtual std::string arch() const = 0;
  bool isEmulated() const { return arch().empty(); }

  /// Raw device memory. Callers go through DevicePool, which caches it.
  virtual llvm::Expected<DeviceAddress> rawAlloc(size_t Bytes) = 0;
  virtual void rawFree(DeviceAddress Addr) = 0;

  /// Host to device; the host memory may be reused when it returns.
  virtual llvm::Error copyToDevice(DeviceAddress Dst, const void *Src,
                                   size_t Bytes) = 0;
  /// Device to host, after all work queued before it.
  virtual llvm::Error copyToHost(void *Dst, DeviceAddress Src,
                                 size_t Bytes) = 0;
  virtual llvm::Error copyOnDevice(DeviceAddress Dst, DeviceAddress Src,
                                   size_t Bytes) = 0;

  /// Loads Image and returns the kernels named Names, in that order.
  virtual llvm::Expected<std::vector<KernelHandle>>
  loadKernels(const KernelImage &Image,
              llvm::ArrayRef<std::string> Names) = 0;
  /// What decides the device's own code for a PTX text (its compute
  /// capability, the driver's version), for the device code cache; empty
  /// for a device without code of its own (the emulated one).
  virtual std::string binaryKey() const { return ""; }
  /// The device's own code for Ptx, to keep for later processes
  /// (DeviceCodeCache.h); empty where it has none.
  virtual llvm::Expected<std::string> compileBinary(llvm::StringRef Ptx) {
    return "";
  }
  /// Runs kernel K over WorkItems work items (the kernel ABI of
  /// KernelSpec.h: Args[0] is WorkItems, every argument is 64 bits).
  virtual llvm::Error launch(KernelHandle K, uint64_t WorkItems,
                             llvm::ArrayRef<uint64_t> Args) = 0;
  virtual llvm::Error gemm(const DeviceGemm &G) = 0;

  /// A timer mark queued after the work queued so far.
  virtual llvm::Expected<TimerMark> mark() = 0;
  /// Seconds between two marks (both reached: after synchronize()).
  virtual llvm::Expected<double> elapsedSeconds(TimerMark From,
                                                TimerMark To) = 0;
  /// Marks made so far may be reused from now on.
  virtual void resetMarks() = 0;
  /// Waits for all queued work.
  virtual llvm::Error synchronize() = 0;

  /// Held by a function's call for all its device work: calls on one
  /// device are serialized, so that timer marks (reset at the end of each
  /// call) belong to one call at a time.
  std::mutex &callLock() { return CallLock; }

private:
  std::mutex CallLock;
};


/// The process's device of kind K (Cuda or CudaEmulated), opened on first
/// use and kept until exit. Without a usable GPU, Cuda fails with an error
/// that starts "no CUDA device" and says why (no libcuda.so.1, the stub
/// library, no device, a driver error).
llvm::Expected<Device &> openDevice(DeviceKind K);

/// Opens the CUDA device anew from the driver library at LibPath (for
/// tests: the toolkit's stub library must give "no CUDA device").
llvm::Expected<std::unique_ptr<Device>> openCudaDevice(llvm::StringRef LibPath);
std::unique_ptr<Device> makeEmulatedDevice();

} // namespace graphjit

#endif
