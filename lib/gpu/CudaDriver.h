//===- CudaDriver.h - The CUDA driver API, found at run time ---*- C++ -*-===//
//
// graphjit never links libcuda: the machines it builds on (and CI) have no
// GPU, and a binary linked with -lcuda would not even start there. The
// driver is dlopen'ed when device=cuda is first used, and the few entry
// points the GPU path calls are looked up by their versioned names (the
// `_v2` symbols that cuda.h's macros select), so that cuda.h is not needed
// either: the handful of types below are declared here with cuda.h's sizes.
//
// Every error of the loading itself starts "no CUDA device: " and says why
// (no driver library, the toolkit's stub library, no device); errors of
// later calls read "CUDA error in cuLaunchKernel: CUDA_ERROR_... (N): ...".
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_GPU_CUDADRIVER_H
#define GRAPHJIT_GPU_CUDADRIVER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstddef>
#include <memory>
#include <string>

namespace graphjit {
namespace cuda {

// cuda.h's types, with its sizes; the handles are opaque pointers.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUjit_option = int; // An enum in cuda.h: int-sized.
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUlinkState = struct CUlinkState_st *;
using CUjitInputType = int; // An enum in cuda.h: int-sized.

// The values graphjit uses (cuda.h's enums).
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr CUjitInputType CU_JIT_INPUT_PTX = 1;
constexpr unsigned CU_STREAM_DEFAULT = 0;
constexpr unsigned CU_EVENT_DEFAULT = 0;

} // namespace cuda

/// The driver's entry points, named as the symbols they were found as
/// (cuEventElapsedTime is cuEventElapsedTime_v2 where the driver has it).
/// A driver is never closed (it keeps threads and exit handlers that point
/// into it); only a library that turned out not to be one (the toolkit's
/// stub) is.
struct CudaDriver {
  /// Opens the driver at LibPath ("libcuda.so.1", or a path), finds every
  /// entry point and runs cuInit; errors start "no CUDA device: ".
  static llvm::Expected<std::unique_ptr<CudaDriver>>
  load(llvm::StringRef LibPath);

  /// "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory", from the driver if it
  /// knows the code, else from graphjit's table of common ones.
  std::string describe(cuda::CUresult R) const;
  /// Success for CUDA_SUCCESS, else "CUDA error in <Call>: <describe>".
  llvm::Error check(cuda::CUresult R, const char *Call) const;

  std::string LibPath;
  int DriverVersion = 0; ///< 13000 for CUDA 13.0.

  using CUresult = cuda::CUresult;
  using CUdevice = cuda::CUdevice;
  using CUdeviceptr = cuda::CUdeviceptr;

  CUresult (*cuInit)(unsigned Flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int *Version) = nullptr;
  CUresult (*cuGetErrorName)(CUresult R, const char **Str) = nullptr;
  CUresult (*cuGetErrorString)(CUresult R, const char **Str) = nullptr;

  CUresult (*cuDeviceGetCount)(int *Count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *Dev, int Ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char *Name, int Len, CUdevice Dev) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *Value, int Attribute,
                                   CUdevice Dev) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(cuda::CUcontext *Ctx,
                                       CUdevice Dev) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease_v2)(CUdevice Dev) = nullptr;
  CUresult (*cuCtxSetCurrent)(cuda::CUcontext Ctx) = nullptr;

  CUresult (*cuMemAlloc_v2)(CUdeviceptr *Ptr, size_t Bytes) = nullptr;
  CUresult (*cuMemFree_v2)(CUdeviceptr Ptr) = nullptr;
  CUresult (*cuMemcpyHtoDAsync_v2)(CUdeviceptr Dst, const void *Src,
                                   size_t Bytes,
                                   cuda::CUstream Stream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync_v2)(void *Dst, CUdeviceptr Src, size_t Bytes,
                                   cuda::CUstream Stream) = nullptr;
  CUresult (*cuMemcpyDtoDAsync_v2)(CUdeviceptr Dst, CUdeviceptr Src,
                                   size_t Bytes,
                                   cuda::CUstream Stream) = nullptr;

  CUresult (*cuStreamCreate)(cuda::CUstream *Stream, unsigned Flags) = nullptr;
  CUresult (*cuStreamSynchronize)(cuda::CUstream Stream) = nullptr;
  CUresult (*cuStreamDestroy_v2)(cuda::CUstream Stream) = nullptr;

  CUresult (*cuModuleLoadDataEx)(cuda::CUmodule *Module, const void *Image,
                                 unsigned NumOptions,
                                 cuda::CUjit_option *Options,
                                 void **OptionValues) = nullptr;
  CUresult (*cuModuleGetFunction)(cuda::CUfunction *Fn, cuda::CUmodule Module,
                                  const char *Name) = nullptr;
  CUresult (*cuModuleUnload)(cuda::CUmodule Module) = nullptr;
  /// The linker, for the device's own code of a PTX text to cache
  /// (DeviceCodeCache.h). Optional: null where the driver lacks it.
  CUresult (*cuLinkCreate_v2)(unsigned NumOptions, cuda::CUjit_option *Options,
                              void **OptionValues,
                              cuda::CUlinkState *State) = nullptr;
  CUresult (*cuLinkAddData_v2)(cuda::CUlinkState State,
                               cuda::CUjitInputType Type, void *Data,
                               size_t Size, const char *Name,
                               unsigned NumOptions, cuda::CUjit_option *Options,
                               void **OptionValues) = nullptr;
  CUresult (*cuLinkComplete)(cuda::CUlinkState State, void **Cubin,
                             size_t *Size) = nullptr;
  CUresult (*cuLinkDestroy)(cuda::CUlinkState State) = nullptr;
  CUresult (*cuLaunchKernel)(cuda::CUfunction Fn, unsigned GridX,
                             unsigned GridY, unsigned GridZ, unsigned BlockX,
                             unsigned BlockY, unsigned BlockZ,
                             unsigned SharedMemBytes, cuda::CUstream Stream,
                             void **KernelParams, void **Extra) = nullptr;

  CUresult (*cuEventCreate)(cuda::CUevent *Event, unsigned Flags) = nullptr;
  CUresult (*cuEventRecord)(cuda::CUevent Event,
                            cuda::CUstream Stream) = nullptr;
  CUresult (*cuEventElapsedTime)(float *Milliseconds, cuda::CUevent Start,
                                 cuda::CUevent End) = nullptr;
  CUresult (*cuEventDestroy_v2)(cuda::CUevent Event) = nullptr;

private:
  CudaDriver() = default;
  void *Lib = nullptr;
};

/// The name and description of a CUDA error code that graphjit knows
/// without asking the driver (the stub library answers nothing); null for
/// an unknown code.
const char *cudaErrorName(cuda::CUresult R);
const char *cudaErrorDescription(cuda::CUresult R);

} // namespace graphjit

#endif
