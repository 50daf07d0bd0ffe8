//===- ArrayFnOps.h - Array functions with run-time shapes ------*- C++ -*-===//
//
// Declares ArrayFnOp (OpKind::ArrayFn): NumPy array functions whose output
// shape follows from input values, or that are a loop too plain for IR of
// their own: alloc_to (np.broadcast_to into a new array, the dims given as
// 0-d inputs), arange, copy, diagonal, alloc_diag, sort, argsort,
// pivot_to_permutation, and NumPy's integer-array indexing both ways. The JIT runs them as it runs dot: prepare() makes
// the output, compute() fills it (ArrayFnOps.cpp says what each computes).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_ARRAYFNOPS_H
#define GRAPHJIT_OPS_ARRAYFNOPS_H

#include "ops/ComputedOp.h"
#include "llvm/Support/Casting.h"
#include <optional>
#include <vector>

namespace graphjit {

enum class ArrayFn : uint8_t {
  AllocTo,            ///< alloc_to(v, d0, d1, ...): v broadcast to (d0, d1, ...)
  Arange,             ///< arange(start, stop, step, dtype=i64)
  Copy,               ///< copy(x): a new C-contiguous array
  Diagonal,           ///< diagonal(x, offset=0, axis1=0, axis2=1), a copy
  AllocDiag,          ///< alloc_diag(v, offset=0, axis1=0, axis2=1)
  Sort,               ///< sort(x, axis=-1); no axis: the flattened array
  Argsort,            ///< argsort(x, axis=-1), i64
  PivotToPermutation, ///< LAPACK's row swaps as a permutation (i64)
  AdvancedSubtensor,  ///< x[i0, :, i1] (AdvancedIndexing.h)
  AdvancedIncSubtensor, ///< x with y added (or set) at x[i0, :, i1]
  Nonzero,            ///< nonzero(mask, x, axis=a): mask.nonzero(), one
                      ///< i64 vector per dim of the mask
  ReshapeTo,          ///< reshape_to(x, shape, ndim=k): np.reshape to a
                      ///< shape vector known at run time
  SplitBy,            ///< split_by(x, sizes, axis=a, n=k): np.split into
                      ///< pieces of sizes known at run time
  Repeat,             ///< repeat(x, repeats, axis=a): np.repeat
  BlockDiag,          ///< block_diag(a, b, ...): scipy.linalg.block_diag
};

struct ArrayFnParams {
  ArrayFn Fn = ArrayFn::Copy;
  DType Dtype = DType::I64;     ///< arange's
  int64_t Offset = 0;           ///< diagonal's, alloc_diag's
  int64_t Axis1 = 0, Axis2 = 1; ///< diagonal's, alloc_diag's
  std::optional<int64_t> Axis;  ///< sort's, argsort's (none: flattened)
  bool Inverse = false;         ///< pivot_to_permutation's
  std::vector<int64_t> Pattern; ///< the advanced indexing's
  unsigned MaskRank = 1;        ///< nonzero's outputs, reshape_to's rank,
                                ///< split_by's pieces
  bool Set = false;             ///< advanced_inc_subtensor's
};

class ArrayFnOp final : public ComputedOp {
public:
  ArrayFnOp(llvm::StringRef FormatName, AttrMap Attrs, ArrayFnParams P)
      : ComputedOp(FormatName.str(), std::move(Attrs), OpKind::ArrayFn),
        P(P) {}

  static bool classof(const Op *O) { return O->kind() == OpKind::ArrayFn; }

  std::string name() const override;
  llvm::StringRef className() const override;
  unsigned numOutputs() const override;

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  llvm::Error compute(llvm::ArrayRef<NDArray> In, llvm::ArrayRef<NDArray> Out,
                      const ExecContext &) const override;

  double flops(llvm::ArrayRef<Shape>, llvm::ArrayRef<Shape>) const override {
    return 0;
  }

  const ArrayFnParams &params() const { return P; }

private:
  ArrayFnParams P;
};

/// The parameters of O, an ArrayFnOp.
inline const ArrayFnParams &arrayFnParams(const Op &O) {
  return llvm::cast<ArrayFnOp>(O).params();
}

/// The graph format's name of F: "alloc_to", "arange", ...
llvm::StringRef arrayFnFormatName(ArrayFn F);

} // namespace graphjit

#endif
