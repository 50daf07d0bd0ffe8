//===- StructuralLowerings.cpp - JIT lowerings of the non-elemwise ops ---===//
//
// Registers the lowerings of the shape, indexing, reduction, linear-algebra
// and nn families (the loops live in ShapeLowering.cpp, ReduceLowering.cpp
// and SoftmaxLowering.cpp) and defines dot's and gemm's: gj_prepare checks
// the shapes and creates the output, then the thunk calls gj_compute, which
// runs the op's library code (Dot::compute, Gemm::compute: CBLAS for f32 and
// f64, with transposed operands passed by flag rather than copied; loops for
// the other dtypes and layouts). take and inc_rows (GatherLowering.cpp)
// and cumsum and cumprod (CumulativeLowering.cpp) are loops in IR. dot and
// gemm (unless in place) plan their outputs: their dims and prepare's
// checks are in IR, and gj_compute is lent the planned values.
//
//===----------------------------------------------------------------------===//

#include "StructuralLoweringUtil.h"
#include "ops/linalg/GemmOp.h"
#include "llvm/IR/Function.h"

using namespace graphjit;
using namespace llvm;

/// `rc = gj_compute(frame, id); if (rc) return rc;`
Error graphjit::emitComputeCall(ThunkEmitter &E) {
  E.returnIfFailed(E.callNodeEntry("gj_compute"));
  return Error::success();
}

// dot's output (DotOp::prepare): a scalar operand gives the other's shape;
// otherwise the inner dims must agree and the outer ones remain.
static void emitDotDims(ThunkEmitter &E, OutputDims &Dims) {
  const Variable *A = E.Node.inputs()[0], *B = E.Node.inputs()[1];
  unsigned RA = A->type().rank(), RB = B->type().rank();
  if (RA == 0 || RB == 0) {
    const Variable *Other = RA == 0 ? B : A;
    for (unsigned D = 0; D < Other->type().rank(); ++D)
      Dims[0].push_back(E.dim(Other, D));
    return;
  }
  E.failUnless(E.B.CreateICmpEQ(E.dim(A, RA - 1), E.dim(B, 0)), "aligned");
  if (RA == 2)
    Dims[0].push_back(E.dim(A, 0));
  if (RB == 2)
    Dims[0].push_back(E.dim(B, 1));
}

// gemm's output (productDims on the call's dims): the contracted dims of
// op(a) and op(b) agree, the product is op(a)'s rows then op(b)'s columns
// (where each is a matrix), and each of c's dims, aligned to the right, is
// 1 or the product's.
static void emitGemmDims(ThunkEmitter &E, OutputDims &Dims) {
  const GemmParams P = *gemmParams(E.Node.op());
  const Variable *C = E.Node.inputs()[0], *A = E.Node.inputs()[1],
                 *B = E.Node.inputs()[2];
  unsigned RA = A->type().rank(), RB = B->type().rank();
  unsigned DA = RA == 2 && !P.TransA ? 1 : 0;
  unsigned DB = RB == 2 && P.TransB ? 1 : 0;
  E.failUnless(E.B.CreateICmpEQ(E.dim(A, DA), E.dim(B, DB)), "aligned");
  if (RA == 2)
    Dims[0].push_back(E.dim(A, 1 - DA));
  if (RB == 2)
    Dims[0].push_back(E.dim(B, 1 - DB));
  failUnlessBroadcasts(E, C, Dims[0]);
}

// A gemm that may write over c keeps asking prepare, which decides where
// the output goes; so do ranks that productDims refuses (its error).
static bool plansGemm(const Apply &N, llvm::ArrayRef<std::string>) {
  const GemmParams P = *gemmParams(N.op());
  unsigned RA = N.inputs()[1]->type().rank(), RB = N.inputs()[2]->type().rank();
  auto Fits = [](unsigned R, bool Trans) {
    return (R == 1 || R == 2) && (!Trans || R == 2);
  };
  return !P.Inplace && Fits(RA, P.TransA) && Fits(RB, P.TransB) &&
         N.inputs()[0]->type().rank() <= unsigned(RA == 2) + unsigned(RB == 2);
}

void graphjit::registerStructuralLowerings() {
  registerShapeLowerings();
  registerReduceLowerings();
  registerSoftmaxLowerings();
  Lowering Compute{/*NeedsPrepare=*/true, emitComputeCall, nullptr};
  Compute.SharedThunk = "gj_thunk.compute";
  Lowering Dot = Compute;
  Dot.EmitOutputDims = emitDotDims;
  // Ranks above 2 are prepare's error to word.
  Dot.PlansOutputs = [](const Apply &N, llvm::ArrayRef<std::string>) {
    return N.inputs()[0]->type().rank() <= 2 &&
           N.inputs()[1]->type().rank() <= 2;
  };
  registerLowering(OpKind::Dot, Dot);
  // gemm (GemmOp.cpp) the same way: BLAS with beta·c in the output.
  Lowering Gemm = Compute;
  Gemm.EmitOutputDims = emitGemmDims;
  Gemm.PlansOutputs = plansGemm;
  registerLowering(OpKind::Gemm, Gemm);
  // cholesky, the solves, inv, det, slogdet (LapackOps.cpp), eigh,
  // eigh_grad, svd, pinv (SpectralOps.cpp): LAPACK per matrix of the batch,
  // through gj_compute; one matrix plans its outputs (LapackLowering.cpp).
  registerLapackLowerings();
  // alloc_to, arange, copy, diagonal, sort, ... (ArrayFnOps.cpp) the same
  // way; those whose outputs' dims follow from the inputs plan them
  // (ArrayFnLowering.cpp).
  registerArrayFnLowering();
  // scan (lib/link/call/ScanOp.cpp): its loop, calling the body's JIT code, is
  // prepare's; compute has nothing left to do.
  registerLowering(OpKind::Scan, Compute);
  // take and inc_rows: loops in IR (GatherLowering.cpp).
  registerGatherLowerings();
  // cumsum and cumprod: loops in IR (CumulativeLowering.cpp).
  registerCumulativeLowerings();
  // scalar_loop: each element's loop in IR (ScalarLoopLowering.cpp).
  registerScalarLoopLowering();
}
