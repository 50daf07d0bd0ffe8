//===- GpuProgram.h - A function's GPU Applies, ready to run ---*- C++ -*-===//
//
// What a Function with device Applies keeps (ExecContext::Gpu): its
// kernels, compiled once (PTX for a CUDA device, host code for the
// emulated one; KernelSpec.h) and loaded on the device, and the code that
// runs each GPU Apply: shapes checked and outputs made from the device
// pool, kernel arguments laid out, cuBLAS called, transfers made. Work is
// queued on the device and only waited for where the host needs a value
// (host_from_gpu) and at the end of the call.
//
// Profiling: each GPU Apply is bracketed by two device timer marks; the
// marks are read once the call has waited for the device anyway, so the
// profile never synchronizes per Apply (docs/gpu.md).
//
// Calls on one device are serialized (lock(): the device's call lock).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_GPU_GPUPROGRAM_H
#define GRAPHJIT_GPU_GPUPROGRAM_H

#include "Device.h"
#include "codegen/nvptx/KernelSpec.h"
#include "graphjit/Graph.h"
#include "jit/JitEngine.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace graphjit {

class DevicePool;

/// The kernels of a function's GPU Applies: one per computing Apply, and
/// copy kernels (by dtype and rank) for what must be made contiguous.
struct KernelPlan {
  std::vector<KernelSpec> Specs;
  /// By Apply id: its kernel's index in Specs, or -1.
  std::vector<int> SpecOfApply;
  std::map<std::pair<DType, unsigned>, int> CopySpecs;
  /// By Apply id, for reductions: the two kernels of the split form (-1:
  /// none), used when few outputs each reduce many elements (see
  /// GpuProgram::runKernel).
  std::vector<std::pair<int, int>> SplitOfApply;
  /// The ops the specs point to that the graph does not hold (copies).
  std::vector<OpRef> Ops;

  static KernelPlan of(const FunctionGraph &F);
};

/// Whether any Apply of F runs on the device.
bool hasDeviceApplies(const FunctionGraph &F);

/// Checks that device values flow only into device Applies and host values
/// only into host ones (transfers excepted); errors name the Apply.
llvm::Error checkPlacement(const FunctionGraph &F);

/// The PTX of F's kernels for Arch ("sm_80", "sm_90"): no device needed.
llvm::Expected<std::string> functionPtx(const FunctionGraph &F,
                                        llvm::StringRef Arch);

class GpuProgram final : public DeviceRunner {
public:
  /// F's kernels compiled for D and loaded on it. Profile: mark device
  /// time around every GPU Apply.
  static llvm::Expected<std::unique_ptr<GpuProgram>>
  create(const FunctionGraph &F, Device &D, DevicePool &Pool, bool Profile);
  ~GpuProgram();

  /// Runs GPU Apply N (a GpuOp or a transfer).
  llvm::Error run(const Apply &N, llvm::ArrayRef<NDArray> In,
                  std::vector<NDArray> &Out, const ExecContext &Ctx) override;
  /// Ends a call: waits for the device, then hands each GPU Apply's device
  /// seconds to Sink (when profiling), with when it started on the device
  /// (with a host clock set): seconds after the call's first timed Apply
  /// started there, else 0.
  llvm::Error endCall(llvm::function_ref<void(unsigned ApplyId, double Start,
                                              double Seconds)>
                          Sink);
  /// A host clock to read as the call's first timed Apply is queued (the
  /// timeline aligns the device's times there); firstMarkHost() is the
  /// reading of the last call.
  void setHostClock(std::function<uint64_t()> Now) { HostNow = std::move(Now); }
  uint64_t firstMarkHost() const { return FirstMarkHost; }

  Device &device() const { return Dev; }
  std::mutex &lock() { return Dev.callLock(); }
  unsigned numKernels() const { return Plan.Specs.size(); }
  /// Seconds spent making the kernels: code generation, PTX, loading.
  double compileSeconds() const { return CompileSeconds; }
  /// Whether the kernels' PTX, and the device's own code for it, came from
  /// the device code cache (DeviceCodeCache.h).
  bool ptxFromCache() const { return PtxFromCache; }
  bool binaryFromCache() const { return BinaryFromCache; }

private:
  GpuProgram(Device &D, DevicePool &Pool, bool Profile)
      : Dev(D), Pool(Pool), Profile(Profile) {}

  llvm::Error runTransfer(const Apply &N, llvm::ArrayRef<NDArray> In,
                          std::vector<NDArray> &Out);
  llvm::Error runKernel(const Apply &N, llvm::ArrayRef<NDArray> In,
                        std::vector<NDArray> &Out, const ExecContext &Ctx);
  llvm::Error runView(const Apply &N, llvm::ArrayRef<NDArray> In,
                      std::vector<NDArray> &Out, const ExecContext &Ctx);
  llvm::Error runBlas(const Apply &N, llvm::ArrayRef<NDArray> In,
                      std::vector<NDArray> &Out);
  /// Launches kernel Spec with the iteration space Dims over Operands
  /// (outputs first), each given by its address and byte strides.
  llvm::Error launch(int Spec, uint64_t WorkItems, const Shape &Dims,
                     llvm::ArrayRef<std::pair<const NDArray *, Shape>> Ops);
  /// Src broadcast into Dst (Dst's shape), by a copy kernel.
  llvm::Error copyInto(const NDArray &Dst, const NDArray &Src);
  /// Reduction Spec of N over X into Out in two steps, if it is worth it:
  /// false when it is not (then nothing was done).
  llvm::Expected<bool> splitReduce(const Apply &N, const NDArray &X,
                                   NDArray &Out, uint64_t Items);
  /// X if contiguous, else a contiguous device copy.
  llvm::Expected<NDArray> contiguous(const NDArray &X);

  Device &Dev;
  DevicePool &Pool;
  bool Profile;
  KernelPlan Plan;
  std::vector<KernelHandle> Kernels; ///< By spec.
  /// The emulated device's host code.
  std::unique_ptr<CompiledCode> HostCode;
  /// Constants already copied to the device, by Apply id of the copy.
  std::map<unsigned, NDArray> ConstantCopies;
  /// This call's timed Applies: id, mark before, mark after.
  struct Timed {
    unsigned Apply;
    TimerMark From, To;
  };
  std::vector<Timed> TimedApplies;
  std::function<uint64_t()> HostNow;
  uint64_t FirstMarkHost = 0;
  double CompileSeconds = 0;
  bool PtxFromCache = false, BinaryFromCache = false;
};

} // namespace graphjit

#endif
