//===- SpecialBessel.cpp - Bessel functions of PyTensor's scalar ops ------===//
//
// J, I and K of real order (scipy.special's jv, j0, j1, iv, ive, kve, i0,
// i1, i0e, i1e). Boost.Math evaluates the interior; the exponentially
// scaled ive and kve, whose unscaled values overflow or underflow from
// x ~ 700 on, use the large-argument (Hankel) and uniform large-order
// (Debye) expansions there, each in the range where its terms fall below
// double's epsilon. The edges (x = 0, negative x, infinities, NaN) are
// SciPy 1.17's, AMOS's choices included: jv, iv, ive and kve give NaN at an
// infinite x.
//
//===----------------------------------------------------------------------===//

#include "ops/elemwise/SpecialFunctions.h"
#include "ops/elemwise/SpecialPolicy.h"

#include <boost/math/special_functions/bessel.hpp>
#include <boost/math/special_functions/sin_pi.hpp>

#include <array>
#include <cmath>

namespace graphjit {
namespace special {

using namespace detail;

namespace {

/// From here on I_nu(x) e^-x and K_nu(x) e^x are computed by expansion:
/// below it the unscaled values are normal doubles for any order whose
/// scaled value is.
constexpr double LargeBesselArgument = 700.0;

/// A value as Mantissa * exp(Exponent), so that a factor e^(+-x) can be
/// applied before anything overflows.
struct Scaled {
  double Mantissa;
  double Exponent;
  /// Mantissa * e^(Exponent + Shift), the mantissa moved into the exponent
  /// where e^(Exponent + Shift) alone would overflow or underflow.
  double value(double Shift = 0.0) const {
    double E = Exponent + Shift;
    if (std::fabs(E) < 700.0 || Mantissa == 0.0)
      return Mantissa * std::exp(E);
    return std::copysign(std::exp(E + std::log(std::fabs(Mantissa))),
                         Mantissa);
  }
};

/// Hankel's series (DLMF 10.40.1-2) for x large against nu^2:
///   I_nu(x) e^-x sqrt(2 pi x) ~ sum_k (-1)^k a_k(nu) / x^k,
///   K_nu(x) e^x sqrt(2x / pi) ~ sum_k a_k(nu) / x^k,
/// a_k(nu) = prod_{j<=k} (4 nu^2 - (2j-1)^2) / (k! 8^k). Stops where the
/// terms reach epsilon or start to grow (the series is asymptotic).
double hankelSum(double Nu, double X, bool Alternating) {
  double FourNuSq = 4.0 * Nu * Nu;
  double Term = 1.0, Sum = 1.0;
  for (int K = 1; K < 80; ++K) {
    double Odd = 2.0 * K - 1.0;
    double Next = Term * (FourNuSq - Odd * Odd) / (8.0 * K * X);
    if (Alternating)
      Next = -Next;
    if (std::fabs(Next) >= std::fabs(Term))
      break;
    Term = Next;
    Sum += Term;
    if (std::fabs(Term) < 1e-17 * std::fabs(Sum))
      break;
  }
  return Sum;
}

/// Debye's polynomials U_k(p) (DLMF 10.41.10), U_0 = 1 and
///   U_{k+1}(p) = p^2 (1 - p^2) U_k'(p) / 2 + (1/8) int_0^p (1 - 5t^2) U_k(t) dt,
/// as coefficients of p^0 .. p^(3k), computed at compile time.
constexpr int DebyeTerms = 17;
constexpr int DebyeDegree = 3 * (DebyeTerms - 1);
using DebyeTable =
    std::array<std::array<double, DebyeDegree + 1>, DebyeTerms>;

constexpr DebyeTable makeDebyeTable() {
  DebyeTable U{};
  U[0][0] = 1.0;
  for (int K = 0; K + 1 < DebyeTerms; ++K) {
    auto &Next = U[K + 1];
    for (int J = 0; J <= 3 * K; ++J) {
      double C = U[K][J];
      if (C == 0.0)
        continue;
      // p^2 (1 - p^2) * J C p^(J-1) / 2
      if (J > 0) {
        Next[J + 1] += 0.5 * J * C;
        Next[J + 3] -= 0.5 * J * C;
      }
      // (1/8) * C (p^(J+1) / (J+1) - 5 p^(J+3) / (J+3))
      Next[J + 1] += C / (8.0 * (J + 1));
      Next[J + 3] -= 5.0 * C / (8.0 * (J + 3));
    }
  }
  return U;
}

constexpr DebyeTable DebyeU = makeDebyeTable();

double debyePolynomial(int K, double P) {
  double Sum = 0.0;
  for (int J = 3 * K; J >= 0; --J)
    Sum = Sum * P + DebyeU[K][J];
  return Sum;
}

/// Debye's uniform expansion in the order (DLMF 10.41.3-4), for nu of
/// about 13 and more: with z = x / nu, s = sqrt(1 + z^2), p = 1 / s and
/// nu eta - x = nu (1 / (s + z) - asinh(1 / z)),
///   I_nu(x) e^-x ~ e^(nu eta - x) / sqrt(2 pi nu s) sum_k U_k(p) / nu^k,
///   K_nu(x) e^x  ~ e^(x - nu eta) sqrt(pi / (2 nu s)) sum_k (-1)^k U_k(p) / nu^k.
Scaled debyeScaled(double Nu, double X, bool KindK) {
  double Z = X / Nu;
  double S = std::hypot(1.0, Z);
  double P = 1.0 / S;
  double Exponent = Nu * (1.0 / (S + Z) - std::asinh(1.0 / Z));
  double Sum = 0.0, InvNuPow = 1.0;
  for (int K = 0; K < DebyeTerms; ++K) {
    double Term = debyePolynomial(K, P) * InvNuPow;
    Sum += (KindK && (K & 1)) ? -Term : Term;
    if (K > 0 && std::fabs(Term) < 1e-17 * std::fabs(Sum))
      break;
    InvNuPow /= Nu;
  }
  constexpr double Pi = 3.14159265358979323846;
  if (KindK)
    return {std::sqrt(Pi / (2.0 * Nu * S)) * Sum, -Exponent};
  return {InvSqrtTwoPi / std::sqrt(Nu * S) * Sum, Exponent};
}

/// I_nu(x) e^-x (KindK false) or K_nu(x) e^x (true) for nu >= 0 and
/// x >= LargeBesselArgument: Hankel's series while 4 nu^2 <= x, where its
/// terms shrink at once, Debye's expansion beyond (nu >= 13.2).
Scaled largeArgumentScaled(double Nu, double X, bool KindK) {
  if (4.0 * Nu * Nu <= X) {
    double Sum = hankelSum(Nu, X, /*Alternating=*/!KindK);
    constexpr double SqrtHalfPi = 1.25331413731550025121;
    return {KindK ? SqrtHalfPi / std::sqrt(X) * Sum
                  : InvSqrtTwoPi / std::sqrt(X) * Sum,
            0.0};
  }
  return debyeScaled(Nu, X, KindK);
}

/// I_nu(|x|) * exp(-|x|) for nu = 0 or 1.
double besselIScaled(int Nu, double AbsX) {
  if (AbsX == Inf)
    return 0.0;
  if (AbsX >= 50.0)
    return hankelSum(Nu, AbsX, /*Alternating=*/true) * InvSqrtTwoPi /
           std::sqrt(AbsX); // 2 pi x may overflow.
  return boost::math::cyl_bessel_i(Nu, AbsX, Policy()) * std::exp(-AbsX);
}

/// (-1)^Nu for an integer Nu.
double parity(double Nu) { return std::fmod(Nu, 2.0) == 0.0 ? 1.0 : -1.0; }

/// The sign of Gamma(nu + 1) for a negative non-integer nu: J_nu(x) and
/// I_nu(x) go as (x/2)^nu / Gamma(nu + 1) at x -> 0+.
double gammaSignAbove(double Nu) {
  return std::fmod(std::floor(Nu), 2.0) == 0.0 ? -1.0 : 1.0;
}

/// I_nu(x) e^(Shift - x) for x >= LargeBesselArgument and a finite nu of
/// either sign: Shift 0 gives ive, Shift x gives iv, each formed once the
/// exponent is known, so that neither overflows before it must.
double largeArgumentI(double Nu, double X, double Shift) {
  double AbsNu = std::fabs(Nu);
  double Value = largeArgumentScaled(AbsNu, X, /*KindK=*/false).value(Shift);
  if (Nu >= 0 || isInteger(Nu))
    return Value;
  // I_-nu = I_nu + (2/pi) sin(pi nu) K_nu (DLMF 10.27.2); K_nu e^-x is
  // the expansion's K_nu e^x times e^-2x.
  Scaled K = largeArgumentScaled(AbsNu, X, /*KindK=*/true);
  constexpr double TwoOverPi = 0.63661977236758134308;
  double Sin = boost::math::sin_pi(AbsNu, Policy());
  return Value + TwoOverPi * Sin * K.value(Shift - 2.0 * X);
}

/// I_nu(x) e^-x for x > 0 and a finite nu of either sign.
double iveOfPositive(double Nu, double X) {
  if (X < LargeBesselArgument)
    return boost::math::cyl_bessel_i(Nu, X, Policy()) * std::exp(-X);
  return largeArgumentI(Nu, X, 0.0);
}

/// Orders from which Boost's cyl_bessel_j no longer computes J: it casts
/// the order to int (undefined behaviour beyond int's range) and its
/// general path gives up and returns the order itself.
constexpr double HugeBesselOrder = 2147483647.0;

/// J_nu(x), x > 0, for |nu| >= HugeBesselOrder. Below x = |nu|, J_|nu|(x)
/// is far below the smallest double, so J_nu is 0 for nu > 0 and for
/// integers; for a negative non-integer, -sin(pi |nu|) Y_|nu|(x)
/// overflows, and SciPy reports +inf whatever its sign (as it does from
/// orders near -100 on). From x = |nu| on (both beyond 2^31) nothing here
/// is accurate: NaN.
double jvOfHugeOrder(double Nu, double X) {
  double AbsNu = std::fabs(Nu);
  if (X >= AbsNu)
    return NaN;
  return Nu > 0 || isInteger(Nu) ? 0.0 : Inf;
}

} // namespace

double jv(double Nu, double X) {
  if (std::isnan(Nu) || std::isnan(X) || std::isinf(X))
    return NaN;
  if (std::isinf(Nu))
    return 0.0;
  if (X < 0 || (X == 0 && std::signbit(X))) {
    if (!isInteger(Nu))
      return X == 0 ? jv(Nu, 0.0) : NaN;
    return parity(Nu) * jv(Nu, -X);
  }
  if (X == 0) {
    if (Nu == 0)
      return 1.0;
    if (Nu > 0 || isInteger(Nu))
      return 0.0;
    return gammaSignAbove(Nu) * Inf;
  }
  if (std::fabs(Nu) >= HugeBesselOrder)
    return jvOfHugeOrder(Nu, X);
  return boost::math::cyl_bessel_j(Nu, X, Policy());
}

double besselJ0(double X) {
  if (std::isnan(X) || std::isinf(X))
    return NaN;
  return boost::math::cyl_bessel_j(0, std::fabs(X), Policy());
}

double besselJ1(double X) {
  if (std::isnan(X) || std::isinf(X))
    return NaN;
  if (X == 0)
    return X; // J1 is odd: -0 stays -0.
  double Value = boost::math::cyl_bessel_j(1, std::fabs(X), Policy());
  return X < 0 ? -Value : Value;
}

double iv(double Nu, double X) {
  if (std::isnan(Nu) || std::isnan(X) || std::isinf(X))
    return NaN;
  if (std::isinf(Nu))
    return 0.0;
  if (X < 0) {
    if (!isInteger(Nu))
      return NaN;
    return parity(Nu) * iv(Nu, -X);
  }
  if (X == 0) {
    if (Nu == 0)
      return 1.0;
    return Nu > 0 || isInteger(Nu) ? 0.0 : Inf;
  }
  if (X >= LargeBesselArgument) // Boost overflows inside, before the end.
    return largeArgumentI(isInteger(Nu) ? std::fabs(Nu) : Nu, X, X);
  return boost::math::cyl_bessel_i(Nu, X, Policy());
}

double ive(double Nu, double X) {
  if (std::isnan(Nu) || std::isnan(X) || std::isinf(X) || std::isinf(Nu))
    return NaN;
  if (X < 0) {
    if (!isInteger(Nu))
      return NaN;
    return parity(Nu) * ive(Nu, -X);
  }
  if (X == 0) {
    if (Nu == 0)
      return 1.0;
    return Nu > 0 || isInteger(Nu) ? 0.0 : NaN;
  }
  return iveOfPositive(isInteger(Nu) ? std::fabs(Nu) : Nu, X);
}

double kve(double Nu, double X) {
  if (std::isnan(X) || X < 0)
    return NaN;
  if (X == 0) // SciPy: inf whatever the order, NaN included.
    return Inf;
  if (std::isnan(Nu) || std::isinf(X) || std::isinf(Nu))
    return NaN;
  double AbsNu = std::fabs(Nu); // K_-nu = K_nu.
  if (X < LargeBesselArgument) {
    double K = boost::math::cyl_bessel_k(AbsNu, X, Policy());
    // K_nu is positive; Boost's overflow near x = 0 can come back as NaN.
    return std::isnan(K) ? Inf : K * std::exp(X);
  }
  return largeArgumentScaled(AbsNu, X, /*KindK=*/true).value();
}

double i0(double X) {
  if (std::isnan(X))
    return X;
  return boost::math::cyl_bessel_i(0, std::fabs(X), Policy());
}

double i1(double X) {
  if (std::isnan(X))
    return X;
  double Value = boost::math::cyl_bessel_i(1, std::fabs(X), Policy());
  return X < 0 ? -Value : Value; // I1 is odd.
}

double i0e(double X) {
  if (std::isnan(X))
    return X;
  return besselIScaled(0, std::fabs(X));
}

double i1e(double X) {
  if (std::isnan(X))
    return X;
  double Value = besselIScaled(1, std::fabs(X));
  return std::signbit(X) ? -Value : Value;
}

// float versions: computed in double, rounded once.
float jv(float Nu, float X) { return float(jv(double(Nu), double(X))); }
float besselJ0(float X) { return float(besselJ0(double(X))); }
float besselJ1(float X) { return float(besselJ1(double(X))); }
float iv(float Nu, float X) { return float(iv(double(Nu), double(X))); }
float ive(float Nu, float X) { return float(ive(double(Nu), double(X))); }
float kve(float Nu, float X) { return float(kve(double(Nu), double(X))); }
float i0(float X) { return float(i0(double(X))); }
float i1(float X) { return float(i1(double(X))); }
float i0e(float X) { return float(i0e(double(X))); }
float i1e(float X) { return float(i1e(double(X))); }

} // namespace special
} // namespace graphjit
