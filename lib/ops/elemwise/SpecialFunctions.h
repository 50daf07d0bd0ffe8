//===- SpecialFunctions.h - Special functions of PyMC's scalar ops -*- C++ -*-===//
//
// The special functions that PyTensor's scalar ops (pytensor.scalar.math)
// evaluate with scipy.special, computed to SciPy's accuracy and with SciPy's
// values at the edges (poles, NaN, infinities, the ends of each domain), so
// that Elemwise graphs using them can run as compiled code. float versions
// compute in double and round. Nothing here throws, and nothing allocates
// per call.
//
// JIT code calls them through the extern "C" wrappers
// gj_special_<name>_<f64|f32>; gjSpecialSymbols() lists every wrapper with
// its address, for registering them with the JIT's symbol table.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_SPECIALFUNCTIONS_H
#define GRAPHJIT_OPS_SPECIALFUNCTIONS_H

#include <cmath>
#include <cstddef>

namespace graphjit {
namespace special {

/// scipy.special.psi: -inf at +0, +inf at -0, NaN at negative integers.
double digamma(double X);
float digamma(float X);
/// scipy.special.polygamma(1, x): +inf at 0 and the negative integers.
double trigamma(double X);
float trigamma(float X);
/// scipy.special.polygamma(n, x) for integer-valued N >= 0; NaN for any
/// other N.
double polygamma(double N, double X);
float polygamma(float N, float X);

/// scipy.special.erfinv and erfcinv.
double erfinv(double X);
float erfinv(float X);
double erfcinv(double X);
float erfcinv(float X);
/// C ? A : B of two values already computed, as a select: for a ?: whose
/// operands are not constants clang emits a branch, and the optimizer then
/// sinks each operand's computation into its arm, which keeps a loop of
/// it from vectorizing. Inlined, this stays a select.
inline double choose(bool C, double A, double B) { return C ? A : B; }

/// scipy.special.erfcx: exp(x**2) * erfc(x), +inf below about -26.6.
/// Inline and without a branch, so that the JIT's loops of it vectorize
/// with libmvec's exp and erfc (the scalar kernels call it as the
/// interpreter does): both forms are computed and a select keeps one.
inline double erfcx(double X) {
  // Below 26, erfc(x) is a normal number (below 0 it lies in (1, 2]), and
  // exp(x*x) is taken of x*x split exactly into Hi + Lo with an fma, so
  // that exp does not magnify the square's rounding. It overflows to inf
  // below -26.64, as erfcx does.
  double Hi = X * X;
  double Lo = std::fma(X, X, -Hi);
  double E = std::exp(Hi);
  double Near = choose(std::isinf(E), E, E + E * Lo) * std::erfc(X);
  // Above, the asymptotic series 1/(x sqrt(pi)) * sum (-1)^k (2k-1)!! /
  // (2x^2)^k (DLMF 7.12.1): its terms shrink by (2k-1) / (2 x^2) <= 1/1352
  // at first, so a dozen reach double's epsilon; 0 at inf, NaN for NaN.
  double InvTwoXSq = 0.5 / X / X;
  double Term = 1.0, Sum = 1.0;
  for (int K = 1; K < 12; ++K) {
    Term *= -(2.0 * K - 1.0) * InvTwoXSq;
    Sum += Term;
  }
  constexpr double InvSqrtPi = 0.56418958354775628695;
  double Far = InvSqrtPi / X * Sum;
  return choose(X < 26.0, choose(X < -26.7, HUGE_VAL, Near), Far);
}
inline float erfcx(float X) { return float(erfcx(double(X))); }

/// PyTensor's Log1mexp: log(1 - exp(x)); -inf at 0, NaN above 0.
double log1mexp(double X);
float log1mexp(float X);
/// PyTensor's xlogx and xlogy0: x * log(x) and x * log(y), 0 where x == 0
/// whatever y is.
double xlogx(double X);
float xlogx(float X);
double xlogy0(double X, double Y);
float xlogy0(float X, float Y);

/// scipy.special.i0, i1 and the exponentially scaled i0e, i1e.
double i0(double X);
float i0(float X);
double i1(double X);
float i1(float X);
double i0e(double X);
float i0e(float X);
double i1e(double X);
float i1e(float X);
/// scipy.special.jv, j0, j1 (Bessel J of real order); iv, and the
/// exponentially scaled ive (I_nu(x) e^-|x|) and kve (K_nu(x) e^x). As
/// SciPy: NaN at an infinite x, and at a negative x for a non-integer nu.
double jv(double Nu, double X);
float jv(float Nu, float X);
double besselJ0(double X);
float besselJ0(float X);
double besselJ1(double X);
float besselJ1(float X);
double iv(double Nu, double X);
float iv(float Nu, float X);
double ive(double Nu, double X);
float ive(float Nu, float X);
double kve(double Nu, double X);
float kve(float Nu, float X);

/// scipy.special.gammainc and gammaincc (regularized lower and upper
/// incomplete gamma), and their inverses in x.
double gammainc(double K, double X);
float gammainc(float K, float X);
double gammaincc(double K, double X);
float gammaincc(float K, float X);
/// PyTensor's gammau and gammal: gammaincc(k, x) * gamma(k) and
/// gammainc(k, x) * gamma(k), the unregularized incomplete gammas.
double gammau(double K, double X);
float gammau(float K, float X);
double gammal(double K, double X);
float gammal(float K, float X);
double gammaincinv(double K, double P);
float gammaincinv(float K, float P);
double gammainccinv(double K, double Q);
float gammainccinv(float K, float Q);

/// scipy.special.betainc (regularized incomplete beta) and its inverse in x.
double betainc(double A, double B, double X);
float betainc(float A, float B, float X);
double betaincinv(double A, double B, double P);
float betaincinv(float A, float B, float P);

/// scipy.special.owens_t.
double owensT(double H, double A);
float owensT(float H, float A);

/// One extern "C" wrapper: its symbol name and address.
struct GjSpecialSymbol {
  const char *Name;
  void *Address;
};

/// Every gj_special_* wrapper; sets Count to their number.
const GjSpecialSymbol *gjSpecialSymbols(size_t &Count);

} // namespace special
} // namespace graphjit

