//===- StepCall.cpp - A Function called step after step ------------------===//

#include "link/call/StepCall.h"
#include "link/call/CallFrame.h"
#include "link/compile/JitCode.h"

using namespace graphjit;

bool StepCall::supports(const Function &F) {
  return F.Jit && !F.Gpu && !F.Profiler && F.Graph.updates().empty();
}

StepCall::StepCall(Function &F)
    : F(F), Lease(F.SpareStates, *F.Plan, F.ById, /*Jit=*/true,
                  &F.Jit->Storage),
      S(*Lease) {
  Ctx.Dims = &S.Dims;
}

StepCall::~StepCall() = default; // The lease clears the state.

llvm::Error StepCall::bind(llvm::ArrayRef<NDArray> Inputs) {
  BoundFor.clear();
  Bound.reset();
  Ctx.Dims = &S.Dims;
  if (!F.Plan->bind(Inputs, S.DimSlots)) {
    llvm::Expected<DimBindings> Dims = F.bindInputs(Inputs);
    if (!Dims)
      return Dims.takeError();
    Bound = std::move(*Dims);
    Ctx.Dims = &*Bound;
  }
  S.setSymbolSizes(*F.Plan, Bound ? &*Bound : nullptr);
  for (const NDArray &A : Inputs)
    BoundFor.emplace_back(A.dtype(), A.shape());
  return llvm::Error::success();
}

llvm::Error StepCall::run(llvm::ArrayRef<NDArray> Inputs,
                          std::vector<NDArray> &Outputs) {
  const CallPlan &Plan = *F.Plan;
  bool Same = BoundFor.size() == Inputs.size();
  for (size_t I = 0; Same && I < Inputs.size(); ++I)
    Same = BoundFor[I].first == Inputs[I].dtype() &&
           BoundFor[I].second == Inputs[I].shape();
  if (!Same)
    if (llvm::Error E = bind(Inputs))
      return E;
  CallFrame &Frame = *S.Frame;
  // What the last step materialized goes, so that its storages are reused.
  Frame.end({});
  for (unsigned I = 0; I < Inputs.size(); ++I)
    S.Values[Plan.InputIds[I]].borrow(Inputs[I]);
  for (auto [Id, Shared] : Plan.SharedReads)
    S.Values[Id] = Shared->Value;
  Frame.Profiler = nullptr;
  Frame.begin(Ctx, Plan.SetIds);
  if (F.Jit->Driver(Frame.abi()) != 0) {
    std::string Message = Frame.Error;
    // What the failed step left goes; the state stays usable.
    S.clear();
    BoundFor.clear();
    return llvm::createStringError(Message);
  }
  Outputs.resize(Plan.OutputIds.size());
  const FunctionGraph &G = F.graph();
  for (unsigned I = 0; I < Plan.OutputIds.size(); ++I) {
    unsigned Var = Plan.OutputIds[I];
    const NDArray &V = S.Values[Var];
    if (!V.isNull()) {
      NDArray::wrapInto(Outputs[I], V.data(), V.dtype(),
                        V.shape(), V.strides());
      continue;
    }
    // A planned value: where its slot says the JIT code left it.
    const gj_slot &Slot = Frame.slot(Var);
    const TensorType &T = G.outputs()[I]->type();
    unsigned Rank = T.rank();
    NDArray::wrapInto(Outputs[I], Slot.data, T.Dtype,
                      llvm::ArrayRef<int64_t>(Slot.shape, Rank),
                      llvm::ArrayRef<int64_t>(Slot.strides, Rank));
  }
  return llvm::Error::success();
}
