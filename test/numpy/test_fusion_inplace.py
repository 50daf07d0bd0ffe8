"""Fused (Composite) and in-place Elemwise ops against NumPy, end to end.

The graph format writes a fused Elemwise as
`composite(x, y, expr="exp(i0) / (i0 + i1)")` and an in-place one with
`inplace=K` (output 0 overwrites input K), which is how the printer writes
rewritten graphs. Graphs are run as written (-optimizer=None) under the py,
c|py and c linkers:

- composites of every kind of step (float functions, n-ary add, integer
  arithmetic that wraps step by step, casts, comparisons, switch, second)
  on contiguous, transposed, broadcast, 0-d and empty operands, compared
  with NumPy computing the same chain of ufuncs with the same dtypes;
- in-place ops, plain and fused, where the output can take the input's
  buffer and where it cannot (a broadcast input), and the streaming path;
- -print-graph of such a graph parses back and computes the same;
- the memory profile: an in-place Apply allocates nothing, a fallback is
  flagged, and the measured peak is the one counted by hand here;
- bad composites and in-place attributes are errors with exit status 1;
- the profiling tutorial's graph under the default optimizer (which fuses
  and works in place once those rewrites run) still equals NumPy.

Usage: test_fusion_inplace.py GRAPHJIT
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import harness as H

LINKERS = ("py", "c|py", "c")
AS_WRITTEN = ["-optimizer=None"]


def run(graph_text, inputs, function="f", dims=None, linker="py", calls=1,
        extra=()):
    rc, out, err, outdir = H.run_graphjit(graph_text, inputs, function, dims,
                                          linker, calls,
                                          extra=AS_WRITTEN + list(extra))
    if rc != 0:
        raise AssertionError("graphjit failed (exit %d):\n%s%s" % (rc, out, err))
    return outdir, out


def check(label, graph_text, inputs, expected, rtol=None, atol=None,
          linkers=LINKERS, calls=1, extra=()):
    """The graph as written equals NumPy's `expected` under every linker."""
    for linker in linkers:
        def one(linker=linker):
            outdir, _ = run(graph_text, inputs, linker=linker, calls=calls,
                            extra=extra)
            for name, want in expected.items():
                got = np.load(os.path.join(outdir, name + ".npy"))
                H.compare(name, got, want, rtol, atol)
        H.record("%s [%s]" % (label, linker), one)


def expect_error(label, graph_text, contains, inputs=None):
    def one():
        rc, out, err, _ = H.run_graphjit(graph_text, inputs, extra=AS_WRITTEN)
        if rc != 1:
            raise AssertionError("expected exit status 1, got %d:\n%s%s"
                                 % (rc, out, err))
        if contains not in err:
            raise AssertionError("stderr lacks %r:\n%s" % (contains, err))
    H.record(label, one)


rng = np.random.default_rng(6)
f64 = lambda *s: rng.standard_normal(s)
f32 = lambda *s: rng.standard_normal(s).astype(np.float32)

# --- Composites ------------------------------------------------------------

x, y, z = f64(50), f64(50), f64(50)
check("tutorial composite ((x + y) + z) * 2",
      """func f(x: f64[n], y: f64[n], z: f64[n]) -> (r) {
  r = composite(x, y, z, 2.0, expr="((i0 + i1) + i2) * i3")
}""", {"x": x, "y": y, "z": z}, {"r": ((x + y) + z) * 2.0})

check("float functions, fused",
      """func f(x: f64[n], y: f64[n]) -> (r, s) {
  r = composite(x, y, expr="exp(-i0) / (sigmoid(i1) + log1p(abs(i0)))")
  s = composite(x, y, expr="tanh(i0) * sqr(i1) - sqrt(abs(i1))")
}""", {"x": x, "y": y},
      {"r": np.exp(-x) / (1 / (1 + np.exp(-y)) + np.log1p(np.abs(x))),
       "s": np.tanh(x) * np.square(y) - np.sqrt(np.abs(y))})

a, b = f32(7, 9), f32(9)
check("f32 stays f32; a row broadcast; a 0-d input",
      """func f(a: f32[m, n], b: f32[n], c: f32[]) -> (r) {
  r = composite(a, b, c, expr="maximum(i0 * i1, i2) + i0 + i1")
}""", {"a": a, "b": b, "c": np.float32(0.25)},
      {"r": np.maximum(a * b, np.float32(0.25)) + a + b})

# The sum of two int8 values wraps in int8 before it meets the float: the
# chain's semantics, step by step.
i8a = rng.integers(-128, 128, 40).astype(np.int8)
i8b = rng.integers(-128, 128, 40).astype(np.int8)
w = f32(40)
check("integer steps wrap before promotion",
      """func f(a: i8[n], b: i8[n], w: f32[n]) -> (r, s) {
  r = composite(a, b, w, expr="(i0 + i1) * i2")
  s = composite(a, b, w, expr="Cast{int16}(i0) * i1 + i2")
}""", {"a": i8a, "b": i8b, "w": w},
      {"r": (i8a + i8b) * w,
       "s": (i8a.astype(np.int16) * i8b) + w})

