//===- TickHistogram.h - Per-call times in log buckets ---------*- C++ -*-===//
//
// The distribution of an Apply's per-call times, kept at a few ns per call:
// a fixed histogram of clock ticks with four buckets per power of two (each
// bucket 12-25% wide, 256 in all), as HdrHistogram does with more. Buckets
// 0-3 hold 0-3 ticks exactly; from 4 ticks on, a value v with its highest
// bit at e goes to 4*(e-1) + the two bits below it. The figures are read
// back from the buckets' bounds (distributionOf, graphjit/Profile.h).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_RUNTIME_TICKHISTOGRAM_H
#define GRAPHJIT_RUNTIME_TICKHISTOGRAM_H

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

} // namespace graphjit

#endif
