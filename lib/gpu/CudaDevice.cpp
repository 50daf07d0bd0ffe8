//===- CudaDevice.cpp - An NVIDIA GPU through the CUDA driver API --------===//
//
// Device 0 of the driver, in its primary context (the one the CUDA runtime
// and other libraries share; CUDA 13 changed cuCtxCreate, the primary
// context did not change), with one stream that every launch, copy, cuBLAS
// call and timer mark is queued on, so that work runs in the order it was
// queued, as Device.h promises. The context is made current at the start of
// every public method: callers may come from any thread.
//
// Kernels are PTX for sm_80 or sm_90 (KernelSpec.h); a newer GPU runs the
// sm_90 PTX, which its driver compiles for it, and an older one is refused
// when the device is opened.
//
//===----------------------------------------------------------------------===//

#include "Cublas.h"
#include "CudaDriver.h"
#include "Device.h"
#include "llvm/ADT/ScopeExit.h"
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <mutex>
#include <vector>

using namespace graphjit;
using namespace graphjit::cuda;
using namespace llvm;

namespace {

/// Threads per block of every launch; the kernels' grid-stride loops run
/// any number of work items on any grid.
constexpr unsigned BlockSize = 256;
/// Blocks per multiprocessor at most: enough to fill an SM several times
/// over, few enough that the grid-stride loop, not the launch, does the
/// looping for huge arrays.
constexpr unsigned BlocksPerSM = 32;

class CudaDevice final : public Device {
public:
  static Expected<std::unique_ptr<Device>> open(StringRef LibPath);
  ~CudaDevice() override;

  std::string name() const override { return Name; }
  std::string arch() const override { return Major >= 9 ? "sm_90" : "sm_80"; }

  Expected<DeviceAddress> rawAlloc(size_t Bytes) override;
  void rawFree(DeviceAddress Addr) override;
  Error copyToDevice(DeviceAddress Dst, const void *Src, size_t Bytes) override;
  Error copyToHost(void *Dst, DeviceAddress Src, size_t Bytes) override;
  Error copyOnDevice(DeviceAddress Dst, DeviceAddress Src,
                     size_t Bytes) override;
  std::string binaryKey() const override;
  Expected<std::string> compileBinary(StringRef Ptx) override;
  Expected<std::vector<KernelHandle>>
  loadKernels(const KernelImage &Image, ArrayRef<std::string> Names) override;
  Error launch(KernelHandle K, uint64_t WorkItems,
               ArrayRef<uint64_t> Args) override;
  Error gemm(const DeviceGemm &G) override;
  Expected<TimerMark> mark() override;
  Expected<double> elapsedSeconds(TimerMark From, TimerMark To) override;
  void resetMarks() override;
  Error synchronize() override;

private:
  explicit CudaDevice(std::unique_ptr<CudaDriver> D) : Drv(std::move(D)) {}
  Error makeCurrent() const {
    return Drv->check(Drv->cuCtxSetCurrent(Ctx), "cuCtxSetCurrent");
  }

  std::unique_ptr<CudaDriver> Drv;
  CUdevice Dev = 0;
  CUcontext Ctx = nullptr; ///< Retained primary context; null if not yet.
  CUstream Stream = nullptr;
  std::string Name;
  int Major = 0, Minor = 0, Multiprocessors = 1;

  std::mutex Lock;             ///< Guards what follows.
  std::vector<CUevent> Events; ///< Timer marks, reused after resetMarks().
  unsigned NextMark = 0;
  std::vector<CUmodule> Modules;
  std::unique_ptr<Cublas> Blas; ///< Made by the first gemm.
};

} // namespace

static Error noDevice(const Twine &Why) {
  return createStringError(inconvertibleErrorCode(),
                           "no CUDA device: " + Why.str());
}

