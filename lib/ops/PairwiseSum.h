//===- ops/PairwiseSum.h - NumPy's pairwise summation ----------*- C++ -*-===//
//
// The one implementation of float sums: perform() calls it, and JIT code
// calls its exported instances (PairwiseSumKernels.cpp), so that both
// linkers add in the same order, NumPy's.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_PAIRWISESUM_H
#define GRAPHJIT_OPS_PAIRWISESUM_H

#include "ReduceSupport.h"
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace graphjit {

/// Rows of at most 128 elements: exact below 8, else 8 accumulators over
/// whole blocks of 8, combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then
/// the rest. Elements are converted to Acc first.
template <typename Acc, typename T>
inline Acc pairwiseBlocksAt(const char *P, int64_t Stride, int64_t N) {
  auto At = [&](int64_t I) { return static_cast<Acc>(loadAt<T>(P, Stride, I)); };
  if (N < 8) {
    Acc R = 0;
    for (int64_t I = 0; I < N; ++I)
      R += At(I);
    return R;
  }
  Acc R[8];
  for (int J = 0; J < 8; ++J)
    R[J] = At(J);
  int64_t I = 8;
  for (; I < N - N % 8; I += 8)
    for (int J = 0; J < 8; ++J)
      R[J] += At(I + J);
  Acc Res = ((R[0] + R[1]) + (R[2] + R[3])) + ((R[4] + R[5]) + (R[6] + R[7]));
  for (; I < N; ++I)
    Res += At(I);
  return Res;
}

/// The same over a contiguous row, the 8 accumulators one vector (GCC's
/// and Clang's vector extension), so that each block is one load, one
/// conversion and one add whatever the compiler's cost model says.
template <typename Acc, typename T>
inline Acc pairwiseBlocksContiguous(const char *P, int64_t N) {
  // Two vectors of 4 (lanes 0-3 and 4-7): wider ones than the target's
  // registers were kept in memory by GCC.
  using Stored = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;
  typedef Stored Half __attribute__((vector_size(4 * sizeof(Stored))));
  typedef Acc Sums __attribute__((vector_size(4 * sizeof(Acc))));
  // Elements [I, I + 4) into S (an out-parameter: a vector returned by
  // value has an ABI of its own per target). The sums start from the
  // first block itself, not from 0 (0 + -0 is +0).
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

template <typename Acc, typename T>
inline Acc pairwiseBlocks(const char *P, int64_t Stride, int64_t N) {
  if (N >= 8 && Stride == int64_t(sizeof(T)))
    return pairwiseBlocksContiguous<Acc, T>(P, N);
  return pairwiseBlocksAt<Acc, T>(P, Stride, N);
}

/// The first half of a longer row: a multiple of 8 long.
inline int64_t pairwiseSplit(int64_t N) {
  int64_t N2 = N / 2;
  return N2 - N2 % 8;
}

/// NumPy's pairwise_sum: blocks up to 128 elements, halves beyond.
template <typename Acc, typename T>
Acc pairwiseSum(const char *P, int64_t Stride, int64_t N) {
  if (N <= 128)
    return pairwiseBlocks<Acc, T>(P, Stride, N);
  int64_t N2 = pairwiseSplit(N);
  return pairwiseSum<Acc, T>(P, Stride, N2) +
         pairwiseSum<Acc, T>(P + N2 * Stride, Stride, N - N2);
}

} // namespace graphjit

#endif
