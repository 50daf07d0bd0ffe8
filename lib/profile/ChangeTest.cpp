//===- profile/ChangeTest.cpp - Changes beyond the noise ------------------===//
//
// testChange() and mannWhitneyPValue(): whether an Apply's time per call
// changed between two profiles. The spread within a run cannot see what
// moves a whole process (page placement, a neighbour on a shared host), so
// merged profiles are compared run against run, with the runs' medians as
// the samples of a rank test (docs/profiling.md, "Diffs").
//
//===----------------------------------------------------------------------===//
#include "graphjit/Profile.h"
#include <algorithm>
#include <cmath>

using namespace llvm;

namespace graphjit {

std::vector<double> TimeDistribution::runMedians() const {
  if (!RunMedians.empty())
    return RunMedians;
  return {Median};
}

namespace {

/// Up to this many values a side, U's distribution is counted exactly.
constexpr size_t ExactLimit = 50;
constexpr double Alpha = 0.05;
/// The histograms' resolution: quantiles are within 12% (4 buckets an
/// octave, interpolated).
constexpr double Resolution = 0.12;

/// U: the pairs (a, b) with a < b, a tie counting one half.
double uStatistic(ArrayRef<double> A, ArrayRef<double> B) {
  double U = 0;
  for (double X : A)
    for (double Y : B)
      U += X < Y ? 1.0 : X == Y ? 0.5 : 0.0;
  return U;
}

/// P(U <= u) for m and n values a side, every order of the m + n values
/// equally likely: Ways[i][j][u] counts the orders of i A's and j B's with
/// U = u; the largest value is an A (adding nothing) or a B (adding i).
double exactLowerTail(size_t M, size_t N, double U) {
  size_t MaxU = M * N;
  std::vector<std::vector<double>> Prev(N + 1), Cur(N + 1);
  // Row i = 0: no A, one order with U = 0, whatever j.
  for (size_t J = 0; J <= N; ++J)
    Prev[J].assign(1, 1.0);
  for (size_t I = 1; I <= M; ++I) {
    Cur[0].assign(1, 1.0);
    for (size_t J = 1; J <= N; ++J) {
      Cur[J].assign(I * J + 1, 0.0);
      for (size_t K = 0; K < Prev[J].size(); ++K) // Largest is an A.
        Cur[J][K] += Prev[J][K];
      for (size_t K = 0; K < Cur[J - 1].size(); ++K) // Largest is a B.
        Cur[J][K + I] += Cur[J - 1][K];
    }
    std::swap(Prev, Cur);
  }
  const std::vector<double> &Ways = Prev[N];
  double Total = 0, Below = 0;
  for (size_t K = 0; K <= MaxU; ++K) {
    Total += Ways[K];
    if (double(K) <= U)
      Below += Ways[K];
  }
  return Below / Total;
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : 0.5 * (V[N / 2 - 1] + V[N / 2]);
}

} // namespace

double mannWhitneyPValue(ArrayRef<double> A, ArrayRef<double> B) {
  if (A.empty() || B.empty())
    return 1;
  size_t M = A.size(), N = B.size();
  double U = uStatistic(A, B);
  double Mean = 0.5 * double(M * N);
  double P;
  if (M <= ExactLimit && N <= ExactLimit) {
    // U is symmetric about its mean: the tail on U's side, doubled.
    double Near = std::min(U, double(M * N) - U);
    P = 2 * exactLowerTail(M, N, std::floor(Near));
  } else {
    double Sigma = std::sqrt(double(M * N) * double(M + N + 1) / 12);
    double Z = (std::fabs(U - Mean) - 0.5) / Sigma; // Continuity corrected.
    P = std::erfc(std::max(Z, 0.0) / std::sqrt(2.0));
  }
  return std::min(1.0, P);
}

ChangeTest testChange(const TimeDistribution &A, const TimeDistribution &B,
                      double FloorSeconds) {
  ChangeTest T;
  std::vector<double> RunsA = A.runMedians(), RunsB = B.runMedians();
  T.RunsA = unsigned(RunsA.size());
  T.RunsB = unsigned(RunsB.size());
  T.BetweenRuns = RunsA.size() >= 2 && RunsB.size() >= 2;
  if (T.BetweenRuns) {
    T.MedianA = median(RunsA);
    T.MedianB = median(RunsB);
  } else {
    T.MedianA = A.Median;
    T.MedianB = B.Median;
  }
  double Moved = std::fabs(T.MedianB - T.MedianA);
  bool Large = Moved > Resolution * std::max(T.MedianA, T.MedianB) &&
               Moved > FloorSeconds;
  if (T.BetweenRuns) {
    T.PValue = mannWhitneyPValue(RunsA, RunsB);
    T.Significant = Large && *T.PValue < Alpha;
  } else {
    double Spread = (A.P75 - A.P25) + (B.P75 - B.P25);
    T.Significant = Large && Moved > Spread;
  }
  return T;
}

} // namespace graphjit