Expected<std::unique_ptr<Device>> CudaDevice::open(StringRef LibPath) {
  Expected<std::unique_ptr<CudaDriver>> DrvOr = CudaDriver::load(LibPath);
  if (!DrvOr)
    return DrvOr.takeError();
  // Owned from here: its destructor undoes whatever was done on failure.
  std::unique_ptr<CudaDevice> D(new CudaDevice(std::move(*DrvOr)));
  const CudaDriver &Drv = *D->Drv;
  auto Failed = [&](const char *Call, CUresult R) {
    return noDevice(Twine(Call) + " failed: " + Drv.describe(R));
  };

  int Count = 0;
  if (CUresult R = Drv.cuDeviceGetCount(&Count))
    return Failed("cuDeviceGetCount", R);
  if (Count == 0)
    return noDevice("the driver reports 0 devices");
  if (CUresult R = Drv.cuDeviceGet(&D->Dev, 0))
    return Failed("cuDeviceGet", R);
  char Name[256] = {};
  if (CUresult R = Drv.cuDeviceGetName(Name, sizeof(Name) - 1, D->Dev))
    return Failed("cuDeviceGetName", R);
  D->Name = Name;
  if (CUresult R = Drv.cuDeviceGetAttribute(
          &D->Major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, D->Dev))
    return Failed("cuDeviceGetAttribute", R);
  if (CUresult R = Drv.cuDeviceGetAttribute(
          &D->Minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, D->Dev))
    return Failed("cuDeviceGetAttribute", R);
  if (CUresult R = Drv.cuDeviceGetAttribute(
          &D->Multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
          D->Dev))
    return Failed("cuDeviceGetAttribute", R);
  D->Multiprocessors = std::max(D->Multiprocessors, 1);
  if (D->Major < 8)
    return noDevice(
        "compute capability " + Twine(D->Major) + "." + Twine(D->Minor) +
        " is below 8.0, which graphjit's kernels need (" + D->Name + ")");

  CUcontext Ctx = nullptr;
  if (CUresult R = Drv.cuDevicePrimaryCtxRetain(&Ctx, D->Dev))
    return Failed("cuDevicePrimaryCtxRetain", R);
  D->Ctx = Ctx;
  if (CUresult R = Drv.cuCtxSetCurrent(Ctx))
    return Failed("cuCtxSetCurrent", R);
  if (CUresult R = Drv.cuStreamCreate(&D->Stream, CU_STREAM_DEFAULT))
    return Failed("cuStreamCreate", R);
  return std::unique_ptr<Device>(std::move(D));
}

CudaDevice::~CudaDevice() {
  if (!Ctx)
    return;
  // Errors are ignored: there is no one to tell, and a sticky error from
  // an earlier launch makes every call fail alike.
  (void)Drv->cuCtxSetCurrent(Ctx);
  if (Stream)
    (void)Drv->cuStreamSynchronize(Stream);
  Blas.reset();
  for (CUevent E : Events)
    (void)Drv->cuEventDestroy_v2(E);
  for (CUmodule M : Modules)
    (void)Drv->cuModuleUnload(M);
  if (Stream)
    (void)Drv->cuStreamDestroy_v2(Stream);
  (void)Drv->cuCtxSetCurrent(nullptr);
  (void)Drv->cuDevicePrimaryCtxRelease_v2(Dev);
}

Expected<DeviceAddress> CudaDevice::rawAlloc(size_t Bytes) {
  if (Error E = makeCurrent())
    return E;
  CUdeviceptr P = 0;
  // cuMemAlloc refuses 0 bytes; DevicePool never asks for fewer than 512.
  if (Error E = Drv->check(Drv->cuMemAlloc_v2(&P, std::max<size_t>(Bytes, 1)),
                           "cuMemAlloc_v2"))
    return E;
  return DeviceAddress(P);
}

void CudaDevice::rawFree(DeviceAddress Addr) {
  if (Error E = makeCurrent()) {
    consumeError(std::move(E)); // No one to tell; the block is lost.
    return;
  }
  // cuMemFree only "may" synchronize: wait for the work queued on the
  // block first (the pool frees cached blocks, maybe in mid-call).
  (void)Drv->cuStreamSynchronize(Stream);
  (void)Drv->cuMemFree_v2(Addr);
}

Error CudaDevice::copyToDevice(DeviceAddress Dst, const void *Src,
                               size_t Bytes) {
  if (Bytes == 0)
    return Error::success();
  if (Error E = makeCurrent())
    return E;
  // Queued after the stream's work; waited for, so that Src may be reused
  // at once even if it is page-locked memory.
  if (Error E = Drv->check(Drv->cuMemcpyHtoDAsync_v2(Dst, Src, Bytes, Stream),
                           "cuMemcpyHtoDAsync_v2"))
    return E;
  return Drv->check(Drv->cuStreamSynchronize(Stream), "cuStreamSynchronize");
}

