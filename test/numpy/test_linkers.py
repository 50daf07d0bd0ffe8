"""Directed differential cases across graphjit's linkers (py, c|py, c).

- every function of every example graph in examples/ under py, cpy and c,
  two calls each, outputs and shared variables compared;
- multi-call shared-variable updates: logistic_regression train -calls=10
  gives the same w and b under py and cpy (within 1e-12: the JIT's sigmoid
  and softplus use libmvec's exp and log1p, a few ulp from libm's); updates that read state
  other updates write (a swap), and updates that are views of their own
  target (transpose, reversed subtensor), checked against NumPy as well;
- run-time errors inside the compiled function (broadcast, dot alignment,
  reshape, concatenate, alloc, empty max, negative integer power, an
  unbound symbolic dim, a bad input): exit status 1, a message that names
  the Apply node, its inputs' shapes and the .graph line, the same text
  under py and cpy (and c, unless c refuses for a missing lowering);
- edge values (NaN, infinities, signed zeros, values no integer holds,
  integer extremes, division by 0 and -1) through every elemwise op, cast,
  reduction and softmax, per dtype, on contiguous, transposed, reversed and
  broadcast operands;
- empty operands through elemwise ops, reductions, concatenate, softmax and
  dot;
- `-allow-gc=false`, `-O=0..3`, and `-emit-llvm`, `-emit-llvm-optimized`,
  `-emit-asm` do not change results, and the emitted files are written;
  `-O=4` and `-emit-llvm` under py are errors.

Floats compare within rtol = atol = 1e-6 (f32) or 1e-12 (f64), NaN equal
to NaN, except where a case says bit-identical. c may refuse a graph only
with exit status 1 and "the c linker needs a JIT lowering for every op". A
crash or "internal error" always fails. Cases in KNOWN_FAILURES (graphjit
bugs) print as known failures and count neither as passed nor as failed.

Usage: test_linkers.py GRAPHJIT
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import harness as H

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
C_REFUSAL = "the c linker needs a JIT lowering for every op"
SCRATCH = tempfile.TemporaryDirectory(prefix="graphjit-linkers-")
_count = 0


# label -> why: graphjit bugs (reproducers in the test report). They run and
# print loudly as known failures, counting neither as passed nor as failed;
# one that passes is a failure (remove it here).
KNOWN_FAILURES = {}
_known = []


def record(label, fn):
    """H.record, minding KNOWN_FAILURES."""
    if label not in KNOWN_FAILURES:
        return H.record(label, fn)
    try:
        fn()
    except Exception as e:  # a known failure, as expected
        _known.append(label)
        print("KNOWN FAILURE (not counted as passed): %s\n  %s\n%s" % (
            label, KNOWN_FAILURES[label], e), flush=True)
        return
    H.fail(label, "in KNOWN_FAILURES but passes now: remove it")


class Result:
    def __init__(self, rc, out, err, outdir):
        self.rc, self.out, self.err = rc, out, err
        self.outputs = {}
        if rc == 0 and os.path.isdir(outdir):
            for f in sorted(os.listdir(outdir)):
                self.outputs[f[:-4]] = np.load(os.path.join(outdir, f))

    def text(self):
        return "exit status %s\n%s%s" % (self.rc, self.out, self.err)

    def refused(self):
        return self.rc == 1 and C_REFUSAL in self.err


class Graph:
    """A .graph file and its input files in a folder of their own, so that
    every run of it names the same path in its messages."""

    def __init__(self, text, inputs=None, dims=None, function="f"):
        global _count
        _count += 1
        self.dir = os.path.join(SCRATCH.name, "g%d" % _count)
        os.makedirs(self.dir)
        self.path = os.path.join(self.dir, "case.graph")
        with open(self.path, "w") as f:
            f.write(text)
        self.args = [self.path, "-function=" + function]
        for name, value in (inputs or {}).items():
            p = os.path.join(self.dir, "in_%s.npy" % name)
            np.save(p, np.asarray(value))
            self.args.append("-input=%s=%s" % (name, p))
        for name, size in (dims or {}).items():
            self.args.append("-dim=%s=%d" % (name, size))
        self.runs = 0

    def run(self, linker, *extra, calls=1):
        self.runs += 1
        outdir = os.path.join(self.dir, "out%d" % self.runs)
        cmd = [H.GRAPHJIT] + self.args + ["-linker=" + linker, "-calls=%d" % calls,
                                          "-output-dir=" + outdir] + list(extra)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if p.returncode not in (0, 1) or "internal error" in p.stderr:
            raise AssertionError("%s crashed or hit an internal error (exit "
                                 "status %d):\n%s%s" % (
                " ".join(cmd), p.returncode, p.stdout, p.stderr))
        return Result(p.returncode, p.stdout, p.stderr, outdir)


def same_outputs(what, ref, got, exact=False):
    """Raises unless got wrote the outputs ref wrote: same names, dtypes,
    shapes; ints equal, floats within rtol/atol 1e-6 (f32), 1e-12 (f64)
    with NaN equal, or bit-identical if exact."""
    if ref.rc != 0:
        raise AssertionError("%s: the reference run failed:\n%s" % (what, ref.text()))
    if got.rc != 0:
        raise AssertionError("%s failed:\n%s" % (what, got.text()))
    if set(ref.outputs) != set(got.outputs):
        raise AssertionError("%s wrote %s, the reference %s" % (
            what, sorted(got.outputs), sorted(ref.outputs)))
    for name, want in ref.outputs.items():
        have = got.outputs[name]
        if exact:
            if have.dtype != want.dtype or have.shape != want.shape or \
                    have.tobytes() != want.tobytes():
                diff = np.argwhere(have != want)[:5].tolist() if have.shape == want.shape else ""
                raise AssertionError("%s: %s is not bit-identical (%s %s vs %s %s) %s" % (
                    what, name, have.dtype, have.shape, want.dtype, want.shape, diff))
            continue
        tol = 1e-6 if want.dtype == np.float32 else 1e-12
        H.compare("%s: %s" % (what, name), have, want, rtol=tol, atol=tol)


def same_failure(what, ref, got):
    if ref.rc == 0:
        raise AssertionError("%s: the reference run did not fail:\n%s" % (what, ref.text()))
    if (got.rc, got.err) != (ref.rc, ref.err):
        raise AssertionError("%s fails differently.\nreference:\n%s\n%s:\n%s" % (
            what, ref.text(), what, got.text()))


def c_agrees(ref, c):
    """c behaves as the reference or refuses for missing lowerings."""
    if c.refused():
        return
    if ref.rc == 0:
        same_outputs("c", ref, c)
    else:
        same_failure("c", ref, c)


def check_against(label, expected, result):
    if result.rc != 0:
        raise AssertionError("%s failed:\n%s" % (label, result.text()))
    for name, want in expected.items():
        H.compare("%s: %s" % (label, name), result.outputs[name], want)


# --- the example graphs ---------------------------------------------------------

def example_functions():
    for path in sorted(glob.glob(os.path.join(EXAMPLES, "*.graph"))):
        with open(path) as f:
            text = f.read()
        for m in re.finditer(r"^func\s+(\w+)\s*\(([^)]*)\)", text, re.M):
            dims = {d.strip() for ds in re.findall(r"\[([^\]]*)\]", m.group(2))
                    for d in ds.split(",") if re.match(r"^\s*[A-Za-z_]", d)}
            yield os.path.basename(path), text, m.group(1), sorted(dims)


for fname, text, func, syms in example_functions():
    g = Graph(text, dims={s: 7 for s in syms}, function=func)

    def example_case(g=g, label="%s %s" % (fname, func)):
        py = g.run("py", "-seed=3", calls=2)
        same_outputs(label + " [cpy]", py, g.run("cpy", "-seed=3", calls=2))
        c_agrees(py, g.run("c", "-seed=3", calls=2))
    record("example %s %s: py, cpy, c" % (fname, func), example_case)


# --- shared-variable updates over several calls ------------------------------

def logistic_train():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((64, 784)) * 0.1
    y = (rng.random(64) > 0.5).astype(np.float64)
    with open(os.path.join(EXAMPLES, "logistic_regression.graph")) as f:
        g = Graph(f.read(), inputs={"x": x, "y": y}, function="train")
    py = g.run("py", calls=10)
    cpy = g.run("cpy", calls=10)
    same_outputs("logistic regression train -calls=10 [cpy]", py, cpy)
    if not np.any(py.outputs["w"]):
        raise AssertionError("w is still zero after 10 steps: the updates did not run")


record("logistic regression: w, b the same after 10 calls under py and cpy",
       logistic_train)

STATE = """
shared s: f64[3] = ones
shared c: i64[] = 0
shared a: i32[2] = 1
shared b: i32[2] = 2
shared W: f64[3, 3] = uniform(-1, 1, seed=5)
shared v: f32[4] = normal(0, 1, seed=9)
func step(x: f64[3]) -> (t, u) {
  t = mul(add(s, x), 0.5)
  u = mul(s, 1.0)
  update s = t
  update c = add(c, 1)
  update a = b
  update b = add(a, 1)
  update W = transpose(W)
  update v = subtensor(v, step=-1)
}
"""


def state_case():
    """Updates read the values before the call, including when one is
    another's target or a view of its own target."""
    x = np.array([1.0, -2.0, 0.25])
    g = Graph(STATE, inputs={"x": x}, function="step")
    init = g.run("py", calls=0)
    if init.rc != 0:
        raise AssertionError("-calls=0 failed:\n" + init.text())
    W0, v0 = init.outputs["W"], init.outputs["v"]
    s, c, a, b = np.ones(3), 0, np.array([1, 1], np.int32), np.array([2, 2], np.int32)
    for _ in range(5):
        t, u = (s + x) * 0.5, s
        s, c, a, b = t, c + 1, b, a + 1
    # 5 calls: W is transposed and v reversed an odd number of times.
    expected = {"s": s, "t": t, "u": u, "c": np.int64(c), "a": a, "b": b,
                "W": W0.T, "v": v0[::-1]}
    py = g.run("py", calls=5)
    check_against("py", expected, py)
    for extra in ((), ("-allow-gc=false",), ("-O=0",)):
        same_outputs("cpy %s" % " ".join(extra), py, g.run("cpy", *extra, calls=5),
                     exact=True)
    c_agrees(py, g.run("c", calls=5))


