"""The cases written by hand in NumPy: the same math as the .graph files, the
gradients as the graphs write them, the shared variables as attributes that
each train call replaces (as an update does)."""
import numpy as np

from cases import chain_ops


class NumpyStep:
    def __init__(self, case, init):
        self.case = case
        self.state = {k: init[k].copy() for k in case.shared}

    def bind(self, inputs):
        args = [inputs[k] for k in self.case.input_names()]
        step = getattr(self, self.case.kind)
        return lambda: step(*args)

    def results(self, inputs, calls):
        call = self.bind(inputs)
        for _ in range(calls):
            out = call()
        res = {self.case.outputs[0]: np.asarray(out)}
        res.update(self.state)
        return res

    def example(self, x, y, z):
        return (x + y + z) * 2.0

    def chain(self, x):
        v = x
        for op, c in chain_ops(self.case.n):
            v = v + c if op == "add" else v * c
        return v

    def logreg(self, x, y):
        s = self.state
        w, b = s["w"], s["b"]
        p = 1.0 / (1.0 + np.exp(-(x @ w + b)))
        xent = -(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))
        cost = xent.mean() + 0.01 * (w * w).sum()
        gz = (p - y) / np.float64(x.shape[0])
        gw = x.T @ gz + 0.02 * w
        gb = gz.sum()
        s["w"], s["b"] = w - 0.1 * gw, np.asarray(b - 0.1 * gb)
        return cost

    def mlp(self, x, y):
        s, f32 = self.state, np.float32
        W1, b1, W2, b2 = s["W1"], s["b1"], s["W2"], s["b2"]
        h = np.tanh(x @ W1 + b1)
        logits = h @ W2 + b2
        m = logits.max(axis=1, keepdims=True)
        ls = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
        cost = -np.mean(np.sum(y * ls, axis=1))
        dl = (np.exp(ls) - y) / f32(x.shape[0])
        dh = (dl @ W2.T) * (f32(1) - h * h)
        s["W2"] = W2 - f32(0.1) * (h.T @ dl)
        s["b2"] = b2 - f32(0.1) * dl.sum(axis=0)
        s["W1"] = W1 - f32(0.1) * (x.T @ dh)
        s["b1"] = b1 - f32(0.1) * dh.sum(axis=0)
        return cost
