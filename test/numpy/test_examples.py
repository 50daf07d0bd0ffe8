"""The project's example graphs against independent NumPy implementations.

The logistic-regression train step's cost and final w, b after 10 calls must
match to 1e-10 relative; the perceptron (float32) is checked after 3 calls
from the initial weights graphjit generated (dumped with -calls=0).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import numpy as np
import harness as H

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


def example(name):
    with open(os.path.join(EXAMPLES, name)) as f:
        return f.read()


rng = np.random.default_rng(7)

# The profiling tutorial's (x + y + z) * 2.
x, y, z = (rng.random(5) for _ in range(3))
H.check("profiling example", example("profiling_example.graph"),
        inputs={"x": x, "y": y, "z": z}, expected={"r": (x + y + z) * 2},
        function="example")


def logreg_step(x, y, w, b):
    p = 1 / (1 + np.exp(-(x @ w + b)))
    xent = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gz = (p - y) / x.shape[0]
    gw = x.T @ gz + 0.02 * w
    gb = gz.sum()
    return cost, w - 0.1 * gw, b - 0.1 * gb


n = 400
lx = rng.standard_normal((n, 784)) * 0.1
ly = (rng.random(n) > 0.5).astype(np.float64)
w, b = np.zeros(784), np.float64(0)
for _ in range(10):
    cost, w, b = logreg_step(lx, ly, w, b)
H.check("logistic regression, 10 train steps",
        example("logistic_regression.graph"), inputs={"x": lx, "y": ly},
        expected={"cost": np.float64(cost), "w": w, "b": np.float64(b)},
        function="train", calls=10, rtol=1e-10, atol=1e-14)
p = 1 / (1 + np.exp(-(lx @ np.zeros(784) + 0)))
H.check("logistic regression predict", example("logistic_regression.graph"),
        inputs={"x": lx}, expected={"p": p}, function="predict")


def log_softmax(a):
    m = a.max(axis=1, keepdims=True)
    return a - m - np.log(np.exp(a - m).sum(axis=1, keepdims=True))


def mlp_step(x, y, W1, b1, W2, b2):
    h = np.tanh(x @ W1 + b1)
    logits = h @ W2 + b2
    cost = -np.mean(np.sum(y * log_softmax(logits), axis=1))
    dl = (np.exp(log_softmax(logits)) - y) / np.float32(x.shape[0])
    dh = (dl @ W2.T) * (np.float32(1) - h * h)
    lr = np.float32(0.1)
    return (np.float32(cost), W1 - lr * (x.T @ dh), b1 - lr * dh.sum(axis=0),
            W2 - lr * (h.T @ dl), b2 - lr * dl.sum(axis=0))


mlp = example("mlp.graph")
rc, out, err, outdir = H.run_graphjit(mlp, function="train", calls=0,
                                      dims={"n": 1})
if rc != 0:
    H.fail("mlp initial weights", "graphjit -calls=0 failed:\n" + out + err)
else:
    W1, b1, W2, b2 = (np.load(os.path.join(outdir, v + ".npy"))
                      for v in ("W1", "b1", "W2", "b2"))

    def initial_weights_are_normal():
        assert W1.dtype == np.float32 and W1.shape == (784, 256)
        assert abs(W1.mean()) < 0.002, W1.mean()
        assert abs(W1.std() - 0.05) < 0.002, W1.std()
        assert not np.array_equal(W1[:, :10], W2[:, :10]), "seeds 1 and 2 agree"
        assert not b1.any() and not b2.any()
    H.record("mlp initial weights are normal(0, 0.05)", initial_weights_are_normal)
    n = 128
    mx = rng.random((n, 784), dtype=np.float32)
    labels = rng.integers(0, 10, n)
    my = np.eye(10, dtype=np.float32)[labels]
    state = (W1, b1, W2, b2)
    for _ in range(3):
        cost, *state = mlp_step(mx, my, *state)
    H.check("perceptron, 3 train steps", mlp, inputs={"x": mx, "y": my},
            expected=dict(cost=cost, W1=state[0], b1=state[1], W2=state[2],
                          b2=state[3]),
            function="train", calls=3, rtol=1e-4, atol=1e-6)
    label = np.argmax(np.tanh(mx @ W1 + b1) @ W2 + b2, axis=1)
    H.check("perceptron predict", mlp, inputs={"x": mx},
            expected={"label": label}, function="predict")

H.main()