i32a = rng.integers(-1000, 1000, 33).astype(np.int32)
i32b = rng.integers(-9, 9, 33).astype(np.int32)
check("comparisons, logical ops and switch, fused",
      """func f(a: i32[n], b: i32[n]) -> (c, s) {
  c = composite(a, b, expr="and(i0 > i1, not(i1 == i0))")
  s = composite(a, b, expr="switch(i0 < i1, i0 * i1, -i1)")
}""", {"a": i32a, "b": i32b},
      {"c": np.logical_and(i32a > i32b, np.logical_not(i32b == i32a)),
       "s": np.where(i32a < i32b, i32a * i32b, -i32b)})


def int_div_case():
    # NumPy warns on a zero divisor and gives 0, as graphjit does.
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.remainder(np.floor_divide(i32a, i32b), i32b + i32b)
    for linker in LINKERS:
        outdir, _ = run("""func f(a: i32[n], b: i32[n]) -> (q) {
  q = composite(a, b, expr="(i0 // i1) % (i1 + i1)")
}""", {"a": i32a, "b": i32b}, linker=linker)
        H.compare("q " + linker, np.load(os.path.join(outdir, "q.npy")), q)


H.record("integer floor division and remainder, fused", int_div_case)

def transposed_case():
    mm = f64(6, 8)
    v8 = f64(8)
    v6 = f64(6)
    text = """func f(m: f64[a, b], v: f64[b], u: f64[a]) -> (r, s) {
  r = composite(transpose(m), u, expr="Cast{float32}(i0 * i1) + Cast{float32}(i1)")
  s = composite(m, v, expr="second(i0, i1 * i1)")
}"""
    want_r = (mm.T * v6).astype(np.float32) + v6.astype(np.float32)
    want_s = np.broadcast_to(v8 * v8, (6, 8))
    for linker in LINKERS:
        outdir, _ = run(text, {"m": mm, "v": v8, "u": v6}, linker=linker)
        H.compare("r " + linker, np.load(os.path.join(outdir, "r.npy")), want_r)
        H.compare("s " + linker, np.load(os.path.join(outdir, "s.npy")), want_s)


H.record("transposed operand, cast to f32, second", transposed_case)

check("0-d composite", """func f(x: f64[], y: f64[]) -> (r) {
  r = composite(x, y, expr="exp(i0) * i1 + i1")
}""", {"x": np.float64(0.5), "y": np.float64(-2.0)},
      {"r": np.float64(np.exp(0.5) * -2.0 + -2.0)})

check("empty composite", """func f(x: f64[n, m], y: f64[m]) -> (r) {
  r = composite(x, y, expr="exp(i0) * i1 + i1")
}""", {"x": np.zeros((0, 3)), "y": f64(3)}, {"r": np.zeros((0, 3))})

# --- In place ----------------------------------------------------------------

x, y = f64(300), f64(300)
check("in place: plain and fused, flat",
      """func f(x: f64[n], y: f64[n]) -> (r, s) {
  t = exp(x)
  r = add(t, y, inplace=0)
  u = sqr(y)
  s = composite(x, u, y, expr="(i0 + i1 + i2) * i1", inplace=1)
}""", {"x": x, "y": y},
      {"r": np.exp(x) + y, "s": (x + y * y + y) * (y * y)})

M, v = f64(5, 40), f64(40)
check("in place beside a broadcast row, and a fallback",
      """func f(m: f64[a, b], v: f64[b]) -> (r, s) {
  t = tanh(m)
  r = mul(v, t, inplace=1)
  e = exp(v)
  s = sub(e, m, inplace=0)
}""", {"m": M, "v": v},
      {"r": v * np.tanh(M), "s": np.exp(v) - M})

check("in place, a value read twice", """func f(x: f64[n]) -> (r) {
  t = exp(x)
  r = mul(t, t, inplace=0)
}""", {"x": x}, {"r": np.exp(x) * np.exp(x)})

big = f64(5000)
check("in place, streamed output",
      """func f(x: f64[n], y: f64[n]) -> (r) {
  t = exp(x)
  r = composite(t, y, expr="i0 * i1 + i0", inplace=0)
}""", {"x": big, "y": big[::-1].copy()},
      {"r": np.exp(big) * big[::-1] + np.exp(big)},
      extra=["-calls=2"])


