"""The elemwise ops against NumPy 1.24: every op on every dtype it accepts,
mixed dtypes, broadcasting, empty, size-one and 0-d shapes, strided views
made inside the graph (transpose, stepped and reversed subtensors), number
literals, and the errors NumPy raises too.

Expected values come from NumPy itself, with the deviations that
docs/ops-elemwise.md lists: float functions of bool/i8/u8/i16 compute in
float32 (NumPy: float16), reciprocal is true_div(1, x), 0-d inputs promote
by dtype (NumPy 1.24 casts 0-d arrays by value), sigmoid/softplus/erf are
compared with stable NumPy formulas since NumPy has no such ufuncs.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import numpy as np
import harness as H

np.seterr(all="ignore")  # NumPy's warnings for x // 0, log(-1), ...

NP = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
      "i32": np.int32, "i64": np.int64, "u8": np.uint8, "bool": np.bool_}
NAME = {np.dtype(t): n for n, t in NP.items()}
DTYPES = list(NP)
SIGNED = ["i8", "i16", "i32", "i64"]

# Values per dtype: extremes where integers wrap, zeros and -1 where
# division has corner cases (A[0] // B[0] is INT_MIN // -1).
A = {
    "f64": [-2.5, -1.0, -0.3, 0.0, 0.4, 1.0, 3.7],
    "f32": [-2.5, -1.0, -0.3, 0.0, 0.4, 1.0, 3.7],
    "i8": [-128, -7, -1, 0, 1, 5, 127],
    "i16": [-32768, -300, -1, 0, 2, 77, 32767],
    "i32": [-2**31, -70000, -3, 0, 1, 9, 2**31 - 1],
    "i64": [-2**63, -5 * 10**12, -2, 0, 3, 11, 2**63 - 1],
    "u8": [0, 1, 3, 100, 128, 200, 255],
    "bool": [True, False, True, True, False, False, True],
}
B = {
    "f64": [2.0, -0.5, 0.0, 1.5, -3.0, 0.4, -3.7],
    "f32": [2.0, -0.5, 0.0, 1.5, -3.0, 0.4, -3.7],
    "i8": [-1, 2, 0, -3, 7, -128, 127],
    "i16": [-1, 7, 0, -5, 300, -32768, 3],
    "i32": [-1, 3, 0, -7, 70000, 5, -2**31],
    "i64": [-1, 4, 0, -9, 2, 5 * 10**12, -2**63],
    "u8": [3, 0, 2, 255, 7, 128, 1],
    "bool": [True, True, False, True, False, True, False],
}
# Moderate values for float functions (sin of 2**63 is no test of ours).
SMALL = {t: [-5, -2, -1, 0, 1, 2, 5] for t in SIGNED}
SMALL.update({"u8": [0, 1, 2, 3, 5, 9, 20], "bool": A["bool"],
              "f64": A["f64"], "f32": A["f32"]})
# Exponents for pow: non-negative, since integers refuse negative ones.
EXPONENT = {t: [0, 1, 2, 3, 7, 0, 5] for t in SIGNED + ["u8"]}
EXPONENT.update({"bool": B["bool"], "f64": [2.0, -0.5, 0.0, 1.5, -3.0, 0.4, 3.0],
                 "f32": [2.0, -0.5, 0.0, 1.5, -3.0, 0.4, 3.0]})


def arr(dt, values, shape=None):
    a = np.array(values, dtype=NP[dt])
    return a if shape is None else a.reshape(shape)


def tystr(a):
    return "%s[%s]" % (NAME[a.dtype], ", ".join(str(s) for s in a.shape))


def check(label, expr, inputs, expected, **kw):
    decl = ", ".join("%s: %s" % (n, tystr(a)) for n, a in inputs.items())
    H.check(label, "func f(%s) -> (r) { r = %s }" % (decl, expr),
            inputs=inputs, expected={"r": expected}, **kw)


def error(label, text, contains, inputs=None):
    H.expect_error(label, text, inputs=inputs, contains=contains)


# --- NumPy references --------------------------------------------------------

def float_type(dtype):
    # Our float type for a float function: f32 where NumPy would use f16.
    if dtype.kind == "f":
        return dtype.type
    return np.float64 if dtype.itemsize >= 4 else np.float32


def promoted(*arrays):
    # Promotion by dtype alone (NumPy 1.24 casts 0-d arrays by value).
    t = np.result_type(*[a.dtype for a in arrays])
    return [a.astype(t) for a in arrays]


def sigmoid(x):
    return np.where(x >= 0, 1 / (1 + np.exp(-x)), np.exp(x) / (1 + np.exp(x)))


def erf(x):
    flat = [math.erf(float(v)) for v in x.ravel()]
    return np.array(flat, dtype=np.float64).reshape(x.shape).astype(x.dtype)


def by_element(f):
    """A math-module function over an array, element by element; a value
    outside its domain (lgamma at 0 and the negative integers) is inf."""
    def fn(x):
        def one(v):
            try:
                return f(float(v))
            except ValueError:
                return math.inf
        flat = [one(v) for v in x.ravel()]
        return np.array(flat, dtype=np.float64).reshape(x.shape).astype(
            x.dtype)
    return fn


def float_fn(f):
    return lambda x: np.asarray(f(x.astype(float_type(x.dtype)))).astype(
        float_type(x.dtype))


def reciprocal(x):
    t = x.dtype.type if x.dtype.kind == "f" else np.float64
    return (t(1) / x.astype(t)).astype(t)


UNARY = {
    "neg": np.negative, "abs": np.absolute, "exp": float_fn(np.exp),
    "log": float_fn(np.log), "log1p": float_fn(np.log1p),
    "expm1": float_fn(np.expm1), "sqrt": float_fn(np.sqrt), "sqr": np.square,
    "sigmoid": float_fn(sigmoid),
    "softplus": float_fn(lambda x: np.logaddexp(x.dtype.type(0), x)),
    "tanh": float_fn(np.tanh), "sin": float_fn(np.sin),
    "cos": float_fn(np.cos), "floor": float_fn(np.floor),
    "ceil": float_fn(np.ceil), "sign": np.sign, "reciprocal": reciprocal,
    "erf": float_fn(erf), "not": np.logical_not,
    "erfc": float_fn(by_element(math.erfc)),
    "gammaln": float_fn(by_element(math.lgamma)),
    "log2": float_fn(np.log2), "log10": float_fn(np.log10),
}
FLOAT_FNS = {"exp", "log", "log1p", "expm1", "sqrt", "sigmoid", "softplus",
             "tanh", "sin", "cos", "floor", "ceil", "erf", "reciprocal",
             "erfc", "gammaln", "log2", "log10"}


def true_div(a, b):
    t = np.result_type(a.dtype, b.dtype)
    t = t.type if t.kind == "f" else np.float64
    return np.true_divide(a.astype(t), b.astype(t))


def arith(f):
    return lambda *xs: f(*promoted(*xs))


BINARY = {
    "add": arith(np.add), "sub": arith(np.subtract),
    "mul": arith(np.multiply), "true_div": true_div,
    "int_div": arith(np.floor_divide), "mod": arith(np.remainder),
    "pow": arith(np.power), "maximum": arith(np.maximum),
    "minimum": arith(np.minimum), "eq": arith(np.equal),
    "neq": arith(np.not_equal), "lt": arith(np.less),
    "le": arith(np.less_equal), "gt": arith(np.greater),
    "ge": arith(np.greater_equal), "and": np.logical_and,
    "or": np.logical_or,
}


def unary_inputs(op, dt):
    return A[dt] if op in ("neg", "abs", "sqr", "sign", "not") else SMALL[dt]


def binary_inputs(op, dt):
    return A[dt], (EXPONENT[dt] if op == "pow" else B[dt])


# --- Unary ops ---------------------------------------------------------------

for op, ref in UNARY.items():
    for dt in DTYPES:
        x = arr(dt, unary_inputs(op, dt))
        if dt == "bool" and op in ("neg", "sign"):
            error("%s of bool is an error" % op,
                  "func f(x: bool[7]) -> (r) { r = %s(x) }" % op, "bool")
            continue
        check("%s %s" % (op, dt), "%s(x)" % op, {"x": x}, ref(x))
    # Shapes: empty, size one, 0-d; and strided views built in the graph.
    for dt in ("f64", "i32", "u8"):
        vals = unary_inputs(op, dt)
        for shape_label, x in (("empty", arr(dt, [])), ("size one", arr(dt, vals[5:6])),
                               ("0-d", arr(dt, vals[6], ()))):
            check("%s %s %s" % (op, dt, shape_label), "%s(x)" % op, {"x": x}, ref(x))
        m = arr(dt, (vals * 2)[:12], (3, 4))
        check("%s %s transposed" % (op, dt), "%s(transpose(x))" % op,
              {"x": m}, ref(m.T))
        check("%s %s every other column" % (op, dt),
              "%s(subtensor(x, axis=1, start=0, stop=4, step=2))" % op,
              {"x": m}, ref(m[:, 0:4:2]))
        check("%s %s reversed rows" % (op, dt),
              "%s(subtensor(x, axis=0, step=-1))" % op, {"x": m}, ref(m[::-1]))

# Special values of float functions.
special = [np.nan, np.inf, -np.inf, -0.0, 1e-300, 710.0, -745.0, 40.0, -40.0]
for dt in ("f64", "f32"):
    x = arr(dt, special)
    for op in FLOAT_FNS | {"neg", "abs", "sqr", "sign"}:
        check("%s %s special values" % (op, dt), "%s(x)" % op, {"x": x},
              UNARY[op](x))

# --- Binary ops --------------------------------------------------------------

for op, ref in BINARY.items():
    for dt in DTYPES:
        a, b = (arr(dt, v) for v in binary_inputs(op, dt))
        if dt == "bool" and op == "sub":
            error("sub of bools is an error",
                  "func f(x: bool[7], y: bool[7]) -> (r) { r = sub(x, y) }",
                  "bool")
            continue
        check("%s %s" % (op, dt), "%s(x, y)" % op, {"x": a, "y": b}, ref(a, b))
    # Broadcasting, empty, size one, 0-d; strided views.
    for dt in ("f64", "i16"):
        va, vb = binary_inputs(op, dt)
        shapes = {
            "broadcast (3,1)+(4,)": (arr(dt, va[:3], (3, 1)), arr(dt, vb[:4])),
            "broadcast (4,)+(3,1)": (arr(dt, va[:4]), arr(dt, vb[1:4], (3, 1))),
            "empty": (arr(dt, []), arr(dt, vb[:1])),
            "empty 2-d": (arr(dt, [], (0, 3)), arr(dt, vb[:3])),
            "size one": (arr(dt, va[1:2]), arr(dt, vb[1:2])),
            "0-d with 1-d": (arr(dt, va[1], ()), arr(dt, vb)),
            "1-d with 0-d": (arr(dt, va), arr(dt, vb[1], ())),
            "0-d": (arr(dt, va[5], ()), arr(dt, vb[5], ())),
        }
        for shape_label, (a, b) in shapes.items():
            check("%s %s %s" % (op, dt, shape_label), "%s(x, y)" % op,
                  {"x": a, "y": b}, ref(a, b))
        m = arr(dt, (va * 2)[:12], (4, 3))
        y = arr(dt, vb[:4])
        check("%s %s transposed with broadcast" % (op, dt),
              "%s(transpose(x), y)" % op, {"x": m, "y": y}, ref(m.T, y))
        x7, y7 = arr(dt, va), arr(dt, vb)
        check("%s %s stepped and reversed" % (op, dt),
              "%s(subtensor(x, axis=0, start=0, stop=7, step=2), "
              "subtensor(y, axis=0, start=3, step=-1))" % op,
              {"x": x7, "y": y7}, ref(x7[0:7:2], y7[3::-1]))

# Mixed dtypes: NumPy's promotion.
MIXED = [("u8", "i8"), ("i32", "f32"), ("bool", "i8"), ("f32", "f64"),
         ("i64", "f32"), ("i16", "f32"), ("u8", "bool"), ("bool", "f64"),
         ("i8", "i64"), ("u8", "i32"), ("u8", "f32"), ("i8", "u8")]
for op, ref in BINARY.items():
    for ta, tb in MIXED:
        a = arr(ta, A[ta])
        b = arr(tb, EXPONENT[tb] if op == "pow" else B[tb])
        check("%s %s %s" % (op, ta, tb), "%s(x, y)" % op, {"x": a, "y": b},
              ref(a, b))

# NaN through maximum, minimum and comparisons.
for dt in ("f64", "f32"):
    a = arr(dt, [np.nan, 1.0, np.nan, -np.inf, 0.0, -0.0, np.inf])
    b = arr(dt, [1.0, np.nan, np.nan, 2.0, -0.0, 0.0, np.nan])
    for op in ("maximum", "minimum", "eq", "neq", "lt", "le", "gt", "ge",
               "and", "or", "add", "int_div", "mod", "pow", "true_div"):
        check("%s %s NaN and inf" % (op, dt), "%s(x, y)" % op,
              {"x": a, "y": b}, BINARY[op](a, b))
    # Python's floor-division and remainder signs, division by zero.
    a = arr(dt, [5, -5, 5, -5, 0, -0.0, 1, -1, np.inf, 7.5, -7.5, 1e10])
    b = arr(dt, [3, 3, -3, -3, 3, -3, np.inf, np.inf, 3, 0, 0, 0.3])
    for op in ("int_div", "mod", "true_div"):
        check("%s %s signs" % (op, dt), "%s(x, y)" % op, {"x": a, "y": b},
              BINARY[op](a, b))

# n-ary add and mul fold left, with broadcasting and promotion.
x, y, z = arr("f32", A["f32"][:3], (3, 1)), arr("i8", B["i8"][:4]), arr("u8", 7, ())
for op, f in (("add", np.add), ("mul", np.multiply)):
    px, py, pz = promoted(x, y, z)
    check("%s of three" % op, "%s(x, y, z)" % op, {"x": x, "y": y, "z": z},
          f(f(px, py), pz))
    w = arr("i32", A["i32"])
    check("%s of four i32" % op, "%s(x, x, x, x)" % op, {"x": w},
          f(f(f(w, w), w), w))

# --- switch, clip, cast, second ------------------------------------------

for tc in ("bool", "f64", "i8"):
    c = arr(tc, [1, 0, 1, 0, 0, 1, 1] if tc != "f64" else
            [0.5, 0.0, np.nan, -0.0, 0.0, -2.0, 1e-300])
    for ta, tb in (("f64", "f64"), ("i8", "u8"), ("f32", "i32"), ("bool", "bool"),
                   ("i64", "bool")):
        a, b = arr(ta, A[ta]), arr(tb, B[tb])
        check("switch %s %s %s" % (tc, ta, tb), "switch(c, a, b)",
              {"c": c, "a": a, "b": b}, np.where(c != 0, *promoted(a, b)))
c = arr("bool", [True, False, True], (3, 1))
a, b = arr("f64", B["f64"][:4]), arr("f64", 9.5, ())
check("switch broadcast", "switch(c, a, b)", {"c": c, "a": a, "b": b},
      np.where(c, a, b))


def clip(x, lo, hi):
    x, lo, hi = promoted(x, lo, hi)
    return np.minimum(np.maximum(x, lo), hi)


for dt in DTYPES:
    x = arr(dt, A[dt])
    lo, hi = (arr(dt, 0, ()), arr(dt, 1, ())) if dt == "bool" else \
        (arr(dt, sorted(B[dt])[2], ()), arr(dt, sorted(B[dt])[5], ()))
    check("clip %s" % dt, "clip(x, lo, hi)", {"x": x, "lo": lo, "hi": hi},
          clip(x, lo, hi))
x = arr("f64", [np.nan, -1, 0.5, 3])
lo, hi = arr("f64", [0, np.nan, 0, 0]), arr("f64", [1, 1, np.nan, 1])
check("clip NaN", "clip(x, lo, hi)", {"x": x, "lo": lo, "hi": hi}, clip(x, lo, hi))
x, lo, hi = arr("f32", A["f32"], (7, 1)), arr("i8", [-1, 0]), arr("f64", 1.5, ())
check("clip mixed broadcast", "clip(x, lo, hi)", {"x": x, "lo": lo, "hi": hi},
      clip(x, lo, hi))

CAST_VALUES = {
    "f64": [3e9, -3e9, np.nan, np.inf, -np.inf, 1e20, 300.7, -1.5, 128.0,
            40000.0, -200.0, 2147483649.0, -0.0, 0.99, 1e300],
    "f32": [3e9, -3e9, np.nan, np.inf, -np.inf, 1e20, 300.7, -1.5, 128.0,
            40000.0, -200.0, 2147483649.0, -0.0, 0.99, 16777217.0],
}
for src in DTYPES:
    x = arr(src, CAST_VALUES.get(src, A[src] + B[src]))
    for dst in DTYPES:
        with np.errstate(all="ignore"):
            want = x.astype(NP[dst])
        check("cast %s to %s" % (src, dst), "cast(x, dtype=%s)" % dst,
              {"x": x}, want)
    m = arr(src, (A[src] * 2)[:12], (3, 4))
    check("cast %s transposed" % src, "cast(transpose(x), dtype=f64)", {"x": m},
          m.T.astype(np.float64))
check("cast 0-d", "cast(x, dtype=i8)", {"x": arr("f64", 300.7, ())},
      np.array(300.7).astype(np.int8))
check("cast empty", "cast(x, dtype=bool)", {"x": arr("f32", [])}, arr("bool", []))

for ta, tb in (("f64", "i32"), ("i8", "bool"), ("u8", "f32"), ("bool", "i64")):
    for sa, sb in (((3, 1), (4,)), ((2, 3), ()), ((), (5,)), ((0,), (1,))):
        a = np.zeros(sa, NP[ta])
        b = arr(tb, (B[tb] * 3)[:int(np.prod(sb))], sb)
        want = np.broadcast_to(b, np.broadcast_shapes(sa, sb)).copy()
        check("second %s%s %s%s" % (ta, sa, tb, sb), "second(a, b)",
              {"a": a, "b": b}, want)

# --- Number literals ---------------------------------------------------------

f32 = arr("f32", A["f32"])
i32 = arr("i32", A["i32"])
u8 = arr("u8", A["u8"])
i8 = arr("i8", A["i8"])
LITERALS = [
    ("mul f32 by 2.0 stays f32", "mul(x, 2.0)", f32, f32 * np.float32(2)),
    ("mul i32 by 2.5 is f64", "mul(x, 2.5)", i32, i32.astype(np.float64) * 2.5),
    ("add 1 to u8 wraps", "add(x, 1)", u8, u8 + np.uint8(1)),
    ("true_div i32 by 2", "true_div(x, 2)", i32, i32 / 2),
    ("sub f32 from 1.0", "sub(1.0, x)", f32, np.float32(1) - f32),
    ("relu f32", "maximum(x, 0.0)", f32, np.maximum(f32, np.float32(0))),
    ("pow i8 by 2", "pow(x, 2)", i8, i8 ** np.int8(2)),
    ("int_div i8 by -1", "int_div(x, -1)", i8, i8 // np.int8(-1)),
    ("clip f32 to [0, 1]", "clip(x, 0.0, 1.0)", f32,
     np.clip(f32, np.float32(0), np.float32(1))),
    ("clip u8 to [3, 200]", "clip(x, 3, 200)", u8,
     np.clip(u8, np.uint8(3), np.uint8(200))),
    ("switch on lt with literals", "switch(lt(x, 0.0), 0.0, x)", f32,
     np.where(f32 < 0, np.float32(0), f32)),
    ("gt i32 against 0", "gt(x, 0)", i32, i32 > 0),
    ("eq f32 against 1.0", "eq(x, 1.0)", f32, f32 == np.float32(1)),
    ("second of a literal", "second(x, 3.5)", f32, np.full(7, 3.5, np.float32)),
    ("mul f32 by an f64 literal in a nest", "mul(exp(x), 0.5)", f32,
     np.exp(f32) * np.float32(0.5)),
]
for label, expr, x, want in LITERALS:
    check(label, expr, {"x": x}, want)

# A condition is not one of the values a literal joins (np.where(c, a, 1)
# has a's dtype), and a literal condition is a value of its own.
cf = arr("f64", [0.5, 0.0, -1.0, 0.0, 2.0, 0.0, 1.0])
ai = arr("i8", A["i8"])
check("switch f64 condition, i8 values, literal", "switch(c, a, 1)",
      {"c": cf, "a": ai}, np.where(cf != 0, ai, np.int8(1)))
check("switch literal condition", "switch(1, x, 0.5)",
      {"x": arr("f32", A["f32"])},
      np.where(True, arr("f32", A["f32"]), np.float32(0.5)))

# --- Errors ------------------------------------------------------------------

error("static broadcast mismatch",
      "func f(x: f64[3], y: f64[4]) -> (r) { r = add(x, y) }",
      "cannot broadcast f64[3] with f64[4]")
error("static broadcast mismatch, 2-d",
      "func f(x: f32[n, 3], y: f32[2]) -> (r) { r = mul(x, y) }",
      "cannot broadcast f32[n, 3] with f32[2]")
error("run-time broadcast mismatch",
      "func f(x: f64[n], y: f64[m]) -> (r) { r = add(x, y) }",
      "could not be broadcast together with shapes (3,) (4,)",
      inputs={"x": np.zeros(3), "y": np.zeros(4)})
error("run-time mismatch of a symbol with a size",
      "func f(x: f64[n], y: f64[4]) -> (r) { r = sub(x, y) }",
      "could not be broadcast", inputs={"x": np.zeros(3), "y": np.zeros(4)})
error("negative integer power",
      "func f(x: i32[3], y: i32[3]) -> (r) { r = pow(x, y) }",
      "Integers to negative integer powers are not allowed",
      inputs={"x": np.arange(3, dtype=np.int32),
              "y": np.array([1, -1, 2], np.int32)})
error("unknown attribute", "func f(x: f64[3]) -> (r) { r = add(x, x, axis=1) }",
      "has no attribute 'axis'")
error("cast to an unknown dtype", "func f(x: f64[3]) -> (r) { r = cast(x, dtype=f16) }",
      "unknown dtype 'f16'")
error("cast without a dtype", "func f(x: f64[3]) -> (r) { r = cast(x) }",
      "needs attribute 'dtype'")
error("sub of three", "func f(x: f64[3]) -> (r) { r = sub(x, x, x) }",
      "takes 2 inputs")
error("add of one", "func f(x: f64[3]) -> (r) { r = add(x) }",
      "at least 2")
error("u8 literal out of range", "func f(x: u8[3]) -> (r) { r = add(x, 300) }",
      "does not fit in u8")

H.main()
