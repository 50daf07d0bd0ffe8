//===- ScalarLoopLowering.cpp - JIT code for scalar_loop -----------------===//
//
// scalar_loop's loop inside the element loop: for each element of the
// broadcast output, the carried values are loaded into registers, and
//
//   for (count = 0; count < n_steps; ++count) {
//     new_k = update_k(values)  (each converted to carried value k's dtype)
//     stop = until(values)      (a while loop)
//     values = new
//     if (stop) break;
//   }
//
// runs there, its steps the same scalar kernels as a Composite's
// (ElementKernel), then the results are stored. prepare() made the outputs
// and checked n_steps. LLVM does not vectorize a loop holding a loop of
// unknown trip count, so exp and log stay libm's, as in PyTensor's C code:
// these series stop on thresholds, where another exp's last bit would
// change the number of terms summed.
//
//===----------------------------------------------------------------------===//

#include "ElemwiseLoweringKernel.h"
#include "StructuralLoweringUtil.h"
#include "ops/elemwise/ScalarLoopOp.h"
#include "llvm/IR/Function.h"

using namespace graphjit;
using namespace llvm;

namespace {

/// Input V's byte strides over the output's dims Dims: its dims aligned to
/// the right, 0 where it is broadcast (a dim of 1, or one it lacks).
SmallVector<Value *, 8> broadcastStridesOver(ThunkEmitter &E,
                                             const ArrayValues &V,
                                             ArrayRef<Value *> Dims) {
  const unsigned Rank = Dims.size(), Own = V.Dims.size();
  SmallVector<Value *, 8> S(Rank - Own, E.constI64(0));
  for (unsigned I = 0; I < Own; ++I)
    S.push_back(E.B.CreateSelect(E.B.CreateICmpEQ(V.Dims[I], E.constI64(1)),
                                 E.constI64(0), V.Strides[I]));
  return S;
}

/// Program P's value from the loop values Vals (registers, in their own
/// dtypes), converted to T.
Value *runProgram(ThunkEmitter &E, const LoopProgram &P,
                  ArrayRef<Value *> Vals, ArrayRef<DType> ValTypes, DType T) {
  SmallVector<DType, 8> InTypes;
  SmallVector<Value *, 8> Args;
  for (unsigned V : P.Reads) {
    InTypes.push_back(ValTypes[V]);
    Args.push_back(Vals[V]);
  }
  // inferTypes checked these dtypes.
  ElementKernel K = cantFail(ElementKernel::get(*P.Elemwise, InTypes));
  return E.convert(K.compute(E, Args), K.outputType(), T);
}

Error emitScalarLoop(ThunkEmitter &E) {
  const Apply &N = E.Node;
  const auto &Op = cast<ScalarLoopOp>(N.op());
  IRBuilder<> &B = E.B;
  const unsigned NumVals = Op.numCarried() + Op.numConstants();
  ArrayValues Out0 = loadArray(E, N.output(0));
  SmallVector<Value *, 16> Bases;
  SmallVector<SmallVector<Value *, 8>, 16> Strides;
  SmallVector<DType, 16> Types;
  for (const Variable *In : N.inputs()) {
    ArrayValues A = loadArray(E, In);
    Bases.push_back(A.Data);
    Strides.push_back(broadcastStridesOver(E, A, Out0.Dims));
    Types.push_back(In->type().Dtype);
  }
  for (const Variable *Out : N.outputs()) {
    ArrayValues A = loadArray(E, Out);
    Bases.push_back(A.Data);
    Strides.push_back(A.Strides);
  }
  ArrayRef<DType> ValTypes = ArrayRef(Types).drop_front();
  const unsigned FirstOut = N.inputs().size();

  // The loop's registers cross blocks through allocas (SROA makes them
  // registers again).
  SmallVector<AllocaInst *, 8> Carried;
  for (unsigned K = 0; K < Op.numCarried(); ++K)
    Carried.push_back(
        entryAlloca(E, E.valueType(ValTypes[K]), "carried" + Twine(K)));
  AllocaInst *Count = entryAlloca(E, E.i64(), "count");
  AllocaInst *Stop = entryAlloca(E, B.getInt1Ty(), "stop");

  emitStridedNest(E, Out0.Dims, Bases, Strides, [&](ArrayRef<Value *> P) {
    llvm::Function *F = B.GetInsertBlock()->getParent();
    SmallVector<Value *, 16> Constants;
    for (unsigned V = 0; V < NumVals; ++V) {
      Value *X = E.loadElement(ValTypes[V], P[1 + V]);
      if (V < Op.numCarried())
        B.CreateStore(X, Carried[V]);
      else
        Constants.push_back(X);
    }
    Value *Steps = E.convert(E.loadElement(Types[0], P[0]), Types[0],
                             DType::I64);
    // A planned thunk checks what prepare() would have (gj_fail asks it for
    // the words).
    if (E.FailBlock && !Op.until())
      E.failUnless(B.CreateICmpSGE(Steps, E.constI64(0)), "steps");
    B.CreateStore(E.constI64(0), Count);
    B.CreateStore(B.getFalse(), Stop);
    BasicBlock *Head = BasicBlock::Create(E.ctx(), "loop.head", F);
    BasicBlock *Step = BasicBlock::Create(E.ctx(), "loop.step", F);
    BasicBlock *Done = BasicBlock::Create(E.ctx(), "loop.done", F);
    B.CreateBr(Head);

    B.SetInsertPoint(Head);
    Value *C = B.CreateLoad(E.i64(), Count);
    B.CreateCondBr(B.CreateICmpSLT(C, Steps), Step, Done);

    B.SetInsertPoint(Step);
    SmallVector<Value *, 16> Vals;
    for (unsigned K = 0; K < Op.numCarried(); ++K)
      Vals.push_back(B.CreateLoad(E.valueType(ValTypes[K]), Carried[K]));
    Vals.append(Constants.begin(), Constants.end());
    SmallVector<Value *, 8> New;
    for (unsigned K = 0; K < Op.numCarried(); ++K)
      New.push_back(
          runProgram(E, Op.updates()[K], Vals, ValTypes, ValTypes[K]));
    Value *Until = Op.until() ? runProgram(E, *Op.until(), Vals, ValTypes,
                                           DType::Bool)
                              : nullptr;
    for (unsigned K = 0; K < Op.numCarried(); ++K)
      B.CreateStore(New[K], Carried[K]);
    B.CreateStore(B.CreateAdd(C, E.constI64(1)), Count);
    if (Until) {
      B.CreateStore(Until, Stop);
      B.CreateCondBr(Until, Done, Head);
    } else {
      B.CreateBr(Head);
    }

    B.SetInsertPoint(Done);
    for (unsigned K = 0; K < Op.numCarried(); ++K)
      E.storeElement(ValTypes[K],
                     B.CreateLoad(E.valueType(ValTypes[K]), Carried[K]),
                     P[FirstOut + K]);
    if (Op.until())
      E.storeElement(DType::Bool, B.CreateLoad(B.getInt1Ty(), Stop),
                     P[FirstOut + Op.numCarried()]);
  });
  return Error::success();
}

// Every output at the inputs' broadcast shape.
void emitScalarLoopDims(ThunkEmitter &E, OutputDims &Dims) {
  emitBroadcastDims(E, Dims[0]);
  for (unsigned K = 1; K < Dims.size(); ++K)
    Dims[K] = Dims[0];
}

} // namespace

void graphjit::registerScalarLoopLowering() {
  Lowering L{/*NeedsPrepare=*/true, emitScalarLoop, nullptr};
  L.EmitOutputDims = emitScalarLoopDims;
  registerLowering(OpKind::ScalarLoop, L);
}
