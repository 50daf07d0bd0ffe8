//===- KernelPlan.cpp - Which kernels a function's GPU Applies need ------===//
//
// KernelPlan::of (GpuProgram.h): a kernel per computing GPU Apply, the two
// kernels of its split form for a reduction, and copy kernels (by dtype and
// rank) for what must be made contiguous on the device; also the checks of
// a placed graph and its PTX.
//
//===----------------------------------------------------------------------===//

#include "GpuProgram.h"
#include "ops/elemwise/ElemwiseOps.h"
#include "ops/linalg/GemmOp.h"
#include "ops/gpu/GpuOps.h"
#include "ops/shape/ShapeOps.h"
#include <algorithm>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

namespace {

/// The copy kernel of (T, Rank): an Elemwise cast to T itself.
int copySpec(KernelPlan &P, const Apply &N, DType T, unsigned Rank) {
  auto [It, New] = P.CopySpecs.try_emplace({T, Rank}, P.Specs.size());
  if (!New)
    return It->second;
  P.Ops.push_back(std::make_shared<Elemwise>(ScalarOpKind::Cast,
                                             AttrMap{}, T));
  KernelSpec S;
  S.K = KernelSpec::Elemwise;
  S.Name = "gj_gpu_copy_" + dtypeName(T).str() + "_r" + std::to_string(Rank);
  S.Node = &N;
  S.Rank = Rank;
  S.Operands = {T, T};
  S.ElemOp = P.Ops.back().get();
  P.Specs.push_back(std::move(S));
  return It->second;
}

/// The kernel of a computing GPU Apply N running host op H.
KernelSpec kernelOf(const Apply &N, const Op &H) {
  KernelSpec S;
  S.Name = "gj_gpu_k" + std::to_string(N.id());
  S.Node = &N;
  DType Out = N.output(0)->type().Dtype;
  unsigned InRank = N.inputs().empty() ? 0 : N.inputs()[0]->type().rank();
  S.Operands.push_back(Out);
  if (std::optional<ReductionInfo> R = reductionInfo(H, InRank)) {
    S.K = KernelSpec::Reduce;
    S.Rank = InRank;
    S.Reduction = *R;
    S.Operands.push_back(N.inputs()[0]->type().Dtype);
  } else if (std::optional<SoftmaxInfo> Sm = softmaxInfo(H, InRank)) {
    S.K = KernelSpec::Softmax;
    S.Rank = InRank;
    S.SoftmaxParams = *Sm;
    S.Operands.push_back(N.inputs()[0]->type().Dtype);
  } else if (std::optional<AllocFill> F = allocFill(H)) {
    // zeros_like, ones_like (alloc itself is a copy kernel).
    S.K = KernelSpec::Fill;
    S.Rank = N.output(0)->type().rank();
    S.Value = *F == AllocFill::Ones ? 1 : 0;
  } else {
    S.K = KernelSpec::Elemwise;
    S.Rank = N.output(0)->type().rank();
    S.ElemOp = &H;
    for (const Variable *V : N.inputs())
      S.Operands.push_back(V->type().Dtype);
  }
  return S;
}

/// The two kernels of reduction R split in two steps (see
/// GpuProgram::splitReduce): the first dim R reduces becomes (P, S/P); step
/// one reduces as R does but keeps P; step two reduces P alone.
std::pair<KernelSpec, KernelSpec> splitSpecs(const KernelSpec &R) {
  const std::vector<bool> &Mask = R.Reduction.Reduced;
  unsigned First = std::find(Mask.begin(), Mask.end(), true) - Mask.begin();
  KernelSpec One = R, Two = R;
  One.Name += "_split1";
  One.Rank = R.Rank + 1;
  One.Reduction.Reduced = Mask;
  One.Reduction.Reduced.insert(One.Reduction.Reduced.begin() + First, false);
  One.Reduction.KeepDims = false;
  unsigned Kept = std::count(Mask.begin(), Mask.end(), false);
  unsigned Before = std::count(Mask.begin(), Mask.begin() + First, false);
  Two.Name += "_split2";
  Two.Rank = Kept + 1;
  Two.Reduction.Reduced.assign(Kept + 1, false);
  Two.Reduction.Reduced[Before] = true;
  Two.Reduction.KeepDims = false;
  // Step two reduces step one's partial results, of the output's dtype.
  Two.Operands = {R.Operands[0], R.Operands[0]};
  return {One, Two};
}

} // namespace

