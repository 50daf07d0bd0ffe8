//===- StructuralLoweringUtil.h - IR helpers of the lowerings ---*- C++ -*-===//
//
// What the JIT lowerings of the shape, indexing, reduction and nn families
// share on top of ThunkEmitter: slot fields read once per thunk, pointers
// advanced by byte strides, loops over rows that take a contiguous fast path
// LLVM can vectorize, broadcast copies and fills, and the run-time merging
// of the dims a reduction walks.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_STRUCTURALLOWERINGUTIL_H
#define GRAPHJIT_OPS_STRUCTURALLOWERINGUTIL_H

#include "codegen/ThunkEmitter.h"
#include "llvm/ADT/SmallVector.h"

namespace graphjit {

/// A variable's data pointer, dims and byte strides, read from its slot
/// once at the top of the thunk's body: inside loops the slot loads could
/// not be hoisted past stores to arrays, as any pointer may alias them.
struct ArrayValues {
  llvm::Value *Data = nullptr;
  llvm::SmallVector<llvm::Value *, 8> Dims, Strides;
};
ArrayValues loadArray(ThunkEmitter &E, const Variable *V);

/// Base + sum of Index[I] * Strides[I] bytes.
llvm::Value *advance(ThunkEmitter &E, llvm::Value *Base,
                     llvm::ArrayRef<llvm::Value *> Index,
                     llvm::ArrayRef<llvm::Value *> Strides);

/// An alloca in the entry block of the function being emitted, which SROA
/// turns into registers: how loop-carried values cross emitLoop's bodies.
llvm::AllocaInst *entryAlloca(ThunkEmitter &E, llvm::Type *T,
                              const llvm::Twine &Name);

/// Continues where Ok holds; elsewhere (block Bad) the thunk returns
/// gj_compute's code (compute() redoes the Apply and words its error, as
/// NumPy does).
void computeUnless(ThunkEmitter &E, llvm::Value *Ok,
                   const llvm::Twine &Bad = "to.compute",
                   const llvm::Twine &Good = "checked");
/// Index V (an i64) checked to lie in [-Len, Len) (else computeUnless's
/// path: NumPy's IndexError), as a position from 0.
llvm::Value *checkedIndex(ThunkEmitter &E, llvm::Value *V, llvm::Value *Len);
/// Emits `if (Cond) Then();`, leaving the builder after it.
void emitIf(ThunkEmitter &E, llvm::Value *Cond,
            llvm::function_ref<void()> Then);
/// Emits `if (Cond) Then(); else Else();` in blocks Name.then, Name.else
/// and Name.join, leaving the builder at the join.
void emitIfElse(ThunkEmitter &E, llvm::Value *Cond, const llvm::Twine &Name,
                llvm::function_ref<void()> Then,
                llvm::function_ref<void()> Else);

/// One operand of a row: its first element and byte stride.
struct RowOperand {
  llvm::Value *Base;
  llvm::Value *Stride;
  DType T;
};

/// Emits `for (I = 0; I < Count; ++I) Body(I, Ptrs)`, where Ptrs[K] points
/// at operand K's element I. With Versioned, the body is emitted twice
/// behind a test: for rows whose operands are all contiguous, with typed
/// GEPs that LLVM's vectorizer can read, and for any strides. The strided
/// loop is marked not to be vectorized: byte strides known only at run time
/// would only buy a vector copy guarded by a test that never holds.
void emitRowLoop(
    ThunkEmitter &E, llvm::Value *Count, llvm::ArrayRef<RowOperand> Ops,
    llvm::function_ref<void(llvm::Value *I, llvm::ArrayRef<llvm::Value *>)>
        Body,
    bool Versioned = true);

/// Loops over Extents (outermost first) with one pointer per operand, each
/// advanced by its own byte strides (one per extent); Body gets the
/// pointers. No extents: Body runs once on the bases.
void emitStridedNest(
    ThunkEmitter &E, llvm::ArrayRef<llvm::Value *> Extents,
    llvm::ArrayRef<llvm::Value *> Bases,
    llvm::ArrayRef<llvm::SmallVector<llvm::Value *, 8>> Strides,
    llvm::function_ref<void(llvm::ArrayRef<llvm::Value *>)> Body);

/// Rows (last dims) shorter than this, of more rows, are walked down
/// their columns by emitCopy and emitFill.
inline constexpr int64_t ShortCopyRow = 4;

/// Copies Src into Dst over a walk of Dims, converting SrcT to DstT as
/// NumPy's astype does. Strides are bytes per dim (0: broadcast).
void emitCopy(ThunkEmitter &E, llvm::ArrayRef<llvm::Value *> Dims,
              llvm::Value *Dst, llvm::ArrayRef<llvm::Value *> DstStrides,
              DType DstT, llvm::Value *Src,
              llvm::ArrayRef<llvm::Value *> SrcStrides, DType SrcT);

/// The check NumPy's broadcasting makes of V against the shape To (V's
/// rank at most To's): each of V's dims, aligned to the right, is 1 or
/// To's; through E.failUnless (planned thunks). Dims V's type knows to fit
/// are not checked.
void failUnlessBroadcasts(ThunkEmitter &E, const Variable *V,
                          llvm::ArrayRef<llvm::Value *> To);

/// The broadcast of the Apply's inputs' dims by NumPy's rules into Out (the
/// first output's rank), checked through E.failUnless (planned thunks), as
/// Elemwise::prepare makes them.
void emitBroadcastDims(ThunkEmitter &E, llvm::SmallVectorImpl<llvm::Value *> &Out);
/// Stores the register value V (of dtype T) in every element of Dst.
void emitFill(ThunkEmitter &E, llvm::ArrayRef<llvm::Value *> Dims,
              llvm::Value *Dst, llvm::ArrayRef<llvm::Value *> DstStrides,
              DType T, llvm::Value *V);

/// Replaces the dims and strides of a C-order walk by the ones
/// ReduceSupport's coalesce() makes at run time: dims of size 1 dropped,
/// neighbours that one stride walks through merged. The result keeps one
/// entry per dim (at least one), right-aligned; unused leading entries are
/// size 1. The last entry is the row, so rows are the reference's rows.
void coalesceDims(ThunkEmitter &E, llvm::SmallVectorImpl<llvm::Value *> &Dims,
                  llvm::SmallVectorImpl<llvm::Value *> &Strides);

/// Each family's lowerings (called by registerStructuralLowerings).
void registerShapeLowerings();
void registerReduceLowerings();
void registerSoftmaxLowerings();
void registerGatherLowerings();
void registerCumulativeLowerings();
void registerLapackLowerings();
void registerScalarLoopLowering();
void registerArrayFnLowering();

/// `rc = gj_compute(frame, id); if (rc) return rc;`: the thunk of the ops
/// whose library code fills their outputs.
llvm::Error emitComputeCall(ThunkEmitter &E);
/// Copies the Apply's first input, broadcast by NumPy's rules, into its
/// output (alloc, alloc_to).
void emitBroadcastCopy(ThunkEmitter &E);
/// The array functions that run as loops with planned outputs, their
/// output dims, and their loops: diagonal and alloc_diag of a matrix
/// (DiagonalLowering.cpp), and the gather and scatter of integer arrays on
/// the leading axes (AdvancedIndexLowering.cpp).
bool plansDiagonal(const Apply &N);
void emitPlannedDiagonalDims(ThunkEmitter &E, OutputDims &Dims);
llvm::Error emitPlannedDiagonal(ThunkEmitter &E);
bool plansAdvancedIndex(const Apply &N);
void emitPlannedAdvancedIndexDims(ThunkEmitter &E, OutputDims &Dims);
llvm::Error emitPlannedAdvancedIndex(ThunkEmitter &E);

} // namespace graphjit

#endif
