//===- EmulatedDevice.cpp - The GPU path on the host ---------------------===//
//
// device=cuda-emulated: everything the GPU path does, on a machine without a
// GPU, so that CI runs every GPU graph. "Device memory" is 64-byte aligned
// host memory, kernels are the host-compiled kernel bodies (KernelSpec.h),
// each running its whole grid when launched, products are the host's CBLAS,
// and timer marks read the steady clock. Every call completes before it
// returns, which trivially keeps the order of one stream.
//
//===----------------------------------------------------------------------===//

#include "Cublas.h"
#include "Device.h"
#include "ops/linalg/BlasSymbols.h"
#include <algorithm>
#include <cassert>
#include <cblas.h>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

using namespace graphjit;
using namespace llvm;

namespace {

constexpr size_t Alignment = 64;

/// A host kernel: runs every work item (KernelSpec.h).
using HostKernel = void (*)(const uint64_t *Args);

class EmulatedDevice final : public Device {
public:
  std::string name() const override { return "host (emulated GPU)"; }
  std::string arch() const override { return ""; }

  Expected<DeviceAddress> rawAlloc(size_t Bytes) override {
    // Rounded up to the alignment, as aligned_alloc requires, and never 0
    // bytes, so that every block has its own address.
    size_t Rounded = Bytes == 0 ? Alignment : Bytes;
    if (Rounded > std::numeric_limits<size_t>::max() - (Alignment - 1))
      return outOfMemory(Bytes);
    Rounded = (Rounded + Alignment - 1) / Alignment * Alignment;
    void *P = std::aligned_alloc(Alignment, Rounded);
    if (!P)
      return outOfMemory(Bytes);
    return reinterpret_cast<DeviceAddress>(P);
  }
  void rawFree(DeviceAddress Addr) override {
    std::free(reinterpret_cast<void *>(Addr));
  }

  Error copyToDevice(DeviceAddress Dst, const void *Src,
                     size_t Bytes) override {
    if (Bytes)
      std::memcpy(reinterpret_cast<void *>(Dst), Src, Bytes);
    return Error::success();
  }
  Error copyToHost(void *Dst, DeviceAddress Src, size_t Bytes) override {
    if (Bytes)
      std::memcpy(Dst, reinterpret_cast<const void *>(Src), Bytes);
    return Error::success();
  }
  Error copyOnDevice(DeviceAddress Dst, DeviceAddress Src,
                     size_t Bytes) override {
    // Overlapping copies are undefined on a GPU too; memcpy lets
    // AddressSanitizer catch them here.
    if (Bytes)
      std::memcpy(reinterpret_cast<void *>(Dst),
                  reinterpret_cast<const void *>(Src), Bytes);
    return Error::success();
  }

  Expected<std::vector<KernelHandle>>
  loadKernels(const KernelImage &Image, ArrayRef<std::string> Names) override {
    if (!Image.HostLookup && !Names.empty())
      return createStringError(inconvertibleErrorCode(),
                               "the kernel image has no host kernels for "
                               "the emulated GPU");
    std::vector<KernelHandle> Kernels;
    for (const std::string &N : Names) {
      void *K = Image.HostLookup(N);
      if (!K)
        return createStringError(inconvertibleErrorCode(),
                                 "kernel %s is not in the host kernel image",
                                 N.c_str());
      Kernels.push_back(K);
    }
    return Kernels;
  }

  Error launch(KernelHandle K, uint64_t WorkItems,
               ArrayRef<uint64_t> Args) override {
    assert(!Args.empty() && Args[0] == WorkItems &&
           "the kernel ABI starts with the number of work items");
    if (WorkItems == 0)
      return Error::success();
    reinterpret_cast<HostKernel>(K)(Args.data());
    return Error::success();
  }

  Error gemm(const DeviceGemm &G) override;

  Expected<TimerMark> mark() override {
    auto Now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> Guard(Lock);
    if (NextMark == Marks.size())
      Marks.push_back(Now);
    else
      Marks[NextMark] = Now;
    return NextMark++;
  }
  Expected<double> elapsedSeconds(TimerMark From, TimerMark To) override {
    std::lock_guard<std::mutex> Guard(Lock);
    if (From >= NextMark || To >= NextMark)
      return createStringError(
          inconvertibleErrorCode(),
          "timer mark %u was not made since the last reset",
          std::max(From, To));
    return std::chrono::duration<double>(Marks[To] - Marks[From]).count();
  }
  void resetMarks() override {
    std::lock_guard<std::mutex> Guard(Lock);
    NextMark = 0;
  }
  Error synchronize() override { return Error::success(); }

private:
  static Error outOfMemory(size_t Bytes) {
    return createStringError(inconvertibleErrorCode(),
                             "out of host memory for the emulated GPU: %zu "
                             "bytes",
                             Bytes);
  }

  std::mutex Lock; ///< Guards the marks.
  std::vector<std::chrono::steady_clock::time_point> Marks;
  unsigned NextMark = 0;
};

} // namespace

Error EmulatedDevice::gemm(const DeviceGemm &G) {
  if (Error E = checkGemm(G, std::numeric_limits<blasint>::max()))
    return E;
  if (G.M == 0 || G.N == 0)
    return Error::success();
  // CBLAS takes row-major operands as they are; BLAS wants leading
  // dimensions of at least 1 even for empty operands.
  auto Ld = [](int64_t L) { return blasint(std::max<int64_t>(L, 1)); };
  CBLAS_TRANSPOSE TA = G.TransA ? CblasTrans : CblasNoTrans;
  CBLAS_TRANSPOSE TB = G.TransB ? CblasTrans : CblasNoTrans;
  if (G.Dtype == DType::F32)
    GJ_BLAS(cblas_sgemm)(CblasRowMajor, TA, TB, blasint(G.M), blasint(G.N), blasint(G.K),
                float(G.Alpha), reinterpret_cast<const float *>(G.A), Ld(G.LdA),
                reinterpret_cast<const float *>(G.B), Ld(G.LdB), float(G.Beta),
                reinterpret_cast<float *>(G.C), Ld(G.LdC));
  else
    GJ_BLAS(cblas_dgemm)(CblasRowMajor, TA, TB, blasint(G.M), blasint(G.N), blasint(G.K),
                G.Alpha, reinterpret_cast<const double *>(G.A), Ld(G.LdA),
                reinterpret_cast<const double *>(G.B), Ld(G.LdB), G.Beta,
                reinterpret_cast<double *>(G.C), Ld(G.LdC));
  return Error::success();
}

std::unique_ptr<Device> graphjit::makeEmulatedDevice() {
  return std::make_unique<EmulatedDevice>();
}
