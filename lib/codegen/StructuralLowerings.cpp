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
  // A thunk's only argument is its frame (ThunkEmitter.h).
  Value *Frame = Thunk->getArg(0);
  FunctionCallee Compute = E.M.getOrInsertFunction(
      "gj_compute",
      FunctionType::get(B.getInt32Ty(),
                        {PointerType::getUnqual(E.ctx()), B.getInt32Ty()},
                        false));
  Value *Rc = B.CreateCall(Compute, {Frame, B.getInt32(E.Node.id())}, "rc");
  BasicBlock *Failed = BasicBlock::Create(E.ctx(), "compute.failed", Thunk);
  BasicBlock *Done = BasicBlock::Create(E.ctx(), "computed", Thunk);
  B.CreateCondBr(B.CreateICmpNE(Rc, B.getInt32(0)), Failed, Done);
  B.SetInsertPoint(Failed);
  B.CreateRet(Rc);
  B.SetInsertPoint(Done);
  return Error::success();
}

void graphjit::registerStructuralLowerings() {
  registerShapeLowerings();
  registerReduceLowerings();
  registerSoftmaxLowerings();
  registerLowering(OpKind::Dot,
                   Lowering{/*NeedsPrepare=*/true, emitCompute, nullptr});
  // gemm (GemmOp.cpp) the same way: BLAS with beta·c in the output.
  registerLowering(OpKind::Gemm,
                   Lowering{/*NeedsPrepare=*/true, emitCompute, nullptr});
  // take and inc_rows (GatherOps.cpp): their gather and scatter loops.
  registerLowering(OpKind::Take,
                   Lowering{/*NeedsPrepare=*/true, emitCompute, nullptr});
  registerLowering(OpKind::IncRows,
                   Lowering{/*NeedsPrepare=*/true, emitCompute, nullptr});
  // cumsum and cumprod (CumulativeOps.cpp) too.
  registerLowering(OpKind::Cumulative,
                   Lowering{/*NeedsPrepare=*/true, emitCompute, nullptr});
}
