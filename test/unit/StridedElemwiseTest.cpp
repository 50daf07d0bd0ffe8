//===- StridedElemwiseTest.cpp - The runtime's strided loops -----------===//
//
// gj_ew_strided (ops/StridedElemwise.h) with kernels written here that
// compute out[j] = a[j] * 2 + b (b read once per call when row-invariant)
// and log each call: rows whose inputs step one element at a time go to
// the kernel whole, strided ones in chunks through buffers, the in-place
// kernel runs only on rows written over the overwritten input, and an
// input that shares the output's memory is read element by element, in
// order. Every result is checked against a plain loop over the indices.
//
//===----------------------------------------------------------------------===//
#include "ops/StridedElemwise.h"
#include "gtest/gtest.h"
#include <cstring>
#include <numeric>
#include <vector>

using namespace graphjit;

namespace {

struct Call {
  char *Out;
  int64_t N;
  const char *A;
  bool Inplace;
};
std::vector<Call> Log;

/// B varies along the row unless BInvariant (then one element).
template <bool Inplace, bool BInvariant>
void kernel(void *Out, int64_t N, void *A, void *B) {
  auto *O = static_cast<double *>(Out);
  // In place, the overwritten input a is read through the output.
  const auto *X = static_cast<const double *>(Inplace ? Out : A);
  const auto *Y = static_cast<const double *>(B);
  for (int64_t J = 0; J < N; ++J)
    O[J] = X[J] * 2 + Y[BInvariant ? 0 : J];
  Log.push_back({static_cast<char *>(Out), N, static_cast<const char *>(A),
                 Inplace});
}

template <bool Inplace, bool BInvariant> uint64_t kernelWord() {
  return reinterpret_cast<uint64_t>(&kernel<Inplace, BInvariant>);
}

struct Operand {
  const void *Data;
  bool RowInvariant;
  std::vector<int64_t> Strides; ///< Bytes, per output dim.
};

/// A record for a double output of Dims, C-contiguous at Out, from a and
/// b (the kernels' two inputs).
std::vector<uint64_t> record(uint64_t InplaceKernel, uint64_t Kernel,
                             double *Out, std::vector<int64_t> Dims,
                             int Anchor, bool Tangled,
                             std::vector<Operand> In) {
  unsigned R = unsigned(Dims.size());
  std::vector<uint64_t> W = {InplaceKernel, Kernel,
                             reinterpret_cast<uint64_t>(Out), 8, In.size(),
                             R, uint64_t(Anchor + 1), Tangled};
  for (int64_t D : Dims)
    W.push_back(uint64_t(D));
  std::vector<int64_t> Strides(R, 8);
  for (unsigned D = R - 1; D-- > 0;)
    Strides[D] = Strides[D + 1] * Dims[D + 1];
  for (int64_t S : Strides)
    W.push_back(uint64_t(S));
  for (const Operand &X : In) {
    W.push_back(reinterpret_cast<uint64_t>(X.Data));
    W.push_back(8);
    W.push_back(X.RowInvariant);
    for (int64_t S : X.Strides)
      W.push_back(uint64_t(S));
  }
  EXPECT_EQ(W.size(), stridedRecordWords(R, unsigned(In.size())));
  return W;
}

std::vector<double> iota(size_t N, double First) {
  std::vector<double> V(N);
  std::iota(V.begin(), V.end(), First);
  return V;
}

// a is a 3×4 matrix read transposed (an output of 4×3) and b a column
// broadcast along the rows: every row is gathered, in one chunk.
TEST(StridedElemwise, TransposedInputsAreGatheredPerRow) {
  std::vector<double> A = iota(12, 1), B = {10, 20, 30, 40};
  std::vector<double> Out(12, -1);
  auto W = record(kernelWord<false, true>(), kernelWord<false, true>(),
                  Out.data(), {4, 3}, -1, false,
                  {{A.data(), false, {8, 32}}, {B.data(), true, {8, 0}}});
  Log.clear();
  gj_ew_strided(W.data());
  for (int I = 0; I < 4; ++I)
    for (int J = 0; J < 3; ++J)
      EXPECT_EQ(Out[I * 3 + J], A[J * 4 + I] * 2 + B[I]) << I << "," << J;
  ASSERT_EQ(Log.size(), 4u);
  for (int I = 0; I < 4; ++I) {
    EXPECT_EQ(Log[I].N, 3);
    EXPECT_EQ(Log[I].Out, reinterpret_cast<char *>(&Out[I * 3]));
    // From a buffer, not a's memory.
    EXPECT_TRUE(Log[I].A < reinterpret_cast<const char *>(A.data()) ||
                Log[I].A >= reinterpret_cast<const char *>(A.data() + 12));
  }
}

// Rows of unit-stride inputs (a bias row added to each row of a matrix)
// go to the kernel whole, with the inputs' own row pointers.
TEST(StridedElemwise, UnitRowsCallTheKernelOnTheRow) {
  std::vector<double> A = iota(2 * 3 * 5, 0), B = iota(5, 100);
  std::vector<double> Out(30, -1);
  auto W = record(kernelWord<false, false>(), kernelWord<false, false>(),
                  Out.data(), {2, 3, 5}, -1, false,
                  {{A.data(), false, {120, 40, 8}},
                   {B.data(), false, {0, 0, 8}}});
  Log.clear();
  gj_ew_strided(W.data());
  for (int I = 0; I < 30; ++I)
    EXPECT_EQ(Out[I], A[I] * 2 + B[I % 5]) << I;
  ASSERT_EQ(Log.size(), 6u);
  for (int R = 0; R < 6; ++R) {
    EXPECT_EQ(Log[R].N, 5);
    EXPECT_EQ(Log[R].A, reinterpret_cast<const char *>(&A[R * 5]));
  }
}

// Long strided rows in chunks of 64 elements; a negative stride; a dim
// of 1 in the middle of the odometer.
TEST(StridedElemwise, LongRowsInChunksAndNegativeStrides) {
  const int Rows = 2, N = 150;
  std::vector<double> A = iota(size_t(Rows) * N * 2, 1), B = {0.5};
  std::vector<double> Out(size_t(Rows) * N, -1);
  // a[r, 0, j] = A[(Rows - 1 - r) * 2N + 2j + 1]: rows reversed, every
  // other element.
  const double *Start = &A[size_t(Rows - 1) * 2 * N + 1];
  auto W = record(kernelWord<false, true>(), kernelWord<false, true>(),
                  Out.data(), {Rows, 1, N}, -1, false,
                  {{Start, false, {-2 * N * 8, 0, 16}},
                   {B.data(), true, {0, 0, 0}}});
  Log.clear();
  gj_ew_strided(W.data());
  for (int R = 0; R < Rows; ++R)
    for (int J = 0; J < N; ++J)
      ASSERT_EQ(Out[size_t(R) * N + J],
                A[size_t(Rows - 1 - R) * 2 * N + 2 * J + 1] * 2 + 0.5)
          << R << "," << J;
  // 64 + 64 + 22 per row.
  ASSERT_EQ(Log.size(), 6u);
  EXPECT_EQ(Log[0].N, 64);
  EXPECT_EQ(Log[2].N, 22);
  EXPECT_EQ(Log[3].Out, reinterpret_cast<char *>(&Out[N]));
}

// In place on a: rows written over a itself run the kernel that reads a
// through the output; an output elsewhere runs the other.
TEST(StridedElemwise, InplaceKernelOnlyWhereTheOutputIsTheInput) {
  std::vector<double> Data = iota(6, 1), B = {1, 2, 3};
  std::vector<double> Expected(6);
  for (int I = 0; I < 6; ++I)
    Expected[I] = Data[I] * 2 + B[I % 3];
  auto Run = [&](double *Out) {
    auto W = record(kernelWord<true, false>(), kernelWord<false, false>(),
                    Out, {2, 3}, 0, false,
                    {{Data.data(), false, {24, 8}}, {B.data(), false, {0, 8}}});
    Log.clear();
    gj_ew_strided(W.data());
  };
  std::vector<double> Elsewhere(6, -1);
  Run(Elsewhere.data());
  EXPECT_EQ(Elsewhere, Expected);
  ASSERT_EQ(Log.size(), 2u);
  EXPECT_FALSE(Log[0].Inplace);
  Run(Data.data());
  EXPECT_EQ(Data, Expected);
  ASSERT_EQ(Log.size(), 2u);
  EXPECT_TRUE(Log[0].Inplace);
  EXPECT_TRUE(Log[1].Inplace);
}

// a shares the output's memory one element behind it: element j reads
// the element j - 1 just written, as a scalar loop in order would, so
// the row becomes a running sequence; the invariant b is read once,
// before the row.
TEST(StridedElemwise, TangledInputsAreReadElementByElementInOrder) {
  std::vector<double> Mem = {1, 0, 0, 0, 0, 0};
  double B = 3;
  auto W = record(kernelWord<false, true>(), kernelWord<false, true>(),
                  &Mem[1], {1, 5}, -1, /*Tangled=*/true,
                  {{&Mem[0], false, {0, 8}}, {&B, true, {0, 0}}});
  Log.clear();
  gj_ew_strided(W.data());
  double Expected = 1;
  for (int J = 1; J < 6; ++J) {
    Expected = Expected * 2 + 3;
    EXPECT_EQ(Mem[J], Expected) << J;
  }
  ASSERT_EQ(Log.size(), 5u);
  for (const Call &C : Log)
    EXPECT_EQ(C.N, 1);
}

// No element, no call.
TEST(StridedElemwise, EmptyOutputsCallNothing) {
  std::vector<double> A = {1}, B = {2};
  double Out = -1;
  for (std::vector<int64_t> Dims : {std::vector<int64_t>{0, 3},
                                    std::vector<int64_t>{3, 0}}) {
    auto W = record(kernelWord<false, true>(), kernelWord<false, true>(),
                    &Out, Dims, -1, false,
                    {{A.data(), false, {0, 0}}, {B.data(), true, {0, 0}}});
    Log.clear();
    gj_ew_strided(W.data());
    EXPECT_TRUE(Log.empty());
  }
  EXPECT_EQ(Out, -1);
}

} // namespace
