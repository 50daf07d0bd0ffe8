//===- ops/PairwiseSumKernels.cpp - Float sums for JIT code ---------------===//
//
// gj_pairwise_sum_<acc>_<elem>(row, byte stride, n): the row's pairwise
// sum in Acc, which JIT code calls for every float Sum and Mean row
// (ReduceLoweringKernels.h); gj_pairwise_sum_cols_<acc>_<elem>(first,
// row stride, n, cols, out): the same for adjacent columns at once, the
// sums over a leading axis (a bias's gradient). Compiled here once rather than in every
// module: as IR, this one helper took a fifth of a small function's
// compile time. On x86-64 each has an AVX2 clone, picked at load time.
//
//===----------------------------------------------------------------------===//
#include "PairwiseSum.h"
#include "ops/PairwiseSumKernels.h"

using namespace graphjit;

#if defined(__x86_64__) && defined(__GNUC__)
#define GJ_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GJ_VECTOR_CLONES
#endif

// The halves recurse through the exported function, so that they run its
// clone too.
#define GJ_PAIRWISE_SUM(AccName, Acc, ElemName, Elem)                          \
  extern "C" GJ_VECTOR_CLONES Acc gj_pairwise_sum_##AccName##_##ElemName(      \
      const char *P, int64_t Stride, int64_t N) {                              \
    if (N <= 128)                                                              \
      return pairwiseBlocks<Acc, Elem>(P, Stride, N);                          \
    int64_t N2 = pairwiseSplit(N);                                             \
    return gj_pairwise_sum_##AccName##_##ElemName(P, Stride, N2) +             \
           gj_pairwise_sum_##AccName##_##ElemName(P + N2 * Stride, Stride,     \
                                                  N - N2);                     \
  }

// Column sums (PairwiseColumns): Out gets Cols contiguous sums.
#define GJ_PAIRWISE_COLUMNS(AccName, Acc, ElemName, Elem)                      \
  extern "C" GJ_VECTOR_CLONES void                                             \
      gj_pairwise_sum_cols_##AccName##_##ElemName(                             \
          const char *P, int64_t RowStride, int64_t N, int64_t Cols,          \
          Acc *Out) {                                                          \
    PairwiseColumns<Acc, Elem>(RowStride).run(P, N, Cols, Out);                \
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
