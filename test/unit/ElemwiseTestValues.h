//===- ElemwiseTestValues.h - Corner-case arrays for op tests ---*- C++ -*-===//
//
// Arrays full of each dtype's corner cases (extremes where integers wrap
// and conversions saturate, zeros and -1 for division, NaN and infinities),
// in the layouts the loops must get right (transposed, reversed), and the
// comparison the Elemwise tests use: bit for bit, but any two NaNs equal.
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

/// Bit for bit, except that any two NaNs are equal: which NaN an operation
/// on two NaNs returns (its sign, its payload) depends on the order in
/// which the compiler put commutative operands, in perform as in JIT code.
inline ::testing::AssertionResult sameValues(const NDArray &A,
                                             const NDArray &B) {
  if (A.dtype() != B.dtype() || A.shape() != B.shape())
    return sameBits(A, B);
  for (int64_t I = 0; I < A.numElements(); ++I) {
    if (std::memcmp(A.data() + A.byteOffsetOf(I),
                    B.data() + B.byteOffsetOf(I), A.elementSize()) == 0)
      continue;
    if (isFloat(A.dtype()) && std::isnan(A.getDouble(I)) &&
        std::isnan(B.getDouble(I)))
      continue;
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
