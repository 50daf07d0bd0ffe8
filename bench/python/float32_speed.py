"""float32 against float64 in graphjit, and both against NumPy, op by op,
side by side in one run (issue 35: float32 kernels at least as fast as
float64 ones for every op, so that the report's "use float32" tip never
points the wrong way; softmax at least as fast as NumPy's).

    .venv/bin/python bench/python/float32_speed.py [--rows 512] [--cols 512]

Each op is one graphjit function of a rows x cols matrix (the reductions
and softmaxes along the rows), against the same expression in NumPy;
each round times the four (graphjit and NumPy, float32 and float64) one
after the other, and the medians over the rounds are printed with the
ratios float64/float32 (graphjit's) and NumPy/graphjit (float32's).
"""
import argparse
import statistics
import time

import numpy as np

import graphjit


def _log_softmax(x):
    s = x - x.max(axis=1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=1, keepdims=True))


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# name: (graphjit's statement of x, NumPy's function of x)
OPS = {
    "add": ("y = add(x, x)", lambda x: x + x),
    "exp": ("y = exp(x)", np.exp),
    "log": ("y = log(abs(x))", lambda x: np.log(np.abs(x))),
    "tanh": ("y = tanh(x)", np.tanh),
    "sigmoid": ("y = sigmoid(x)", lambda x: 1 / (1 + np.exp(-x))),
    "sqrt": ("y = sqrt(abs(x))", lambda x: np.sqrt(np.abs(x))),
    "sum rows": ("y = sum(x, axis=[1])", lambda x: x.sum(axis=1)),
    "max rows": ("y = max(x, axis=[1])", lambda x: x.max(axis=1)),
    "softmax": ("y = softmax(x, axis=1)", _softmax),
    "log_softmax": ("y = log_softmax(x, axis=1)", _log_softmax),
    "dot": ("y = dot(x, x)", lambda x: x @ x),
}


def timed(fn, calls):
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", type=int, default=512)
    p.add_argument("--cols", type=int, default=512)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--calls", type=int, default=20)
    args = p.parse_args()
    rng = np.random.default_rng(0)
    base = rng.standard_normal((args.rows, args.cols))
    print("%-12s %10s %10s %8s %10s %12s" % (
        "op", "gj f32 ms", "gj f64 ms", "f64/f32", "NumPy f32", "NumPy/gj f32"))
    for name, (statement, numpy_fn) in OPS.items():
        runs = {}
        for dtype, short in (("float32", "f32"), ("float64", "f64")):
            f = graphjit.loads("func f(x: %s[n, m]) -> (y) { %s }"
                               % (short, statement)).function("f")
            x = base.astype(dtype)
            np.testing.assert_allclose(f(x), numpy_fn(x), atol=1e-4,
                                       rtol=2e-3 if short == "f32" else 1e-9)
            runs[("gj", short)] = lambda f=f, x=x: f(x)
            runs[("np", short)] = lambda x=x: numpy_fn(x)
        times = {k: [] for k in runs}
        for _ in range(args.rounds):
            for k, fn in runs.items():
                times[k].append(timed(fn, args.calls))
        m = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        print("%-12s %10.3f %10.3f %7.2fx %10.3f %11.2fx" % (
            name, m[("gj", "f32")], m[("gj", "f64")],
            m[("gj", "f64")] / m[("gj", "f32")], m[("np", "f32")],
            m[("np", "f32")] / m[("gj", "f32")]))


if __name__ == "__main__":
    main()