record("updates: swap, counter, self-transpose, self-reversal over 5 calls",
       state_case)


# --- run-time errors ----------------------------------------------------------

def runtime_error(label, text, inputs, contains, dims=None, line=None):
    """graphjit exits 1 under py and cpy with the same message, which holds
    every string of `contains`, and for a node error the .graph line."""
    def case():
        g = Graph(text, inputs=inputs, dims=dims)
        py = g.run("py")
        if py.rc != 1:
            raise AssertionError("py: expected exit status 1:\n" + py.text())
        want = list(contains)
        if line is not None:
            want.append("%s:%d:" % (g.path, line))
        for s in want:
            if s not in py.err:
                raise AssertionError("py's message lacks %r:\n%s" % (s, py.err))
        same_failure("cpy", py, g.run("cpy"))
        same_failure("cpy -allow-gc=false -O=0", py, g.run("cpy", "-allow-gc=false", "-O=0"))
        c_agrees(py, g.run("c"))
    record("run-time error: " + label, case)


f3, f4 = np.arange(3.0), np.arange(4.0)
runtime_error("add of f64[n] and f64[m], n=3, m=4",
              "func f(x: f64[n], y: f64[m]) -> (r) {\n  r = add(x, y)\n}\n",
              {"x": f3, "y": f4},
              ["Apply node", "Elemwise{add,no_inplace}", "f64 (3,), f64 (4,)",
               "operands could not be broadcast together with shapes (3,) (4,)"], line=2)
