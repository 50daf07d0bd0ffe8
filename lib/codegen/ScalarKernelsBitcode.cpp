//===- ScalarKernelsBitcode.cpp - Scalar kernels for the JIT, as bitcode -===//
//
// Compiled by clang-19 to LLVM bitcode at build time and embedded in graphjit;
// the JIT links the functions a module calls into it and inlines them, so JIT
// code computes every element exactly as the reference perform does (both use
// lib/ops/elemwise/ScalarKernels.h). One extern "C" function per scalar
// operation and compute dtype, named gj_scalar_<op>_<dtype> (e.g.
// gj_scalar_add_f64), and one per conversion, gj_convert_<to>_<from>.
// Combinations that scalarSignature() never picks are defined too (returning 0)
// so that the list is regular.
//
// Compiled once per dtype (lib/CMakeLists.txt), GJ_CTYPE and GJ_DTYPE
// naming it: that dtype's operations and the conversions to it. A module
// reads only the libraries of the dtypes it computes in, an eighth of
// the parsing of them all (5.8 M instructions a compile).
//
//===----------------------------------------------------------------------===//

#include "ops/elemwise/ScalarKernels.h"

using namespace graphjit;

namespace {

template <ScalarOpKind K, typename T>
using OutOf = std::conditional_t<scalarOpInfo(K).Rule == DTypeRule::Compare ||
                                     scalarOpInfo(K).Rule == DTypeRule::Logical,
                                 bool, T>;

template <ScalarOpKind K, typename T> OutOf<K, T> apply1(T A) {
  if constexpr (scalar::accepts<K, T>())
    return static_cast<OutOf<K, T>>(scalar::Fn<K>{}(A));
  else
    return OutOf<K, T>();
}

template <ScalarOpKind K, typename T> OutOf<K, T> apply2(T A, T B) {
  if constexpr (scalar::accepts<K, T>())
    return static_cast<OutOf<K, T>>(scalar::Fn<K>{}(A, B));
  else
    return OutOf<K, T>();
}

template <ScalarOpKind K, typename T> T apply3(T A, T B, T C) {
  if constexpr (scalar::accepts<K, T>())
    return scalar::Fn<K>{}(A, B, C);
  else
    return T();
}

template <typename T> T applySwitch(bool C, T A, T B) {
  return scalar::Fn<ScalarOpKind::Switch>{}(C, A, B);
}

} // namespace

#define GJ_ALL_DTYPES(M, ...)                                                  \
  M(bool, bool, __VA_ARGS__)                                                   \
  M(int8_t, i8, __VA_ARGS__)                                                   \
  M(int16_t, i16, __VA_ARGS__)                                                 \
  M(int32_t, i32, __VA_ARGS__)                                                 \
  M(int64_t, i64, __VA_ARGS__)                                                 \
  M(uint8_t, u8, __VA_ARGS__)                                                  \
  M(float, f32, __VA_ARGS__)                                                   \
  M(double, f64, __VA_ARGS__)

#if !defined(GJ_CTYPE) || !defined(GJ_DTYPE)
#error "define GJ_CTYPE and GJ_DTYPE, the dtype of this library"
#endif
// Through GJ_APPLY so that GJ_CTYPE and GJ_DTYPE are expanded before M
// pastes them into names.
#define GJ_APPLY(M, T, TN, ...) M(T, TN, __VA_ARGS__)
#define GJ_EACH_DTYPE(M, ...) GJ_APPLY(M, GJ_CTYPE, GJ_DTYPE, __VA_ARGS__)

#define GJ_UNARY_T(T, TN, KIND, NAME)                                          \
  extern "C" OutOf<ScalarOpKind::KIND, T> gj_scalar_##NAME##_##TN(T A) {      \
    return apply1<ScalarOpKind::KIND, T>(A);                                   \
  }
#define GJ_BINARY_T(T, TN, KIND, NAME)                                         \
  extern "C" OutOf<ScalarOpKind::KIND, T> gj_scalar_##NAME##_##TN(T A, T B) { \
    return apply2<ScalarOpKind::KIND, T>(A, B);                                \
  }
#define GJ_TERNARY_T(T, TN, KIND, NAME)                                        \
  extern "C" T gj_scalar_##NAME##_##TN(T A, T B, T C) {                        \
    return apply3<ScalarOpKind::KIND, T>(A, B, C);                             \
  }
#define GJ_SWITCH_T(T, TN, KIND, NAME)                                         \
  extern "C" T gj_scalar_##NAME##_##TN(bool C, T A, T B) {                     \
    return applySwitch<T>(C, A, B);                                            \
  }
#define GJ_UNARY(KIND, NAME) GJ_EACH_DTYPE(GJ_UNARY_T, KIND, NAME)
#define GJ_BINARY(KIND, NAME) GJ_EACH_DTYPE(GJ_BINARY_T, KIND, NAME)

