//===- PairwiseSumKernels.cpp - Float sums for JIT code -------------------===//
//
// gj_pairwise_sum_<acc>_<elem>(row, byte stride, n): the row's pairwise
// sum in Acc, which JIT code calls for every float Sum and Mean row
// (ReduceLoweringKernels.h); gj_pairwise_sum_cols_<acc>_<elem>(first,
// row stride, n, cols, out): the same for adjacent columns at once, the
// sums over a leading axis (a bias's gradient). Compiled here once rather
// than in every module: as IR, the row sum took a fifth of a small
// function's compile time. On x86-64 each has an AVX2 clone, picked at
// load time.
//
//===----------------------------------------------------------------------===//
#include "ops/reduction/PairwiseSum.h"
#include "ops/reduction/PairwiseSumKernels.h"
#include <algorithm>

using namespace graphjit;

#if defined(__x86_64__) && defined(__GNUC__)
#define GJ_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GJ_VECTOR_CLONES
#endif

// Everything inlines into each clone but the halves (PairwiseSum.h), which
// recurse through the cloned function itself, so that they run its clone
// too.
#define GJ_PAIRWISE_SUM(AccName, Acc, ElemName, Elem)                          \
  extern "C" GJ_VECTOR_CLONES Acc gj_pairwise_sum_##AccName##_##ElemName(      \
      const char *P, int64_t Stride, int64_t N) {                              \
    if (N <= 128)                                                              \
      return pairwiseRowBlock<Acc, Elem>(P, Stride, N);                        \
    int64_t N2 = pairwiseSplit(N);                                             \
    return gj_pairwise_sum_##AccName##_##ElemName(P, Stride, N2) +             \
           gj_pairwise_sum_##AccName##_##ElemName(P + N2 * Stride, Stride,     \
                                                  N - N2);                     \
  }

// Column sums: the halves of the rows into Out and, a stretch of columns
// at a time, into a buffer added to Out; each sum then added to 0, as the
// reductions add their rows' sums to a total that starts at 0 (so a sum
// of -0.0s is 0.0 in both linkers).
#define GJ_PAIRWISE_COLUMNS(AccName, Acc, ElemName, Elem)                      \
  static GJ_VECTOR_CLONES void columns_##AccName##_##ElemName(                 \
      const char *P, int64_t RowStride, int64_t N, int64_t Cols, Acc *Out) {   \
    if (N <= 128)                                                              \
      return pairwiseColumnsBlock<Acc, Elem>(P, RowStride, N, Cols, Out);      \
    int64_t N2 = pairwiseSplit(N);                                             \
    columns_##AccName##_##ElemName(P, RowStride, N2, Cols, Out);               \
    constexpr int64_t Stretch = 64;                                            \
    Acc Hi[Stretch];                                                           \
    for (int64_t J = 0; J < Cols; J += Stretch) {                              \
      int64_t C = std::min(Stretch, Cols - J);                                 \
      columns_##AccName##_##ElemName(                                          \
          P + N2 * RowStride + J * sizeof(StoredAs<Elem>), RowStride, N - N2,  \
          C, Hi);                                                              \
      for (int64_t K = 0; K < C; ++K)                                          \
        Out[J + K] += Hi[K];                                                   \
    }                                                                          \
  }                                                                            \
  extern "C" void gj_pairwise_sum_cols_##AccName##_##ElemName(                 \
      const char *P, int64_t RowStride, int64_t N, int64_t Cols, Acc *Out) {   \
    columns_##AccName##_##ElemName(P, RowStride, N, Cols, Out);                \
    for (int64_t J = 0; J < Cols; ++J)                                         \
      Out[J] = Acc(0) + Out[J];                                                \
  }

#define GJ_BOTH(AccName, Acc, ElemName, Elem)                                  \
  GJ_PAIRWISE_SUM(AccName, Acc, ElemName, Elem)                                \
  GJ_PAIRWISE_COLUMNS(AccName, Acc, ElemName, Elem)

#define GJ_PAIRWISE_SUMS_INTO(AccName, Acc)                                    \
  GJ_BOTH(AccName, Acc, bool, bool)                                            \
  GJ_BOTH(AccName, Acc, i8, int8_t)                                            \
  GJ_BOTH(AccName, Acc, i16, int16_t)                                          \
  GJ_BOTH(AccName, Acc, i32, int32_t)                                          \
  GJ_BOTH(AccName, Acc, i64, int64_t)                                          \
  GJ_BOTH(AccName, Acc, u8, uint8_t)                                           \
  GJ_BOTH(AccName, Acc, f32, float)                                            \
  GJ_BOTH(AccName, Acc, f64, double)

GJ_PAIRWISE_SUMS_INTO(f32, float)
GJ_PAIRWISE_SUMS_INTO(f64, double)

#define GJ_SYMBOL(AccName, ElemName)                                           \
  {"gj_pairwise_sum_" #AccName "_" #ElemName,                                  \
   reinterpret_cast<void *>(&gj_pairwise_sum_##AccName##_##ElemName)},         \
      {"gj_pairwise_sum_cols_" #AccName "_" #ElemName,                         \
       reinterpret_cast<void *>(&gj_pairwise_sum_cols_##AccName##_##ElemName)}
#define GJ_SYMBOLS_INTO(AccName)                                               \
  GJ_SYMBOL(AccName, bool), GJ_SYMBOL(AccName, i8), GJ_SYMBOL(AccName, i16),   \
      GJ_SYMBOL(AccName, i32), GJ_SYMBOL(AccName, i64),                        \
      GJ_SYMBOL(AccName, u8), GJ_SYMBOL(AccName, f32), GJ_SYMBOL(AccName, f64)

llvm::ArrayRef<RuntimeSymbol> graphjit::pairwiseSumSymbols() {
  static const RuntimeSymbol Symbols[] = {GJ_SYMBOLS_INTO(f32),
                                          GJ_SYMBOLS_INTO(f64)};
  return Symbols;
}
