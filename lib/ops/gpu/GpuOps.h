//===- GpuOps.h - The ops of the GPU path ----------------------*- C++ -*-===//
//
// With device=cuda the placement rewrite (lib/rewrite/GpuPlacement.cpp)
// moves every Apply whose op has a GPU form onto the device, as Theano's
// gpu optimizer did: the op is wrapped in a GpuOp ("GpuElemwise{add,
// no_inplace}", class "GpuElemwise", the Theano names), whose inputs and
// outputs live in device memory; GpuFromHost and HostFromGpu Applies copy
// values across at the boundaries. A GpuOp computes what its host op does
// (same types, same views); GpuProgram.h runs it.
//
// What has a GPU form (gpuRoleOf):
//   Kernel  Elemwise (fused Composites too), CAReduce and Mean, Softmax and
//           LogSoftmax, Alloc (alloc, zeros_like, ones_like): a kernel of
//           KernelSpec.h each.
//   View    DimShuffle, Reshape, Subtensor: no kernel, the host op's
//           prepare() makes the view (Reshape of a non-contiguous array
//           first copies it on the device).
//   Blas    Dot of matrices and vectors and Gemm, in f32 and f64: cuBLAS.
// Everything else stays on the host; gpuRoleOf says why, for the report's
// tips. GPU ops never work in place (the inplace rewrite leaves them be).
//
// GpuOp and TransferOp are declared here so that the other layers dispatch
// on them with isa<>/dyn_cast<> (or gpuOpOf and transferDirection).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_GPU_GPUOPS_H
#define GRAPHJIT_GPU_GPUOPS_H

#include "graphjit/Op.h"
#include <optional>
#include <string>
#include <vector>

namespace graphjit {

enum class GpuRole { None, Kernel, View, Blas };

/// How an Apply of O with inputs of types In runs on the device; None with
/// the reason in *WhyNot ("Argmax has no GPU kernel").
GpuRole gpuRoleOf(const Op &O, llvm::ArrayRef<TensorType> In,
                  std::string *WhyNot = nullptr);

/// A host op moved to the device.
class GpuOp final : public Op {
public:
  GpuOp(OpRef Host, GpuRole Role);

  static bool classof(const Op *O) { return O->kind() == OpKind::Gpu; }

  const Op &hostOp() const { return *Host; }
  const OpRef &hostOpRef() const { return Host; }
  GpuRole role() const { return Role; }

  /// "Gpu" + the host op's: GpuElemwise{add,no_inplace}, GpuCAReduce, ...
  std::string name() const override { return "Gpu" + Host->name(); }
  llvm::StringRef className() const override { return ClassName; }
  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> Inputs) const override {
    return Host->inferTypes(Inputs);
  }
  /// Runs through the function's GpuProgram (ExecContext::Gpu).
  llvm::Error perform(llvm::ArrayRef<NDArray> Inputs,
                      std::vector<NDArray> &Outputs,
                      const ExecContext &Ctx) const override;
  unsigned numOutputs() const override { return Host->numOutputs(); }
  unsigned numConditionInputs() const override {
    return Host->numConditionInputs();
  }
  OutputAlias outputAlias(unsigned Output) const override {
    return Host->outputAlias(Output);
  }
  double flops(llvm::ArrayRef<Shape> Inputs,
               llvm::ArrayRef<Shape> Outputs) const override {
    return Host->flops(Inputs, Outputs);
  }
  double bytesMoved(llvm::ArrayRef<NDArray> Inputs,
                    llvm::ArrayRef<NDArray> Outputs) const override {
    return Host->bytesMoved(Inputs, Outputs);
  }

private:
  OpRef Host;
  GpuRole Role;
  std::string ClassName;
};

/// The GpuOp of N's op if N runs on the device, else null.
const GpuOp *gpuOpOf(const Op &O);

enum class TransferDirection { ToDevice, ToHost };

/// Copies between host and device memory (Theano's GpuFromHost and
/// HostFromGpu): `gpu_from_host(x)`, `host_from_gpu(x)`.
class TransferOp final : public Op {
public:
  explicit TransferOp(TransferDirection D)
      : Op(D == TransferDirection::ToDevice ? "gpu_from_host" : "host_from_gpu",
           {}, OpKind::Transfer),
        D(D) {}
  TransferDirection direction() const { return D; }

  static bool classof(const Op *O) { return O->kind() == OpKind::Transfer; }

  std::string name() const override { return className().str(); }
  llvm::StringRef className() const override {
    return D == TransferDirection::ToDevice ? "GpuFromHost" : "HostFromGpu";
  }
  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;
  llvm::Error perform(llvm::ArrayRef<NDArray> Inputs,
                      std::vector<NDArray> &Outputs,
                      const ExecContext &Ctx) const override;
  /// A transfer reads and writes its whole value once.
  double bytesMoved(llvm::ArrayRef<NDArray> Inputs,
                    llvm::ArrayRef<NDArray>) const override {
    return Inputs.empty() ? 0 : double(Inputs[0].numBytes());
  }

private:
  TransferDirection D;
};

OpRef makeTransferOp(TransferDirection D);
/// The direction if O is a transfer, else nullopt.
std::optional<TransferDirection> transferDirection(const Op &O);

/// Whether O runs on the device (a GpuOp or a transfer to the device) and
/// so makes device arrays.
bool producesDeviceValues(const Op &O);
/// Whether an Apply of O is the device's to run (a GpuOp or a transfer
/// either way): GpuProgram runs it.
inline bool isDeviceApply(const Op &O) {
  return gpuOpOf(O) || transferDirection(O);
}

} // namespace graphjit

#endif
