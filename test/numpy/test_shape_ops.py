"""The shape and indexing ops against NumPy 1.24: dimshuffle, transpose,
reshape, flatten, shape, alloc, zeros_like, ones_like, subtensor,
concatenate, take and inc_rows (np.add.at), cumsum and cumprod, on every dtype, with empty, size-one and 0-d shapes, symbolic
dims, strided views made inside the graph, and the errors NumPy raises.

Deviations (docs/ops-structural.md): reshape takes -1 as its only negative
size; alloc's broadcast error is worded by us.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import numpy as np
import harness as H
from structural_util import DTYPES, check, error, values


# --- dimshuffle and transpose ------------------------------------------------

for dt in DTYPES:
    m = values(dt, (2, 3), seed=1)
    check("dimshuffle [1,0] %s" % dt, "dimshuffle(x, pattern=[1,0])",
          {"x": m}, m.T)
    check("dimshuffle [x,1,x,0] %s" % dt, "dimshuffle(x, pattern=[x,1,x,0])",
          {"x": m}, m.T[None, :, None, :])
    check("transpose %s" % dt, "transpose(x)", {"x": m}, m.T)
    t3 = values(dt, (2, 3, 4), seed=2)
    check("transpose rank 3 %s" % dt, "transpose(x)", {"x": t3}, t3.T)

v = values("f64", (4,))
check("dimshuffle [x,0]", "dimshuffle(x, pattern=[x,0])", {"x": v}, v[None, :])
check("dimshuffle [0,x]", "dimshuffle(x, pattern=[0,x])", {"x": v}, v[:, None])
col = values("i32", (3, 1))
check("dimshuffle drops a broadcastable dim", "dimshuffle(x, pattern=[0])",
      {"x": col}, col[:, 0])
one = values("f32", (1, 1))
check("dimshuffle to 0-d", "dimshuffle(x, pattern=[])", {"x": one}, one[0, 0])
s = np.float64(2.5)
check("dimshuffle of 0-d", "dimshuffle(x, pattern=[x,x])", {"x": np.array(s)},
      np.array(s).reshape(1, 1))
check("transpose 0-d", "transpose(x)", {"x": np.array(s)}, np.array(s))
check("transpose 1-d", "transpose(x)", {"x": v}, v)
e = values("f64", (0, 3))
check("transpose empty", "transpose(x)", {"x": e}, e.T)
m = values("f64", (3, 5))
check("transpose symbolic", "transpose(x)", {"x": m}, m.T, types={"x": ["n", "m"]})
check("transpose of a stepped slice",
      "transpose(subtensor(x, axis=1, step=2))", {"x": m}, m[:, ::2].T)
check("transpose twice is the input", "transpose(transpose(x))", {"x": m}, m)
error("dimshuffle drops a real dim", "dimshuffle(x, pattern=[1])", {"x": m},
      "is not of size 1")
# A dim of a size known at run time only is checked then.
error("dimshuffle drops a symbolic dim of size 3", "dimshuffle(x, pattern=[1])",
      {"x": m}, "it has size 3, not 1", types={"x": ["n", 5]})
check("dimshuffle drops a symbolic dim of size 1", "dimshuffle(x, pattern=[1])",
      {"x": m[:1]}, m[0], types={"x": ["n", 5]})
error("dimshuffle repeats a dim", "dimshuffle(x, pattern=[0,0])", {"x": m},
      "appears twice")
error("dimshuffle dim out of range", "dimshuffle(x, pattern=[2,0])", {"x": m},
      "refers to dim 2")

# --- reshape and flatten -----------------------------------------------------

for dt in DTYPES:
    a = values(dt, (3, 4), seed=3)
    for shape in ([2, -1], [4, 3], [12], [2, 2, 3], [-1, 1, 2], [1, 12, 1]):
        check("reshape %s %s" % (dt, shape),
              "reshape(x, shape=[%s])" % ",".join(map(str, shape)),
              {"x": a}, a.reshape(shape))
    check("flatten %s" % dt, "flatten(x)", {"x": a}, a.flatten())
    check("flatten transposed %s" % dt, "flatten(transpose(x))", {"x": a},
          a.T.flatten())

a = values("f64", (6, 4), seed=4)
check("reshape symbolic [n, 2, 2]", "reshape(x, shape=[n,2,2])", {"x": a},
      a.reshape(6, 2, 2), types={"x": ["n", 4]})
check("reshape symbolic [-1, n]", "reshape(x, shape=[-1,n])", {"x": a},
      a.reshape(-1, 6), types={"x": ["n", 4]})
check("reshape [m, n] swaps symbols", "reshape(x, shape=[m,n])", {"x": a},
      a.reshape(4, 6), types={"x": ["n", "m"]})
check("reshape of a transpose", "reshape(transpose(x), shape=[2,-1])",
      {"x": a}, a.T.reshape(2, -1))
check("reshape of a reversed slice",
      "reshape(subtensor(x, axis=0, step=-1), shape=[-1])", {"x": a},
      a[::-1].reshape(-1))
check("reshape of a stepped slice",
      "reshape(subtensor(x, axis=0, step=2), shape=[3,2,2])", {"x": a},
      a[::2].reshape(3, 2, 2))
e = values("i16", (0, 3))
check("reshape empty", "reshape(x, shape=[3,0])", {"x": e}, e.reshape(3, 0))
check("reshape empty with -1", "reshape(x, shape=[-1,3])", {"x": e},
      e.reshape(-1, 3))
check("flatten empty", "flatten(x)", {"x": e}, e.flatten())
s = np.array(7, dtype=np.int8)
check("reshape 0-d to [1,1]", "reshape(x, shape=[1,1])", {"x": s}, s.reshape(1, 1))
check("reshape [1,1] to 0-d", "reshape(x, shape=[])", {"x": s.reshape(1, 1)},
      s.reshape(()))
check("flatten 0-d", "flatten(x)", {"x": s}, s.flatten())
b = values("bool", (2, 3))
check("reshape then sum", "sum(reshape(x, shape=[3,2]), axis=0)", {"x": b},
      b.reshape(3, 2).sum(axis=0))
error("reshape size mismatch at run time", "reshape(x, shape=[5,-1])",
      {"x": values("f64", (4, 3))},
      "cannot reshape array of size 12 into shape (5,newaxis)",
      types={"x": ["n", 3]})
error("reshape size mismatch, static", "reshape(x, shape=[5,-1])",
      {"x": values("f64", (4, 3))}, "cannot reshape array of size 12")
error("reshape zero with -1", "reshape(x, shape=[0,-1])", {"x": e},
      "cannot reshape array of type i16[n, 3] into shape (0,newaxis)",
      types={"x": ["n", 3]})
error("reshape two -1", "reshape(x, shape=[-1,-1])",
      {"x": values("f64", (4, 3))}, "only specify one unknown dimension")
error("reshape unknown symbol", "reshape(x, shape=[k,-1])",
      {"x": values("f64", (4, 3))}, "symbolic dim 'k'")

# --- shape ---------------------------------------------------------------------

for dt in ["f64", "i8", "bool"]:
    a = values(dt, (4, 3, 2))
    for axis in (0, 1, 2, -1, -3):
        check("shape %s axis %d" % (dt, axis), "shape(x, axis=%d)" % axis,
              {"x": a}, np.int64(a.shape[axis]), types={"x": ["n", 3, "m"]})
check("shape of empty", "shape(x, axis=0)", {"x": values("f32", (0, 2))},
      np.int64(0))
check("shape in arithmetic", "mul(shape(x, axis=1), 2)",
      {"x": values("f32", (2, 5))}, np.int64(10))
error("shape axis out of range", "shape(x, axis=2)", {"x": values("f32", (2, 5))},
      "axis 2 is out of bounds for array of dimension 2")

# --- alloc, zeros_like, ones_like ----------------------------------------------

for dt in DTYPES:
    v = values(dt, (3,), seed=5)
    check("alloc %s row" % dt, "alloc(v, shape=[2,3])", {"v": v},
          np.broadcast_to(v, (2, 3)).copy())
    c = values(dt, (2, 1), seed=6)
    check("alloc %s column" % dt, "alloc(v, shape=[2,4])", {"v": c},
          np.broadcast_to(c, (2, 4)).copy())
    s = values(dt, (), seed=7)
    check("alloc %s scalar" % dt, "alloc(v, shape=[4])", {"v": s},
          np.broadcast_to(s, (4,)).copy())
    a = values(dt, (2, 3), seed=8)
    check("zeros_like %s" % dt, "zeros_like(x)", {"x": a}, np.zeros_like(a))
    check("ones_like %s" % dt, "ones_like(x)", {"x": a}, np.ones_like(a))

x = values("f64", (5,))
v = values("f32", (3,))
H.check("alloc with a symbolic dim of another input",
        "func f(x: f64[n], v: f32[3]) -> (r) { r = alloc(v, shape=[n,3]) }",
        inputs={"x": x, "v": v}, expected={"r": np.broadcast_to(v, (5, 3)).copy()})
H.check("alloc of a literal",
        "func f(x: f64[n]) -> (r) { r = alloc(1.5, shape=[2,n]) }",
        inputs={"x": x}, expected={"r": np.full((2, 5), 1.5)})
check("alloc empty", "alloc(v, shape=[0,3])", {"v": v},
      np.zeros((0, 3), np.float32))
check("alloc of a transposed value", "alloc(transpose(v), shape=[2,3,2])",
      {"v": values("i32", (2, 3))},
      np.broadcast_to(values("i32", (2, 3)).T, (2, 3, 2)).copy())
check("zeros_like empty", "zeros_like(x)", {"x": values("u8", (0, 2))},
      np.zeros((0, 2), np.uint8))
check("ones_like 0-d", "ones_like(x)", {"x": np.array(True)}, np.array(True))
check("ones_like of a strided view", "ones_like(subtensor(x, axis=0, step=2))",
      {"x": x}, np.ones(3))
error("alloc broadcast mismatch, static", "alloc(v, shape=[2,4])", {"v": v},
      "cannot broadcast")
error("alloc broadcast mismatch at run time", "alloc(v, shape=[2,4])", {"v": v},
      "cannot broadcast a value of shape (3,) to shape (2, 4)",
      types={"v": ["n"]})
error("alloc negative size", "alloc(v, shape=[-1,3])", {"v": v},
      "negative dimension")

# --- subtensor ------------------------------------------------------------------

BOUNDS = [None, -9, -2, 0, 3, 7, 20]
STEPS = [None, 1, 2, -1, -3]


def slice_expr(axis, start, stop, step):
    parts = ["axis=%d" % axis]
    for k, val in (("start", start), ("stop", stop), ("step", step)):
        if val is not None:
            parts.append("%s=%d" % (k, val))
    return "subtensor(x, %s)" % ", ".join(parts)


v7 = values("i64", (7,), seed=9)
for start in BOUNDS:
    for stop in BOUNDS:
        for step in STEPS:
            check("subtensor [%s:%s:%s]" % (start, stop, step),
                  slice_expr(0, start, stop, step), {"x": v7},
                  v7[slice(start, stop, step)])

for dt in DTYPES:
    m = values(dt, (4, 5), seed=10)
    check("subtensor %s axis 1 ::-1" % dt, slice_expr(1, None, None, -1),
          {"x": m}, m[:, ::-1])
    check("subtensor %s axis -2 1:3" % dt, slice_expr(-2, 1, 3, None),
          {"x": m}, m[1:3])
m = values("f64", (4, 5))
check("subtensor of subtensor",
      "subtensor(subtensor(x, axis=1, start=4, step=-2), axis=0, start=1)",
      {"x": m}, m[:, 4::-2][1:])
check("subtensor of a transpose", "subtensor(transpose(x), axis=0, step=2)",
      {"x": m}, m.T[::2])
check("subtensor symbolic", slice_expr(0, 1, -1, None), {"x": m}, m[1:-1],
      types={"x": ["n", "m"]})
check("subtensor empty result", slice_expr(0, 3, 1, None), {"x": m}, m[3:1])
check("subtensor of empty", slice_expr(1, 1, None, None),
      {"x": values("f32", (0, 3))}, values("f32", (0, 3))[:, 1:])
check("subtensor then add", "add(subtensor(x, axis=0, step=2), 1.0)",
      {"x": m}, m[::2] + 1.0)
error("subtensor step 0", "subtensor(x, axis=0, step=0)", {"x": m},
      "slice step cannot be zero")
error("subtensor axis out of range", "subtensor(x, axis=2)", {"x": m},
      "axis 2 is out of bounds for array of dimension 2")
error("subtensor of 0-d", "subtensor(x)", {"x": np.array(1.0)}, "0-d")

# --- concatenate ---------------------------------------------------------------

for da in DTYPES:
    for db in DTYPES:
        a = values(da, (2, 3), seed=11)
        b = values(db, (1, 3), seed=12)
        check("concatenate %s %s" % (da, db), "concatenate(x, y)",
              {"x": a, "y": b}, np.concatenate([a, b]))

a = values("f64", (2, 3), seed=13)
b = values("f64", (2, 4), seed=14)
c = values("i32", (2, 0))
check("concatenate axis 1 of three", "concatenate(x, y, z, axis=1)",
      {"x": a, "y": b, "z": c}, np.concatenate([a, b, c], axis=1))
check("concatenate axis -1", "concatenate(x, y, axis=-1)", {"x": a, "y": b},
      np.concatenate([a, b], axis=-1))
check("concatenate one input", "concatenate(x)", {"x": a}, a.copy())
check("concatenate transposed views", "concatenate(transpose(x), transpose(y))",
      {"x": a, "y": b}, np.concatenate([a.T, b.T]))
check("concatenate stepped views",
      "concatenate(subtensor(x, axis=1, step=2), subtensor(y, axis=1, step=-3), axis=1)",
      {"x": a, "y": b}, np.concatenate([a[:, ::2], b[:, ::-3]], axis=1))
check("concatenate symbolic", "concatenate(x, y, axis=1)", {"x": a, "y": b},
      np.concatenate([a, b], axis=1), types={"x": ["n", "m"], "y": ["n", "k"]})
e = values("u8", (0, 3))
check("concatenate empty", "concatenate(x, y)", {"x": e, "y": e},
      np.concatenate([e, e]))
check("concatenate 1-d", "concatenate(x, y, x)",
      {"x": values("i8", (3,)), "y": values("i8", (2,))},
      np.concatenate([values("i8", (3,)), values("i8", (2,)), values("i8", (3,))]))
error("concatenate mismatch, static", "concatenate(x, y)", {"x": a, "y": b},
      "along dimension 1, the array at index 0 has size 3 and the array at "
      "index 1 has size 4")
error("concatenate mismatch at run time", "concatenate(x, y)", {"x": a, "y": b},
      "along dimension 1, the array at index 0 has size 3 and the array at "
      "index 1 has size 4", types={"x": ["n", "m"], "y": ["k", "j"]})
error("concatenate ranks", "concatenate(x, y)",
      {"x": a, "y": values("f64", (3,))}, "same number of dimensions")
error("concatenate 0-d", "concatenate(x, x)", {"x": np.array(1.0)},
      "zero-dimensional arrays cannot be concatenated")
error("concatenate axis out of range", "concatenate(x, y, axis=2)",
      {"x": a, "y": b}, "axis 2 is out of bounds for array of dimension 2")

# --- take and inc_rows (indexing by an integer vector) ------------------------

for dt in DTYPES:
    x = values(dt, (5, 3), seed=7)
    idx = np.array([4, 0, -1, 2, 2, -5], dtype=np.int64)
    check("take %s" % dt, "take(x, i)", {"x": x, "i": idx}, x[idx])
    y = values(dt, (6, 3), seed=8)
    added = x.copy()
    if dt == "bool":  # adding bools is a logical or
        np.logical_or.at(added, idx % 5, y)
    else:
        np.add.at(added, idx, y)
    check("inc_rows %s" % dt, "inc_rows(x, i, y)", {"x": x, "i": idx, "y": y},
          added)
    put = x.copy()
    put[idx] = y  # the last occurrence of an index wins, as in NumPy
    check("inc_rows set %s" % dt, "inc_rows(x, i, y, set=true)",
          {"x": x, "i": idx, "y": y}, put)
v = values("f64", (6,), seed=9)
for it in ("i8", "i16", "i32", "u8"):
    i = values(it, (4,), seed=10, lo=0, hi=6)
    check("take by %s indices" % it, "take(x, i)", {"x": v, "i": i}, v[i])
    y = values("f64", (4,), seed=11)
    want = v.copy()
    np.add.at(want, i, y)
    check("inc_rows by %s indices" % it, "inc_rows(x, i, y)",
          {"x": v, "i": i, "y": y}, want)
x3 = values("f32", (4, 2, 3), seed=12)
i = np.array([3, 1], dtype=np.int64)
check("take rank 3", "take(x, i)", {"x": x3, "i": i}, x3[i])
check("take of a transpose", "take(transpose(x), i)",
      {"x": values("f64", (3, 4), seed=13), "i": i},
      values("f64", (3, 4), seed=13).T[i])
check("take nothing", "take(x, i)", {"x": v, "i": np.zeros(0, np.int64)},
      v[np.zeros(0, np.int64)])
y1 = values("f32", (3,), seed=14)
want = x3.copy()
np.add.at(want, i, y1)
check("inc_rows broadcasts y", "inc_rows(x, i, y)", {"x": x3, "i": i, "y": y1},
      want)
error("take index out of range", "take(x, i)",
      {"x": v, "i": np.array([1, 6], np.int64)},
      "index 6 is out of bounds for axis 0 with size 6")
error("take negative index out of range", "take(x, i)",
      {"x": v, "i": np.array([-7], np.int64)},
      "index -7 is out of bounds for axis 0 with size 6")
error("take by float indices", "take(x, i)",
      {"x": v, "i": np.array([1.0])}, "vector of integer indices")
error("inc_rows y of another shape", "inc_rows(x, i, y)",
      {"x": x3, "i": i, "y": values("f32", (3, 2), seed=15)},
      "does not broadcast to x[idx]'s shape")
error("inc_rows y of another dtype", "inc_rows(x, i, y)",
      {"x": v, "i": np.array([1], np.int64), "y": values("f32", (1,))},
      "adds values of x's dtype")

# --- cumsum and cumprod -------------------------------------------------------

def cum_dtype(a):
    """NumPy's, but i64 for u8 (graphjit has no uint64)."""
    return a.dtype if a.dtype.kind == "f" else np.int64