KernelPlan KernelPlan::of(const FunctionGraph &F) {
  KernelPlan P;
  P.SpecOfApply.assign(F.numApplies(), -1);
  P.SplitOfApply.assign(F.numApplies(), {-1, -1});
  for (const Apply *N : F.applies()) {
    if (std::optional<TransferDirection> D = transferDirection(N->op())) {
      if (*D == TransferDirection::ToHost)
        copySpec(P, *N, N->inputs()[0]->type().Dtype,
                 N->inputs()[0]->type().rank());
      continue;
    }
    const GpuOp *G = gpuOpOf(N->op());
    if (!G)
      continue;
    switch (G->role()) {
    case GpuRole::Kernel: {
      const TensorType &OutType = N->output(0)->type();
      if (allocFill(G->hostOp()) == AllocFill::Broadcast) {
        // alloc(v) copies v broadcast, in v's dtype.
        P.SpecOfApply[N->id()] =
            copySpec(P, *N, OutType.Dtype, OutType.rank());
        break;
      }
      P.SpecOfApply[N->id()] = P.Specs.size();
      P.Specs.push_back(kernelOf(*N, G->hostOp()));
      const KernelSpec &S = P.Specs.back();
      if (S.K == KernelSpec::Reduce &&
          llvm::is_contained(S.Reduction.Reduced, true)) {
        auto [One, Two] = splitSpecs(S);
        P.SplitOfApply[N->id()] = {int(P.Specs.size()),
                                   int(P.Specs.size()) + 1};
        P.Specs.push_back(std::move(One));
        P.Specs.push_back(std::move(Two));
      }
      break;
    }
    case GpuRole::View:
      if (llvm::isa<ReshapeOp>(G->hostOp()))
        copySpec(P, *N, N->inputs()[0]->type().Dtype,
                 N->inputs()[0]->type().rank());
      break;
    case GpuRole::Blas:
      // Operands BLAS cannot read as they are are copied.
      for (const Variable *V : N->inputs())
        copySpec(P, *N, V->type().Dtype, V->type().rank());
      // Gemm: c broadcast into the output first.
      if (llvm::isa<GemmOp>(G->hostOp()))
        copySpec(P, *N, N->output(0)->type().Dtype, 2);
      break;
    case GpuRole::None:
      break;
    }
  }
  return P;
}

bool graphjit::hasDeviceApplies(const FunctionGraph &F) {
  for (const Apply *N : F.applies())
    if (isDeviceApply(N->op()))
      return true;
  return false;
}

Error graphjit::checkPlacement(const FunctionGraph &F) {
  auto OnDevice = [](const Variable *V) {
    return V->owner() && producesDeviceValues(V->owner()->op());
  };
  for (const Apply *N : F.applies()) {
    std::optional<TransferDirection> D = transferDirection(N->op());
    bool WantsDevice = gpuOpOf(N->op()) ||
                       (D && *D == TransferDirection::ToHost);
    for (const Variable *V : N->inputs())
      if (OnDevice(V) != WantsDevice)
        return llvm::createStringError("Apply node " + llvm::Twine(N->id()) + ", " +
                        N->op().name() + ", takes " + V->displayName() +
                        (WantsDevice ? " from the host but runs on the device"
                                     : " from the device but runs on the "
                                       "host"));
  }
  for (const Variable *V : F.outputs())
    if (OnDevice(V))
      return llvm::createStringError("output " + V->displayName() +
                      " is left on the device (host_from_gpu missing)");
  for (const Update &U : F.updates())
    if (OnDevice(U.Value))
      return llvm::createStringError("the update of '" + U.Target->Name +
                      "' is left on the device");
  return Error::success();
}

Expected<std::string> graphjit::functionPtx(const FunctionGraph &F,
                                            llvm::StringRef Arch) {
  KernelPlan P = KernelPlan::of(F);
  llvm::LLVMContext Ctx;
  Expected<std::unique_ptr<llvm::Module>> M =
      emitKernels(P.Specs, Ctx, KernelTarget::NVPTX);
  if (!M)
    return M.takeError();
  return compileToPtx(std::move(*M), Arch);
}
