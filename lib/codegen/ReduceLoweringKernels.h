//===- ReduceLoweringKernels.h - Row kernels of reductions ------*- C++ -*-===//
//
// Functions the reduction and softmax lowerings add to a JIT module (once per
// module and dtype) and call once per row: NumPy's pairwise sum, the other
// folds (integer sums, products, all, any), the extreme of a row, and the
// first position of a value. Thunks stay small: a loop nest and calls. Rows are
// strided (byte strides); blocks of 8 elements are vectors, read with one load
// when the row is contiguous and gathered otherwise, because LLVM's vectorizer
// does not take these loops on its own: float sums and float min/max are
// not reassociable without fast-math flags.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_REDUCELOWERINGKERNELS_H
#define GRAPHJIT_OPS_REDUCELOWERINGKERNELS_H

#include "codegen/ThunkEmitter.h"

namespace graphjit {

/// The declaration of `Acc gj_pairwise_sum_<acc>_<elem>(ptr P, i64 Stride,
/// i64 N)`: the reference's own pairwiseSum<Acc, Elem> (NumPy's pairwise
/// summation), precompiled and bound by graphjit::initialize(), so results
/// agree to the bit. Acc is f32 or f64; Elem is any dtype (converted as
/// static_cast does).
llvm::Function *pairwiseSumFunction(ThunkEmitter &E, DType Acc, DType Elem);

/// The declaration of `void gj_pairwise_sum_cols_<acc>_<elem>(ptr First,
/// i64 RowStride, i64 N, i64 Cols, ptr Out)`: for Cols adjacent columns
/// (elements next to one another), each column's pairwise sum over N rows,
/// to the bit what pairwiseSumFunction's gives for it, into Cols
/// contiguous Accs; precompiled, computed a vector of columns at a time.
llvm::Function *pairwiseColumnsFunction(ThunkEmitter &E, DType Acc,
                                        DType Elem);

/// The reductions a row kernel folds element by element.
enum class RowFold { Sum, Prod, All, Any };

/// The accumulator dtype of fold K over elements of T: i64 for integer and
/// bool sums and products (wrapping, as the reference's uint64), T for float
/// products, bool for all and any. (Float sums are pairwise instead.)
DType rowFoldAccType(RowFold K, DType T);

/// `Acc gj_row_<sum|prod|all|any>_<T>(ptr P, i64 Stride, i64 N, Acc A)`:
/// A folded with the row's elements in order (all, any: as != 0, so a NaN
/// is true). Integer folds and all/any vectorize on contiguous rows.
llvm::Function *rowFoldFunction(ThunkEmitter &E, RowFold K, DType T);

/// `{T, i1} gj_row_{max,min}_<T>(ptr P, i64 Stride, i64 N)`: the greatest
/// (IsMax) or least element of a row among those that are not NaN (the
/// identity, -inf or the type's minimum for max, if there are none) and
/// whether the row holds a NaN. Which of -0.0 and 0.0 it returns is
/// unspecified. T is not bool (read bools as u8).
llvm::Function *rowExtremeFunction(ThunkEmitter &E, DType T, bool IsMax);

/// `i64 gj_row_find_<T>(ptr P, i64 Stride, i64 N, T V, i1 NaN)`: the first
/// I < N whose element is a NaN (NaN set) or equals V (-0.0 equals 0.0),
/// or N. T is not bool.
llvm::Function *rowFindFunction(ThunkEmitter &E, DType T);

/// Whether V beats Acc as a maximum (IsMax) or minimum of dtype T (not
/// bool): an ordered compare, false if either is NaN. Scalars or vectors.
llvm::Value *emitBeats(llvm::IRBuilder<> &B, llvm::Value *V, llvm::Value *Acc,
                       DType T, bool IsMax);

/// Emits the value the reference's running maximum (IsMax) or minimum of a
/// non-empty row of dtype T ends with (the first NaN if there is one, else
/// the first element equal to the extreme), as a register value of T.
llvm::Value *emitRowExtreme(ThunkEmitter &E, DType T, bool IsMax,
                            llvm::Value *Row, llvm::Value *Stride,
                            llvm::Value *N);

} // namespace graphjit

#endif
