"""gemm against NumPy: beta*c + alpha*dot(op(a), op(b)) through the graphjit
command with the c, py and c|py linkers, for f32 and f64, matrix and vector
operands, every trans flag, several alpha and beta, c broadcast (a bias row,
a column, a scalar), operands that are transposed, stepped or reversed
views made inside the graph, zero-size dims and symbolic dims; beta=0 with
NaN in c (not read); the errors (dtypes, ranks, trans of a vector, c larger
than the product, contracted dims) as exit status 1 with a message; and a
graph printed with -print-graph runs to the same results.

Graphs run with -optimizer=None (the gemm as written), and once more with
the default optimizer.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import numpy as np
import harness as H
from structural_util import NAME, values

LINKERS = ["c", "py", "c|py"]
RTOL = {np.float32: 2e-5, np.float64: 1e-12}
ATOL = {np.float32: 1e-4, np.float64: 1e-12}


def tystr(a, dims=None):
    shape = a.shape if dims is None else dims
    return "%s[%s]" % (NAME[a.dtype], ", ".join(str(s) for s in shape))


def attrs(alpha, beta, trans_a, trans_b):
    out = []
    if alpha is not None:
        out.append("alpha=%r" % alpha)
    if beta is not None:
        out.append("beta=%r" % beta)
    if trans_a:
        out.append("trans_a=true")
    if trans_b:
        out.append("trans_b=true")
    return "".join(", " + x for x in out)


def reference(c, a, b, alpha=1.0, beta=1.0, trans_a=False, trans_b=False):
    """alpha*op(a)@op(b) + beta*c in float64, rounded to the dtype; c is not
    read when beta is 0."""
    t = a.dtype
    oa = a.T if trans_a else a
    ob = b.T if trans_b else b
    p = alpha * np.dot(oa.astype(np.float64), ob.astype(np.float64))
    if beta != 0:
        p = p + beta * c.astype(np.float64)
    return np.asarray(p).astype(t)


def graph(inputs, expr, types=None):
    types = types or {}
    decl = ", ".join("%s: %s" % (n, tystr(v, types.get(n)))
                     for n, v in inputs.items())
    return "func f(%s) -> (r) { r = %s }" % (decl, expr)


def run_case(label, text, inputs, want, dims=None, optimizer="None"):
    """Runs text under every linker; r must equal want."""
    want = np.asarray(want)
    for linker in LINKERS:
        def one(linker=linker):
            extra = ["-optimizer=" + optimizer] if optimizer else []
            rc, out, err, outdir = H.run_graphjit(text, inputs, "f", dims,
                                                  linker, 1, extra)
            if rc != 0:
                raise AssertionError("graphjit failed (exit %d):\n%s%s" %
                                     (rc, out, err))
            got = np.load(os.path.join(outdir, "r.npy"))
            t = want.dtype.type
            H.compare("r", got, want, rtol=RTOL[t], atol=ATOL[t])
        H.record("%s [%s]" % (label, linker), one)


def check(label, expr, inputs, want, types=None, **kw):
    run_case(label, graph(inputs, expr, types), inputs, want, **kw)


def error(label, expr, inputs, contains, types=None):
    for linker in LINKERS:
        def one(linker=linker):
            rc, out, err, _ = H.run_graphjit(graph(inputs, expr, types),
                                             inputs, "f", None, linker, 1,
                                             ["-optimizer=None"])
            if rc != 1:
                raise AssertionError("expected exit status 1, got %d:\n%s%s"
                                     % (rc, out, err))
            if contains not in err:
                raise AssertionError("stderr lacks %r:\n%s" % (contains, err))
        H.record("%s [%s]" % (label, linker), one)


# --- every rank case, trans flag, alpha and beta, c broadcast ------------------

# (a's stored shape, b's stored shape, trans_a, trans_b)
CASES = [((3, 4), (4, 5), False, False), ((4, 3), (4, 5), True, False),
         ((3, 4), (5, 4), False, True), ((4, 3), (5, 4), True, True),
         ((3, 4), (4,), False, False), ((4, 3), (4,), True, False),
         ((4,), (4, 5), False, False), ((4,), (5, 4), False, True),
         ((4,), (4,), False, False), ((1, 4), (4, 1), False, False),
         ((3, 1), (1, 5), False, False), ((1, 1), (1,), True, False)]
SCALES = [(None, None), (0.5, -1.0), (-2.0, 0.0), (0.1, 2.5), (1.0, 1.0)]


def product_shape(sa, sb, ta, tb):
    s = []
    if len(sa) == 2:
        s.append(sa[0] if not ta else sa[1])
    if len(sb) == 2:
        s.append(sb[1] if not tb else sb[0])
    return tuple(s)


def c_shapes(p):
    out = [p, ()]
    if len(p) == 2:
        out += [(p[1],), (p[0], 1), (1, p[1])]
    elif len(p) == 1:
        out += [(1,)]
    return out


seed = 0
for dt in ["f32", "f64"]:
    for sa, sb, ta, tb in CASES:
        p = product_shape(sa, sb, ta, tb)
        for k, (alpha, beta) in enumerate(SCALES):
            # Every c shape with the default scales, the full c otherwise.
            for sc in (c_shapes(p) if k == 0 else [p]):
                seed += 1
                a = values(dt, sa, seed=seed)
                b = values(dt, sb, seed=seed + 1000)
                c = values(dt, sc, seed=seed + 2000)
                expr = "gemm(c, a, b%s)" % attrs(alpha, beta, ta, tb)
                want = reference(c, a, b, 1.0 if alpha is None else alpha,
                                 1.0 if beta is None else beta, ta, tb)
                check("%s %s c%s a%s b%s" % (expr, dt, sc, sa, sb), expr,
                      {"c": c, "a": a, "b": b}, want)

# --- operands as views made inside the graph ------------------------------------

for dt in ["f32", "f64"]:
    a = values(dt, (5, 4), seed=1)
    b = values(dt, (4, 3), seed=2)
    v = values(dt, (4,), seed=3)
    c = values(dt, (5, 3), seed=4)
    cv = values(dt, (5,), seed=5)
    ins = {"c": c, "cv": cv, "x": a, "xt": np.ascontiguousarray(a.T),
           "x2": np.repeat(a, 2, axis=1), "y": b,
           "yt": np.ascontiguousarray(b.T), "y2": np.repeat(b, 2, axis=0),
           "v": v, "v2": np.repeat(v[::-1], 2)}
    lefts = [("x", a, ""), ("transpose(xt)", a, ""), ("xt", a, "trans_a=true"),
             ("subtensor(x2, axis=1, step=2)", a, ""),
             ("subtensor(x, axis=0, step=-1)", a[::-1], "")]
    rights = [("y", b, ""), ("transpose(yt)", b, ""), ("yt", b, "trans_b=true"),
              ("subtensor(y2, axis=0, step=2)", b, ""),
              ("subtensor(y, axis=1, step=-1)", b[:, ::-1], "")]
    for lx, la, lf in lefts:
        for rx, rb, rf in rights:
            flags = "".join(", " + f for f in (lf, rf) if f)
            expr = "gemm(c, %s, %s, alpha=-0.5, beta=2.0%s)" % (lx, rx, flags)
            used = {k: w for k, w in ins.items()
                    if re.search(r"\b%s\b" % k, expr)}
            check("%s %s" % (expr, dt), expr, used,
                  reference(c, la, rb, -0.5, 2.0))
        for vx, vv in [("v", v), ("subtensor(v2, axis=0, step=-2)", v)]:
            expr = "gemm(cv, %s, %s, alpha=3.0, beta=0.5%s)" % (
                lx, vx, ", " + lf if lf else "")
            used = {k: w for k, w in ins.items()
                    if re.search(r"\b%s\b" % k, expr)}
            check("%s %s" % (expr, dt), expr, used,
                  reference(cv, la, vv, 3.0, 0.5))
    # A c that is itself a view (reversed), broadcast.
    expr = "gemm(subtensor(cr, axis=0, step=-1), x, y, beta=-1.0)"
    cr = values(dt, (3,), seed=6)
    check("%s %s" % (expr, dt), expr, {"cr": cr, "x": a, "y": b},
          reference(cr[::-1], a, b, 1.0, -1.0))

# Larger operands (BLAS's blocking), f32 and f64.
for dt in ["f32", "f64"]:
    a = values(dt, (90, 70), seed=7)
    b = values(dt, (90, 40), seed=8)
    c = values(dt, (40,), seed=9)
    check("large gemm %s" % dt, "gemm(c, a, b, alpha=0.01, trans_a=true)",
          {"c": c, "a": a, "b": b}, reference(c, a, b, 0.01, 1.0, True))
    x = values(dt, (200, 30), seed=10)
    y = values(dt, (30,), seed=11)
    z = values(dt, (200,), seed=12)
    check("large gemv %s" % dt, "gemm(z, x, y, alpha=-1.0, beta=0.3)",
          {"z": z, "x": x, "y": y}, reference(z, x, y, -1.0, 0.3))
    check("large gemv stepped %s" % dt,
          "gemm(z, subtensor(x, axis=0, step=2), y)",
          {"z": z[:100], "x": x, "y": y}, reference(z[:100], x[::2], y))

# Symbolic dims.
a = values("f64", (6, 4), seed=13)
b = values("f64", (4, 3), seed=14)
c = values("f64", (3,), seed=15)
check("gemm symbolic", "gemm(c, a, b, alpha=2.0)", {"c": c, "a": a, "b": b},
      reference(c, a, b, 2.0), types={"c": ["n"], "a": ["m", "k"],
                                      "b": ["k", "n"]})

# --- zero-size dims -------------------------------------------------------------

for dt in ["f32", "f64"]:
    for sc, sa, sb in [((3,), (2, 0), (0, 3)), ((2,), (2, 0), (0,)),
                       ((), (0,), (0,)), ((0, 3), (0, 4), (4, 3)),
                       ((), (2, 4), (4, 0)), ((0,), (0, 4), (4,))]:
        a, b = values(dt, sa, seed=16), values(dt, sb, seed=17)
        c = values(dt, sc, seed=18)
        check("gemm %s c%s a%s b%s" % (dt, sc, sa, sb),
              "gemm(c, a, b, beta=2.0)", {"c": c, "a": a, "b": b},
              reference(c, a, b, 1.0, 2.0))

# --- beta=0: c is not read ------------------------------------------------------

for dt in ["f32", "f64"]:
    a = values(dt, (3, 4), seed=19)
    b = values(dt, (4, 2), seed=20)
    v = values(dt, (4,), seed=21)
    nan = np.full((3, 2), np.nan, dtype=a.dtype)
    nan[0, 1] = np.inf
    check("beta=0 ignores NaN in c %s" % dt, "gemm(c, a, b, beta=0.0)",
          {"c": nan, "a": a, "b": b}, reference(nan, a, b, 1.0, 0.0))
    cn = np.full((3,), np.nan, dtype=a.dtype)
    check("beta=0 gemv ignores NaN in c %s" % dt,
          "gemm(c, a, v, alpha=2.0, beta=0.0)", {"c": cn, "a": a, "v": v},
          reference(cn, a, v, 2.0, 0.0))
    check("beta=0 literal c %s" % dt, "gemm(0.0, a, b, beta=0.0)",
          {"a": a, "b": b}, np.dot(a, b))
    check("beta=1 reads NaN in c %s" % dt, "gemm(c, a, b)",
          {"c": nan, "a": a, "b": b}, nan)

# --- errors ----------------------------------------------------------------------

m23, m35, v3, v4 = (values("f64", s, seed=22) for s in [(2, 3), (3, 5), (3,),
                                                        (4,)])
error("gemm dtypes differ", "gemm(c, a, b)",
      {"c": values("f32", (2, 5)), "a": m23, "b": m35},
      "gemm takes c, a and b of one dtype, f32 or f64, not f32, f64 and f64")
error("gemm of integers", "gemm(c, a, b)",
      {"c": values("i32", (2,)), "a": values("i32", (2, 3)),
       "b": values("i32", (3,))},
      "gemm takes c, a and b of one dtype, f32 or f64, not i32, i32 and i32")
error("gemm trans of a vector", "gemm(c, a, b, trans_b=true)",
      {"c": values("f64", (2,)), "a": m23, "b": v3},
      "trans_b transposes a matrix, but b has shape (3,)")
error("gemm c larger than the product", "gemm(c, a, b)",
      {"c": values("f64", (2, 3)), "a": m23, "b": v3},
      "c of shape (2,3) does not broadcast to the shape (2,) of dot(op(a), "
      "op(b))")
error("gemm c larger at run time", "gemm(c, a, b)",
      {"c": values("f64", (4,)), "a": m23, "b": m35},
      "c of shape (4,) does not broadcast to the shape (2,5)",
      types={"c": ["p"], "a": ["m", "k"], "b": ["k", "n"]})
error("gemm not aligned", "gemm(c, a, b)",
      {"c": values("f64", (2,)), "a": m23, "b": v4},
      "shapes (2,3) and (4,) not aligned: 3 (dim 1 of a) != 4 (dim 0 of b)")
error("gemm not aligned at run time", "gemm(c, a, b, trans_a=true)",
      {"c": values("f64", (3,)), "a": m23, "b": v4},
      "shapes (2,3) and (4,) not aligned: 2 (dim 0 of a, trans_a) != 4 "
      "(dim 0 of b)", types={"c": ["m"], "a": ["n", "k"], "b": ["q"]})
error("gemm of rank 0", "gemm(c, a, b)",
      {"c": values("f64", ()), "a": values("f64", ()), "b": v3},
      "gemm takes a and b of rank 1 or 2, not a of shape ()")
error("gemm bad attribute", "gemm(c, a, b, alpha=true)",
      {"c": values("f64", (2,)), "a": m23, "b": v3},
      "attribute 'alpha' of 'gemm' must be a number, not 'true'")

# --- the default optimizer, and the printed graph -------------------------------

a = values("f64", (3, 4), seed=23)
b = values("f64", (3, 5), seed=24)
c = values("f64", (5,), seed=25)
ins = {"c": c, "a": a, "b": b}
text = graph(ins, "gemm(c, transpose(a), b, alpha=-0.25, beta=1.5, "
                  "trans_b=false)")
want = reference(c, a.T, b, -0.25, 1.5)
run_case("gemm under the default optimizer", text, ins, want, optimizer=None)


def printed_runs():
    path = os.path.join(H._case_dir(), "g.graph")
    with open(path, "w") as f:
        f.write(text)
    r = subprocess.run([H.GRAPHJIT, path, "-print-graph"], capture_output=True,
                       text=True, timeout=120)
    if r.returncode != 0 or "gemm(" not in r.stdout:
        raise AssertionError("-print-graph: exit %d\n%s%s" %
                             (r.returncode, r.stdout, r.stderr))
    return r.stdout


try:
    printed = printed_runs()
    run_case("printed gemm graph", printed, ins, want)
except AssertionError as e:
    H.fail("printed gemm graph", str(e))

H.main()
