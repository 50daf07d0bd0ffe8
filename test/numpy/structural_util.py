"""Helpers shared by the NumPy tests of the structural ops (shape, indexing,
reductions, dot, nn): dtype names, deterministic test values per dtype,
graph type strings, and one-output checks written as a single expression.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import numpy as np
import harness as H

NP = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
      "i32": np.int32, "i64": np.int64, "u8": np.uint8, "bool": np.bool_}
NAME = {np.dtype(t): n for n, t in NP.items()}
DTYPES = list(NP)
FLOATS = ["f32", "f64"]
INTS = ["i8", "i16", "i32", "i64", "u8"]


def values(dt, shape, seed=0, lo=None, hi=None):
    """Deterministic values of dtype dt: normal floats, integers spread over
    a range that fits the dtype (or [lo, hi)), random bools."""
    rng = np.random.default_rng(seed)
    t = np.dtype(NP[dt])
    if t.kind == "f":
        return rng.standard_normal(shape).astype(t)
    if t.kind == "b":
        return rng.random(shape) < 0.5
    info = np.iinfo(t)
    lo = max(info.min, -100) if lo is None else lo
    hi = min(info.max, 100) if hi is None else hi
    return rng.integers(lo, hi, size=shape, endpoint=False).astype(t)


def dims_str(shape):
    return ", ".join(str(s) for s in shape)


def tystr(a, shape=None):
    """The graph type of array a, or with the given dims (names allowed)."""
    return "%s[%s]" % (NAME[a.dtype], dims_str(a.shape if shape is None else shape))


def check(label, expr, inputs, expected, types=None, **kw):
    """One output r = expr over the named inputs; types overrides the dims
    written for an input ({"x": ["n", 3]})."""
    types = types or {}
    decl = ", ".join("%s: %s" % (n, tystr(a, types.get(n)))
                     for n, a in inputs.items())
    H.check(label, "func f(%s) -> (r) { r = %s }" % (decl, expr),
            inputs=inputs, expected={"r": expected}, **kw)


def error(label, expr, inputs, contains, types=None, **kw):
    types = types or {}
    decl = ", ".join("%s: %s" % (n, tystr(a, types.get(n)))
                     for n, a in inputs.items())
    H.expect_error(label, "func f(%s) -> (r) { r = %s }" % (decl, expr),
                   inputs=inputs, contains=contains, **kw)
