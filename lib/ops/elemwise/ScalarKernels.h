//===- ScalarKernels.h - What each scalar operation does to one element -*- C++ -*-//
//
// The reference per-element semantics of every ScalarOpKind, for each C++
// element type, matching NumPy 1.24 on x86-64: integers wrap, integer
// division rounds down and gives 0 for a zero divisor, float floor_divide
// and remainder follow npy_divmod, maximum/minimum propagate NaN, float to
// int conversion never hits C++'s undefined cases. Nothing here has
// undefined behaviour for any input. The Elemwise `perform` loops call these
// and the JIT's lowering is checked against them.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_SCALARKERNELS_H
#define GRAPHJIT_OPS_SCALARKERNELS_H

#include "ops/elemwise/ScalarOps.h"
// The special functions' gj_special_* wrappers, which JIT code links by
// address (graphjit::initialize()), so that it and perform call the same.
#include "ops/elemwise/SpecialFunctions.h"
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace graphjit {
namespace scalar {

template <typename T> constexpr bool IsBool = std::is_same_v<T, bool>;
template <typename T> constexpr bool IsFloat = std::is_floating_point_v<T>;
template <typename T>
constexpr bool IsInt = std::is_integral_v<T> && !IsBool<T>;
template <typename T>
constexpr bool IsSignedInt = IsInt<T> && std::is_signed_v<T>;

/// The unsigned type integer arithmetic on T is done in, at least as wide as
/// `unsigned` so that integer promotion cannot bring back signed overflow.
template <typename T>
using WrapType =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                       std::make_unsigned_t<T>>;

// Wrapping arithmetic: modulo 2**bits for integers, logical for bool (as
// NumPy's bool add and multiply are or and and).
template <typename T> T add(T A, T B) {
  if constexpr (IsBool<T>)
    return A || B;
  else if constexpr (IsFloat<T>)
    return A + B;
  else
    return T(WrapType<T>(A) + WrapType<T>(B));
}
template <typename T> T sub(T A, T B) {
  if constexpr (IsFloat<T>)
    return A - B;
  else
    return T(WrapType<T>(A) - WrapType<T>(B));
}
template <typename T> T mul(T A, T B) {
  if constexpr (IsBool<T>)
    return A && B;
  else if constexpr (IsFloat<T>)
    return A * B;
  else
    return T(WrapType<T>(A) * WrapType<T>(B));
}
template <typename T> T neg(T A) {
  if constexpr (IsFloat<T>)
    return -A;
  else
    return T(WrapType<T>(0) - WrapType<T>(A));
}
template <typename T> T abs(T A) {
  if constexpr (IsFloat<T>)
    return std::fabs(A);
  else if constexpr (IsSignedInt<T>)
    return A < 0 ? neg(A) : A; // abs(INT_MIN) wraps to INT_MIN, as NumPy.
  else
    return A;
}
template <typename T> T sign(T A) {
  if constexpr (IsFloat<T>)
    return std::isnan(A) ? A : T((A > 0) - (A < 0));
  else
    return T((A > 0) - (A < 0));
}

/// Float floor division and remainder together, as NumPy's npy_divmod:
/// the remainder has the sign of the divisor and the quotient is snapped
/// to the integer nearest (A - Mod) / B.
template <typename T> T floatDivmod(T A, T B, T &Mod) {
  Mod = std::fmod(A, B);
  if (B == 0) // fmod gave NaN; the quotient is A / B (inf or NaN).
    return A / B;
  T Div = (A - Mod) / B;
  if (Mod != 0) {
    if ((B < 0) != (Mod < 0)) {
      Mod += B;
      Div -= T(1);
    }
  } else {
    Mod = std::copysign(T(0), B);
  }
  T FloorDiv;
  if (Div != 0) {
    FloorDiv = std::floor(Div);
    if (Div - FloorDiv > T(0.5))
      FloorDiv += T(1);
  } else {
    FloorDiv = std::copysign(T(0), A / B);
  }
  return FloorDiv;
}

/// np.floor_divide. Integers: rounds toward -inf, x // 0 == 0, and
/// INT_MIN // -1 wraps to INT_MIN.
template <typename T> T floorDiv(T A, T B) {
  if constexpr (IsFloat<T>) {
    T Mod;
    return floatDivmod(A, B, Mod);
  } else {
    if (B == 0)
      return 0;
    if constexpr (IsSignedInt<T>) {
      if (B == -1)
        return neg(A);
      T Q = T(A / B);
      if (A % B != 0 && ((A < 0) != (B < 0)))
        --Q;
      return Q;
    } else {
      return T(A / B);
    }
  }
}

/// np.remainder: the result has the sign of B; x % 0 == 0 for integers.
template <typename T> T mod(T A, T B) {
  if constexpr (IsFloat<T>) {
    if (B == 0)
      return std::fmod(A, B);
    T Mod;
    floatDivmod(A, B, Mod);
    return Mod;
  } else {
    if (B == 0)
      return 0;
    if constexpr (IsSignedInt<T>) {
      if (B == -1) // Also keeps INT_MIN % -1 away from C++'s UB.
        return 0;
      T R = T(A % B);
      if (R != 0 && ((R < 0) != (B < 0)))
        R = T(R + B);
      return R;
    } else {
      return T(A % B);
    }
  }
}

/// A ** B. Integers: exact power by squaring, wrapping; a negative
/// exponent gives 0 here and is rejected by the caller before the loop
/// (NumPy raises).
template <typename T> T pow(T A, T B) {
  if constexpr (IsFloat<T>) {
    return std::pow(A, B);
  } else {
    if constexpr (IsSignedInt<T>)
      if (B < 0)
        return 0;
    using U = WrapType<T>;
    U Base = U(A), Result = 1;
    for (U E = U(B); E; E >>= 1) {
      if (E & 1)
        Result *= Base;
      Base *= Base;
    }
    return T(Result);
  }
}

// NaN-propagating maximum and minimum; of two equal values the second is
// returned, as NumPy's SIMD loops do (it only shows for -0.0 and 0.0).
template <typename T> T maximum(T A, T B) {
  if constexpr (IsFloat<T>)
    return (A > B || std::isnan(A)) ? A : B;
  else
    return A > B ? A : B;
}
template <typename T> T minimum(T A, T B) {
  if constexpr (IsFloat<T>)
    return (A < B || std::isnan(A)) ? A : B;
  else
    return A < B ? A : B;
}

// Both without a branch, so that loops of them vectorize (with libmvec's
// exp and log1p): the select picks what the two-branch forms computed.
template <typename T> T sigmoid(T X) {
  // Only ever exponentiate a non-positive number, so nothing overflows:
  // 1 / (1 + e^-X) for X >= 0, e^X / (1 + e^X) below.
  T E = std::exp(-std::fabs(X));
  return (X >= 0 ? T(1) : E) / (T(1) + E);
}

template <typename T> T softplus(T X) {
  // np.logaddexp(0, X): exact to rounding for large |X| of either sign.
  T L = std::log1p(std::exp(-std::fabs(X)));
  return X > 0 ? X + L : L;
}

/// The float or the double function of a pair, by T.
template <typename T, typename F32, typename F64, typename... Rest>
T special(F32 *F, F64 *D, T A, Rest... R) {
  if constexpr (std::is_same_v<T, float>)
    return F(A, R...);
  else
    return D(A, R...);
}
#define GRAPHJIT_SPECIAL(NAME, ...)                                            \
  special(gj_special_##NAME##_f32, gj_special_##NAME##_f64, __VA_ARGS__)

/// Converts one element as NumPy's astype does on x86-64, without C++'s
/// undefined float-to-int cases: a float is truncated toward zero into an
/// int32 (or an int64 for 64-bit targets) and then wrapped to the target
/// width; NaN and values out of that range become INT32_MIN (INT64_MIN),
/// which is what the cvttss2si/cvttsd2si instructions NumPy's loops use
/// produce. Anything becomes bool as != 0.
template <typename To, typename From> To convert(From V) {
  if constexpr (IsBool<To>) {
    return V != 0;
  } else if constexpr (IsFloat<From> && !IsFloat<To>) {
    if constexpr (sizeof(To) == 8) {
      constexpr From Lim = From(9223372036854775808.0); // 2**63
      if (!(V >= -Lim && V < Lim))
        return To(std::numeric_limits<int64_t>::min());
      return To(int64_t(V));
    } else {
      constexpr From Lim = From(2147483648.0); // 2**31
      if (!(V >= -Lim && V < Lim))
        return To(std::numeric_limits<int32_t>::min());
      return To(int32_t(V));
    }
  } else {
    // Integer narrowing wraps; int to float and float to float round.
    return static_cast<To>(V);
  }
}

/// Whether the kernel of K is defined for compute type T. scalarSignature()
/// never picks another type; this keeps the loops from being instantiated
/// for combinations that cannot occur.
template <ScalarOpKind K, typename T> constexpr bool accepts() {
  switch (scalarOpInfo(K).Rule) {
  case DTypeRule::FloatFn:
  case DTypeRule::TrueDiv: return IsFloat<T>;
  case DTypeRule::Logical: return IsBool<T>;
  case DTypeRule::ArithNoBool: return !IsBool<T>;
  default: return !(IsBool<T> && scalarOpInfo(K).RejectsBool);
  }
}

/// The operation of K on computed-type operands. Comparisons and logical
/// ops return bool; switch takes its condition as bool.
template <ScalarOpKind K> struct Fn;

#define GRAPHJIT_SCALAR_FN(KIND, PARAMS, EXPR)                                \
  template <> struct Fn<ScalarOpKind::KIND> {                                 \
    template <typename T> auto operator() PARAMS const { return EXPR; }       \
  };

GRAPHJIT_SCALAR_FN(Neg, (T A), neg(A))
GRAPHJIT_SCALAR_FN(Abs, (T A), scalar::abs(A))
GRAPHJIT_SCALAR_FN(Exp, (T A), std::exp(A))
GRAPHJIT_SCALAR_FN(Log, (T A), std::log(A))
GRAPHJIT_SCALAR_FN(Log1p, (T A), std::log1p(A))
GRAPHJIT_SCALAR_FN(Expm1, (T A), std::expm1(A))
GRAPHJIT_SCALAR_FN(Sqrt, (T A), std::sqrt(A))
GRAPHJIT_SCALAR_FN(Sqr, (T A), mul(A, A))
GRAPHJIT_SCALAR_FN(Sigmoid, (T A), sigmoid(A))
GRAPHJIT_SCALAR_FN(Softplus, (T A), softplus(A))
GRAPHJIT_SCALAR_FN(Tanh, (T A), std::tanh(A))
GRAPHJIT_SCALAR_FN(Sin, (T A), std::sin(A))
GRAPHJIT_SCALAR_FN(Cos, (T A), std::cos(A))
GRAPHJIT_SCALAR_FN(Floor, (T A), std::floor(A))
GRAPHJIT_SCALAR_FN(Ceil, (T A), std::ceil(A))
GRAPHJIT_SCALAR_FN(Sign, (T A), sign(A))
GRAPHJIT_SCALAR_FN(Reciprocal, (T A), T(1) / A)
GRAPHJIT_SCALAR_FN(Erf, (T A), std::erf(A))
GRAPHJIT_SCALAR_FN(Erfc, (T A), std::erfc(A))
GRAPHJIT_SCALAR_FN(GammaLn, (T A), std::lgamma(A))
GRAPHJIT_SCALAR_FN(Log2, (T A), std::log2(A))
GRAPHJIT_SCALAR_FN(Log10, (T A), std::log10(A))
GRAPHJIT_SCALAR_FN(Not, (T A), !A)
GRAPHJIT_SCALAR_FN(Add, (T A, T B), add(A, B))
GRAPHJIT_SCALAR_FN(Sub, (T A, T B), sub(A, B))
GRAPHJIT_SCALAR_FN(Mul, (T A, T B), mul(A, B))
GRAPHJIT_SCALAR_FN(TrueDiv, (T A, T B), A / B)
GRAPHJIT_SCALAR_FN(IntDiv, (T A, T B), floorDiv(A, B))
GRAPHJIT_SCALAR_FN(Mod, (T A, T B), mod(A, B))
GRAPHJIT_SCALAR_FN(Pow, (T A, T B), scalar::pow(A, B))
GRAPHJIT_SCALAR_FN(Maximum, (T A, T B), maximum(A, B))
GRAPHJIT_SCALAR_FN(Minimum, (T A, T B), minimum(A, B))
GRAPHJIT_SCALAR_FN(Eq, (T A, T B), bool(A == B))
GRAPHJIT_SCALAR_FN(Neq, (T A, T B), bool(A != B))
GRAPHJIT_SCALAR_FN(Lt, (T A, T B), bool(A < B))
GRAPHJIT_SCALAR_FN(Le, (T A, T B), bool(A <= B))
GRAPHJIT_SCALAR_FN(Gt, (T A, T B), bool(A > B))
GRAPHJIT_SCALAR_FN(Ge, (T A, T B), bool(A >= B))
GRAPHJIT_SCALAR_FN(And, (T A, T B), bool(A && B))
GRAPHJIT_SCALAR_FN(Or, (T A, T B), bool(A || B))
GRAPHJIT_SCALAR_FN(Psi, (T A), GRAPHJIT_SPECIAL(digamma, A))
GRAPHJIT_SCALAR_FN(TriGamma, (T A), GRAPHJIT_SPECIAL(trigamma, A))
GRAPHJIT_SCALAR_FN(Gamma, (T A), std::tgamma(A))
GRAPHJIT_SCALAR_FN(Erfinv, (T A), GRAPHJIT_SPECIAL(erfinv, A))
GRAPHJIT_SCALAR_FN(Erfcinv, (T A), GRAPHJIT_SPECIAL(erfcinv, A))
GRAPHJIT_SCALAR_FN(Erfcx, (T A), T(graphjit::special::erfcx(double(A))))
GRAPHJIT_SCALAR_FN(Log1mexp, (T A), GRAPHJIT_SPECIAL(log1mexp, A))
GRAPHJIT_SCALAR_FN(XLogX, (T A), GRAPHJIT_SPECIAL(xlogx, A))
GRAPHJIT_SCALAR_FN(I0, (T A), GRAPHJIT_SPECIAL(i0, A))
GRAPHJIT_SCALAR_FN(I1, (T A), GRAPHJIT_SPECIAL(i1, A))
GRAPHJIT_SCALAR_FN(I0e, (T A), GRAPHJIT_SPECIAL(i0e, A))
GRAPHJIT_SCALAR_FN(I1e, (T A), GRAPHJIT_SPECIAL(i1e, A))
GRAPHJIT_SCALAR_FN(Tan, (T A), std::tan(A))
GRAPHJIT_SCALAR_FN(ArcSin, (T A), std::asin(A))
GRAPHJIT_SCALAR_FN(ArcCos, (T A), std::acos(A))
GRAPHJIT_SCALAR_FN(ArcTan, (T A), std::atan(A))
GRAPHJIT_SCALAR_FN(Sinh, (T A), std::sinh(A))
GRAPHJIT_SCALAR_FN(Cosh, (T A), std::cosh(A))
GRAPHJIT_SCALAR_FN(ArcSinh, (T A), std::asinh(A))
GRAPHJIT_SCALAR_FN(ArcCosh, (T A), std::acosh(A))
GRAPHJIT_SCALAR_FN(ArcTanh, (T A), std::atanh(A))
GRAPHJIT_SCALAR_FN(Exp2, (T A), std::exp2(A))
GRAPHJIT_SCALAR_FN(Trunc, (T A), std::trunc(A))
// The default rounding mode rounds ties to even, as np.round.
GRAPHJIT_SCALAR_FN(RoundHalfEven, (T A), std::nearbyint(A))
GRAPHJIT_SCALAR_FN(XLogY0, (T A, T B), GRAPHJIT_SPECIAL(xlogy0, A, B))
GRAPHJIT_SCALAR_FN(GammaInc, (T A, T B), GRAPHJIT_SPECIAL(gammainc, A, B))
GRAPHJIT_SCALAR_FN(GammaIncC, (T A, T B), GRAPHJIT_SPECIAL(gammaincc, A, B))
GRAPHJIT_SCALAR_FN(Polygamma, (T A, T B), GRAPHJIT_SPECIAL(polygamma, A, B))
GRAPHJIT_SCALAR_FN(ArcTan2, (T A, T B), std::atan2(A, B))
GRAPHJIT_SCALAR_FN(BetaInc, (T A, T B, T X), GRAPHJIT_SPECIAL(betainc, A, B, X))
GRAPHJIT_SCALAR_FN(OwensT, (T H, T A), GRAPHJIT_SPECIAL(owens_t, H, A))
GRAPHJIT_SCALAR_FN(Jv, (T V, T X), GRAPHJIT_SPECIAL(jv, V, X))
GRAPHJIT_SCALAR_FN(J0, (T X), GRAPHJIT_SPECIAL(j0, X))
GRAPHJIT_SCALAR_FN(J1, (T X), GRAPHJIT_SPECIAL(j1, X))
GRAPHJIT_SCALAR_FN(Iv, (T V, T X), GRAPHJIT_SPECIAL(iv, V, X))
GRAPHJIT_SCALAR_FN(Ive, (T V, T X), GRAPHJIT_SPECIAL(ive, V, X))
GRAPHJIT_SCALAR_FN(Kve, (T V, T X), GRAPHJIT_SPECIAL(kve, V, X))
GRAPHJIT_SCALAR_FN(GammaU, (T K, T X), GRAPHJIT_SPECIAL(gammau, K, X))
GRAPHJIT_SCALAR_FN(GammaL, (T K, T X), GRAPHJIT_SPECIAL(gammal, K, X))
GRAPHJIT_SCALAR_FN(GammaIncInv, (T K, T P), GRAPHJIT_SPECIAL(gammaincinv, K, P))
GRAPHJIT_SCALAR_FN(GammaIncCInv, (T K, T Q),
                   GRAPHJIT_SPECIAL(gammainccinv, K, Q))
GRAPHJIT_SCALAR_FN(BetaIncInv, (T A, T B, T P),
                   GRAPHJIT_SPECIAL(betaincinv, A, B, P))
// NumPy multiplies by the constant, rounded once, as here.
GRAPHJIT_SCALAR_FN(Deg2Rad, (T A), A * T(0.017453292519943295769))
GRAPHJIT_SCALAR_FN(Rad2Deg, (T A), A * T(57.295779513082320877))
GRAPHJIT_SCALAR_FN(RoundHalfAway, (T A), std::round(A))
GRAPHJIT_SCALAR_FN(Switch, (bool C, T A, T B), C ? A : B)
GRAPHJIT_SCALAR_FN(Clip, (T X, T Lo, T Hi), minimum(maximum(X, Lo), Hi))
GRAPHJIT_SCALAR_FN(Second, (T B), B)

#undef GRAPHJIT_SCALAR_FN
#undef GRAPHJIT_SPECIAL

} // namespace scalar
} // namespace graphjit

#endif
