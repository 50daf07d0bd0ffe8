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
/// scipy.special.erfcx: exp(x**2) * erfc(x), +inf below about -26.6.
double erfcx(double X);
float erfcx(float X);

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
