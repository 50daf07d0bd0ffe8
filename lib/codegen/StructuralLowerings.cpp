//===- StructuralLowerings.cpp - JIT lowerings of the non-elemwise ops ---===//
//
// Registers the lowerings of the shape, indexing, reduction, linear-algebra
// and nn families (the loops live in ShapeLowering.cpp, ReduceLowering.cpp
// and SoftmaxLowering.cpp) and defines dot's and gemm's: gj_prepare checks
// the shapes and creates the output, then the thunk calls gj_compute, which
// runs the op's library code (Dot::compute, Gemm::compute: CBLAS for f32 and
// f64, with transposed operands passed by flag rather than copied; loops for
// the other dtypes and layouts). take and inc_rows (GatherOps.cpp) and
// cumsum and cumprod (CumulativeOps.cpp) run their loops the same way.
//
//===----------------------------------------------------------------------===//

#include "StructuralLoweringUtil.h"
#include "llvm/IR/Function.h"

using namespace graphjit;
using namespace llvm;

/// `rc = gj_compute(frame, id); if (rc) return rc;`
static Error emitCompute(ThunkEmitter &E) {
  IRBuilder<> &B = E.B;
  llvm::Function *Thunk = B.GetInsertBlock()->getParent();
  FunctionCallee Compute = E.M.getOrInsertFunction(
      "gj_compute",
      FunctionType::get(B.getInt32Ty(),
                        {PointerType::getUnqual(E.ctx()), B.getInt32Ty()},
                        false));
  Value *Rc = B.CreateCall(Compute, {E.frame(), E.nodeId()}, "rc");
  BasicBlock *Failed = BasicBlock::Create(E.ctx(), "compute.failed", Thunk);
  BasicBlock *Done = BasicBlock::Create(E.ctx(), "computed", Thunk);
  B.CreateCondBr(B.CreateICmpNE(Rc, B.getInt32(0)), Failed, Done);
  B.SetInsertPoint(Failed);
  B.CreateRet(Rc);
  B.SetInsertPoint(Done);
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

void graphjit::registerStructuralLowerings() {
  registerShapeLowerings();
  registerReduceLowerings();
  registerSoftmaxLowerings();
  Lowering Compute{/*NeedsPrepare=*/true, emitCompute, nullptr};
  Compute.SharedThunk = "gj_thunk.compute";
  Lowering Dot = Compute;
  Dot.EmitOutputDims = emitDotDims;
  // Ranks above 2 are prepare's error to word.
  Dot.PlansOutputs = [](const Apply &N) {
    return N.inputs()[0]->type().rank() <= 2 &&
           N.inputs()[1]->type().rank() <= 2;
  };
  registerLowering(OpKind::Dot, Dot);
  // gemm (GemmOp.cpp) the same way: BLAS with beta·c in the output.
  registerLowering(OpKind::Gemm, Compute);
  // take and inc_rows (GatherOps.cpp): their gather and scatter loops.
  registerLowering(OpKind::Take, Compute);
  registerLowering(OpKind::IncRows, Compute);
  // cumsum and cumprod (CumulativeOps.cpp) too.
  registerLowering(OpKind::Cumulative, Compute);
}
