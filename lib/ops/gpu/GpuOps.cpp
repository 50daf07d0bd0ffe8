//===- GpuOps.cpp - GpuOp, the transfers, and what may move --------------===//

#include "ops/gpu/GpuOps.h"
#include "ops/elemwise/ElemwiseOps.h"
#include "ops/linalg/GemmOp.h"
#include "ops/indexing/IndexingOps.h"
#include "ops/linalg/LinalgOps.h"
#include "ops/shape/ShapeOps.h"
#include "ops/StructuralParams.h"
#include "ops/StructuralUtil.h"
#include "llvm/Support/Casting.h"

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

static bool isBlasDtype(DType T) { return T == DType::F32 || T == DType::F64; }

GpuRole graphjit::gpuRoleOf(const Op &O, llvm::ArrayRef<TensorType> In,
                            std::string *WhyNot) {
  auto No = [&](const llvm::Twine &Why) {
    if (WhyNot)
      *WhyNot = Why.str();
    return GpuRole::None;
  };
  llvm::StringRef Class = O.className();
  if (llvm::isa<GpuOp, TransferOp>(&O))
    return No("already on the device");
  if (const auto *E = llvm::dyn_cast<Elemwise>(&O)) {
    // A kernel cannot fail, and an integer to a negative power must.
    bool Integral = llvm::none_of(
        In, [](const TensorType &T) { return isFloat(T.Dtype); });
    if (!E->composite() && E->scalarOp() == ScalarOpKind::Pow && Integral)
      return No("an integer pow may fail at run time, which a kernel "
                "cannot report");
    // The special functions are host code (SpecialFunctions.cpp: Boost,
    // called through gj_special_*), which libdevice does not provide.
    // erfcx, inline in SpecialFunctions.h, would compile for the device,
    // but is not placed there yet (no GPU to check it on).
    auto OnHost = [](ScalarOpKind K) { return isHostOnlyScalarOp(K); };
    if (const CompositeScalar *C = E->composite()) {
      for (const CompositeStep &S : C->Steps)
        if (OnHost(S.Kind))
          return No(llvm::Twine(scalarOpInfo(S.Kind).Name) +
                    " has no GPU kernel");
    } else if (OnHost(E->scalarOp())) {
      return No(llvm::Twine(scalarOpInfo(E->scalarOp()).Name) +
                " has no GPU kernel");
    }
    return GpuRole::Kernel;
  }
  unsigned Rank = In.empty() ? 0 : In[0].rank();
  if (std::optional<ReductionInfo> R = reductionInfo(O, Rank)) {
    if (R->K > ReductionInfo::Any)
      return No(Class + " has no GPU kernel");
    return GpuRole::Kernel;
  }
  if (softmaxInfo(O, Rank) || allocFill(O))
    return GpuRole::Kernel;
  if (llvm::isa<DimShuffleOp, ReshapeOp, SubtensorOp>(&O))
    return GpuRole::View;
  bool IsDot = llvm::isa<DotOp>(&O), IsGemm = llvm::isa<GemmOp>(&O);
  if (IsDot || IsGemm) {
    for (const TensorType &T : In)
      if (!isBlasDtype(T.Dtype) || T.Dtype != In[0].Dtype)
        return No("cuBLAS takes f32 or f64 operands of one dtype, not " +
                  T.str());
    if (IsDot && (In[0].rank() == 0 || In[1].rank() == 0))
      return No("a product with a scalar is an Elemwise mul");
    if (IsGemm && (In[1].rank() != 2 || In[2].rank() != 2))
      return No("GpuGemm takes matrices");
    return GpuRole::Blas;
  }
  return No(Class + " has no GPU form");
}

static std::string gpuClassName(const Op &Host) {
  return "Gpu" + Host.className().str();
}

GpuOp::GpuOp(OpRef H, GpuRole Role)
    : Op(("gpu_" + H->formatName()).str(), H->attrs(), OpKind::Gpu),
      Host(std::move(H)), Role(Role), ClassName(gpuClassName(*Host)) {}

/// Runs a device Apply of op O through the function's GpuProgram.
static Error runOnDevice(const Op &O, llvm::ArrayRef<NDArray> Inputs,
                         std::vector<NDArray> &Outputs,
                         const ExecContext &Ctx) {
  if (!Ctx.Gpu || !Ctx.Node)
    return llvm::createStringError(
        O.name() + " runs on a GPU device; this function has none "
                   "(compile it with device=cuda or device=cuda-emulated)");
  return Ctx.Gpu->run(*Ctx.Node, Inputs, Outputs, Ctx);
}

Error GpuOp::perform(llvm::ArrayRef<NDArray> Inputs,
                     std::vector<NDArray> &Outputs,
                     const ExecContext &Ctx) const {
  return runOnDevice(*this, Inputs, Outputs, Ctx);
}

const GpuOp *graphjit::gpuOpOf(const Op &O) {
  return llvm::dyn_cast<GpuOp>(&O);
}

Expected<std::vector<TensorType>>
TransferOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  if (In.size() != 1)
    return opError(formatName() + " takes one input");
  return std::vector<TensorType>{In[0]};
}

Error TransferOp::perform(llvm::ArrayRef<NDArray> Inputs,
                          std::vector<NDArray> &Outputs,
                          const ExecContext &Ctx) const {
  return runOnDevice(*this, Inputs, Outputs, Ctx);
}

OpRef graphjit::makeTransferOp(TransferDirection D) {
  return std::make_shared<TransferOp>(D);
}

std::optional<TransferDirection> graphjit::transferDirection(const Op &O) {
  if (const auto *T = llvm::dyn_cast<TransferOp>(&O))
    return T->direction();
  return std::nullopt;
}

bool graphjit::producesDeviceValues(const Op &O) {
  if (std::optional<TransferDirection> D = transferDirection(O))
    return *D == TransferDirection::ToDevice;
  return gpuOpOf(O) != nullptr;
}
