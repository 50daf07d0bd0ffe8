//===- ScalarOps.h - The scalar operations of Elemwise ops -----*- C++ -*-===//
//
// The one table of the scalar operations that Elemwise ops apply element by
// element (add, exp, switch, cast, ...): their graph-format names, arities,
// dtype rules and flop counts, and the rule that turns input dtypes into the
// dtypes each input is computed in and the output dtype. The reference
// `perform` and the JIT's lowering both start from here, so both agree on
// what each op means; the per-element arithmetic is in ScalarKernels.h.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_SCALAROPS_H
#define GRAPHJIT_OPS_SCALAROPS_H

#include "graphjit/DType.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>

namespace graphjit {

enum class ScalarOpKind : uint8_t {
  // Unary.
  Neg, Abs, Exp, Log, Log1p, Expm1, Sqrt, Sqr, Sigmoid, Softplus, Tanh, Sin,
  Cos, Floor, Ceil, Sign, Reciprocal, Erf, Erfc, GammaLn, Log2, Log10, Not,
  // Binary (Add and Mul take any number from two on).
  Add, Sub, Mul, TrueDiv, IntDiv, Mod, Pow, Maximum, Minimum, Eq, Neq, Lt, Le,
  Gt, Ge, And, Or,
  // Special functions (SpecialFunctions.h) and the rest of libm's.
  Psi, TriGamma, Gamma, Erfinv, Erfcinv, Erfcx, Log1mexp, XLogX, I0, I1, I0e,
  I1e, Tan, ArcSin, ArcCos, ArcTan, Sinh, Cosh, ArcSinh, ArcCosh, ArcTanh,
  Exp2, Trunc, RoundHalfEven, XLogY0, GammaInc, GammaIncC, Polygamma, ArcTan2,
  BetaInc, OwensT, Jv, J0, J1, Iv, Ive, Kve, GammaU, GammaL, GammaIncInv,
  GammaIncCInv, BetaIncInv, Deg2Rad, Rad2Deg, RoundHalfAway,
  // Others.
  Switch, Clip, Cast, Second,
};

/// How the output dtype (and the dtype the inputs are computed in) follows
/// from the input dtypes.
enum class DTypeRule : uint8_t {
  /// The input's dtype (neg abs sign sqr).
  Same,
  /// floatTypeFor(input): exp, log, floor of an int, ...
  FloatFn,
  /// promote() of all inputs (add sub mul maximum minimum clip).
  Arith,
  /// promote() of all inputs, but bool computes as i8: NumPy has no bool
  /// loop for floor_divide, remainder and power.
  ArithNoBool,
  /// promote() of the inputs if that is a float, else f64 (true_div,
  /// reciprocal).
  TrueDiv,
  /// bool, the inputs compared in their promote() dtype.
  Compare,
  /// bool, each input tested as != 0 (np.logical_and/or/not).
  Logical,
  /// switch(c, a, b): promote(a, b), c tested as != 0.
  Switch,
  /// The `dtype` attribute.
  Cast,
  /// second(a, b): b's dtype.
  Second,
};

struct ScalarOpInfo {
  ScalarOpKind Kind;
  const char *Name; ///< The graph format's name.
  unsigned MinArity;
  int MaxArity; ///< -1: any number from MinArity on.
  DTypeRule Rule;
  /// NumPy rejects a bool operand of this op (neg, sign; sub of two bools).
  bool RejectsBool;
  /// Flops per output element (n-ary add and mul: per extra input).
  double FlopsPerElement;
  const char *Summary;
};

/// Every scalar operation, in ScalarOpKind order.
// clang-format off
inline constexpr ScalarOpInfo ScalarOpTable[] = {
    {ScalarOpKind::Neg, "neg", 1, 1, DTypeRule::Same, true, 1, "-x (not for bool)"},
    {ScalarOpKind::Abs, "abs", 1, 1, DTypeRule::Same, false, 1, "|x|"},
    {ScalarOpKind::Exp, "exp", 1, 1, DTypeRule::FloatFn, false, 1, "e**x"},
    {ScalarOpKind::Log, "log", 1, 1, DTypeRule::FloatFn, false, 1, "natural logarithm"},
    {ScalarOpKind::Log1p, "log1p", 1, 1, DTypeRule::FloatFn, false, 1, "log(1 + x), accurate near 0"},
    {ScalarOpKind::Expm1, "expm1", 1, 1, DTypeRule::FloatFn, false, 1, "exp(x) - 1, accurate near 0"},
    {ScalarOpKind::Sqrt, "sqrt", 1, 1, DTypeRule::FloatFn, false, 1, "square root"},
    {ScalarOpKind::Sqr, "sqr", 1, 1, DTypeRule::Same, false, 1, "x * x"},
    {ScalarOpKind::Sigmoid, "sigmoid", 1, 1, DTypeRule::FloatFn, false, 1, "1 / (1 + exp(-x)), computed stably"},
    {ScalarOpKind::Softplus, "softplus", 1, 1, DTypeRule::FloatFn, false, 1, "log(1 + exp(x)), computed stably"},
    {ScalarOpKind::Tanh, "tanh", 1, 1, DTypeRule::FloatFn, false, 1, "hyperbolic tangent"},
    {ScalarOpKind::Sin, "sin", 1, 1, DTypeRule::FloatFn, false, 1, "sine"},
    {ScalarOpKind::Cos, "cos", 1, 1, DTypeRule::FloatFn, false, 1, "cosine"},
    {ScalarOpKind::Floor, "floor", 1, 1, DTypeRule::FloatFn, false, 1, "round down (a float result)"},
    {ScalarOpKind::Ceil, "ceil", 1, 1, DTypeRule::FloatFn, false, 1, "round up (a float result)"},
    {ScalarOpKind::Sign, "sign", 1, 1, DTypeRule::Same, true, 1, "-1, 0 or 1 (NaN stays NaN; not for bool)"},
    {ScalarOpKind::Reciprocal, "reciprocal", 1, 1, DTypeRule::TrueDiv, false, 1, "1 / x, as true_div(1, x)"},
    {ScalarOpKind::Erf, "erf", 1, 1, DTypeRule::FloatFn, false, 1, "error function"},
    {ScalarOpKind::Erfc, "erfc", 1, 1, DTypeRule::FloatFn, false, 1, "1 - erf(x), accurate where erf(x) is near 1"},
    {ScalarOpKind::GammaLn, "gammaln", 1, 1, DTypeRule::FloatFn, false, 1, "log |gamma(x)| (scipy.special.gammaln)"},
    {ScalarOpKind::Log2, "log2", 1, 1, DTypeRule::FloatFn, false, 1, "base-2 logarithm"},
    {ScalarOpKind::Log10, "log10", 1, 1, DTypeRule::FloatFn, false, 1, "base-10 logarithm"},
    {ScalarOpKind::Not, "not", 1, 1, DTypeRule::Logical, false, 1, "logical not (x == 0), a bool"},
    {ScalarOpKind::Add, "add", 2, -1, DTypeRule::Arith, false, 1, "a + b (+ c ...)"},
    {ScalarOpKind::Sub, "sub", 2, 2, DTypeRule::Arith, true, 1, "a - b (not for two bools)"},
    {ScalarOpKind::Mul, "mul", 2, -1, DTypeRule::Arith, false, 1, "a * b (* c ...)"},
    {ScalarOpKind::TrueDiv, "true_div", 2, 2, DTypeRule::TrueDiv, false, 1, "a / b, a float (integers give f64)"},
    {ScalarOpKind::IntDiv, "int_div", 2, 2, DTypeRule::ArithNoBool, false, 1, "a // b, rounding down (np.floor_divide)"},
    {ScalarOpKind::Mod, "mod", 2, 2, DTypeRule::ArithNoBool, false, 1, "a % b, with the sign of b (np.remainder)"},
    {ScalarOpKind::Pow, "pow", 2, 2, DTypeRule::ArithNoBool, false, 1, "a ** b"},
    {ScalarOpKind::Maximum, "maximum", 2, 2, DTypeRule::Arith, false, 1, "the larger of a and b (NaN propagates)"},
    {ScalarOpKind::Minimum, "minimum", 2, 2, DTypeRule::Arith, false, 1, "the smaller of a and b (NaN propagates)"},
    {ScalarOpKind::Eq, "eq", 2, 2, DTypeRule::Compare, false, 1, "a == b, a bool"},
    {ScalarOpKind::Neq, "neq", 2, 2, DTypeRule::Compare, false, 1, "a != b, a bool"},
    {ScalarOpKind::Lt, "lt", 2, 2, DTypeRule::Compare, false, 1, "a < b, a bool"},
    {ScalarOpKind::Le, "le", 2, 2, DTypeRule::Compare, false, 1, "a <= b, a bool"},
    {ScalarOpKind::Gt, "gt", 2, 2, DTypeRule::Compare, false, 1, "a > b, a bool"},
    {ScalarOpKind::Ge, "ge", 2, 2, DTypeRule::Compare, false, 1, "a >= b, a bool"},
    {ScalarOpKind::And, "and", 2, 2, DTypeRule::Logical, false, 1, "logical and (np.logical_and), a bool"},
    {ScalarOpKind::Or, "or", 2, 2, DTypeRule::Logical, false, 1, "logical or (np.logical_or), a bool"},
    {ScalarOpKind::Psi, "psi", 1, 1, DTypeRule::FloatFn, false, 1, "digamma, d/dx log gamma(x) (scipy.special.psi)"},
    {ScalarOpKind::TriGamma, "tri_gamma", 1, 1, DTypeRule::FloatFn, false, 1, "trigamma, the derivative of psi (scipy.special.polygamma(1, x))"},
    {ScalarOpKind::Gamma, "gamma", 1, 1, DTypeRule::FloatFn, false, 1, "the gamma function (scipy.special.gamma)"},
    {ScalarOpKind::Erfinv, "erfinv", 1, 1, DTypeRule::FloatFn, false, 1, "inverse of erf (scipy.special.erfinv)"},
    {ScalarOpKind::Erfcinv, "erfcinv", 1, 1, DTypeRule::FloatFn, false, 1, "inverse of erfc (scipy.special.erfcinv)"},
    {ScalarOpKind::Erfcx, "erfcx", 1, 1, DTypeRule::FloatFn, false, 1, "exp(x**2) * erfc(x), scaled (scipy.special.erfcx)"},
    {ScalarOpKind::Log1mexp, "log1mexp", 1, 1, DTypeRule::FloatFn, false, 1, "log(1 - exp(x)), computed stably (PyTensor's log1mexp)"},
    {ScalarOpKind::XLogX, "xlogx", 1, 1, DTypeRule::FloatFn, false, 1, "x * log(x), 0 at x = 0 (PyTensor's xlogx)"},
    {ScalarOpKind::I0, "i0", 1, 1, DTypeRule::FloatFn, false, 1, "modified Bessel function of order 0 (scipy.special.i0)"},
    {ScalarOpKind::I1, "i1", 1, 1, DTypeRule::FloatFn, false, 1, "modified Bessel function of order 1 (scipy.special.i1)"},
    {ScalarOpKind::I0e, "i0e", 1, 1, DTypeRule::FloatFn, false, 1, "exp(-|x|) * i0(x) (scipy.special.i0e)"},
    {ScalarOpKind::I1e, "i1e", 1, 1, DTypeRule::FloatFn, false, 1, "exp(-|x|) * i1(x) (scipy.special.i1e)"},
    {ScalarOpKind::Tan, "tan", 1, 1, DTypeRule::FloatFn, false, 1, "tangent"},
    {ScalarOpKind::ArcSin, "arcsin", 1, 1, DTypeRule::FloatFn, false, 1, "inverse sine"},
    {ScalarOpKind::ArcCos, "arccos", 1, 1, DTypeRule::FloatFn, false, 1, "inverse cosine"},
    {ScalarOpKind::ArcTan, "arctan", 1, 1, DTypeRule::FloatFn, false, 1, "inverse tangent"},
    {ScalarOpKind::Sinh, "sinh", 1, 1, DTypeRule::FloatFn, false, 1, "hyperbolic sine"},
    {ScalarOpKind::Cosh, "cosh", 1, 1, DTypeRule::FloatFn, false, 1, "hyperbolic cosine"},
    {ScalarOpKind::ArcSinh, "arcsinh", 1, 1, DTypeRule::FloatFn, false, 1, "inverse hyperbolic sine"},
    {ScalarOpKind::ArcCosh, "arccosh", 1, 1, DTypeRule::FloatFn, false, 1, "inverse hyperbolic cosine"},
    {ScalarOpKind::ArcTanh, "arctanh", 1, 1, DTypeRule::FloatFn, false, 1, "inverse hyperbolic tangent"},
    {ScalarOpKind::Exp2, "exp2", 1, 1, DTypeRule::FloatFn, false, 1, "2**x"},
    {ScalarOpKind::Trunc, "trunc", 1, 1, DTypeRule::FloatFn, false, 1, "round toward zero (a float result)"},
    {ScalarOpKind::RoundHalfEven, "round_half_to_even", 1, 1, DTypeRule::FloatFn, false, 1, "round to nearest, ties to even (np.round)"},
    {ScalarOpKind::XLogY0, "xlogy0", 2, 2, DTypeRule::FloatFn, false, 1, "x * log(y), 0 where x = 0 (PyTensor's xlogy0)"},
    {ScalarOpKind::GammaInc, "gammainc", 2, 2, DTypeRule::FloatFn, false, 1, "regularized lower incomplete gamma P(k, x) (scipy.special.gammainc)"},
    {ScalarOpKind::GammaIncC, "gammaincc", 2, 2, DTypeRule::FloatFn, false, 1, "regularized upper incomplete gamma Q(k, x) (scipy.special.gammaincc)"},
    {ScalarOpKind::Polygamma, "polygamma", 2, 2, DTypeRule::FloatFn, false, 1, "polygamma(n, x), the n-th derivative of psi (scipy.special.polygamma)"},
    {ScalarOpKind::ArcTan2, "arctan2", 2, 2, DTypeRule::FloatFn, false, 1, "arctan(y / x) in the quadrant of (x, y) (np.arctan2)"},
    {ScalarOpKind::BetaInc, "betainc", 3, 3, DTypeRule::FloatFn, false, 1, "regularized incomplete beta I_x(a, b): betainc(a, b, x) (scipy.special.betainc)"},
    {ScalarOpKind::OwensT, "owens_t", 2, 2, DTypeRule::FloatFn, false, 1, "Owen's T function T(h, a) (scipy.special.owens_t; the skew normal CDF is Phi(h) - 2 T(h, a))"},
    {ScalarOpKind::Jv, "jv", 2, 2, DTypeRule::FloatFn, false, 1, "Bessel function of the first kind of real order: jv(v, x) (scipy.special.jv)"},
    {ScalarOpKind::J0, "j0", 1, 1, DTypeRule::FloatFn, false, 1, "Bessel function of the first kind of order 0 (scipy.special.j0)"},
    {ScalarOpKind::J1, "j1", 1, 1, DTypeRule::FloatFn, false, 1, "Bessel function of the first kind of order 1 (scipy.special.j1)"},
    {ScalarOpKind::Iv, "iv", 2, 2, DTypeRule::FloatFn, false, 1, "modified Bessel function of the first kind of real order: iv(v, x) (scipy.special.iv)"},
    {ScalarOpKind::Ive, "ive", 2, 2, DTypeRule::FloatFn, false, 1, "iv(v, x) * exp(-|x|), scaled (scipy.special.ive)"},
    {ScalarOpKind::Kve, "kve", 2, 2, DTypeRule::FloatFn, false, 1, "modified Bessel function of the second kind, scaled: kv(v, x) * exp(x) (scipy.special.kve)"},
    {ScalarOpKind::GammaU, "gammau", 2, 2, DTypeRule::FloatFn, false, 1, "upper incomplete gamma, unregularized: gammaincc(k, x) * gamma(k) (PyTensor's gammau)"},
    {ScalarOpKind::GammaL, "gammal", 2, 2, DTypeRule::FloatFn, false, 1, "lower incomplete gamma, unregularized: gammainc(k, x) * gamma(k) (PyTensor's gammal)"},
    {ScalarOpKind::GammaIncInv, "gammaincinv", 2, 2, DTypeRule::FloatFn, false, 1, "the x with gammainc(k, x) = p: gammaincinv(k, p) (scipy.special.gammaincinv)"},
    {ScalarOpKind::GammaIncCInv, "gammainccinv", 2, 2, DTypeRule::FloatFn, false, 1, "the x with gammaincc(k, x) = q: gammainccinv(k, q) (scipy.special.gammainccinv)"},
    {ScalarOpKind::BetaIncInv, "betaincinv", 3, 3, DTypeRule::FloatFn, false, 1, "the x with betainc(a, b, x) = p: betaincinv(a, b, p) (scipy.special.betaincinv)"},
    {ScalarOpKind::Deg2Rad, "deg2rad", 1, 1, DTypeRule::FloatFn, false, 1, "degrees to radians, x * (pi / 180) (np.deg2rad)"},
    {ScalarOpKind::Rad2Deg, "rad2deg", 1, 1, DTypeRule::FloatFn, false, 1, "radians to degrees, x * (180 / pi) (np.rad2deg)"},
    {ScalarOpKind::RoundHalfAway, "round_half_away_from_zero", 1, 1, DTypeRule::FloatFn, false, 1, "round to nearest, ties away from zero (C's round)"},
    {ScalarOpKind::Switch, "switch", 3, 3, DTypeRule::Switch, false, 1, "switch(c, a, b): a where c != 0, else b"},
    {ScalarOpKind::Clip, "clip", 3, 3, DTypeRule::Arith, false, 1, "clip(x, lo, hi) = minimum(maximum(x, lo), hi)"},
    {ScalarOpKind::Cast, "cast", 1, 1, DTypeRule::Cast, false, 0, "cast(x, dtype=f32): convert to another dtype"},
    {ScalarOpKind::Second, "second", 2, 2, DTypeRule::Second, false, 0, "second(a, b): b broadcast with a (Theano's fill)"},
};
// clang-format on

constexpr unsigned NumScalarOps =
    sizeof(ScalarOpTable) / sizeof(ScalarOpTable[0]);
static_assert(NumScalarOps == unsigned(ScalarOpKind::Second) + 1,
              "one table row per ScalarOpKind");

constexpr const ScalarOpInfo &scalarOpInfo(ScalarOpKind K) {
  return ScalarOpTable[unsigned(K)];
}

// scalarOpInfo() indexes the table by kind.
constexpr bool scalarOpTableInOrder() {
  for (unsigned I = 0; I < NumScalarOps; ++I)
    if (unsigned(ScalarOpTable[I].Kind) != I)
      return false;
  return true;
}
static_assert(scalarOpTableInOrder(), "ScalarOpTable is in ScalarOpKind order");

std::optional<ScalarOpKind> lookupScalarOp(llvm::StringRef Name);

/// Whether K's kernel calls graphjit's host code (the special functions of
/// SpecialFunctions.h), which no device kernel can.
constexpr bool isHostOnlyScalarOp(ScalarOpKind K) {
  switch (K) {
  case ScalarOpKind::Psi: case ScalarOpKind::TriGamma:
  case ScalarOpKind::Erfinv: case ScalarOpKind::Erfcinv:
  case ScalarOpKind::Erfcx: case ScalarOpKind::Log1mexp:
  case ScalarOpKind::XLogX: case ScalarOpKind::I0: case ScalarOpKind::I1:
  case ScalarOpKind::I0e: case ScalarOpKind::I1e: case ScalarOpKind::XLogY0:
  case ScalarOpKind::GammaInc: case ScalarOpKind::GammaIncC:
  case ScalarOpKind::Polygamma: case ScalarOpKind::BetaInc:
  case ScalarOpKind::OwensT: case ScalarOpKind::Jv: case ScalarOpKind::J0:
  case ScalarOpKind::J1: case ScalarOpKind::Iv: case ScalarOpKind::Ive:
  case ScalarOpKind::Kve: case ScalarOpKind::GammaU: case ScalarOpKind::GammaL:
  case ScalarOpKind::GammaIncInv: case ScalarOpKind::GammaIncCInv:
  case ScalarOpKind::BetaIncInv:
    return true;
  default:
    return false;
  }
}

/// The dtypes one application computes in: each input is converted to In[k]
/// (exactly, or by testing != 0 for bool), the kernel maps those to Out.
struct ScalarSignature {
  llvm::SmallVector<DType, 4> In;
  DType Out = DType::F64;
};

/// The signature of K applied to inputs of these dtypes; CastTo is the
/// target of Cast. Fails, in words, when NumPy would reject the dtypes
/// (neg of bool, sub of two bools, ...).
llvm::Expected<ScalarSignature> scalarSignature(ScalarOpKind K,
                                                llvm::ArrayRef<DType> Inputs,
                                                DType CastTo = DType::F64);

} // namespace graphjit

#endif
