//===- Device.cpp - Device kinds and the process's devices ---------------===//
//
// A process opens each kind of device at most once, on first use, and
// keeps it until exit: opening the CUDA driver costs a fraction of a second
// and the device's memory pool, loaded kernels and cuBLAS handle outlive
// any one function. The devices are intentionally never destroyed (their
// pointers stay reachable from static storage): at exit the CUDA driver may
// already be shutting down, and arrays in static storage may still hold
// device buffers. A failed open is remembered too, so that a machine
// without a GPU pays for the attempt once, and every later request gets
// the same message as a fresh error.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include <cstdlib>
#include <mutex>

using namespace graphjit;
using namespace llvm;

Device::~Device() = default;

Expected<DeviceKind> graphjit::parseDeviceKind(StringRef Name) {
  if (Name == "cpu")
    return DeviceKind::Cpu;
  if (Name == "cuda")
    return DeviceKind::Cuda;
  if (Name == "cuda-emulated")
    return DeviceKind::CudaEmulated;
  return createStringError(inconvertibleErrorCode(),
                           "unknown device '" + Name +
                               "' (expected cpu, cuda or cuda-emulated)");
}

StringRef graphjit::deviceKindName(DeviceKind K) {
  switch (K) {
  case DeviceKind::Cpu:
    return "cpu";
  case DeviceKind::Cuda:
    return "cuda";
  case DeviceKind::CudaEmulated:
    return "cuda-emulated";
  }
  return "cpu";
}

namespace {
/// One kind's device: opened once, or the reason it could not be.
struct OpenedDevice {
  std::once_flag Once;
  Device *D = nullptr; ///< Never deleted (see the file comment).
  std::string Error;
};
} // namespace

static void openOnce(DeviceKind K, OpenedDevice &O) {
  if (K == DeviceKind::CudaEmulated) {
    O.D = makeEmulatedDevice().release();
    return;
  }
  const char *Env = std::getenv("GRAPHJIT_LIBCUDA");
  std::string Lib = Env && *Env ? Env : "libcuda.so.1";
  Expected<std::unique_ptr<Device>> D = openCudaDevice(Lib);
  if (D)
    O.D = D->release();
  else
    O.Error = toString(D.takeError());
}

Expected<Device &> graphjit::openDevice(DeviceKind K) {
  if (K == DeviceKind::Cpu)
    return createStringError(inconvertibleErrorCode(),
                             "device=cpu runs on the host, not on a device");
  // Leaked on purpose, as the devices are: static destruction must not
  // race a late user, nor run the once flags' destructors under one.
  static OpenedDevice *Opened = new OpenedDevice[2];
  OpenedDevice &O = Opened[K == DeviceKind::Cuda ? 0 : 1];
  std::call_once(O.Once, [&] { openOnce(K, O); });
  if (!O.D)
    return createStringError(inconvertibleErrorCode(), O.Error);
  return *O.D;
}
