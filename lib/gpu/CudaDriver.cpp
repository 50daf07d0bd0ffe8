//===- CudaDriver.cpp - dlopen of libcuda and its entry points -----------===//

#include "CudaDriver.h"
#include <dlfcn.h>

using namespace graphjit;
using namespace graphjit::cuda;
using namespace llvm;

namespace {
struct KnownError {
  CUresult Code;
  const char *Name;
  const char *Description;
};
} // namespace

// The codes a user is likely to meet, for drivers that cannot name them:
// the stub library's cuGetErrorName itself fails with 34.
static const KnownError KnownErrors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {34, "CUDA_ERROR_STUB_LIBRARY",
     "CUDA driver is a stub library (no GPU driver is installed)"},
    {35, "CUDA_ERROR_INSUFFICIENT_DRIVER",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {46, "CUDA_ERROR_DEVICES_UNAVAILABLE",
     "CUDA-capable device(s) is/are busy or unavailable"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain"},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {600, "CUDA_ERROR_NOT_READY", "device not ready"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT",
     "the launch timed out and was terminated"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "system has unsupported display driver / cuda driver combination"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

static const KnownError *findKnown(CUresult R) {
  for (const KnownError &K : KnownErrors)
    if (K.Code == R)
      return &K;
  return nullptr;
}

const char *graphjit::cudaErrorName(CUresult R) {
  const KnownError *K = findKnown(R);
  return K ? K->Name : nullptr;
}

const char *graphjit::cudaErrorDescription(CUresult R) {
  const KnownError *K = findKnown(R);
  return K ? K->Description : nullptr;
}

std::string CudaDriver::describe(CUresult R) const {
  const char *Name = nullptr, *Str = nullptr;
  if (!cuGetErrorName || cuGetErrorName(R, &Name) != CUDA_SUCCESS || !Name)
    Name = cudaErrorName(R);
  if (!cuGetErrorString || cuGetErrorString(R, &Str) != CUDA_SUCCESS || !Str)
    Str = cudaErrorDescription(R);
  std::string S = Name ? Name : "CUDA_ERROR_" + std::to_string(R);
  S += " (" + std::to_string(R) + ")";
  if (Str)
    S += std::string(": ") + Str;
  return S;
}

Error CudaDriver::check(CUresult R, const char *Call) const {
  if (R == CUDA_SUCCESS)
    return Error::success();
  return createStringError(inconvertibleErrorCode(), "CUDA error in %s: %s",
                           Call, describe(R).c_str());
}

static Error noDevice(const Twine &Why) {
  return createStringError(inconvertibleErrorCode(),
                           "no CUDA device: " + Why.str());
}

namespace {
/// Looks entry points up in the driver library, keeping the first name
/// that is missing for the error.
struct SymbolFinder {
  void *Lib;
  std::string Missing;

  template <typename Fn>
  void find(Fn *&Slot, const char *Name, const char *Fallback = nullptr) {
    void *P = dlsym(Lib, Name);
    if (!P && Fallback)
      P = dlsym(Lib, Fallback);
    if (!P && Missing.empty())
      Missing = Name;
    Slot = reinterpret_cast<Fn *>(P);
  }
  /// An entry point graphjit can do without.
  template <typename Fn> void findOptional(Fn *&Slot, const char *Name) {
    Slot = reinterpret_cast<Fn *>(dlsym(Lib, Name));
  }
};
} // namespace

Expected<std::unique_ptr<CudaDriver>> CudaDriver::load(StringRef LibPath) {
  std::string Path = LibPath.str();
  // RTLD_LOCAL: the driver's symbols stay out of the JIT's way.
  void *Lib = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    const char *Why = dlerror();
    return noDevice(Path + " not found (" + (Why ? Why : "dlopen failed") +
                    ")");
  }

  std::unique_ptr<CudaDriver> D(new CudaDriver());
  D->Lib = Lib;
  D->LibPath = Path;
  SymbolFinder F{Lib, {}};
  // cuInit first, and alone: a stub or a broken driver should be reported
  // as what it is, not as a missing entry point.
  F.find(D->cuInit, "cuInit");
  F.find(D->cuGetErrorName, "cuGetErrorName");
  F.find(D->cuGetErrorString, "cuGetErrorString");
  if (!D->cuInit) {
    dlclose(Lib);
    return noDevice(Path + " has no cuInit: it is not a CUDA driver");
  }
  if (CUresult R = D->cuInit(0); R != CUDA_SUCCESS) {
    Error E = noDevice("cuInit failed: " + D->describe(R));
    // The stub is closed, so that a later dlopen("libcuda.so.1") does not
    // find it loaded under that soname; a real driver that failed stays.
    if (R == CUDA_ERROR_STUB_LIBRARY)
      dlclose(Lib);
    return E;
  }

  F.find(D->cuDriverGetVersion, "cuDriverGetVersion");
  F.find(D->cuDeviceGetCount, "cuDeviceGetCount");
  F.find(D->cuDeviceGet, "cuDeviceGet");
  F.find(D->cuDeviceGetName, "cuDeviceGetName");
  F.find(D->cuDeviceGetAttribute, "cuDeviceGetAttribute");
  F.find(D->cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  F.find(D->cuDevicePrimaryCtxRelease_v2, "cuDevicePrimaryCtxRelease_v2");
  F.find(D->cuCtxSetCurrent, "cuCtxSetCurrent");
  F.find(D->cuMemAlloc_v2, "cuMemAlloc_v2");
  F.find(D->cuMemFree_v2, "cuMemFree_v2");
  F.find(D->cuMemcpyHtoDAsync_v2, "cuMemcpyHtoDAsync_v2");
  F.find(D->cuMemcpyDtoHAsync_v2, "cuMemcpyDtoHAsync_v2");
  F.find(D->cuMemcpyDtoDAsync_v2, "cuMemcpyDtoDAsync_v2");
  F.find(D->cuStreamCreate, "cuStreamCreate");
  F.find(D->cuStreamSynchronize, "cuStreamSynchronize");
  F.find(D->cuStreamDestroy_v2, "cuStreamDestroy_v2");
  F.find(D->cuModuleLoadDataEx, "cuModuleLoadDataEx");
  F.find(D->cuModuleGetFunction, "cuModuleGetFunction");
  F.find(D->cuModuleUnload, "cuModuleUnload");
  F.find(D->cuLaunchKernel, "cuLaunchKernel");
  F.find(D->cuEventCreate, "cuEventCreate");
  F.find(D->cuEventRecord, "cuEventRecord");
  // CUDA 12.8 added the _v2 (cuda.h maps the plain name to it); older
  // drivers only have the original, with the same signature.
  F.find(D->cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
  F.find(D->cuEventDestroy_v2, "cuEventDestroy_v2");
  F.findOptional(D->cuLinkCreate_v2, "cuLinkCreate_v2");
  F.findOptional(D->cuLinkAddData_v2, "cuLinkAddData_v2");
  F.findOptional(D->cuLinkComplete, "cuLinkComplete");
  F.findOptional(D->cuLinkDestroy, "cuLinkDestroy");
  if (!F.Missing.empty())
    return noDevice(Path + " has no " + F.Missing +
                    " (is the driver older than graphjit needs?)");

  if (CUresult R = D->cuDriverGetVersion(&D->DriverVersion); R != CUDA_SUCCESS)
    return noDevice("cuDriverGetVersion failed: " + D->describe(R));
  return D;
}
