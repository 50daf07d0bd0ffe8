//===- KernelSpec.h - GPU kernels: what to emit and their ABI --*- C++ -*-===//
//
// Each GPU Apply that computes (not a view, not a transfer, not cuBLAS) runs
// one kernel, described by a KernelSpec: a flat grid of independent work
// items over an iteration space of Rank dims, each item reading and writing
// strided operands. The same kernel body is emitted for two targets:
//
//  - NVPTX (sm_80, sm_90): `ptx_kernel void NAME(i64 a0, ..., i64 aK)`; a
//    grid-stride loop runs the body for every work item; math is libdevice's
//    (the scalar kernels of lib/ops/elemwise/ScalarKernels.h, retargeted).
//  - Host: `void NAME(const uint64_t *Args)` runs every work item in order:
//    the emulated device (Device.h) and the kernel tests use it.
//
// The kernel ABI: every argument is 64 bits.
//   Args[0]             WorkItems, the number of work items
//   Args[1 .. Rank]     the iteration space's dims
//   then for each operand, outputs first and then inputs, in Operands'
//   order: its address, then Rank byte strides over the iteration space
//   (0 along a dim it is broadcast over or does not have)
// so a kernel takes 1 + Rank + Operands.size() * (1 + Rank) arguments
// (kernelArgCount()).
//
// The kinds, and what a work item does:
//   Elemwise  iteration space: the output's shape; item i: the element at
//             C-order index i. Operands: the output, then the Elemwise op's
//             inputs; the element computation is ElementKernel's
//             (lib/codegen/ElemwiseLoweringKernel.h), Composites included.
//   Fill      iteration space: the output's shape; item i: writes Value.
//   Reduce    iteration space: the input's shape; item i: the output
//             element at C-order index i over the kept dims (Reduced false),
//             computed over all the reduced dims in C order. Operands: the
//             output (strides 0 along reduced dims), the input.
//   Softmax   iteration space: the input's shape; item i: the row at
//             C-order index i over every dim but Axis. Operands: the
//             output, the input.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_GPU_KERNELSPEC_H
#define GRAPHJIT_GPU_KERNELSPEC_H

#include "graphjit/DType.h"
#include "ops/StructuralParams.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>
#include <vector>

namespace graphjit {

class Apply;
class Op;

struct KernelSpec {
  enum Kind { Elemwise, Fill, Reduce, Softmax };
  Kind K = Elemwise;
  /// The entry point's symbol, unique in its module ("gj_gpu_k7").
  std::string Name;
  /// The GPU Apply the kernel runs for (its op is a GpuOp; its variables'
  /// types are the kernel's operands'): for ThunkEmitter and for errors.
  const Apply *Node = nullptr;
  unsigned Rank = 0;
  /// The dtypes of the operands, outputs first (one output for every kind).
  std::vector<DType> Operands;
  /// Elemwise: the op whose element computation the kernel runs (class
  /// Elemwise; its inputs are Operands[1..]).
  const Op *ElemOp = nullptr;
  /// Fill: the value written (converted to the output's dtype).
  double Value = 0;
  /// Reduce: the reduction (K is Sum, Prod, Max, Min, Mean, All or Any;
  /// Reduced has Rank entries). Computed as the host JIT computes it.
  ReductionInfo Reduction;
  /// Softmax: log or not, and the axis (< Rank).
  SoftmaxInfo SoftmaxParams;
};

/// 1 + Rank + Operands * (1 + Rank).
inline unsigned kernelArgCount(const KernelSpec &S) {
  return 1 + S.Rank + S.Operands.size() * (1 + S.Rank);
}

enum class KernelTarget { NVPTX, Host };

/// The host JIT's target (jit/JitEngine.h), which kernels compiled for the
/// host (the emulated device) must match; the caller supplies it, so that
/// codegen never depends on the JIT.
struct HostTarget {
  std::string Triple;
  const llvm::DataLayout *Layout = nullptr;
};

/// A module for Target holding one entry point per spec (and whatever they
/// call: the scalar kernels, linked and internal). For Host, the module
/// has Host's triple and data layout (required); for NVPTX,
/// nvptx64-nvidia-cuda. Errors name the spec that could not be emitted.
llvm::Expected<std::unique_ptr<llvm::Module>>
emitKernels(llvm::ArrayRef<KernelSpec> Specs, llvm::LLVMContext &Ctx,
            KernelTarget Target, const HostTarget &Host = {});

/// NVPTX only: links libdevice's math into M (only what it calls), runs
/// the O2 pipeline of the NVPTX target machine for Arch ("sm_80",
/// "sm_90"), and returns the PTX text. M is consumed.
llvm::Expected<std::string> compileToPtx(std::unique_ptr<llvm::Module> M,
                                         llvm::StringRef Arch);

/// Where libdevice is read from: $GRAPHJIT_LIBDEVICE, else
/// /usr/local/cuda/nvvm/libdevice/libdevice.10.bc.
std::string libdevicePath();

} // namespace graphjit

#endif
