"""The cases as PyTensor graphs, the same math as the .graph files (shared
variables and updates for the train steps), and the modes they compile in.

Modes: "cvm" is PyTensor's C backend, Mode(linker="cvm") with fast_run
rewrites: C thunks driven by the C virtual machine, the one with per-node
profiles. "default" is whatever pytensor.compile.mode.get_default_mode()
gives (in PyTensor 3 the Numba linker). A case with fused=False excludes the
"fusion" rewrites in both, as graphjit does with -optimizer_excluding=fusion.
"""
import sys

import numpy as np

import pytensor
import pytensor.tensor as pt
from pytensor.compile.mode import Mode, get_default_mode

from cases import chain_ops

sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))


def mode_for(name, case):
    m = Mode(linker="cvm", optimizer="fast_run") if name == "cvm" \
        else get_default_mode()
    return m if case.fused else m.excluding("fusion")


def mode_description(name):
    if name == "cvm":
        return "Mode(linker=cvm, optimizer=fast_run)"
    m = get_default_mode()
    return "default mode (linker %s)" % type(m.linker).__name__


def build(case, init):
    """(inputs, outputs, updates, shared by name) of the case's function."""
    shared = {k: pytensor.shared(init[k].copy(), name=k) for k in case.shared}
    if case.kind == "example":
        x, y, z = (pt.dvector(k) for k in "xyz")
        return [x, y, z], [(x + y + z) * 2.0], [], shared
    if case.kind == "chain":
        x = pt.dscalar("x")
        v = x
        for op, c in chain_ops(case.n):
            v = v + c if op == "add" else v * c
        return [x], [v], [], shared
    if case.kind == "logreg":
        x, y = pt.dmatrix("x"), pt.dvector("y")
        w, b = shared["w"], shared["b"]
        p = pt.sigmoid(pt.dot(x, w) + b)
        xent = -(y * pt.log(p) + (1.0 - y) * pt.log(1.0 - p))
        cost = xent.mean() + 0.01 * pt.sqr(w).sum()
        gz = (p - y) / pt.cast(x.shape[0], "float64")
        gw = pt.dot(x.T, gz) + 0.02 * w
        gb = gz.sum()
        return [x, y], [cost], [(w, w - 0.1 * gw), (b, b - 0.1 * gb)], shared
    # mlp, in float32: constants are float32 so that nothing upcasts.
    c = np.float32
    x, y = pt.fmatrix("x"), pt.fmatrix("y")
    W1, b1, W2, b2 = (shared[k] for k in ("W1", "b1", "W2", "b2"))
    h = pt.tanh(pt.dot(x, W1) + b1)
    logits = pt.dot(h, W2) + b2
    cost = -pt.mean(pt.sum(y * pt.special.log_softmax(logits, axis=1), axis=1))
    nf = pt.cast(x.shape[0], "float32")
    dl = (pt.special.softmax(logits, axis=1) - y) / nf
    dh = pt.dot(dl, W2.T) * (c(1.0) - pt.sqr(h))
    updates = [(W2, W2 - c(0.1) * pt.dot(h.T, dl)),
               (b2, b2 - c(0.1) * dl.sum(axis=0)),
               (W1, W1 - c(0.1) * pt.dot(x.T, dh)),
               (b1, b1 - c(0.1) * dh.sum(axis=0))]
    return [x, y], [cost], updates, shared


class PytensorStep:
    """One compiled function; call() runs it on the case's inputs."""

    def __init__(self, case, init, mode_name, profile=False):
        ins, outs, updates, self.shared = build(case, init)
        self.fn = pytensor.function(ins, outs, updates=updates,
                                    mode=mode_for(mode_name, case),
                                    profile=profile or None, name=case.key)
        self.case = case

    def bind(self, inputs):
        args = [inputs[k] for k in self.case.input_names()]
        fn = self.fn
        return lambda: fn(*args)

    def results(self, inputs, calls):
        call = self.bind(inputs)
        for _ in range(calls):
            outs = call()
        res = dict(zip(self.case.outputs, (np.asarray(o) for o in outs)))
        res.update({k: v.get_value() for k, v in self.shared.items()})
        return res

    def applies(self):
        return len(self.fn.maker.fgraph.apply_nodes)

    def summary(self, path):
        with open(path, "w") as f:
            self.fn.profile.summary(file=f)


def versions():
    return {"pytensor": pytensor.__version__,
            "pytensor blas__ldflags": pytensor.config.blas__ldflags,
            "pytensor cxx": pytensor.config.cxx}
