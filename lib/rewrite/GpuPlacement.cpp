//===- GpuPlacement.cpp - Moving Applies to the device -------------------===//
//
// device=cuda (and cuda-emulated): Theano's gpu optimizer. gpu_placement
// replaces an Apply whose op has a GPU form (lib/ops/gpu/GpuOps.h) by its
// GpuOp on device copies of its inputs, followed by host_from_gpu of each
// output, so the graph stays correct after every step. An input that is
// already a host_from_gpu of a device value is taken from the device
// directly, and a value already copied to the device is not copied again:
// transfers remain only at the boundaries between host and device Applies,
// never back and forth. gpu_transfer_cut removes gpu_from_host(host_from_
// gpu(x)) wherever else it appears. Both run in the "gpu" phase, after
// fusion (so fused Composites move whole) and before the inplace phase
// (GPU ops never work in place); they run whatever the optimizer, None
// included, unless excluded (optimizer_excluding=gpu keeps all on the host).
//
//===----------------------------------------------------------------------===//

#include "NodeRewrite.h"
#include "ops/gpu/GpuOps.h"

using namespace graphjit;
using namespace graphjit::rewrite;

using Reps = std::vector<Replacement>;

namespace {

bool isTransfer(const RNode &N, TransferDirection D) {
  std::optional<TransferDirection> T = transferDirection(*N.Op);
  return T && *T == D;
}

/// The device value a host value V was copied from, if V is a live
/// host_from_gpu's output.
RValue *deviceSource(const RValue &V) {
  if (V.Owner && !V.Owner->Dead &&
      isTransfer(*V.Owner, TransferDirection::ToHost))
    return V.Owner->Inputs[0];
  return nullptr;
}

/// What the device copy of V is called, so that a device Apply's inputs
/// can be told apart in the profile's rows: gpu(x), gpu(2.0),
/// gpu(Shape_i{0}.0).
std::string copyName(const RValue &V) {
  std::string Of = V.Name;
  if (Of.empty() && V.Shared)
    Of = V.Shared->Name;
  if (Of.empty() && V.isConstant())
    Of = V.Literal.empty() ? V.Value.str(10) : V.Literal;
  if (Of.empty() && V.Owner)
    Of = V.Owner->OpName + "." + std::to_string(V.OutIndex);
  return "gpu(" + Of + ")";
}

/// V on the device: where it came from, an existing copy, or a new one.
llvm::Expected<RValue *> onDevice(RewriteGraph &G, RValue *V,
                                  const OpRef &ToDevice) {
  if (RValue *Src = deviceSource(*V))
    return Src;
  for (RNode *C : V->Clients)
    if (!C->Dead && isTransfer(*C, TransferDirection::ToDevice) &&
        C->Inputs[0] == V)
      return C->Outputs[0];
  llvm::Expected<RNode *> Copy = G.makeNode(ToDevice, {V});
  if (!Copy)
    return Copy.takeError();
  (*Copy)->Outputs[0]->Name = copyName(*V);
  return (*Copy)->Outputs[0];
}

class GpuPlacement final : public NodeRewrite {
public:
  GpuPlacement()
      : NodeRewrite("gpu_placement", {"gpu"}),
        ToDevice(makeTransferOp(TransferDirection::ToDevice)),
        ToHost(makeTransferOp(TransferDirection::ToHost)) {}

  llvm::Expected<Reps> apply(RewriteGraph &G, RNode &N) override {
    std::vector<TensorType> Types;
    for (const RValue *V : N.Inputs)
      Types.push_back(V->Type);
    GpuRole Role = gpuRoleOf(*N.Op, Types);
    if (Role == GpuRole::None)
      return Reps{};
    std::vector<RValue *> DeviceInputs;
    for (RValue *V : N.Inputs) {
      llvm::Expected<RValue *> D = onDevice(G, V, ToDevice);
      if (!D)
        return D.takeError();
      DeviceInputs.push_back(*D);
    }
    llvm::Expected<RNode *> Moved =
        G.makeNode(std::make_shared<GpuOp>(N.Op, Role), DeviceInputs);
    if (!Moved)
      return Moved.takeError();
    Reps R;
    for (unsigned I = 0; I < N.Outputs.size(); ++I) {
      llvm::Expected<RNode *> Back =
          G.makeNode(ToHost, {(*Moved)->Outputs[I]});
      if (!Back)
        return Back.takeError();
      R.push_back({N.Outputs[I], (*Back)->Outputs[0]});
    }
    return R;
  }

private:
  OpRef ToDevice, ToHost;
};

class GpuTransferCut final : public NodeRewrite {
public:
  GpuTransferCut() : NodeRewrite("gpu_transfer_cut", {"gpu"}) {}

  llvm::Expected<Reps> apply(RewriteGraph &, RNode &N) override {
    if (!isTransfer(N, TransferDirection::ToDevice))
      return Reps{};
    if (RValue *Src = deviceSource(*N.Inputs[0]))
      return Reps{{N.Outputs[0], Src}};
    return Reps{};
  }
};

} // namespace

std::vector<std::unique_ptr<NodeRewrite>> rewrite::makeGpuRewrites() {
  std::vector<std::unique_ptr<NodeRewrite>> R;
  R.push_back(std::make_unique<GpuPlacement>());
  R.push_back(std::make_unique<GpuTransferCut>());
  return R;
}