Error CudaDevice::copyToHost(void *Dst, DeviceAddress Src, size_t Bytes) {
  if (Bytes == 0)
    return Error::success();
  if (Error E = makeCurrent())
    return E;
  if (Error E = Drv->check(Drv->cuMemcpyDtoHAsync_v2(Dst, Src, Bytes, Stream),
                           "cuMemcpyDtoHAsync_v2"))
    return E;
  return Drv->check(Drv->cuStreamSynchronize(Stream), "cuStreamSynchronize");
}

Error CudaDevice::copyOnDevice(DeviceAddress Dst, DeviceAddress Src,
                               size_t Bytes) {
  if (Bytes == 0)
    return Error::success();
  if (Error E = makeCurrent())
    return E;
  return Drv->check(Drv->cuMemcpyDtoDAsync_v2(Dst, Src, Bytes, Stream),
                    "cuMemcpyDtoDAsync_v2");
}

std::string CudaDevice::binaryKey() const {
  if (!Drv->cuLinkCreate_v2 || !Drv->cuLinkAddData_v2 ||
      !Drv->cuLinkComplete || !Drv->cuLinkDestroy)
    return "";
  return "sm_" + std::to_string(Major) + std::to_string(Minor) + " driver " +
         std::to_string(Drv->DriverVersion);
}