runtime_error("the second node of a chain fails",
              "func f(x: f64[n], y: f64[m]) -> (r) {\n  s = exp(x)\n"
              "  t = neg(y)\n  r = mul(s, t)\n}\n",
              {"x": f3, "y": f4}, ["Apply node", "Elemwise{mul,no_inplace}",
                                   "f64 (3,), f64 (4,)"], line=4)
runtime_error("nested call fails",
              "func f(x: f64[n, 2], y: f64[m]) -> (r) {\n"
              "  r = sum(add(x, y), axis=[0])\n}\n",
              {"x": np.ones((3, 2)), "y": f3}, ["Apply node", "f64 (3, 2), f64 (3,)"],
              line=2)
runtime_error("dot not aligned",
              "func f(x: f64[n, k], y: f64[m]) -> (r) {\n  r = dot(x, y)\n}\n",
              {"x": np.ones((2, 3)), "y": f4},
              ["Apply node", "shapes (2,3) and (4,) not aligned: 3 (dim 1) != 4 (dim 0)"],
              line=2)
runtime_error("dot of f32 matrices not aligned",
              "func f(x: f32[n, k], y: f32[m, 2]) -> (r) {\n\n  r = dot(x, y)\n}\n",
              {"x": np.ones((2, 3), np.float32), "y": np.ones((4, 2), np.float32)},
              ["Apply node", "f32 (2, 3), f32 (4, 2)", "not aligned"], line=3)
