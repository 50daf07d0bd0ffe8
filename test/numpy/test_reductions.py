"""The reductions against NumPy 1.24: sum, prod, mean, max, min, all, any,
argmax, argmin and max_and_argmax on every dtype, over single axes, lists
of axes, negative axes and all axes, with keepdims, on strided views made
inside the graph (transpose, stepped and reversed subtensors), empty,
size-one and 0-d shapes, NaN, ties, integer wrap-around, and NumPy's errors.

Deviation (docs/ops-structural.md): sum and prod of u8 give i64 (NumPy:
uint64, a dtype graphjit lacks), so the expected values are NumPy's with
dtype=int64.
"""
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(__file__))
import numpy as np
import harness as H
from structural_util import DTYPES, FLOATS, INTS, NP, check, error, values

# The mean of nothing is NaN, with warnings we do not need.
np.seterr(all="ignore")
warnings.simplefilter("ignore", RuntimeWarning)


def reference(op, a, axis, keepdims):
    """NumPy's result of reduction op, with our u8 sum/prod deviation."""
    ax = tuple(axis) if isinstance(axis, list) else axis
    if op.startswith("arg") and isinstance(ax, tuple):
        (ax,) = ax  # NumPy's argmax takes an int
    if op in ("sum", "prod"):
        dtype = None if a.dtype.kind == "f" else np.int64
        f = np.sum if op == "sum" else np.prod
        return np.asarray(f(a, axis=ax, keepdims=keepdims, dtype=dtype))
    f = {"mean": np.mean, "max": np.max, "min": np.min, "all": np.all,
         "any": np.any, "argmax": np.argmax, "argmin": np.argmin}[op]
    return np.asarray(f(a, axis=ax, keepdims=keepdims))


def call(op, x, axis, keepdims):
    """The graph expression: op(x, axis=..., keepdims=true)."""
    args = [x]
    if axis is not None:
        args.append("axis=%s" % (("[%s]" % ",".join(map(str, axis)))
                                 if isinstance(axis, list) else axis))
    if keepdims:
        args.append("keepdims=true")
    return "%s(%s)" % (op, ", ".join(args))


def reduce_check(label, op, a, axis=None, keepdims=False, x="x", view=None,
                 **kw):
    """op over a (or over view(a), written as the graph expression x)."""
    src = a if view is None else view(a)
    check(label, call(op, x, axis, keepdims), {"x": a},
          reference(op, src, axis, keepdims), **kw)


CAREDUCE = ["sum", "prod", "mean", "max", "min", "all", "any"]
AXES = [None, 0, 1, -1, [0, 2], [2, 0], [-1, -3, 1], []]


def data(dt, shape, seed=0):
    """Test values with zeros sprinkled in (for all/any) and small integers
    (so that products stay readable, though they may wrap as in NumPy)."""
    a = values(dt, shape, seed=seed, lo=-4 if dt != "u8" else 0, hi=5)
    if a.size and a.dtype.kind != "b":
        a.flat[::5] = 0
    return a


# --- every reduction, dtype and axis ------------------------------------------

for op in CAREDUCE:
    for dt in DTYPES:
        a = data(dt, (3, 4, 2), seed=1)
        for axis in AXES:
            reduce_check("%s %s axis=%s" % (op, dt, axis), op, a, axis)
        reduce_check("%s %s keepdims" % (op, dt), op, a, [0, 2], True)
        reduce_check("%s %s all keepdims" % (op, dt), op, a, None, True)

for op in ["argmax", "argmin"]:
    for dt in DTYPES:
        # Few distinct values, so that ties are common.
        a = values(dt, (3, 4, 2), seed=2, lo=0, hi=3)
        for axis in [None, 0, 1, 2, -1, -3]:
            reduce_check("%s %s axis=%s" % (op, dt, axis), op, a,
                         None if axis is None else [axis])
        reduce_check("%s %s keepdims" % (op, dt), op, a, [1], True)
        reduce_check("%s %s flat keepdims" % (op, dt), op, a, None, True)

# --- strided views made inside the graph ---------------------------------------

VIEWS = [
    ("transpose", "transpose(x)", lambda a: a.T),
    ("step 2", "subtensor(x, axis=1, step=2)", lambda a: a[:, ::2]),
    ("reversed", "subtensor(x, axis=0, step=-1)", lambda a: a[::-1]),
    ("reversed step -3 of a transpose",
     "subtensor(transpose(x), axis=1, start=5, step=-3)", lambda a: a.T[:, 5::-3]),
]
for name, expr, view in VIEWS:
    for op in CAREDUCE + ["argmax", "argmin"]:
        for dt in ["f32", "i32", "bool"]:
            a = data(dt, (6, 7), seed=3)
            for axis in ([None, [0], [1], [-1]] if op.startswith("arg")
                         else [None, 0, [1], [0, 1]]):
                reduce_check("%s of %s %s axis=%s" % (op, name, dt, axis), op,
                             a, axis, x=expr, view=view)
        reduce_check("%s of %s keepdims" % (op, name), op,
                     data("f64", (6, 7), seed=4), [0], True, x=expr, view=view)

# --- shapes: empty, size one, 0-d, symbolic ------------------------------------

