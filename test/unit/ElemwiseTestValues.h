//===- ElemwiseTestValues.h - Corner-case arrays for op tests ---*- C++ -*-===//
//
// Arrays full of each dtype's corner cases (extremes where integers wrap
// and conversions saturate, zeros and -1 for division, NaN and infinities),
// in the layouts the loops must get right (transposed, reversed), and the
// comparison the Elemwise tests use: bit for bit, but any two NaNs equal and
// finite floats a few ulp apart (libmvec against libm).
// Shared by the Elemwise, Composite and in-place tests.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_TEST_ELEMWISETESTVALUES_H
#define GRAPHJIT_TEST_ELEMWISETESTVALUES_H

#include "LoweringTestUtil.h"
#include <cmath>
#include <limits>
#include <type_traits>

namespace graphjit::testutil {

template <typename E> std::vector<E> specials() {
  constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
  constexpr double Inf = std::numeric_limits<double>::infinity();
  if constexpr (std::is_same_v<E, bool>) {
    return {true, false, true, true, false, false, true};
  } else if constexpr (std::is_floating_point_v<E>) {
    return {E(-2.5), E(-1),  E(-0.0), E(0),    E(0.4),   E(1), E(3.7),
            E(NaN),  E(Inf), E(-Inf), E(1e30), E(-7.25), E(2), E(-3e9)};
  } else {
    using L = std::numeric_limits<E>;
    return {L::min(), L::max(), E(0), E(1), E(-1), E(5),
            E(-7),    E(3),     E(100), E(2), E(-128)};
  }
}

/// A C-contiguous array of shape Sh: element I is specials()[(I * Step +
/// Start) % size], so that arrays with different Starts or Steps pair
/// different corner cases.
inline NDArray values(DType T, const Shape &Sh, unsigned Start = 0,
                      unsigned Step = 1) {
  NDArray A = NDArray::zeros(T, Sh);
  dispatchDType(T, [&](auto Tag) {
    using E = typename decltype(Tag)::type;
    std::vector<E> V = specials<E>();
    for (int64_t I = 0; I < A.numElements(); ++I)
      A.dataAs<E>()[I] = V[(I * Step + Start) % V.size()];
  });
  return A;
}

/// A (M, N) view of a fresh (N, M) array: a transposed operand.
inline NDArray transposed(DType T, int64_t M, int64_t N, unsigned Start = 0) {
  NDArray A = values(T, {N, M}, Start);
  return A.view({M, N}, {A.strides()[1], A.strides()[0]});
}

/// A vector of N elements read backwards from a fresh one.
inline NDArray reversed(DType T, int64_t N, unsigned Start = 0) {
  NDArray A = values(T, {N}, Start);
  int64_t Size = int64_t(A.elementSize());
  return A.view({N}, {-Size}, (N - 1) * Size);
}

/// The distance in ulp between two finite floats of T (of either sign).
template <typename T> uint64_t ulpDistance(T A, T B) {
  using Bits = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;
  // Ordered so that consecutive floats are consecutive integers, through
  // zero too.
  auto Ordered = [](T V) {
    Bits I;
    std::memcpy(&I, &V, sizeof I);
    return I < 0 ? int64_t(std::numeric_limits<Bits>::min()) - int64_t(I)
                 : int64_t(I);
  };
  int64_t D = Ordered(A) - Ordered(B);
  return D < 0 ? uint64_t(-D) : uint64_t(D);
}

/// How far apart the JIT's floats may be from perform's: the JIT's
/// transcendental functions are glibc's vector math library (libmvec, at
/// most 4 ulp), perform's scalar libm, and a Composite compounds them.
inline constexpr uint64_t MaxUlpFromPerform = 16;

/// Bit for bit, except that any two NaNs are equal (which NaN an operation
/// on two NaNs returns, its sign and payload, depends on the order in which
/// the compiler put commutative operands, in perform as in JIT code), and
/// that finite floats may be MaxUlp ulp apart, or MaxUlp epsilons (see
/// MaxUlpFromPerform); infinities and zeros' signs must agree.
inline ::testing::AssertionResult
sameValues(const NDArray &A, const NDArray &B,
           uint64_t MaxUlp = MaxUlpFromPerform) {
  if (A.dtype() != B.dtype() || A.shape() != B.shape())
    return sameBits(A, B);
  for (int64_t I = 0; I < A.numElements(); ++I) {
    const char *PA = A.data() + A.byteOffsetOf(I);
    const char *PB = B.data() + B.byteOffsetOf(I);
    if (std::memcmp(PA, PB, A.elementSize()) == 0)
      continue;
    if (isFloat(A.dtype())) {
      double X = A.getDouble(I), Y = B.getDouble(I);
      if (std::isnan(X) && std::isnan(Y))
        continue;
      bool F64 = A.dtype() == DType::F64;
      double Eps = F64 ? std::numeric_limits<double>::epsilon()
                       : std::numeric_limits<float>::epsilon();
      // A few ulp, or as much absolutely (a Composite's cancellation).
      bool Close = std::isfinite(X) && std::isfinite(Y) &&
                   (std::signbit(X) == std::signbit(Y) || X == 0 || Y == 0) &&
                   ((F64 ? ulpDistance(X, Y)
                         : ulpDistance(float(X), float(Y))) <= MaxUlp ||
                    std::fabs(X - Y) <= double(MaxUlp) * Eps);
      if (Close && (X != 0 || Y != 0 || std::signbit(X) == std::signbit(Y)))
        continue;
    }
    return ::testing::AssertionFailure()
           << "element " << I << ": " << A.getDouble(I) << " vs "
           << B.getDouble(I) << "\n"
           << A.str() << "\nvs\n"
           << B.str();
  }
  return ::testing::AssertionSuccess();
}

} // namespace graphjit::testutil

#endif