runtime_error("reshape of the wrong size",
              "func f(x: i32[n]) -> (r) {\n  r = reshape(x, shape=[2, -1])\n}\n",
              {"x": np.arange(5, dtype=np.int32)},
              ["Apply node", "cannot reshape array of size 5 into shape (2,newaxis)"],
              line=2)
runtime_error("concatenate with other dims differing",
              "func f(x: f64[n, k], y: f64[n, m]) -> (r) {\n"
              "  r = concatenate(x, y, axis=0)\n}\n",
              {"x": np.ones((2, 3)), "y": np.ones((2, 4))},
              ["Apply node", "all the input array dimensions except for the "
               "concatenation axis must match exactly"], line=2)
runtime_error("alloc cannot broadcast",
              "func f(x: f64[n]) -> (r) {\n  r = alloc(x, shape=[2, 4])\n}\n",
              {"x": f3}, ["Apply node", "alloc cannot broadcast"], line=2)
runtime_error("max of an empty array",
              "func f(x: f64[n]) -> (r) {\n  r = max(x)\n}\n",
              {"x": np.zeros(0)}, ["Apply node", "zero-size array to reduction "
                                   "operation maximum which has no identity"], line=2)
runtime_error("argmax of an empty array",
              "func f(x: u8[n, 2]) -> (r) {\n  r = argmax(x, axis=0)\n}\n",
              {"x": np.zeros((0, 2), np.uint8)}, ["Apply node", "attempt to get argmax "
                                                 "of an empty sequence"], line=2)
runtime_error("integer pow with a negative exponent",
              "func f(x: i32[3], y: i32[3]) -> (r) {\n  r = pow(x, y)\n}\n",
              {"x": np.array([1, 2, 3], np.int32), "y": np.array([1, -1, 2], np.int32)},
              ["Apply node", "Integers to negative integer powers are not allowed."],
              line=2)
runtime_error("symbolic dim with no size",
              "func f(x: f64[6]) -> (r) {\n  r = reshape(x, shape=[q, -1])\n}\n",
              {"x": np.ones(6)}, ["symbolic dim 'q' has no size in this call"])
runtime_error("input of the wrong shape",
              "func f(x: f64[3], y: f64[n]) -> (r) {\n  r = add(x, y)\n}\n",
              {"x": f4, "y": f3}, ["input 'x' dim 0 is 4"])


# --- edge values through every elemwise op and reduction ----------------------

UNARY = ["neg", "abs", "exp", "log", "log1p", "expm1", "sqrt", "sqr", "sigmoid",
         "softplus", "tanh", "sin", "cos", "floor", "ceil", "sign", "reciprocal",
         "erf", "not"]
BINARY = ["add", "sub", "mul", "true_div", "int_div", "mod", "maximum", "minimum",
          "eq", "neq", "lt", "le", "gt", "ge", "and", "or"]
REDUCE = ["sum", "prod", "max", "min", "mean", "all", "any", "argmax", "argmin"]
NP_DTYPES = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
             "i32": np.int32, "i64": np.int64, "u8": np.uint8, "bool": np.bool_}


