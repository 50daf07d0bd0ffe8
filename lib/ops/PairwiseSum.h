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

/// Column sums: for Cols adjacent columns (elements sizeof(T) apart along
/// a row, rows RowStride bytes apart), each column's pairwiseSum over N
/// rows, into Out (Cols contiguous Accs). The columns are summed a vector
/// of them at a time with the same additions in the same order as
/// pairwiseSum does per column, so that each result is its bits exactly.
template <typename Acc, typename T>
class PairwiseColumns {
  static constexpr int Lanes = 32 / sizeof(Acc); // One AVX2 register.
  using Stored = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;
  typedef Stored Row __attribute__((vector_size(Lanes * sizeof(Stored))));
  typedef Acc Sums __attribute__((vector_size(Lanes * sizeof(Acc))));

  const int64_t RowStride;

  // Row I of the columns at P, converted (an out-parameter: a vector
  // returned by value has an ABI of its own per target).
  void load(const char *P, int64_t I, Sums &S) const {
    Row R;
    std::memcpy(&R, P + I * RowStride, sizeof(R));
    S = __builtin_convertvector(R, Sums);
  }

  void sum(const char *P, int64_t N, Sums &Res) const {
    Sums X;
    if (N < 8) {
      Res = Sums{};
      for (int64_t I = 0; I < N; ++I) {
        load(P, I, X);
        Res += X;
      }
      return;
    }
    if (N <= 128) {
      Sums R[8];
      for (int J = 0; J < 8; ++J)
        load(P, J, R[J]);
      int64_t I = 8;
      for (; I < N - N % 8; I += 8)
        for (int J = 0; J < 8; ++J) {
          load(P, I + J, X);
          R[J] += X;
        }
      Res = ((R[0] + R[1]) + (R[2] + R[3])) + ((R[4] + R[5]) + (R[6] + R[7]));
      for (; I < N; ++I) {
        load(P, I, X);
        Res += X;
      }
      return;
    }
    int64_t N2 = pairwiseSplit(N);
    Sums Hi;
    sum(P, N2, Res);
    sum(P + N2 * RowStride, N - N2, Hi);
    Res += Hi;
  }

public:
  explicit PairwiseColumns(int64_t RowStride) : RowStride(RowStride) {}

  /// Each sum is added to 0, as the reductions add their rows' sums to a
  /// total that starts at 0 (so a sum of -0.0s is 0.0 in every linker).
  void run(const char *P, int64_t N, int64_t Cols, Acc *Out) const {
    int64_t J = 0;
    for (; J + Lanes <= Cols; J += Lanes) {
      Sums S, Total = {};
      sum(P + J * sizeof(Stored), N, S);
      Total += S;
      std::memcpy(Out + J, &Total, sizeof(Total));
    }
    for (; J < Cols; ++J)
      Out[J] = Acc(0) + pairwiseSum<Acc, T>(P + J * sizeof(Stored), RowStride, N);
  }
};

} // namespace graphjit

#endif
