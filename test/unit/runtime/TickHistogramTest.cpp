//===- TickHistogramTest.cpp - Log buckets of per-call ticks ---------------===//

#include "runtime/TickHistogram.h"
#include "graphjit/Profile.h"
#include <gtest/gtest.h>
#include <vector>

using namespace graphjit;

TEST(TickHistogram, EveryValueFallsInsideItsBucket) {
  for (uint64_t V : {0ull, 1ull, 3ull, 4ull, 5ull, 7ull, 8ull, 9ull, 15ull,
                     1000ull, 123456789ull, 1ull << 40, ~0ull >> 1, ~0ull}) {
    unsigned B = tickBucket(V);
    ASSERT_LT(B, TickBuckets) << V;
    EXPECT_LE(tickBucketLower(B), V) << V;
    // The top bucket's upper bound wraps past 2^64.
    if (B < tickBucket(~0ull))
      EXPECT_LT(V, tickBucketUpper(B)) << V;
  }
  // Buckets are ordered and each is at most a quarter of its lower bound
  // wide (from 4 ticks on).
  for (unsigned B = 4; B + 1 < tickBucket(~0ull); ++B) {
    EXPECT_EQ(tickBucketUpper(B), tickBucketLower(B + 1)) << B;
    EXPECT_LE(tickBucketUpper(B) - tickBucketLower(B),
              tickBucketLower(B) / 4) << B;
  }
}

TEST(TickHistogram, QuantilesAgainstTheSamples) {
  // 1,000 samples from 1,000 to 100,000 ticks, bucketed as the runtime
  // does: each figure distributionOf() reads back is within the bucket's
  // 25% of the exact one.
  std::vector<uint64_t> Counts(TickBuckets, 0), Samples;
  for (uint64_t I = 0; I < 1000; ++I) {
    uint64_t V = 1000 + I * 99;
    Samples.push_back(V);
    ++Counts[tickBucket(V)];
  }
  std::vector<TimeBucket> Buckets;
  for (unsigned B = 0; B < TickBuckets; ++B)
    if (Counts[B])
      Buckets.push_back({double(tickBucketLower(B)),
                         double(tickBucketUpper(B)), Counts[B]});
  TimeDistribution D = distributionOf(Buckets);
  EXPECT_EQ(D.Calls, 1000u);
  for (auto [Q, Read] : {std::pair{0.0, D.Min}, std::pair{0.25, D.P25},
                         std::pair{0.5, D.Median}, std::pair{0.9, D.P90},
                         std::pair{1.0, D.Max}}) {
    double Exact = double(Samples[size_t(Q * 999)]);
    EXPECT_NEAR(Read, Exact, 0.25 * Exact) << Q;
  }
  EXPECT_LE(D.P25, D.Median);
  EXPECT_LE(D.Median, D.P90);
  EXPECT_EQ(distributionOf({}).Median, 0);
}