for dt in ["f64", "i8", "bool"]:
    e = data(dt, (0, 3))
    for op in ["sum", "prod", "mean", "all", "any"]:
        reduce_check("%s empty %s axis 0" % (op, dt), op, e, 0)
        reduce_check("%s empty %s all" % (op, dt), op, e)
    for op in ["max", "min", "argmax", "argmin"]:
        reduce_check("%s empty %s kept axis" % (op, dt), op, e, [1])
    reduce_check("max of (3, 0) %s over axis 0" % dt, "max", data(dt, (3, 0)), 0)

for op in CAREDUCE + ["argmax", "argmin"]:
    one = data("f32", (1, 1), seed=5)
    reduce_check("%s size one" % op, op, one, [0])
    reduce_check("%s size one all" % op, op, one)
    s = np.array(-3, dtype=np.int16)
    reduce_check("%s 0-d" % op, op, s)
    reduce_check("%s 0-d keepdims" % op, op, s, None, True)
    if not op.startswith("arg"):
        reduce_check("%s 0-d axis=[]" % op, op, s, [])

a = data("f64", (5, 3), seed=6)
for op in ["sum", "mean", "max", "argmin"]:
    reduce_check("%s symbolic axis 0" % op, op, a, [0], types={"x": ["n", "m"]})
    reduce_check("%s symbolic keepdims" % op, op, a, [1], True,
                 types={"x": ["n", 3]})

# --- values: NaN, infinities, wrap-around, precision ---------------------------

nan = np.array([[1.0, np.nan, 3.0, np.nan], [-1.0, 5.0, -np.inf, 2.0],
                [np.inf, 0.0, np.nan, -2.0]])
for dt in FLOATS:
    x = nan.astype(NP[dt])
    for op in CAREDUCE + ["argmax", "argmin"]:
        for axis in ([None, [0], [1]] if op.startswith("arg") else [None, 0, 1]):
            reduce_check("%s NaN %s axis=%s" % (op, dt, axis), op, x, axis)

big = np.array([2**63 - 1, 1, 2**62, 2**62], dtype=np.int64)
reduce_check("sum i64 wraps", "sum", big)
reduce_check("prod i64 wraps", "prod", big)
reduce_check("mean i64 in f64", "mean", big)
for dt in INTS:
    ext = values(dt, (50,), seed=7, lo=np.iinfo(NP[dt]).min,
                 hi=np.iinfo(NP[dt]).max)
    for op in ["sum", "prod", "max", "min", "mean", "argmax"]:
        reduce_check("%s %s extremes" % (op, dt), op, ext)

for dt in FLOATS:
    for shape, axis in [((100000,), None), ((1000, 37), [1]), ((37, 1000), [1]),
                        ((300, 200), [0]), ((300, 200), None)]:
        a = values(dt, shape, seed=8)
        reduce_check("sum %s %s axis=%s" % (dt, shape, axis), "sum", a, axis)
        reduce_check("mean %s %s axis=%s" % (dt, shape, axis), "mean", a, axis)

# --- max_and_argmax ------------------------------------------------------------

for dt in DTYPES:
    a = values(dt, (3, 4), seed=9, lo=0, hi=4)
    for axis in [None, 0, 1, -1]:
        ax = "" if axis is None else ", axis=%d" % axis
        H.check("max_and_argmax %s axis=%s" % (dt, axis),
                "func f(x: %s[3, 4]) -> (m, i) { m, i = max_and_argmax(x%s) }"
                % ({v: k for k, v in NP.items()}[a.dtype.type], ax),
                inputs={"x": a},
                expected={"m": np.asarray(np.max(a, axis=axis)),
                          "i": np.asarray(np.argmax(a, axis=axis))})
H.check("max_and_argmax NaN of a transpose",
        "func f(x: f64[3, 4]) -> (m, i) { m, i = max_and_argmax(transpose(x), axis=1) }",
        inputs={"x": nan}, expected={"m": nan.T.max(axis=1), "i": nan.T.argmax(axis=1)})

# --- errors --------------------------------------------------------------------

m = data("f64", (2, 3))
error("sum axis out of range", "sum(x, axis=2)", {"x": m},
      "axis 2 is out of bounds for array of dimension 2")
error("sum repeated axis", "sum(x, axis=[0,0])", {"x": m},
      "duplicate value in 'axis'")
error("mean repeated negative axis", "mean(x, axis=[1,-1])", {"x": m},
      "duplicate value in 'axis'")
error("argmax of two axes", "argmax(x, axis=[0,1])", {"x": m},
      "single axis")
error("keepdims not a bool", "sum(x, keepdims=1)", {"x": m}, "true or false")
error("unknown attribute", "sum(x, axes=0)", {"x": m}, "no attribute 'axes'")
e = data("f64", (0, 3))
for op, name in [("max", "maximum"), ("min", "minimum")]:
    error("%s of nothing, static" % op, "%s(x, axis=0)" % op, {"x": e},
          "zero-size array to reduction operation %s which has no identity" % name)
    error("%s of nothing at run time" % op, "%s(x)" % op, {"x": e},
          "zero-size array to reduction operation %s which has no identity" % name,
          types={"x": ["n", 3]})
for op in ["argmax", "argmin"]:
    error("%s of nothing" % op, "%s(x, axis=0)" % op, {"x": e},
          "attempt to get %s of an empty sequence" % op, types={"x": ["n", 3]})

H.main()
