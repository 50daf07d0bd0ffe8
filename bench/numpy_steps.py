"""The examples' train steps in NumPy against graphjit, side by side.

    /usr/bin/python3 bench/numpy_steps.py build/utils/graphjit

The same math as examples/logistic_regression.graph (n=400, float64) and
examples/mlp.graph (n=128, float32); NumPy's time is the median of 7 runs of
5 calls.
"""
import time

import numpy as np


def median_time(fn, reps=7, inner=5):
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - start) / inner)
    return sorted(times)[len(times) // 2]


rng = np.random.default_rng(0)
x = rng.random((400, 784))
y = (rng.random(400) > 0.5).astype(np.float64)
w, b = np.zeros(784), np.float64(0)


def logreg():
    global w, b
    p = 1 / (1 + np.exp(-(x @ w + b)))
    xent = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gz = (p - y) / np.float64(x.shape[0])
    gw = x.T @ gz + 0.02 * w
    gb = gz.sum()
    w, b = w - 0.1 * gw, b - 0.1 * gb
    return cost


f32 = np.float32
mx = rng.random((128, 784), dtype=f32)
my = rng.random((128, 10), dtype=f32)
W1 = (rng.standard_normal((784, 256)) * 0.05).astype(f32)
b1 = np.zeros(256, f32)
W2 = (rng.standard_normal((256, 10)) * 0.05).astype(f32)
b2 = np.zeros(10, f32)


def mlp():
    global W1, b1, W2, b2
    h = np.tanh(mx @ W1 + b1)
    logits = h @ W2 + b2
    m = logits.max(axis=1, keepdims=True)
    ls = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    cost = -np.mean(np.sum(my * ls, axis=1))
    dl = (np.exp(ls) - my) / f32(mx.shape[0])
    dh = (dl @ W2.T) * (f32(1) - h * h)
    W2 = W2 - f32(0.1) * (h.T @ dl)
    b2 = b2 - f32(0.1) * dl.sum(axis=0)
    W1 = W1 - f32(0.1) * (mx.T @ dh)
    b1 = b1 - f32(0.1) * dh.sum(axis=0)
    return cost




def graphjit_seconds_per_call(graphjit, example, n, calls=51):
    """graphjit's time per train call: the difference between a run of
    `calls` calls and a run of one call of the command (both parse, compile
    and make inputs once), so start-up cost cancels out."""
    import subprocess

    def run(k):
        best = None
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run([graphjit, example, "-function=train", "-dim=n=%d" % n,
                            "-calls=%d" % k], check=True, stdout=subprocess.DEVNULL)
            t = time.perf_counter() - start
            best = t if best is None else min(best, t)
        return best
    return (run(calls) - run(1)) / (calls - 1)


if __name__ == "__main__":
    import os
    import sys
    if len(sys.argv) > 1:
        graphjit = sys.argv[1]
        examples = os.path.join(os.path.dirname(__file__), "..", "examples")
        for name, n, numpy_fn in (("logistic_regression", 400, logreg), ("mlp", 128, mlp)):
            t_np = median_time(numpy_fn)
            t_gj = graphjit_seconds_per_call(graphjit, os.path.join(examples, name + ".graph"), n)
            print("%s train step: graphjit c|py %.3f ms, NumPy %.3f ms, graphjit/NumPy time %.2f"
                  % (name, t_gj * 1e3, t_np * 1e3, t_gj / t_np))
