//===- SpecialFunctions.cpp - Special functions of PyMC's scalar ops ------===//
//
// Boost.Math (header-only) does the work where it has the function;
// log1mexp, xlogx and xlogy0 are written here (erfcx inline in the header,
// so that the JIT's loops of it vectorize), and the Bessel functions
// have a file of their own (SpecialBessel.cpp). Every function
// first settles the edges the way SciPy 1.17 (or, for the PyTensor-defined
// ones, PyTensor's `impl`) does, then hands the interior to the evaluator.
// Boost is called with a policy under which no error throws: domain and
// evaluation errors give NaN, overflow gives inf, and arithmetic stays in
// double, as SciPy's own Boost wrappers do.
//
//===----------------------------------------------------------------------===//

#include "ops/elemwise/SpecialFunctions.h"
#include "ops/elemwise/SpecialPolicy.h"

#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/owens_t.hpp>
#include <boost/math/special_functions/polygamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>

#include <climits>
#include <cmath>
#include <limits>

namespace graphjit {
namespace special {

using namespace detail;

namespace {

/// Above this shape Boost 1.74's gamma_p and gamma_q lose accuracy (in the
/// tails 1e-9 relative at k = 8e6, 1e-7 at k = 1e9; 0.3 absolute at
/// k = 1e12); gammaIncLargeK takes over.
constexpr double LargeGammaShape = 1e6;

/// The regularized incomplete gamma for k >= LargeGammaShape by Temme's
/// uniform asymptotic expansion (DLMF 8.12.3-8.12.8):
///   Q(k, x) = erfc(eta sqrt(k/2)) / 2 + exp(-k eta^2/2) / sqrt(2 pi k)
///             * (C0(eta) + C1(eta) / k + ...),
/// with lambda = x / k and eta^2 / 2 = lambda - 1 - log(lambda). Outside
/// |eta| < 0.04 the result is 0 or 1 to double precision, so C0 and C1
/// are needed only as the start of their Taylor series in eta; the next
/// term, C2 / k^2, is below 1e-16 of the result.
double gammaIncLargeK(double K, double X, bool Upper) {
  double Mu = (X - K) / K;
  // lambda - 1 - log(lambda), by its series near 1, without cancellation.
  double D = 0;
  if (std::fabs(Mu) < 0.05) {
    double Pow = Mu * Mu;
    for (int J = 2; J <= 16; ++J, Pow *= -Mu)
      D += Pow / J;
  } else {
    D = Mu - std::log1p(Mu);
  }
  if (K * D > 800) // exp(-k eta^2 / 2) underflows: the result is 0 or 1.
    return (X < K) == Upper ? 1.0 : 0.0;
  double Eta = std::copysign(std::sqrt(2.0 * D), Mu);
  double C0 =
      -1.0 / 3 +
      Eta * (1.0 / 12 +
             Eta * (-2.0 / 135 +
                    Eta * (1.0 / 864 +
                           Eta * (1.0 / 2835 + Eta * (-139.0 / 777600)))));
  double C1 = -1.0 / 540 - Eta / 288;
  double R = std::exp(-K * D) * InvSqrtTwoPi / std::sqrt(K) * (C0 + C1 / K);
  double Arg = Eta * std::sqrt(0.5 * K);
  return Upper ? 0.5 * std::erfc(Arg) + R : 0.5 * std::erfc(-Arg) - R;
}

/// Shared edges of gammainc and gammaincc: returns true with the lower
/// regularized value in Lower when the edges decide it.
bool gammaIncEdge(double K, double X, double &Lower) {
  if (std::isnan(K) || std::isnan(X) || K < 0 || X < 0) {
    Lower = NaN;
    return true;
  }
  if (K == 0) { // The limit k -> 0+ for x > 0.
    Lower = X > 0 ? 1.0 : NaN;
    return true;
  }
  if (K == Inf) {
    Lower = X == Inf ? NaN : 0.0;
    return true;
  }
  if (X == 0 || X == Inf) {
    Lower = X == 0 ? 0.0 : 1.0;
    return true;
  }
  return false;
}

/// The edges of betainc: zero or infinite shapes, the ends of [0, 1].
bool betaIncEdge(double A, double B, double X, double &Result) {
  if (std::isnan(A) || std::isnan(B) || std::isnan(X) || A < 0 || B < 0 ||
      X < 0 || X > 1 || (A == 0 && B == 0) || (A == Inf && B == Inf)) {
    Result = NaN;
    return true;
  }
  if (A == 0 || B == Inf) { // All the mass at x = 0.
    Result = X > 0 ? 1.0 : 0.0;
    return true;
  }
  if (B == 0 || A == Inf) { // All the mass at x = 1.
    Result = X < 1 ? 0.0 : 1.0;
    return true;
  }
  if (X == 0 || X == 1) {
    Result = X;
    return true;
  }
  return false;
}

} // namespace

double digamma(double X) {
  if (std::isnan(X))
    return X;
  if (X == 0) // SciPy: -inf at +0, +inf at -0 (the limits from each side).
    return std::signbit(X) ? Inf : -Inf;
  if (X == Inf)
    return Inf;
  if (X < 0 && (X == -Inf || X == std::floor(X)))
    return NaN;
  return boost::math::digamma(X, Policy());
}

double polygamma(double N, double X) {
  if (std::isnan(N) || std::isnan(X) || !isInteger(N) || N < 0)
    return NaN;
  if (N == 0)
    return digamma(X);
  // (-1)**(n+1) is the sign of every term of psi^(n) at large positive x.
  bool Odd = std::fmod(N, 2.0) == 1.0;
  double Sign = Odd ? 1.0 : -1.0;
  if (X <= 0 && (X == -Inf || X == std::floor(X)))
    return Sign * Inf; // A pole of even order for odd n, as SciPy.
  if (X == Inf)
    return Sign * 0.0;
  if (N > double(INT_MAX))
    return NaN;
  if (!Odd && X < -2147483648.0) {
    // Boost 1.74 gets the sign wrong here for even n (an int overflows).
    // Instead reflect (DLMF 5.15.6): with T(x) = psi^(n)(1-x) - psi^(n)(x),
    // which is periodic (a derivative of pi cot(pi x)), take T at the same
    // fractional part in (-1, 0), where Boost is right. That point is exact:
    // |x| >= 2^31 leaves the fraction at most 21 bits.
    double Near = X - std::floor(X) - 1.0;
    int Order = int(N);
    double T = boost::math::polygamma(Order, 1.0 - Near, Policy()) -
               polygamma(N, Near); // Overflows with the right sign.
    return boost::math::polygamma(Order, 1.0 - X, Policy()) - T;
  }
  double Value = boost::math::polygamma(int(N), X, Policy());
  if (std::isinf(Value)) {
    // Boost's overflow loses the sign; next to a pole p, psi^(n)(x) is
    // about (-1)^(n+1) n! / (x - p)^(n+1).
    bool Even = !Odd;
    if (X < 0.5 && X - std::nearbyint(X) < 0 && Even)
      Sign = -Sign;
    return Sign * Inf;
  }
  return Value;
}

double trigamma(double X) {
  if (std::isnan(X))
    return X;
  if (X <= 0 && (X == -Inf || X == std::floor(X)))
    return Inf;
  if (X == Inf)
    return 0.0;
  return boost::math::trigamma(X, Policy());
}

double erfinv(double X) {
  if (std::isnan(X) || X < -1 || X > 1)
    return NaN;
  if (X == 1 || X == -1)
    return X * Inf;
  if (X == 0)
    return 0.0;
  return boost::math::erf_inv(X, Policy());
}

double erfcinv(double X) {
  if (std::isnan(X) || X < 0 || X > 2)
    return NaN;
  if (X == 0)
    return Inf;
  if (X == 2)
    return -Inf;
  if (X == 1)
    return 0.0;
  return boost::math::erfc_inv(X, Policy());
}

double log1mexp(double X) {
  // PyTensor's Log1mexp.impl: the two forms each keep full precision on
  // their side of log(1/2). NaN above 0 and -inf at 0 come from log.
  if (X < -0.6931471805599453)
    return std::log1p(-std::exp(X));
  return std::log(-std::expm1(X));
}

double xlogx(double X) {
  if (X == 0)
    return 0.0;
  return X * std::log(X);
}

double xlogy0(double X, double Y) {
  if (X == 0) // PyTensor: switch(eq(x, 0), 0, x * log(y)), even for NaN y.
    return 0.0;
  return X * std::log(Y);
}

double gammainc(double K, double X) {
  double Lower;
  if (gammaIncEdge(K, X, Lower))
    return Lower;
  if (K >= LargeGammaShape)
    return gammaIncLargeK(K, X, /*Upper=*/false);
  return boost::math::gamma_p(K, X, Policy());
}

double gammaincc(double K, double X) {
  double Lower;
  if (gammaIncEdge(K, X, Lower))
    return std::isnan(Lower) ? Lower : 1.0 - Lower;
  if (K >= LargeGammaShape)
    return gammaIncLargeK(K, X, /*Upper=*/true);
  return boost::math::gamma_q(K, X, Policy());
}

// PyTensor's GammaU and GammaL, whose impl multiplies SciPy's regularized
// value by gamma(k). Boost's unregularized functions give the same in the
// interior and stay finite where that product overflows to inf or NaN
// (k above 171, a regularized value that underflows); the edges, and the
// shapes where gammaIncLargeK takes over, keep the product.
double gammau(double K, double X) {
  double Lower;
  if (gammaIncEdge(K, X, Lower) || K >= LargeGammaShape)
    return gammaincc(K, X) * std::tgamma(K);
  return boost::math::tgamma(K, X, Policy());
}

double gammal(double K, double X) {
  double Lower;
  if (gammaIncEdge(K, X, Lower) || K >= LargeGammaShape)
    return gammainc(K, X) * std::tgamma(K);
  return boost::math::tgamma_lower(K, X, Policy());
}

double gammaincinv(double K, double P) {
  if (std::isnan(K) || std::isnan(P) || K < 0 || P < 0 || P > 1)
    return NaN;
  if (P == 0)
    return 0.0;
  if (P == 1)
    return Inf;
  if (K == 0 || K == Inf)
    return NaN;
  return boost::math::gamma_p_inv(K, P, Policy());
}

double gammainccinv(double K, double Q) {
  if (std::isnan(K) || std::isnan(Q) || K < 0 || Q < 0 || Q > 1)
    return NaN;
  if (Q == 0)
    return Inf;
  if (Q == 1)
    return 0.0;
  if (K == 0 || K == Inf)
    return NaN;
  return boost::math::gamma_q_inv(K, Q, Policy());
}

double betainc(double A, double B, double X) {
  double Result;
  if (betaIncEdge(A, B, X, Result))
    return Result;
  return boost::math::ibeta(A, B, X, Policy());
}

double betaincinv(double A, double B, double P) {
  if (std::isnan(A) || std::isnan(B) || std::isnan(P) || !(A > 0) ||
      !(B > 0) || P < 0 || P > 1)
    return NaN;
  if (P == 0 || P == 1)
    return P;
  if (A == Inf || B == Inf)
    return NaN;
  return boost::math::ibeta_inv(A, B, P, Policy());
}

double owensT(double H, double A) {
  if (std::isnan(H) || std::isnan(A))
    return NaN;
  if (A == 0)
    return 0.0;
  if (std::isinf(H))
    return std::copysign(0.0, A);
  if (std::isinf(A)) // T(h, inf) = erfc(|h| / sqrt(2)) / 4.
    return std::copysign(0.25 * std::erfc(std::fabs(H) * M_SQRT1_2), A);
  return boost::math::owens_t(H, A, Policy());
}

// float versions: computed in double, rounded once.
float digamma(float X) { return float(digamma(double(X))); }
float trigamma(float X) { return float(trigamma(double(X))); }
float polygamma(float N, float X) {
  return float(polygamma(double(N), double(X)));
}
float erfinv(float X) { return float(erfinv(double(X))); }
float erfcinv(float X) { return float(erfcinv(double(X))); }
float log1mexp(float X) { return float(log1mexp(double(X))); }
float xlogx(float X) { return float(xlogx(double(X))); }
float xlogy0(float X, float Y) { return float(xlogy0(double(X), double(Y))); }
float gammainc(float K, float X) {
  return float(gammainc(double(K), double(X)));
}
float gammaincc(float K, float X) {
  return float(gammaincc(double(K), double(X)));
}
float gammau(float K, float X) { return float(gammau(double(K), double(X))); }
float gammal(float K, float X) { return float(gammal(double(K), double(X))); }
float gammaincinv(float K, float P) {
  return float(gammaincinv(double(K), double(P)));
}
float gammainccinv(float K, float Q) {
  return float(gammainccinv(double(K), double(Q)));
}
float betainc(float A, float B, float X) {
  return float(betainc(double(A), double(B), double(X)));
}
float betaincinv(float A, float B, float P) {
  return float(betaincinv(double(A), double(B), double(P)));
}
float owensT(float H, float A) { return float(owensT(double(H), double(A))); }

} // namespace special
} // namespace graphjit

