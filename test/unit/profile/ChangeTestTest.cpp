//===- ChangeTestTest.cpp - Changes beyond the noise ----------------------===//
//
// mannWhitneyPValue() against the exact figures of the U distribution
// (counted by hand: one order in C(m+n, m) puts every A below every B),
// testChange() within runs and between runs, and a merge that keeps each
// run's median for it.
//
//===----------------------------------------------------------------------===//
#include "ProfileTestUtil.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>

using namespace graphjit;
using namespace graphjit::test;

namespace {

TEST(MannWhitney, SeparatedSidesGiveTwoOverTheOrders) {
  // All of A below all of B: P = 2 / C(m+n, m), two-sided.
  EXPECT_NEAR(mannWhitneyPValue({1, 2, 3}, {4, 5, 6}), 2.0 / 20, 1e-12);
  EXPECT_NEAR(mannWhitneyPValue({4, 5, 6, 7}, {1, 2, 3, 0}), 2.0 / 70, 1e-12);
  EXPECT_NEAR(mannWhitneyPValue({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 2.0 / 252,
              1e-12);
  EXPECT_NEAR(mannWhitneyPValue({1, 2}, {3, 4, 5, 6, 7, 8, 9, 10}), 2.0 / 45,
              1e-12);
}

TEST(MannWhitney, CountsTheTailExactly) {
  // m = n = 3, U = 1 (one pair in B's favour out of order): the orders
  // with U <= 1 are U = 0 (one) and U = 1 (one), so P = 2 * 2/20.
  EXPECT_NEAR(mannWhitneyPValue({1, 2, 4}, {3, 5, 6}), 0.2, 1e-12);
  // Interleaved sides: U at its mean, no evidence at all.
  EXPECT_DOUBLE_EQ(mannWhitneyPValue({1, 3, 5, 7}, {2, 4, 6, 8}),
                   mannWhitneyPValue({2, 4, 6, 8}, {1, 3, 5, 7}));
  EXPECT_GT(mannWhitneyPValue({1, 3, 5, 7}, {2, 4, 6, 8}), 0.5);
  EXPECT_EQ(mannWhitneyPValue({}, {1, 2}), 1.0);
}

TEST(MannWhitney, LargeSidesUseTheNormalApproximation) {
  std::vector<double> A, B;
  for (int I = 0; I < 60; ++I) {
    A.push_back(I);
    B.push_back(I + 0.5);
  }
  EXPECT_GT(mannWhitneyPValue(A, B), 0.5); // Shifted by under one rank.
  for (double &X : B)
    X += 100;
  EXPECT_LT(mannWhitneyPValue(A, B), 1e-12);
}

TimeDistribution spread(double P25, double Median, double P75) {
  TimeDistribution D;
  D.Calls = 100;
  D.Min = P25 / 2;
  D.P25 = P25;
  D.Median = Median;
  D.P75 = P75;
  D.P90 = D.Max = P75 * 2;
  return D;
}

TEST(ChangeTest, WithinRunsTheMediansMustClearBothSpreads) {
  // Moved 3 against ranges of 2 and 2: within them together.
  ChangeTest T = testChange(spread(9, 10, 11), spread(12, 13, 14), 0);
  EXPECT_FALSE(T.BetweenRuns);
  EXPECT_FALSE(T.Significant);
  // Moved 5: beyond.
  EXPECT_TRUE(testChange(spread(9, 10, 11), spread(14, 15, 16), 0).Significant);
  // Beyond the spreads but under 12%.
  EXPECT_FALSE(
      testChange(spread(99.9, 100, 100.1), spread(109, 110, 111), 0)
          .Significant);
  // Beyond everything but what the clock resolves.
  EXPECT_FALSE(testChange(spread(1e-9, 1e-9, 1e-9), spread(5e-9, 5e-9, 5e-9),
                          10e-9)
                   .Significant);
}

TEST(ChangeTest, BetweenRunsTheRunsDecide) {
  TimeDistribution A = spread(1, 10, 100), B = spread(1, 20, 100);
  // A single run a side: the wide spreads hide the move.
  EXPECT_FALSE(testChange(A, B, 0).Significant);
  // Five runs a side, every run of B above every run of A.
  A.RunMedians = {10, 11, 9, 10.5, 9.5};
  B.RunMedians = {20, 21, 19, 20.5, 19.5};
  ChangeTest T = testChange(A, B, 0);
  EXPECT_TRUE(T.BetweenRuns);
  EXPECT_TRUE(T.Significant);
  EXPECT_EQ(T.RunsA, 5u);
  EXPECT_DOUBLE_EQ(T.MedianA, 10);
  EXPECT_DOUBLE_EQ(T.MedianB, 20);
  EXPECT_NEAR(*T.PValue, 2.0 / 252, 1e-12);
  // One run of B among A's: not significant, however far its median.
  B.RunMedians = {20, 21, 9.7, 20.5, 19.5};
  EXPECT_FALSE(testChange(A, B, 0).Significant);
  // Separated but by under 12%: a move too small to trust.
  A.RunMedians = {10, 10.1, 9.9, 10.05, 9.95};
  B.RunMedians = {11, 11.05, 11.1, 11.08, 11.02};
  EXPECT_NEAR(*testChange(A, B, 0).PValue, 2.0 / 252, 1e-12);
  EXPECT_FALSE(testChange(A, B, 0).Significant);
  // Three runs a side cannot reach p < 0.05.
  A.RunMedians = {10, 11, 9};
  B.RunMedians = {20, 21, 19};
  EXPECT_FALSE(testChange(A, B, 0).Significant);
  EXPECT_NEAR(*testChange(A, B, 0).PValue, 0.1, 1e-12);
}

TEST(ChangeTest, MergeKeepsEachRunsMedian) {
  auto Run = [](double Median) {
    Profile P;
    P.Functions.push_back(
        function("f", {apply(0, "Dot", "Dot", 11, 10 * Median)}, 11));
    TimeDistribution D;
    D.Buckets = {{Median * 0.9, Median * 1.1, 10}};
    P.Functions[0].Applies[0].Distribution = distributionOf(D.Buckets);
    return P;
  };
  llvm::Expected<Profile> Two = mergeProfiles({Run(1), Run(2)}, {"a", "b"});
  ASSERT_TRUE(bool(Two)) << llvm::toString(Two.takeError());
  llvm::Expected<Profile> Three =
      mergeProfiles({*Two, Run(3)}, {"ab", "c"});
  ASSERT_TRUE(bool(Three)) << llvm::toString(Three.takeError());
  const TimeDistribution &D = *Three->Functions[0].Applies[0].Distribution;
  ASSERT_EQ(D.RunMedians.size(), 3u);
  EXPECT_DOUBLE_EQ(D.RunMedians[0], 1);
  EXPECT_DOUBLE_EQ(D.RunMedians[1], 2);
  EXPECT_DOUBLE_EQ(D.RunMedians[2], 3);
  EXPECT_EQ(D.Calls, 30u);
}

} // namespace