def round_trip():
    text = """func f(x: f64[n], y: i32[n]) -> (r) {
  t = exp(x)
  r = composite(t, y, x, expr="((i0 + i1) + i2) * Cast{float64}(i1 < i2)", inplace=0)
}"""
    inputs = {"x": f64(20), "y": rng.integers(-3, 3, 20).astype(np.int32)}
    rc, printed, err, _ = H.run_graphjit(text, inputs,
                                         extra=AS_WRITTEN + ["-print-graph"])
    if rc != 0:
        raise AssertionError(printed + err)
    if 'inplace=0' not in printed or 'expr="((i0 + i1) + i2)' not in printed:
        raise AssertionError("printed:\n" + printed)
    want = (np.exp(inputs["x"]) + inputs["y"] + inputs["x"]) * (
        inputs["y"] < inputs["x"])
    for linker in LINKERS:
        outdir, _ = run(printed, inputs, linker=linker)
        H.compare("r " + linker, np.load(os.path.join(outdir, "r.npy")), want)


H.record("-print-graph of composites and in-place ops parses back", round_trip)

# --- The memory profile --------------------------------------------------------


def memory_case(label, text, inputs, want_peak, name_part, allocated):
    """The measured peak equals the count by hand; the Apply whose name
    contains name_part is in place, and `allocated` says whether it had to
    make its own buffer."""
    for linker in LINKERS:
        for gc in (True, False):
            def one(linker=linker, gc=gc):
                out = os.path.join(H._case_dir(), "profile.json")
                _, report = run(text, inputs, linker=linker, calls=2,
                                extra=["-profile-memory", "-profile-json=" + out,
                                       "-allow-gc=" + ("true" if gc else "false")])
                with open(out) as fh:
                    fn = json.load(fh)["functions"][0]
                mem = fn["memory"]
                if mem["measured_peak"] != want_peak[gc]:
                    raise AssertionError("measured %d bytes, counted by hand %d"
                                         % (mem["measured_peak"], want_peak[gc]))
                node = [a for a in fn["applies"] if name_part in a["name"]]
                if len(node) != 1:
                    raise AssertionError([a["name"] for a in fn["applies"]])
                o = node[0]["outputs_memory"][0]
                if o["kind"] != "inplace" or o["allocated"] != allocated:
                    raise AssertionError(o)
                if "(agree)" not in report:
                    raise AssertionError("the report does not agree:\n" + report)
            H.record("%s [%s, allow_gc=%s]" % (label, linker, gc), one)


# t = exp(x): 8000 bytes; u overwrites t; r = sum(u): 8 bytes. With or
# without gc the call holds 8008 bytes at most.
memory_case("in-place composite allocates nothing",
            """func f(x: f64[n], y: f64[n]) -> (r) {
  t = exp(x)
  u = composite(t, y, expr="i0 * i1 + i1", inplace=0)
  r = sum(u)
}""", {"x": f64(1000), "y": f64(1000)}, {True: 8008, False: 8008},
            "Composite", False)

# t = exp(v) is (1, 40): 320 bytes; the (5, 40) output cannot be t, so it is
# made (1600 bytes) and flagged.
memory_case("in-place fallback is flagged",
            """func f(m: f64[a, b], v: f64[1, b]) -> (r) {
  t = exp(v)
  r = sub(t, m, inplace=0)
}""", {"m": f64(5, 40), "v": f64(1, 40)}, {True: 1920, False: 1920},
            "sub", True)

# --- Errors --------------------------------------------------------------------

expect_error("a composite that does not parse", """func f(x: f64[n]) -> (r) {
  r = composite(x, expr="exp(i0")
}""", "expected ')'")
expect_error("an input the composite never uses", """func f(x: f64[n], y: f64[n]) -> (r) {
  r = composite(x, y, expr="exp(i0)")
}""", "input i1 is never used")
expect_error("an integer pow step", """func f(x: i32[n]) -> (r) {
  r = composite(x, x, expr="i0 ** i1")
}""", "pow would compute in i32")
expect_error("inplace out of range", """func f(x: f64[n], y: f64[n]) -> (r) {
  r = add(x, y, inplace=2)
}""", "inplace=2 is not an input of add")
expect_error("in place on another dtype", """func f(x: i32[n], y: f64[n]) -> (r) {
  r = add(x, y, inplace=0)
}""", "needs the output's dtype f64")

# --- The default optimizer -------------------------------------------------------


def tutorial_default_optimizer():
    text = """func example(x: f64[n], y: f64[n], z: f64[n]) -> (r) {
  s = add(x, y)
  t = add(s, z)
  r = mul(exp(t), 2.0)
}"""
    xs, ys, zs = f64(64), f64(64), f64(64)
    for linker in LINKERS:
        rc, out, err, outdir = H.run_graphjit(text, {"x": xs, "y": ys, "z": zs},
                                              function="example", linker=linker,
                                              calls=2)
        if rc != 0:
            raise AssertionError(out + err)
        H.compare("r " + linker, np.load(os.path.join(outdir, "r.npy")),
                  np.exp(xs + ys + zs) * 2.0)


H.record("the tutorial under the default optimizer", tutorial_default_optimizer)

H.main()
