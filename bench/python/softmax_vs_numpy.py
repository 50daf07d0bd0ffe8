"""graphjit's softmax against NumPy's, float32 and float64, side by side in
one run (issue 35: float32 must be at least as fast as float64, and the
report's "use float32" tip must not point the wrong way).

    .venv/bin/python bench/python/softmax_vs_numpy.py [--rows 512] [--cols 512]

graphjit's `softmax(x, axis=1)` against NumPy's `exp(x - max) / sum`
along the rows; each round times both, alternating; the medians and
their ratios are printed.
"""
import argparse
import statistics
import time

import numpy as np

import graphjit


def numpy_softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def timed(fn, calls):
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def measure(dtype, rows, cols, rounds, calls):
    short = {"float32": "f32", "float64": "f64"}[dtype]
    m = graphjit.loads("func f(x: %s[n, m]) -> (y) "
                       "{ y = softmax(x, axis=1) }" % short)
    f = m.function("f")
    x = np.random.default_rng(0).standard_normal((rows, cols)).astype(dtype)
    np.testing.assert_allclose(f(x), numpy_softmax(x),
                               rtol=1e-5 if dtype == "float32" else 1e-12)
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(timed(lambda: f(x), calls))
        theirs.append(timed(lambda: numpy_softmax(x), calls))
    a, b = statistics.median(ours), statistics.median(theirs)
    print("softmax %s %dx%d   graphjit %.3f ms  NumPy %.3f ms  "
          "NumPy/graphjit %.2fx" % (dtype, rows, cols, a * 1e3, b * 1e3,
                                    b / a))
    return a


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", type=int, default=512)
    p.add_argument("--cols", type=int, default=512)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--calls", type=int, default=50)
    args = p.parse_args()
    f32 = measure("float32", args.rows, args.cols, args.rounds, args.calls)
    f64 = measure("float64", args.rows, args.cols, args.rounds, args.calls)
    print("graphjit float64/float32: %.2fx" % (f64 / f32))


if __name__ == "__main__":
    main()
