//===- TickHistogram.h - Per-call times in log buckets ---------*- C++ -*-===//
//
// The distribution of an Apply's per-call times, kept at a few ns per call:
// a fixed histogram of clock ticks with four buckets per power of two (each
// bucket 12-25% wide, 256 in all), as HdrHistogram does with more. Buckets
// 0-3 hold 0-3 ticks exactly; from 4 ticks on, a value v with its highest
// bit at e goes to 4*(e-1) + the two bits below it. quantile() reads a
// value back, interpolating within its bucket.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_RUNTIME_TICKHISTOGRAM_H
#define GRAPHJIT_RUNTIME_TICKHISTOGRAM_H

#include "llvm/ADT/ArrayRef.h"
#include <cstdint>

namespace graphjit {

constexpr unsigned TickBuckets = 256;

inline unsigned tickBucket(uint64_t Ticks) {
  if (Ticks < 4)
    return unsigned(Ticks);
  unsigned E = 63 - unsigned(__builtin_clzll(Ticks));
  return 4 * (E - 1) + unsigned((Ticks >> (E - 2)) & 3);
}

/// The ticks bucket B holds: [lower, upper).
inline uint64_t tickBucketLower(unsigned B) {
  if (B < 4)
    return B;
  unsigned E = B / 4 + 1;
  return uint64_t(4 + B % 4) << (E - 2);
}
inline uint64_t tickBucketUpper(unsigned B) {
  if (B < 4)
    return B + 1;
  unsigned E = B / 4 + 1;
  return uint64_t(5 + B % 4) << (E - 2);
}

/// The Q-quantile (0..1) of the counts in Counts (TickBuckets of them), in
/// ticks: the bucket where the rank falls, interpolated linearly inside
/// it; Q 0 is the lowest bucket's lower bound, Q 1 the highest's upper.
/// 0 when Counts are all zero.
inline double tickQuantile(llvm::ArrayRef<uint64_t> Counts, double Q) {
  uint64_t Total = 0;
  for (uint64_t C : Counts)
    Total += C;
  if (Total == 0)
    return 0;
  double Rank = Q * double(Total);
  uint64_t Below = 0;
  for (unsigned B = 0; B < Counts.size(); ++B) {
    if (Counts[B] == 0)
      continue;
    if (double(Below + Counts[B]) >= Rank || Below + Counts[B] == Total) {
      double Lo = double(tickBucketLower(B)), Hi = double(tickBucketUpper(B));
      double Within = (Rank - double(Below)) / double(Counts[B]);
      Within = Within < 0 ? 0 : Within > 1 ? 1 : Within;
      return Lo + (Hi - Lo) * Within;
    }
    Below += Counts[B];
  }
  return 0;
}

} // namespace graphjit

#endif
