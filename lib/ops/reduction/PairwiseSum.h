//===- PairwiseSum.h - NumPy's pairwise summation ---------------*- C++ -*-===//
//
// The one implementation of float sums: perform() calls it, and JIT code
// calls its exported instances (PairwiseSumKernels.cpp), so that both
// linkers add in the same order, NumPy's. One algorithm serves a row (its
// values scalars) and adjacent columns (its values vectors of them, summed
// lane by lane): pairwiseBlock sums up to 128 values, and longer runs are
// cut in halves at pairwiseSplit.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_PAIRWISESUM_H
#define GRAPHJIT_OPS_PAIRWISESUM_H

#include "ops/reduction/ReduceSupport.h"
#include <cstdint>
#include <cstring>
#include <type_traits>

// Inlined into the callers' target clones (PairwiseSumKernels.cpp): a
// function that is called runs the default target's code.
#define GJ_ALWAYS_INLINE inline __attribute__((always_inline))

namespace graphjit {

/// How an element of T is stored: bools as bytes of 0 or 1.
template <typename T>
using StoredAs = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

/// Values [First, First + N) for N <= 128, Load(I, X) giving value I
/// converted: exact below 8, else 8 accumulators over whole blocks of 8,
/// combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the rest. V is a
/// scalar, or a vector of columns (results are out-parameters: a vector
/// returned by value has an ABI of its own per target).
template <typename V, typename LoadFn>
GJ_ALWAYS_INLINE void pairwiseBlock(int64_t First, int64_t N,
                                    const LoadFn &Load, V &Res) {
  V X;
  if (N < 8) {
    Res = V{};
    for (int64_t I = 0; I < N; ++I) {
      Load(First + I, X);
      Res += X;
    }
    return;
  }
  V R[8];
  for (int J = 0; J < 8; ++J)
    Load(First + J, R[J]);
  int64_t I = 8;
  for (; I < N - N % 8; I += 8)
    for (int J = 0; J < 8; ++J) {
      Load(First + I + J, X);
      R[J] += X;
    }
  Res = ((R[0] + R[1]) + (R[2] + R[3])) + ((R[4] + R[5]) + (R[6] + R[7]));
  for (; I < N; ++I) {
    Load(First + I, X);
    Res += X;
  }
}

/// The first half of a run longer than 128: a multiple of 8 long.
inline int64_t pairwiseSplit(int64_t N) {
  int64_t N2 = N / 2;
  return N2 - N2 % 8;
}

/// A contiguous row of at most 128, as pairwiseBlock sums it, the 8
/// accumulators two vectors of 4 (wider ones than the target's registers
/// were kept in memory by GCC), so that each block is two loads,
/// conversions and adds whatever the compiler's cost model says.
template <typename Acc, typename T>
GJ_ALWAYS_INLINE Acc pairwiseBlockContiguous(const char *P, int64_t N) {
  using Stored = StoredAs<T>;
  typedef Stored Half __attribute__((vector_size(4 * sizeof(Stored))));
  typedef Acc Sums __attribute__((vector_size(4 * sizeof(Acc))));
  auto Load = [P](int64_t I, Sums &S) {
    Half H;
    std::memcpy(&H, P + I * sizeof(Stored), sizeof(H));
    S = __builtin_convertvector(H, Sums);
  };
  Sums Lo, Hi, Lo2, Hi2;
  Load(0, Lo);
  Load(4, Hi);
  int64_t I = 8;
  for (; I < N - N % 8; I += 8) {
    Load(I, Lo2);
    Load(I + 4, Hi2);
    Lo += Lo2;
    Hi += Hi2;
  }
  Acc Res = ((Lo[0] + Lo[1]) + (Lo[2] + Lo[3])) +
            ((Hi[0] + Hi[1]) + (Hi[2] + Hi[3]));
  for (; I < N; ++I)
    Res += static_cast<Acc>(loadAt<T>(P, sizeof(T), I));
  return Res;
}

/// A row of at most 128 elements Stride bytes apart, in Acc.
template <typename Acc, typename T>
GJ_ALWAYS_INLINE Acc pairwiseRowBlock(const char *P, int64_t Stride,
                                      int64_t N) {
  if (N >= 8 && Stride == int64_t(sizeof(T)))
    return pairwiseBlockContiguous<Acc, T>(P, N);
  Acc Res;
  pairwiseBlock<Acc>(
      0, N,
      [&](int64_t I, Acc &X) { X = static_cast<Acc>(loadAt<T>(P, Stride, I)); },
      Res);
  return Res;
}

/// NumPy's pairwise_sum of a row: blocks up to 128 elements, halves
/// beyond.
template <typename Acc, typename T>
Acc pairwiseSum(const char *P, int64_t Stride, int64_t N) {
  if (N <= 128)
    return pairwiseRowBlock<Acc, T>(P, Stride, N);
  int64_t N2 = pairwiseSplit(N);
  return pairwiseSum<Acc, T>(P, Stride, N2) +
         pairwiseSum<Acc, T>(P + N2 * Stride, Stride, N - N2);
}

/// Cols adjacent columns (elements sizeof(T) apart along a row, rows
/// RowStride bytes apart) over at most 128 rows: each column's block
/// into Out (Cols contiguous Accs), a vector of columns at a time with the
/// additions pairwiseBlock makes for one, so that each is its bits.
template <typename Acc, typename T>
GJ_ALWAYS_INLINE void pairwiseColumnsBlock(const char *P, int64_t RowStride,
                                           int64_t N, int64_t Cols,
                                           Acc *Out) {
  constexpr int Lanes = 32 / sizeof(Acc); // One AVX2 register.
  using Stored = StoredAs<T>;
  typedef Stored Row __attribute__((vector_size(Lanes * sizeof(Stored))));
  typedef Acc Sums __attribute__((vector_size(Lanes * sizeof(Acc))));
  int64_t J = 0;
  for (; J + Lanes <= Cols; J += Lanes) {
    const char *Columns = P + J * sizeof(Stored);
    Sums S;
    pairwiseBlock<Sums>(
        0, N,
        [&](int64_t I, Sums &X) {
          Row R;
          std::memcpy(&R, Columns + I * RowStride, sizeof(R));
          X = __builtin_convertvector(R, Sums);
        },
        S);
    std::memcpy(Out + J, &S, sizeof(S));
  }
  for (; J < Cols; ++J)
    Out[J] = pairwiseRowBlock<Acc, T>(P + J * sizeof(Stored), RowStride, N);
}

} // namespace graphjit

#endif
