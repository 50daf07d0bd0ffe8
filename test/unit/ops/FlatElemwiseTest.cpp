//===- FlatElemwiseTest.cpp - The runtime's large element-wise loops -------===//
//
// gj_ew_flat (runtime/FlatElemwise.h) with kernels written here that compute
// out[i] = a[i] * 2 + b (b invariant) and log each call: the streamed
// chunks go to an aligned buffer through the record's second kernel, the
// tail and unstreamed loops to the output through the first, the pieces
// cover the elements once each, and the result is the same in every mode.
//
//===----------------------------------------------------------------------===//
#include "runtime/FlatElemwise.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <vector>

using namespace graphjit;

namespace {

struct Call {
  char *Out;
  int64_t N;
  const char *A;
  bool Plain;
};
std::mutex LogLock;
std::vector<Call> Log;

template <bool Plain>
void kernel(void *Out, int64_t N, void *A, void *B) {
  auto *O = static_cast<double *>(Out);
  const auto *X = static_cast<const double *>(A);
  double Y = *static_cast<const double *>(B);
  for (int64_t I = 0; I < N; ++I)
    O[I] = X[I] * 2 + Y;
  std::lock_guard<std::mutex> G(LogLock);
  Log.push_back({static_cast<char *>(Out), N, static_cast<const char *>(A),
                 Plain});
}

/// Saves and restores both thresholds.
struct Thresholds {
  uint64_t Parallel = elemwiseParallelThreshold();
  uint64_t Streaming = elemwiseStreamingThreshold();
  Thresholds(uint64_t P, uint64_t S) {
    setElemwiseParallelThreshold(P);
    setElemwiseStreamingThreshold(S);
  }
  ~Thresholds() {
    setElemwiseParallelThreshold(Parallel);
    setElemwiseStreamingThreshold(Streaming);
  }
};

struct Case {
  std::vector<double> A;
  double B = 0.5;
  double *Out;

  explicit Case(int64_t N) : A(N) {
    std::iota(A.begin(), A.end(), 1.0);
    Out = static_cast<double *>(std::aligned_alloc(64, ((N * 8 + 63) / 64) * 64));
  }
  ~Case() { std::free(Out); }

  void run() {
    uint64_t Record[] = {
        reinterpret_cast<uint64_t>(&kernel<false>),
        reinterpret_cast<uint64_t>(&kernel<true>),
        reinterpret_cast<uint64_t>(Out), 8, 2,
        reinterpret_cast<uint64_t>(A.data()), reinterpret_cast<uint64_t>(&B),
        8, 0};
    Log.clear();
    gj_ew_flat(Record, int64_t(A.size()));
  }

  void expectResult() const {
    for (size_t I = 0; I < A.size(); ++I)
      ASSERT_EQ(Out[I], A[I] * 2 + B) << "element " << I;
  }

  /// Each logged call's first element, from where it read.
  int64_t firstOf(const Call &C) const {
    return (C.A - reinterpret_cast<const char *>(A.data())) / 8;
  }
};

TEST(FlatElemwise, BelowBothThresholdsOneCallOfTheKernel) {
  Thresholds T(0, uint64_t(1) << 40);
  Case C(1000);
  C.run();
  C.expectResult();
  ASSERT_EQ(Log.size(), 1u);
  EXPECT_EQ(Log[0].Out, reinterpret_cast<char *>(C.Out));
  EXPECT_EQ(Log[0].N, 1000);
  EXPECT_FALSE(Log[0].Plain);
}

// 1 KiB chunks of 128 doubles into a buffer on the stack (aligned to a
// cache line, not the output), then the 3 left directly into the output.
TEST(FlatElemwise, StreamedInChunksThroughABuffer) {
  Thresholds T(0, 0);
  Case C(4 * 128 + 3);
  C.run();
  C.expectResult();
  ASSERT_EQ(Log.size(), 5u);
  for (int I = 0; I < 4; ++I) {
    EXPECT_TRUE(Log[I].Plain);
    EXPECT_EQ(Log[I].N, 128);
    EXPECT_EQ(C.firstOf(Log[I]), 128 * I);
    EXPECT_NE(Log[I].Out, reinterpret_cast<char *>(C.Out + 128 * I));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(Log[I].Out) % 64, 0u);
  }
  EXPECT_FALSE(Log[4].Plain);
  EXPECT_EQ(Log[4].N, 3);
  EXPECT_EQ(Log[4].Out, reinterpret_cast<char *>(C.Out + 512));
}

// A misaligned output is not streamed.
TEST(FlatElemwise, MisalignedOutputsAreNotStreamed) {
  Thresholds T(0, 0);
  Case C(300);
  double *Aligned = C.Out;
  C.Out = Aligned + 1;
  C.A.resize(299);
  C.run();
  C.expectResult();
  C.Out = Aligned;
  ASSERT_EQ(Log.size(), 1u);
  EXPECT_FALSE(Log[0].Plain);
}

// Pieces that together cover every element once, each starting on a
// cache line of the output, whatever the pool's size.
TEST(FlatElemwise, PiecesCoverTheElementsOnce) {
  Thresholds T(1, uint64_t(1) << 40);
  for (int64_t N : {1, 7, 8, 9, 1000, 100003}) {
    SCOPED_TRACE(N);
    Case C(N);
    C.run();
    C.expectResult();
    std::vector<Call> Calls = Log;
    std::sort(Calls.begin(), Calls.end(), [&](const Call &X, const Call &Y) {
      return C.firstOf(X) < C.firstOf(Y);
    });
    int64_t Next = 0;
    for (const Call &P : Calls) {
      EXPECT_EQ(C.firstOf(P), Next);
      EXPECT_EQ(P.Out, reinterpret_cast<char *>(C.Out + Next));
      EXPECT_EQ(Next % 8, 0);
      Next += P.N;
    }
    EXPECT_EQ(Next, N);
  }
}

} // namespace
