"""graphjit's BLAS products against NumPy's, side by side in one run
(issue 35): a large sgemm and dgemm (graphjit's dot, NumPy's @) and the
perceptron's training step (examples/mlp.graph against the same step in
NumPy, as bench/peers writes it), with the OpenBLAS each links and the
kernel it chose.

    .venv/bin/python bench/python/blas_vs_numpy.py [--n 1024] [--batch 512]

Each round times both, one after the other; the medians over the rounds
and their ratio are printed (these machines are noisy: compare within a
run, never across runs).
"""
import argparse
import ctypes
import os
import statistics
import sys
import time

import numpy as np

import graphjit

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "peers"))


def numpy_blas():
    """NumPy's OpenBLAS: its version and the kernel it chose."""
    for line in open("/proc/self/maps"):
        path = line.split()[-1]
        if "openblas" in os.path.basename(path) and "numpy" in path:
            lib = ctypes.CDLL(path)
            for suffix in ("64_", ""):
                core = getattr(lib, "scipy_openblas_get_corename" + suffix,
                               None)
                config = getattr(lib, "scipy_openblas_get_config" + suffix,
                                 None)
                if core and config:
                    core.restype = config.restype = ctypes.c_char_p
                    return "%s, kernel %s" % (
                        " ".join(config().decode().split()[:2]),
                        core().decode())
    return "unknown"


def graphjit_blas():
    """The BLAS line of graphjit's profile header."""
    m = graphjit.loads("func f(a: f64[2, 2]) -> (b) { b = dot(a, a) }")
    f = m.function("f", profile=True)
    f(np.eye(2))
    machine = f.profile.profile().data.get("machine", "")
    return machine.split("BLAS: ", 1)[-1] if machine else "unknown"


def timed(fn, calls):
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def side_by_side(name, ours, theirs, calls, rounds, flops=None):
    ours(), theirs()  # warm up both
    a, b = [], []
    for _ in range(rounds):
        a.append(timed(ours, calls))
        b.append(timed(theirs, calls))
    ma, mb = statistics.median(a), statistics.median(b)
    rate = ""
    if flops:
        rate = "  (%.1f against %.1f GFLOP/s)" % (flops / ma / 1e9,
                                                   flops / mb / 1e9)
    print("%-32s graphjit %8.3f ms  NumPy %8.3f ms  NumPy/graphjit %.2fx%s"
          % (name, ma * 1e3, mb * 1e3, mb / ma, rate))
    return {"graphjit_ms": ma * 1e3, "numpy_ms": mb * 1e3, "ratio": mb / ma}


def gemm(dtype, n, rounds):
    short = {"float32": "f32", "float64": "f64"}[dtype]
    m = graphjit.loads("func f(a: %s[n, n], b: %s[n, n]) -> (c) "
                       "{ c = dot(a, b) }" % (short, short))
    f = m.function("f")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype(dtype)
    b = rng.standard_normal((n, n)).astype(dtype)
    np.testing.assert_allclose(f(a, b), a @ b, rtol=1e-3 if
                               dtype == "float32" else 1e-10, atol=1e-3)
    name = {"float32": "sgemm", "float64": "dgemm"}[dtype]
    return side_by_side("%s %d x %d x %d" % (name, n, n, n),
                        lambda: f(a, b), lambda: a @ b, calls=5,
                        rounds=rounds, flops=2.0 * n ** 3)


def perceptron(batch, rounds):
    from types import SimpleNamespace

    from numpy_steps import NumpyStep  # bench/peers: the step in NumPy
    m = graphjit.load(os.path.join(ROOT, "examples", "mlp.graph"))
    train = m.function("train")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((batch, 784)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]
    init = {k: np.array(v.get_value()) for k, v in m.shared.items()}
    step = NumpyStep(SimpleNamespace(shared=list(init)), init)
    np.testing.assert_allclose(train(x, y), step.mlp(x, y), rtol=1e-4)
    return side_by_side("perceptron train step, n=%d" % batch,
                        lambda: train(x, y), lambda: step.mlp(x, y),
                        calls=10, rounds=rounds)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--rounds", type=int, default=7)
    args = p.parse_args()
    print("graphjit's BLAS: %s" % graphjit_blas())
    print("NumPy's BLAS:    %s" % numpy_blas())
    print("OPENBLAS_CORETYPE=%s, OPENBLAS_NUM_THREADS=%s" % (
        os.environ.get("OPENBLAS_CORETYPE", "(unset)"),
        os.environ.get("OPENBLAS_NUM_THREADS", "(unset)")))
    gemm("float32", args.n, args.rounds)
    gemm("float64", args.n, args.rounds)
    perceptron(args.batch, args.rounds)


if __name__ == "__main__":
    main()
