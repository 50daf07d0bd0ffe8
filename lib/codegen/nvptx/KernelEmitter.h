//===- KernelEmitter.h - Shared by the GPU kernel emitters -----*- C++ -*-===//
//
// emitKernels (KernelEmitter.cpp) gives every spec one work item's code as
// an internal, always-inline function `void NAME.item(i64 Item, i64 a0,
// ..., i64 aK)` taking the kernel's arguments as values, and wraps it in
// the target's entry point, which runs it for every work item. Passing the
// arguments as values, not as the array the host entry gets, means the
// NVPTX kernel reads its parameters directly once the item is inlined: no
// local-memory copy to optimize away. Each kind's item is written by its
// own file against KernelItem, the arguments seen through the ABI of
// KernelSpec.h.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_GPU_KERNELEMITTER_H
#define GRAPHJIT_GPU_KERNELEMITTER_H

#include "KernelSpec.h"
#include "codegen/ThunkEmitter.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Target/TargetMachine.h"

namespace graphjit {

/// A kernel's arguments (values of i64) read through the kernel ABI.
class KernelArgs {
public:
  KernelArgs(const KernelSpec &S, llvm::ArrayRef<llvm::Value *> Args)
      : Spec(S), Args(Args.begin(), Args.end()) {}

  const KernelSpec &Spec;
  llvm::Value *workItems() const { return Args[0]; }
  llvm::Value *dim(unsigned D) const { return Args[1 + D]; }
  /// Operand K's address (as a pointer) and its byte stride along dim D.
  llvm::Value *base(llvm::IRBuilder<> &B, unsigned K) const;
  llvm::Value *stride(unsigned K, unsigned D) const {
    return Args[firstOf(K) + 1 + D];
  }
  /// Whether operand K is C-contiguous over the iteration space, or
  /// broadcast over all of it (stride 0 wherever a dim is not 1).
  llvm::Value *isContiguous(llvm::IRBuilder<> &B, unsigned K) const;
  llvm::Value *isBroadcast(llvm::IRBuilder<> &B, unsigned K) const;

private:
  llvm::SmallVector<llvm::Value *, 16> Args;
  unsigned firstOf(unsigned K) const {
    return 1 + Spec.Rank + K * (1 + Spec.Rank);
  }
};

/// One work item's function being written.
class KernelItem {
public:
  KernelItem(ThunkEmitter &E, const KernelSpec &S, llvm::Function *F,
             bool Flat);

  ThunkEmitter &E;
  llvm::IRBuilder<> &B;
  const KernelSpec &Spec;
  KernelArgs Args;
  /// The entry found every operand contiguous or broadcast (Elemwise and
  /// Fill): operand K's element is at base + Item * (0 or its size).
  const bool Flat;
  llvm::Value *item() const { return Item; }

  /// Item's indices along Dims (iteration-space dims, outermost first):
  /// Item is the C-order position among those dims only.
  llvm::SmallVector<llvm::Value *, 8> unravel(llvm::ArrayRef<unsigned> Dims);
  /// Operand K's address at the indices Index along Dims (0 along the
  /// others).
  llvm::Value *address(unsigned K, llvm::ArrayRef<unsigned> Dims,
                       llvm::ArrayRef<llvm::Value *> Index);
  /// Operand K's element for an item that is an element of the whole
  /// iteration space (Elemwise, Fill): flat, or unravelled once.
  llvm::Value *elementAddress(unsigned K);
  /// Operand K's byte strides along Dims.
  llvm::SmallVector<llvm::Value *, 8> strides(unsigned K,
                                              llvm::ArrayRef<unsigned> Dims);
  /// The dims (iteration-space dims) where Keep(D) holds.
  llvm::SmallVector<unsigned, 8>
  dimsWhere(llvm::function_ref<bool(unsigned)> Keep) const;

private:
  llvm::Value *Item;
  llvm::SmallVector<llvm::Value *, 8> Index; ///< elementAddress's, cached.
};

/// Each kind's work item (ElemwiseKernel.cpp, ReduceKernel.cpp,
/// SoftmaxKernel.cpp); errors name what does not fit the spec.
llvm::Error emitElemwiseItem(KernelItem &K);
llvm::Error emitFillItem(KernelItem &K);
llvm::Error emitReduceItem(KernelItem &K);
llvm::Error emitSoftmaxItem(KernelItem &K);

/// The NVPTX target machine for Arch (PtxCompiler.cpp), which also gives
/// emitKernels the data layout of its modules.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createNvptxTargetMachine(llvm::StringRef Arch);

/// Rewrites M's math into calls of libdevice's `__nv_*` functions and
/// links those in (Libdevice.cpp). Errors: libdevice unreadable, or math
/// with neither a native NVPTX lowering nor a libdevice function.
llvm::Error linkLibdevice(llvm::Module &M);

} // namespace graphjit

#endif