using namespace graphjit::special;

// One wrapper per function and dtype: the overload of that dtype.
#define GJ_SPECIAL_UNARY(NAME, FN)                                             \
  extern "C" double gj_special_##NAME##_f64(double X) { return FN(X); }        \
  extern "C" float gj_special_##NAME##_f32(float X) { return FN(X); }
#define GJ_SPECIAL_BINARY(NAME, FN)                                            \
  extern "C" double gj_special_##NAME##_f64(double X, double Y) {              \
    return FN(X, Y);                                                           \
  }                                                                            \
  extern "C" float gj_special_##NAME##_f32(float X, float Y) {                 \
    return FN(X, Y);                                                           \
  }
#define GJ_SPECIAL_TERNARY(NAME, FN)                                           \
  extern "C" double gj_special_##NAME##_f64(double X, double Y, double Z) {    \
    return FN(X, Y, Z);                                                        \
  }                                                                            \
  extern "C" float gj_special_##NAME##_f32(float X, float Y, float Z) {        \
    return FN(X, Y, Z);                                                        \
  }

#define GJ_SPECIAL_FUNCTIONS(UNARY, BINARY, TERNARY)                           \
  UNARY(digamma, digamma)                                                      \
  UNARY(trigamma, trigamma)                                                    \
  BINARY(polygamma, polygamma)                                                 \
  UNARY(erfinv, erfinv)                                                        \
  UNARY(erfcinv, erfcinv)                                                      \
  UNARY(erfcx, erfcx)                                                          \
  UNARY(log1mexp, log1mexp)                                                    \
  UNARY(xlogx, xlogx)                                                          \
  BINARY(xlogy0, xlogy0)                                                       \
  UNARY(i0, i0)                                                                \
  UNARY(i1, i1)                                                                \
  UNARY(i0e, i0e)                                                              \
  UNARY(i1e, i1e)                                                              \
  BINARY(jv, jv)                                                               \
  UNARY(j0, besselJ0)                                                          \
  UNARY(j1, besselJ1)                                                          \
  BINARY(iv, iv)                                                               \
  BINARY(ive, ive)                                                             \
  BINARY(kve, kve)                                                             \
  BINARY(gammainc, gammainc)                                                   \
  BINARY(gammaincc, gammaincc)                                                 \
  BINARY(gammau, gammau)                                                       \
  BINARY(gammal, gammal)                                                       \
  BINARY(gammaincinv, gammaincinv)                                             \
  BINARY(gammainccinv, gammainccinv)                                           \
  TERNARY(betainc, betainc)                                                    \
  TERNARY(betaincinv, betaincinv)                                              \
  BINARY(owens_t, owensT)

GJ_SPECIAL_FUNCTIONS(GJ_SPECIAL_UNARY, GJ_SPECIAL_BINARY, GJ_SPECIAL_TERNARY)

#define GJ_SPECIAL_ENTRIES(NAME, FN)                                           \
  {"gj_special_" #NAME "_f64",                                                 \
   reinterpret_cast<void *>(&gj_special_##NAME##_f64)},                        \
      {"gj_special_" #NAME "_f32",                                             \
       reinterpret_cast<void *>(&gj_special_##NAME##_f32)},

const GjSpecialSymbol *graphjit::special::gjSpecialSymbols(size_t &Count) {
  static const GjSpecialSymbol Symbols[] = {GJ_SPECIAL_FUNCTIONS(
      GJ_SPECIAL_ENTRIES, GJ_SPECIAL_ENTRIES, GJ_SPECIAL_ENTRIES)};
  Count = sizeof(Symbols) / sizeof(Symbols[0]);
  return Symbols;
}
