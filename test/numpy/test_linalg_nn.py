"""dot, softmax and log_softmax against NumPy 1.24: dot for every dtype and
pair of dtypes, every rank case (0-d, vector, matrix), transposed, stepped
and reversed operands made inside the graph, zero-size dims, integer
wrap-around, and NumPy's "not aligned" errors; softmax and log_softmax on
every dtype and axis, strided views, large and infinite inputs, NaN and
empty axes.

Deviations (docs/ops-structural.md): a 0-d operand of dot promotes by dtype
(NumPy 1.24 casts 0-d arrays by value); dot takes ranks 0 to 2 only;
softmax of bool/i8/u8/i16 is f32 (floatTypeFor), of i32/i64 f64.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
import numpy as np
import harness as H
from structural_util import DTYPES, FLOATS, NP, check, error, values

np.seterr(all="ignore")


def dot_ref(a, b):
    """np.dot with promotion by dtype alone (also for 0-d operands)."""
    t = np.result_type(a.dtype, b.dtype)
    return np.asarray(np.dot(a.astype(t), b.astype(t)))


def small(dt, shape, seed):
    return values(dt, shape, seed=seed, lo=-3 if dt != "u8" else 0, hi=4)


RANKS = [((3, 4), (4, 2)), ((3, 4), (4,)), ((4,), (4, 2)), ((4,), (4,)),
         ((), (4, 2)), ((3, 4), ()), ((), ()), ((1, 4), (4, 1)), ((3, 1), (1, 5))]

# --- dot: dtypes and ranks -----------------------------------------------------

for dt in DTYPES:
    for sa, sb in RANKS:
        a, b = small(dt, sa, 1), small(dt, sb, 2)
        check("dot %s %s.%s" % (dt, sa, sb), "dot(x, y)", {"x": a, "y": b},
              dot_ref(a, b))
for da in DTYPES:
    for db in DTYPES:
        a, b = small(da, (2, 3), 3), small(db, (3,), 4)
        check("dot %s.%s" % (da, db), "dot(x, y)", {"x": a, "y": b},
              dot_ref(a, b))
for dt in ["i8", "i16", "i32", "i64", "u8"]:
    info = np.iinfo(NP[dt])
    a = values(dt, (3, 5), seed=5, lo=info.min, hi=info.max)
    b = values(dt, (5, 2), seed=6, lo=info.min, hi=info.max)
    check("dot %s wraps around" % dt, "dot(x, y)", {"x": a, "y": b}, np.dot(a, b))

# --- dot: memory layouts made inside the graph ---------------------------------



def used(inputs, expr):
    """The inputs an expression names."""
    return {k: v for k, v in inputs.items() if re.search(r"\b%s\b" % k, expr)}


for dt in FLOATS + ["i32"]:
    a = values(dt, (5, 4), seed=7)
    b = values(dt, (4, 3), seed=8)
    v = values(dt, (4,), seed=9)
    lefts = [("x", a), ("transpose(xt)", a),
             ("subtensor(x2, axis=1, step=2)", a),
             ("subtensor(x, axis=0, step=-1)", a[::-1])]
    rights = [("y", b), ("transpose(yt)", b),
              ("subtensor(y2, axis=0, step=2)", b),
              ("subtensor(y, axis=1, step=-1)", b[:, ::-1]),
              ("v", v), ("subtensor(v2, axis=0, step=-2)", v),
              ("subtensor(v3, axis=0, step=3)", v)]
    ins = {"x": a, "xt": np.ascontiguousarray(a.T),
           "x2": np.repeat(a, 2, axis=1), "y": b, "yt": np.ascontiguousarray(b.T),
           "y2": np.repeat(b, 2, axis=0), "v": v,
           "v2": np.repeat(v[::-1], 2), "v3": np.repeat(v, 3)}
    for lx, la in lefts:
        for rx, rb in rights:
            expr = "dot(%s, %s)" % (lx, rx)
            check("%s %s" % (expr, dt), expr, used(ins, expr), np.dot(la, rb))
    # Vector on the left of a matrix, through views.
    for rx, rb in rights[:4]:
        expr = "dot(subtensor(v2, axis=0, step=-2), %s)" % rx
        check("%s %s" % (expr, dt), expr, used(ins, expr), np.dot(v, rb))
    check("vector . vector reversed %s" % dt,
          "dot(subtensor(v, axis=0, step=-1), v)", {"v": v}, np.dot(v[::-1], v))

a = values("f64", (70, 90), seed=10)
b = values("f64", (90, 40), seed=11)
check("dot large f64", "dot(x, y)", {"x": a, "y": b}, np.dot(a, b))
check("dot large f64 transposed", "dot(transpose(y), transpose(x))",
      {"x": a, "y": b}, np.dot(b.T, a.T))
a32, b32 = a.astype(np.float32), b.astype(np.float32)
check("dot large f32 transposed", "dot(transpose(y), transpose(x))",
      {"x": a32, "y": b32}, np.dot(b32.T, a32.T), atol=1e-4)
check("dot large f32 strided", "dot(subtensor(x, axis=1, step=3), y)",
      {"x": a32, "y": b32[:30]}, np.dot(a32[:, ::3], b32[:30]), atol=1e-4)
check("dot symbolic", "dot(x, y)", {"x": a, "y": b}, np.dot(a, b),
      types={"x": ["n", "k"], "y": ["k", "m"]})

# --- dot: zero-size dims and errors -------------------------------------------

for dt in ["f64", "f32", "i16", "bool"]:
    for sa, sb in [((2, 0), (0, 3)), ((0, 3), (3,)), ((3,), (3, 0)), ((0,), (0,)),
                   ((0, 2), (2, 0)), ((), (0, 4))]:
        a, b = small(dt, sa, 12), small(dt, sb, 13)
        check("dot %s %s.%s" % (dt, sa, sb), "dot(x, y)", {"x": a, "y": b},
              dot_ref(a, b))

m23, v4 = values("f64", (2, 3)), values("f64", (4,))
error("dot not aligned, static", "dot(x, y)", {"x": m23, "y": v4},
      "shapes (2,3) and (4,) not aligned: 3 (dim 1) != 4 (dim 0)")
error("dot not aligned at run time", "dot(x, y)", {"x": m23, "y": v4},
      "shapes (2,3) and (4,) not aligned: 3 (dim 1) != 4 (dim 0)",
      types={"x": ["n", 3], "y": ["m"]})
error("dot vector.matrix not aligned", "dot(y, x)", {"x": m23, "y": v4},
      "shapes (4,) and (2,3) not aligned: 4 (dim 0) != 2 (dim 0)",
      types={"x": ["n", "k"], "y": ["m"]})
error("dot of rank 3", "dot(x, y)",
      {"x": values("f64", (2, 2, 2)), "y": values("f64", (2,))}, "rank 0 to 2")

# --- softmax and log_softmax ---------------------------------------------------


def float_type(dt):
    t = np.dtype(NP[dt])
    if t.kind == "f":
        return t.type
    return np.float64 if t.itemsize >= 4 else np.float32


def softmax_ref(x, axis, log, out):
    x = x.astype(np.float64)
    m = np.max(x, axis=axis, keepdims=True) if x.shape[axis] else 0
    z = x - m
    s = np.sum(np.exp(z), axis=axis, keepdims=True)
    r = z - np.log(s) if log else np.exp(z) / s
    return r.astype(out)


for op, log in [("softmax", False), ("log_softmax", True)]:
    for dt in DTYPES:
        a = values(dt, (3, 4, 5), seed=14, lo=-5, hi=6)
        for axis in [None, 0, 1, -1, -3]:
            ax = -1 if axis is None else axis
            expr = "%s(x)" % op if axis is None else "%s(x, axis=%d)" % (op, axis)
            check("%s %s axis=%s" % (op, dt, axis), expr, {"x": a},
                  softmax_ref(a, ax, log, float_type(dt)))
        v = values(dt, (6,), seed=15)
        check("%s %s 1-d" % (op, dt), "%s(x)" % op, {"x": v},
              softmax_ref(v, -1, log, float_type(dt)))
    m = values("f64", (4, 6), seed=16)
    check("%s of a transpose" % op, "%s(transpose(x), axis=0)" % op, {"x": m},
          softmax_ref(m.T, 0, log, np.float64))
    check("%s of a reversed stepped slice" % op,
          "%s(subtensor(x, axis=1, step=-2))" % op, {"x": m},
          softmax_ref(m[:, ::-2], -1, log, np.float64))
    big = np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1001.0, -1e308]])
    for dt in FLOATS:
        check("%s large %s" % (op, dt), "%s(x)" % op, {"x": big.astype(NP[dt])},
              softmax_ref(big.astype(NP[dt]), -1, log, NP[dt]))
    special = np.array([[0.0, -np.inf, 1.0], [np.nan, 1.0, 2.0],
                        [np.inf, 0.0, 1.0], [-np.inf, -np.inf, -np.inf]])
    check("%s inf and NaN" % op, "%s(x)" % op, {"x": special},
          softmax_ref(special, -1, log, np.float64))
    e = values("f32", (3, 0))
    check("%s empty axis" % op, "%s(x)" % op, {"x": e},
          softmax_ref(e, -1, log, np.float32))
    check("%s empty other dim" % op, "%s(x, axis=1)" % op, {"x": e.T},
          softmax_ref(e.T, 1, log, np.float32))
    check("%s symbolic" % op, "%s(x)" % op, {"x": m},
          softmax_ref(m, -1, log, np.float64), types={"x": ["n", "k"]})
    error("%s of 0-d" % op, "%s(x)" % op, {"x": np.array(1.0)},
          "axis -1 is out of bounds for array of dimension 0")
    error("%s axis out of range" % op, "%s(x, axis=2)" % op, {"x": m},
          "axis 2 is out of bounds for array of dimension 2")

H.main()