def edge_values(dt, n, seed):
    """n values of dtype dt led by the ones JIT code gets wrong: NaN, infs,
    signed zeros, values no integer holds; integer extremes, 0 and -1."""
    rng = np.random.default_rng(seed)
    t = np.dtype(NP_DTYPES[dt])
    if t.kind == "b":
        return rng.random(n) < 0.5
    if t.kind == "f":
        edge = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e30,
                -1e30, 3e9, -3e9, 300.7, -1.5, 1e-40, 88.5, 710.0, -745.0, 2.5]
        rest = rng.standard_normal(n) * 4
    else:
        info = np.iinfo(t)
        edge = [info.min, info.max, -1, 0, 1, 2, info.min + 1, info.max - 1, 7, -7]
        rest = rng.integers(info.min, info.max, n, endpoint=True)
    vals = np.concatenate([np.array(edge, dtype=np.float64 if t.kind == "f" else np.int64),
                           rest])[:n]
    rng.shuffle(vals[len(edge) // 2:])
    with np.errstate(all="ignore"):
        return vals.astype(t)


def edge_graph(dt):
    """One function applying every elemwise op, cast, reduction and softmax
    to x (and y), on a contiguous vector, and on a transposed 5x8 view of x
    with a reversed column of y broadcast along its rows."""
    lines = []
    outs = []

    def out(name, expr):
        lines.append("  %s = %s" % (name, expr))
        outs.append(name)
    for op in UNARY:
        if not (dt == "bool" and op in ("neg", "sign")):
            out("u_" + op, "%s(x)" % op)
    for op in BINARY:
        if not (dt == "bool" and op == "sub"):
            out("b_" + op, "%s(x, y)" % op)
            out("t_" + op, "%s(xt, y8)" % op)
    out("b_pow", "pow(x, e)")
    out("n_add", "add(x, y, e)")
    out("n_switch", "switch(x, y, e)")
    out("n_clip", "clip(x, e, y)")
    out("n_second", "second(xt, y8)")
    for to in NP_DTYPES:
        out("c_" + to, "cast(x, dtype=%s)" % to)
        out("ct_" + to, "cast(xt, dtype=%s)" % to)
    for op in REDUCE:
        out("r_" + op, "%s(x)" % op)
        out("rt_" + op, "%s(xt, axis=0)" % op)
    out("s_softmax", "softmax(xt, axis=0)")
    out("s_log_softmax", "log_softmax(xt)")
    return ("func f(x: %s[n], y: %s[n], e: %s[n]) -> (%s) {\n"
            "  xt = transpose(reshape(x, shape=[5, 8]))\n"
            "  y8 = subtensor(subtensor(reshape(y, shape=[8, 5]), axis=1, stop=1), step=-1)\n"
            "%s\n}\n"
            % (dt, dt, dt, ", ".join(outs), "\n".join(lines)))


for dt in NP_DTYPES:
    def edge_case(dt=dt):
        x, y = edge_values(dt, 40, 1), edge_values(dt, 40, 2)
        e = np.random.default_rng(3).integers(0, 4, 40).astype(NP_DTYPES[dt])
        g = Graph(edge_graph(dt), inputs={"x": x, "y": y, "e": e})
        py = g.run("py")
        same_outputs("cpy", py, g.run("cpy"))
        # ~100 nodes compile slowly: -O=0 and c for a few dtypes only.
        if dt in ("f32", "i32"):
            same_outputs("cpy -O=0", py, g.run("cpy", "-O=0"))
        if dt in ("f64", "i8"):
            c_agrees(py, g.run("c"))
    record("edge values through every elemwise op, cast and reduction: %s" % dt,
             edge_case)


# --- empty operands ------------------------------------------------------------

def empty_case(label, text, inputs):
    def case():
        g = Graph(text, inputs=inputs)
        py = g.run("py")
        same_outputs("cpy", py, g.run("cpy"))
        c_agrees(py, g.run("c"))
    record("empty operands: " + label, case)


e0 = np.zeros((0, 3))
empty_case("elemwise, reductions with an identity, concatenate, softmax",
           "func f(x: f64[n, 3], y: i8[n, 1], z: f64[3]) -> (a, b, c, d, e, g, h) {\n"
           "  a = add(exp(x), y)\n  b = sum(x, axis=[0])\n  c = prod(y, keepdims=true)\n"
           "  d = concatenate(x, transpose(alloc(dimshuffle(z, pattern=[0, x]),"
           " shape=[3, n])), axis=1)\n"
           "  e = softmax(x, axis=0)\n  g = mean(transpose(x), axis=[1])\n"
           "  h = any(subtensor(x, step=-1), axis=[0])\n}\n",
           {"x": e0, "y": np.zeros((0, 1), np.int8), "z": np.ones(3)})
empty_case("dot with an empty vector result",
           "func f(x: f64[n, 3], y: f64[3]) -> (r) {\n  r = dot(x, y)\n}\n",
           {"x": e0, "y": np.ones(3)})
empty_case("dot with a zero-length contraction",
           "func f(x: f32[3, n], y: f32[n, 2]) -> (r) {\n  r = dot(x, y)\n}\n",
           {"x": np.zeros((3, 0), np.float32), "y": np.zeros((0, 2), np.float32)})
empty_case("dot with an empty matrix result",
           "func f(x: f64[3, 2], y: f64[2, n]) -> (r) {\n  r = dot(x, y)\n}\n",
           {"x": np.ones((3, 2)), "y": np.zeros((2, 0))})


# --- flags that must not change results -----------------------------------------

FLAGS_GRAPH = """
func f(x: f32[n, 5], y: f64[5], z: i16[n]) -> (r, s, u, w) {
  t = add(mul(x, 2.0), y)
  r = softmax(t, axis=1)
  s = sum(transpose(subtensor(t, axis=1, step=-2)), axis=[0], keepdims=true)
  u = argmax(dot(x, cast(y, dtype=f32)), axis=0)
  w = mod(mul(z, z, 3), 7)
}
"""


def flags_case(name, args_list, graph, calls=1):
    def case():
        py = graph.run("py", calls=calls)
        for args in args_list:
            same_outputs("cpy %s" % " ".join(args), py,
                         graph.run("cpy", *args, calls=calls))
    record(name, case)


rng = np.random.default_rng(5)
fg = Graph(FLAGS_GRAPH, inputs={"x": rng.standard_normal((4, 5)).astype(np.float32),
                                "y": rng.standard_normal(5),
                                "z": rng.integers(-300, 300, 4).astype(np.int16)})
with open(os.path.join(EXAMPLES, "mlp.graph")) as _f:
    mlp = Graph(_f.read(), dims={"n": 16}, function="train")
for g, label in ((fg, "a mixed graph"), (mlp, "mlp train -calls=2")):
    calls = 2 if g is mlp else 1
    flags_case("-allow-gc=false, %s" % label,
               [("-allow-gc=false",), ("-allow-gc=true",)], g, calls)
    flags_case("-O=0..3, %s" % label,
               [("-O=0",), ("-O=1",), ("-O=2",), ("-O=3",), ("-O=0", "-allow-gc=false")],
               g, calls)

    def gc_py(g=g, calls=calls):
        same_outputs("py -allow-gc=false", g.run("py", calls=calls),
                     g.run("py", "-allow-gc=false", calls=calls), exact=True)
    record("py -allow-gc=false, %s" % label, gc_py)


def bad_opt_level():
    r = fg.run("cpy", "-O=4")
    if r.rc != 1 or "optimization level 4 is not one of 0, 1, 2, 3" not in r.err:
        raise AssertionError("-O=4: expected exit status 1 and the level's error:\n"
                             + r.text())


record("-O=4 is an error", bad_opt_level)


def emit_case():
    """-emit-llvm, -emit-llvm-optimized and -emit-asm write their files and
    change no result; the py linker rejects them."""
    files = {flag: os.path.join(fg.dir, name) for flag, name in (
        ("-emit-llvm", "f.ll"), ("-emit-llvm-optimized", "f.opt.ll"), ("-emit-asm", "f.s"))}
    py = fg.run("py")
    for level in ("-O=0", "-O=3"):
        got = fg.run("cpy", level, *("%s=%s" % kv for kv in files.items()))
        same_outputs("cpy %s with -emit-*" % level, py, got)
        for flag, path in files.items():
            if not os.path.isfile(path) or os.path.getsize(path) == 0:
                raise AssertionError("%s %s wrote no file %s:\n%s" % (
                    level, flag, path, got.text()))
            os.remove(path)
    with open(os.path.join(fg.dir, "check.ll"), "w"):
        pass
    r = fg.run("py", "-emit-llvm=" + os.path.join(fg.dir, "check.ll"))
    if r.rc != 1 or "need a JIT linker" not in r.err:
        raise AssertionError("-linker=py -emit-llvm: expected the 'need a JIT "
                             "linker' error:\n" + r.text())


record("-emit-llvm, -emit-llvm-optimized, -emit-asm", emit_case)


def emit_content():
    """The emitted text is what it says: LLVM IR with a definition, and
    assembly for the host."""
    ll, opt, asm = (os.path.join(fg.dir, n) for n in ("c.ll", "c.opt.ll", "c.s"))
    r = fg.run("cpy", "-emit-llvm=" + ll, "-emit-llvm-optimized=" + opt,
               "-emit-asm=" + asm)
    if r.rc != 0:
        raise AssertionError(r.text())
    for path, needle in ((ll, "define "), (opt, "define "), (asm, ".text")):
        with open(path) as f:
            if needle not in f.read():
                raise AssertionError("%s lacks %r" % (path, needle))


record("emitted files hold IR and assembly", emit_content)

if _known:
    print("KNOWN FAILURES: %s (see KNOWN_FAILURES in %s)" % (
        "; ".join(_known), os.path.basename(__file__)))
H.main()