GJ_UNARY(Neg, neg)
GJ_UNARY(Abs, abs)
GJ_UNARY(Exp, exp)
GJ_UNARY(Log, log)
GJ_UNARY(Log1p, log1p)
GJ_UNARY(Expm1, expm1)
GJ_UNARY(Sqrt, sqrt)
GJ_UNARY(Sqr, sqr)
GJ_UNARY(Sigmoid, sigmoid)
GJ_UNARY(Softplus, softplus)
GJ_UNARY(Tanh, tanh)
GJ_UNARY(Sin, sin)
GJ_UNARY(Cos, cos)
GJ_UNARY(Floor, floor)
GJ_UNARY(Ceil, ceil)
GJ_UNARY(Sign, sign)
GJ_UNARY(Reciprocal, reciprocal)
GJ_UNARY(Erf, erf)
GJ_UNARY(Erfc, erfc)
GJ_UNARY(GammaLn, gammaln)
GJ_UNARY(Log2, log2)
GJ_UNARY(Log10, log10)
GJ_UNARY(Not, not)
GJ_UNARY(Second, second)
GJ_BINARY(Add, add)
GJ_BINARY(Sub, sub)
GJ_BINARY(Mul, mul)
GJ_BINARY(TrueDiv, true_div)
GJ_BINARY(IntDiv, int_div)
GJ_BINARY(Mod, mod)
GJ_BINARY(Pow, pow)
GJ_BINARY(Maximum, maximum)
GJ_BINARY(Minimum, minimum)
GJ_BINARY(Eq, eq)
GJ_BINARY(Neq, neq)
GJ_BINARY(Lt, lt)
GJ_BINARY(Le, le)
GJ_BINARY(Gt, gt)
GJ_BINARY(Ge, ge)
GJ_BINARY(And, and)
GJ_BINARY(Or, or)
GJ_EACH_DTYPE(GJ_TERNARY_T, Clip, clip)
GJ_UNARY(Psi, psi)
GJ_UNARY(TriGamma, tri_gamma)
GJ_UNARY(Gamma, gamma)
GJ_UNARY(Erfinv, erfinv)
GJ_UNARY(Erfcinv, erfcinv)
GJ_UNARY(Erfcx, erfcx)
GJ_UNARY(Log1mexp, log1mexp)
GJ_UNARY(XLogX, xlogx)
GJ_UNARY(I0, i0)
GJ_UNARY(I1, i1)
GJ_UNARY(I0e, i0e)
GJ_UNARY(I1e, i1e)
GJ_UNARY(Tan, tan)
GJ_UNARY(ArcSin, arcsin)
GJ_UNARY(ArcCos, arccos)
GJ_UNARY(ArcTan, arctan)
GJ_UNARY(Sinh, sinh)
GJ_UNARY(Cosh, cosh)
GJ_UNARY(ArcSinh, arcsinh)
GJ_UNARY(ArcCosh, arccosh)
GJ_UNARY(ArcTanh, arctanh)
GJ_UNARY(Exp2, exp2)
GJ_UNARY(Trunc, trunc)
GJ_UNARY(RoundHalfEven, round_half_to_even)
GJ_BINARY(XLogY0, xlogy0)
GJ_BINARY(GammaInc, gammainc)
GJ_BINARY(GammaIncC, gammaincc)
GJ_BINARY(Polygamma, polygamma)
GJ_BINARY(ArcTan2, arctan2)
GJ_EACH_DTYPE(GJ_TERNARY_T, BetaInc, betainc)
GJ_BINARY(OwensT, owens_t)
GJ_BINARY(Jv, jv)
GJ_UNARY(J0, j0)
GJ_UNARY(J1, j1)
GJ_BINARY(Iv, iv)
GJ_BINARY(Ive, ive)
GJ_BINARY(Kve, kve)
GJ_BINARY(GammaU, gammau)
GJ_BINARY(GammaL, gammal)
GJ_BINARY(GammaIncInv, gammaincinv)
GJ_BINARY(GammaIncCInv, gammainccinv)
GJ_EACH_DTYPE(GJ_TERNARY_T, BetaIncInv, betaincinv)
GJ_UNARY(Deg2Rad, deg2rad)
GJ_UNARY(Rad2Deg, rad2deg)
GJ_UNARY(RoundHalfAway, round_half_away_from_zero)
GJ_EACH_DTYPE(GJ_SWITCH_T, Switch, switch)

// Conversions: gj_convert_<to>_<from>.
#define GJ_CONVERT_FROM(From, FromN, To, ToN)                                  \
  extern "C" To gj_convert_##ToN##_##FromN(From V) {                           \
    return scalar::convert<To, From>(V);                                       \
  }
#define GJ_CONVERT_TO(To, ToN) GJ_ALL_DTYPES(GJ_CONVERT_FROM, To, ToN)
GJ_CONVERT_TO(GJ_CTYPE, GJ_DTYPE)