for dt in DTYPES:
    m = values(dt, (3, 4), seed=16, lo=-3, hi=4)
    for axis in (0, 1, -1):
        check("cumsum axis %d %s" % (axis, dt), "cumsum(x, axis=%d)" % axis,
              {"x": m}, np.cumsum(m, axis=axis).astype(cum_dtype(m)))
        check("cumprod axis %d %s" % (axis, dt), "cumprod(x, axis=%d)" % axis,
              {"x": m}, np.cumprod(m, axis=axis).astype(cum_dtype(m)))
    check("cumsum flattened %s" % dt, "cumsum(x)", {"x": m},
          np.cumsum(m).astype(cum_dtype(m)))
t3 = values("f64", (2, 3, 4), seed=17)
check("cumsum of a transpose", "cumsum(transpose(x), axis=1)", {"x": t3},
      np.cumsum(t3.T, axis=1))
check("cumsum flattened transpose", "cumsum(transpose(x))", {"x": t3},
      np.cumsum(t3.T))
check("cumsum empty", "cumsum(x, axis=0)", {"x": values("f32", (0, 2))},
      np.cumsum(values("f32", (0, 2)), axis=0))
check("cumsum 0-d flattened", "cumsum(x)", {"x": np.array(2.5)},
      np.cumsum(np.array(2.5)))
big = np.array([2**62, 2**62, 2**62], dtype=np.int64)
check("cumsum wraps as NumPy", "cumsum(x, axis=0)", {"x": big},
      np.cumsum(big))
error("cumsum axis out of range", "cumsum(x, axis=2)", {"x": m},
      "axis 2 is out of bounds for array of dimension 2")

H.main()
