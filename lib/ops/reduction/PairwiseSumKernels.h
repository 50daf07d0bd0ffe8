//===- PairwiseSumKernels.h - Float sums for JIT code -----------*- C++ -*-===//
//
// The exported pairwise sums, gj_pairwise_sum_<acc>_<elem> for acc f32 and
// f64 and every element dtype: `Acc (const char *Row, int64_t ByteStride,
// int64_t N)`, and gj_pairwise_sum_cols_<acc>_<elem>, `void (const char
// *First, int64_t RowStride, int64_t N, int64_t Cols, Acc *Out)`, each
// column's sum into Out. Bound in the JIT by graphjit::initialize().
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_PAIRWISESUMKERNELS_H
#define GRAPHJIT_OPS_PAIRWISESUMKERNELS_H

#include "runtime/ProfileRuntime.h"
#include "llvm/ADT/ArrayRef.h"

namespace graphjit {

/// Name and address of each exported pairwise sum.
llvm::ArrayRef<RuntimeSymbol> pairwiseSumSymbols();

} // namespace graphjit

#endif
