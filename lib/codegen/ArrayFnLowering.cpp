//===- ArrayFnLowering.cpp - The array functions' thunks -----------------===//
//
// alloc_to, arange, copy, diagonal, sort, ... (ArrayFnOps.cpp) run as
// prepare() then compute(), each through the runtime: two calls and an
// output made on the heap, near a microsecond of a small array. Where the
// output's dims follow from the inputs' dims (or, for alloc_to, from their
// values), the thunk plans the output instead:
//
//   diagonal and alloc_diag of a matrix,      loops (DiagonalLowering.cpp,
//   gathers and scatters on leading axes      AdvancedIndexLowering.cpp)
//   alloc_to(v, d0, d1, ...)                  dims read and checked here,
//                                             v broadcast by a loop
//   copy, sort, argsort,                      dims here, then gj_compute
//   pivot_to_permutation, other increments    (the library's loops and its
//                                             errors: a pivot out of range)
//
// The rest keep prepare() and compute().
//
//===----------------------------------------------------------------------===//

#include "StructuralLoweringUtil.h"
#include "ops/arrayfn/ArrayFnOps.h"

using namespace graphjit;
using namespace llvm;

namespace {

enum class ArrayFnPlan { None, Diagonal, AdvancedIndex, AllocTo, Compute };

ArrayFnPlan planOf(const Apply &N) {
  if (plansDiagonal(N))
    return ArrayFnPlan::Diagonal;
  if (plansAdvancedIndex(N))
    return ArrayFnPlan::AdvancedIndex;
  switch (arrayFnParams(N.op()).Fn) {
  case ArrayFn::AllocTo:
    return ArrayFnPlan::AllocTo;
  case ArrayFn::Copy:
  case ArrayFn::Sort:
  case ArrayFn::Argsort:
  case ArrayFn::PivotToPermutation:
  case ArrayFn::AdvancedIncSubtensor:
    return ArrayFnPlan::Compute;
  default:
    return ArrayFnPlan::None;
  }
}

// ArrayFnOp::prepare's alloc_to: each dim a 0-d integer input, at least 0,
// and v broadcast to them.
void emitAllocToDims(ThunkEmitter &E, OutputDims &Dims) {
  const auto &In = E.Node.inputs();
  for (size_t I = 1; I < In.size(); ++I) {
    DType T = In[I]->type().Dtype;
    Value *D = E.convert(E.loadElement(T, E.data(In[I])), T, DType::I64);
    E.failUnless(E.B.CreateICmpSGE(D, E.constI64(0)), "nonnegative");
    Dims[0].push_back(D);
  }
  failUnlessBroadcasts(E, In[0], Dims[0]);
}

// The output has x's shape, but sort and argsort with no axis, which
// flatten it.
void emitShapeOfXDims(ThunkEmitter &E, OutputDims &Dims) {
  const ArrayFnParams &P = arrayFnParams(E.Node.op());
  const Variable *X = E.Node.inputs()[0];
  unsigned Rank = X->type().rank();
  bool Flattens = (P.Fn == ArrayFn::Sort || P.Fn == ArrayFn::Argsort) &&
                  !P.Axis;
  if (!Flattens) {
    for (unsigned D = 0; D < Rank; ++D)
      Dims[0].push_back(E.dim(X, D));
    return;
  }
  Value *Size = E.constI64(1);
  for (unsigned D = 0; D < Rank; ++D)
    Size = E.B.CreateMul(Size, E.dim(X, D));
  Dims[0] = {Size};
}

void emitArrayFnDims(ThunkEmitter &E, OutputDims &Dims) {
  switch (planOf(E.Node)) {
  case ArrayFnPlan::Diagonal:
    return emitPlannedDiagonalDims(E, Dims);
  case ArrayFnPlan::AdvancedIndex:
    return emitPlannedAdvancedIndexDims(E, Dims);
  case ArrayFnPlan::AllocTo:
    return emitAllocToDims(E, Dims);
  case ArrayFnPlan::Compute:
    return emitShapeOfXDims(E, Dims);
  case ArrayFnPlan::None:
    break;
  }
  llvm_unreachable("PlansOutputs refuses ArrayFnPlan::None");
}

Error emitArrayFn(ThunkEmitter &E) {
  if (!E.Planned)
    return emitComputeCall(E);
  switch (planOf(E.Node)) {
  case ArrayFnPlan::Diagonal:
    return emitPlannedDiagonal(E);
  case ArrayFnPlan::AdvancedIndex:
    return emitPlannedAdvancedIndex(E);
  case ArrayFnPlan::AllocTo:
    emitBroadcastCopy(E);
    return Error::success();
  case ArrayFnPlan::Compute:
    return emitComputeCall(E);
  case ArrayFnPlan::None:
    break;
  }
  llvm_unreachable("PlansOutputs refuses ArrayFnPlan::None");
}

} // namespace

void graphjit::registerArrayFnLowering() {
  Lowering L{/*NeedsPrepare=*/true, emitArrayFn, nullptr};
  L.SharedThunk = "gj_thunk.compute";
  L.EmitOutputDims = emitArrayFnDims;
  L.PlansOutputs = [](const Apply &N, ArrayRef<std::string>) {
    return planOf(N) != ArrayFnPlan::None;
  };
  registerLowering(OpKind::ArrayFn, L);
}