// The wrappers JIT code calls, one per function and dtype.
extern "C" {
double gj_special_digamma_f64(double);
float gj_special_digamma_f32(float);
double gj_special_trigamma_f64(double);
float gj_special_trigamma_f32(float);
double gj_special_polygamma_f64(double, double);
float gj_special_polygamma_f32(float, float);
double gj_special_erfinv_f64(double);
float gj_special_erfinv_f32(float);
double gj_special_erfcinv_f64(double);
float gj_special_erfcinv_f32(float);
double gj_special_erfcx_f64(double);
float gj_special_erfcx_f32(float);
double gj_special_log1mexp_f64(double);
float gj_special_log1mexp_f32(float);
double gj_special_xlogx_f64(double);
float gj_special_xlogx_f32(float);
double gj_special_xlogy0_f64(double, double);
float gj_special_xlogy0_f32(float, float);
double gj_special_i0_f64(double);
float gj_special_i0_f32(float);
double gj_special_i1_f64(double);
float gj_special_i1_f32(float);
double gj_special_i0e_f64(double);
float gj_special_i0e_f32(float);
double gj_special_i1e_f64(double);
float gj_special_i1e_f32(float);
double gj_special_jv_f64(double, double);
float gj_special_jv_f32(float, float);
double gj_special_j0_f64(double);
float gj_special_j0_f32(float);
double gj_special_j1_f64(double);
float gj_special_j1_f32(float);
double gj_special_iv_f64(double, double);
float gj_special_iv_f32(float, float);
double gj_special_ive_f64(double, double);
float gj_special_ive_f32(float, float);
double gj_special_kve_f64(double, double);
float gj_special_kve_f32(float, float);
double gj_special_gammainc_f64(double, double);
float gj_special_gammainc_f32(float, float);
double gj_special_gammaincc_f64(double, double);
float gj_special_gammaincc_f32(float, float);
double gj_special_gammau_f64(double, double);
float gj_special_gammau_f32(float, float);
double gj_special_gammal_f64(double, double);
float gj_special_gammal_f32(float, float);
double gj_special_gammaincinv_f64(double, double);
float gj_special_gammaincinv_f32(float, float);
double gj_special_gammainccinv_f64(double, double);
float gj_special_gammainccinv_f32(float, float);
double gj_special_betainc_f64(double, double, double);
float gj_special_betainc_f32(float, float, float);
double gj_special_betaincinv_f64(double, double, double);
float gj_special_betaincinv_f32(float, float, float);
double gj_special_owens_t_f64(double, double);
float gj_special_owens_t_f32(float, float);
}

#endif // GRAPHJIT_OPS_SPECIALFUNCTIONS_H