namespace {
/// The driver's error log for its PTX compiles: ptxas's own message
/// (register overflow, an unsupported instruction) only comes through it.
struct JitLog {
  char Text[8192] = {};
  CUjit_option Options[2] = {CU_JIT_ERROR_LOG_BUFFER,
                             CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *Values[2] = {Text, reinterpret_cast<void *>(uintptr_t(sizeof(Text)))};

  Error error(const CudaDriver &Drv, const char *Call, CUresult R) {
    Text[sizeof(Text) - 1] = 0;
    std::string Msg = std::string("CUDA error in ") + Call + ": " +
                      Drv.describe(R);
    if (Text[0])
      Msg += std::string("\n") + Text;
    return createStringError(inconvertibleErrorCode(), Msg);
  }
};
} // namespace

Expected<std::string> CudaDevice::compileBinary(StringRef Ptx) {
  if (binaryKey().empty())
    return "";
  if (Error E = makeCurrent())
    return E;
  JitLog Log;
  CUlinkState State = nullptr;
  if (CUresult R =
          Drv->cuLinkCreate_v2(2, Log.Options, Log.Values, &State))
    return Log.error(*Drv, "cuLinkCreate_v2", R);
  auto Destroy = make_scope_exit([&] { (void)Drv->cuLinkDestroy(State); });
  // The driver reads the PTX up to its NUL.
  std::string Text = Ptx.str();
  if (CUresult R = Drv->cuLinkAddData_v2(State, CU_JIT_INPUT_PTX, Text.data(),
                                         Text.size() + 1, "graphjit", 0,
                                         nullptr, nullptr))
    return Log.error(*Drv, "cuLinkAddData_v2", R);
  void *Cubin = nullptr;
  size_t Size = 0;
  if (CUresult R = Drv->cuLinkComplete(State, &Cubin, &Size))
    return Log.error(*Drv, "cuLinkComplete", R);
  // The image belongs to the link state: copied before it is destroyed.
  return std::string(static_cast<const char *>(Cubin), Size);
}

Expected<std::vector<KernelHandle>>
CudaDevice::loadKernels(const KernelImage &Image, ArrayRef<std::string> Names) {
  if (Image.Ptx.empty() && Image.Binary.empty())
    return createStringError(inconvertibleErrorCode(),
                             "the kernel image has no PTX for %s",
                             Name.c_str());
  if (Error E = makeCurrent())
    return E;
  CUmodule M = nullptr;
  // A cached binary that does not load (a driver changed under the same
  // version) falls back to the PTX.
  if (!Image.Binary.empty() &&
      Drv->cuModuleLoadDataEx(&M, Image.Binary.data(), 0, nullptr, nullptr))
    M = nullptr;
  JitLog Log;
  // std::string's data is NUL-terminated, as the driver needs PTX to be.
  if (!M)
    if (CUresult R = Drv->cuModuleLoadDataEx(&M, Image.Ptx.c_str(), 2,
                                             Log.Options, Log.Values))
      return Log.error(*Drv, "cuModuleLoadDataEx", R);

  std::vector<KernelHandle> Kernels;
  for (const std::string &KName : Names) {
    CUfunction F = nullptr;
    if (CUresult R = Drv->cuModuleGetFunction(&F, M, KName.c_str())) {
      (void)Drv->cuModuleUnload(M);
      return createStringError(inconvertibleErrorCode(),
                               "kernel %s is not in the loaded PTX: %s",
                               KName.c_str(), Drv->describe(R).c_str());
    }
    Kernels.push_back(F);
  }
  std::lock_guard<std::mutex> Guard(Lock);
  Modules.push_back(M);
  return Kernels;
}

Error CudaDevice::launch(KernelHandle K, uint64_t WorkItems,
                         ArrayRef<uint64_t> Args) {
  assert(!Args.empty() && Args[0] == WorkItems &&
         "the kernel ABI starts with the number of work items");
  if (WorkItems == 0)
    return Error::success();
  if (Error E = makeCurrent())
    return E;
  uint64_t Blocks = WorkItems / BlockSize + (WorkItems % BlockSize != 0);
  uint64_t MaxBlocks = uint64_t(Multiprocessors) * BlocksPerSM;
  unsigned Grid = unsigned(std::max<uint64_t>(1, std::min(Blocks, MaxBlocks)));
  // The driver copies the argument values when the launch is queued, so
  // Args need not outlive the call.
  std::vector<void *> Params(Args.size());
  for (size_t I = 0; I < Args.size(); ++I)
    Params[I] = const_cast<uint64_t *>(&Args[I]);
  return Drv->check(Drv->cuLaunchKernel(static_cast<CUfunction>(K), Grid, 1, 1,
                                        BlockSize, 1, 1, 0, Stream,
                                        Params.data(), nullptr),
                    "cuLaunchKernel");
}

Error CudaDevice::gemm(const DeviceGemm &G) {
  if (Error E = makeCurrent())
    return E;
  // One handle, used under the lock: a cuBLAS handle is not meant for
  // concurrent calls, and a call only queues work.
  std::lock_guard<std::mutex> Guard(Lock);
  if (!Blas) {
    Expected<std::unique_ptr<Cublas>> B = Cublas::create(Stream);
    if (!B)
      return B.takeError();
    Blas = std::move(*B);
  }
  return Blas->gemm(G);
}

Expected<TimerMark> CudaDevice::mark() {
  if (Error E = makeCurrent())
    return E;
  std::lock_guard<std::mutex> Guard(Lock);
  if (NextMark == Events.size()) {
    CUevent E = nullptr;
    if (Error Err = Drv->check(Drv->cuEventCreate(&E, CU_EVENT_DEFAULT),
                               "cuEventCreate"))
      return Err;
    Events.push_back(E);
  }
  if (Error E = Drv->check(Drv->cuEventRecord(Events[NextMark], Stream),
                           "cuEventRecord"))
    return E;
  return NextMark++;
}

Expected<double> CudaDevice::elapsedSeconds(TimerMark From, TimerMark To) {
  if (Error E = makeCurrent())
    return E;
  std::lock_guard<std::mutex> Guard(Lock);
  if (From >= NextMark || To >= NextMark)
    return createStringError(inconvertibleErrorCode(),
                             "timer mark %u was not made since the last reset",
                             std::max(From, To));
  float Ms = 0;
  if (Error E =
          Drv->check(Drv->cuEventElapsedTime(&Ms, Events[From], Events[To]),
                     "cuEventElapsedTime"))
    return E;
  return double(Ms) / 1000;
}

void CudaDevice::resetMarks() {
  std::lock_guard<std::mutex> Guard(Lock);
  NextMark = 0;
}

Error CudaDevice::synchronize() {
  if (Error E = makeCurrent())
    return E;
  return Drv->check(Drv->cuStreamSynchronize(Stream), "cuStreamSynchronize");
}

Expected<std::unique_ptr<Device>> graphjit::openCudaDevice(StringRef LibPath) {
  return CudaDevice::open(LibPath);
}
