"""The graphs every backend runs: which .graph function, at which sizes, with
which inputs, and how closely the peers' results must agree with graphjit's.

A case's inputs are made here with NumPy (seeded) and handed to graphjit as
.npy files; its shared variables start from what graphjit initialises
(`-calls=0 -output-dir`), so every backend starts from the same state.
"""
import os
from dataclasses import dataclass, field

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# Relative: graphjit runs in ROOT, so that its reports name examples/X.graph.
EXAMPLES = "examples"


@dataclass
class Case:
    key: str              # file-name friendly id: example_1e3, logreg, ...
    title: str            # as the tables print it
    kind: str             # example | logreg | mlp | chain
    graph: str            # path of the .graph file
    function: str
    n: int                # the symbolic dim n (the chain: its length)
    dtype: str
    rtol: float
    atol: float
    fused: bool = True    # False: fusion excluded in graphjit and PyTensor
    profile: bool = True  # measure profiling overhead, save both reports
    shared: list = field(default_factory=list)   # shared variable names
    outputs: list = field(default_factory=list)  # output names, in order

    def input_names(self):
        return {"example": ["x", "y", "z"], "logreg": ["x", "y"],
                "mlp": ["x", "y"], "chain": ["x"]}[self.kind]

    def make_inputs(self, seed=0):
        """The inputs, by name, as C-contiguous arrays."""
        rng = np.random.default_rng(seed)
        n = self.n
        if self.kind == "example":
            return {k: rng.random(n) for k in ("x", "y", "z")}
        if self.kind == "logreg":
            return {"x": rng.random((n, 784)),
                    "y": (rng.random(n) > 0.5).astype(np.float64)}
        if self.kind == "mlp":
            y = np.zeros((n, 10), np.float32)
            y[np.arange(n), rng.integers(0, 10, n)] = 1
            return {"x": rng.random((n, 784), dtype=np.float32), "y": y}
        return {"x": np.array(rng.random())}


def chain_ops(length):
    """The chain's Applies in order: (op, constant), starting from x."""
    ops = [("add", 1.0)]
    for i in range(2, length + 1):
        ops.append(("mul", 0.999) if i % 2 == 0 else ("add", 0.5))
    return ops


def write_chain_graph(path, length):
    lines = ["# A chain of %d scalar Elemwise Applies (bench/peers/cases.py)."
             % length,
             "func chain(x: f64[]) -> (v%d) {" % length]
    prev = "x"
    for i, (op, c) in enumerate(chain_ops(length), start=1):
        lines.append("  v%d = %s(%s, %r)" % (i, op, prev, c))
        prev = "v%d" % i
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def make_cases(workdir, smoke):
    """The cases of a run: the issue's sizes, or tiny ones for --smoke."""
    ex = os.path.join(EXAMPLES, "profiling_example.graph")
    lr = os.path.join(EXAMPLES, "logistic_regression.graph")
    mlp = os.path.join(EXAMPLES, "mlp.graph")
    chain_len = 50 if smoke else 1000
    chain = os.path.join(workdir, "chain%d.graph" % chain_len)
    write_chain_graph(chain, chain_len)
    small, large = (10, 100) if smoke else (10**3, 10**6)
    n_lr, n_mlp = (8, 4) if smoke else (400, 128)
    f64 = dict(dtype="float64", rtol=1e-9, atol=1e-12)
    return [
        Case("example_1e3", "(x+y+z)*2, n=%s" % f"{small:,}", "example", ex,
             "example", small, outputs=["r"], **f64),
        Case("example_1e6", "(x+y+z)*2, n=%s" % f"{large:,}", "example", ex,
             "example", large, outputs=["r"], **f64),
        Case("logreg", "logistic regression train, n=%d" % n_lr, "logreg",
             lr, "train", n_lr, outputs=["cost"], shared=["w", "b"],
             **f64),
        Case("mlp", "perceptron train, n=%d, f32" % n_mlp, "mlp", mlp,
             "train", n_mlp, outputs=["cost"],
             shared=["W1", "b1", "W2", "b2"], dtype="float32", rtol=1e-3,
             atol=1e-5),
        Case("chain", "chain of %s scalar Applies, unfused" % f"{chain_len:,}",
             "chain", chain, "chain", chain_len, outputs=["v%d" % chain_len],
             fused=False, **f64),
        Case("chain_fused", "the same chain, fused (default rewrites)",
             "chain", chain, "chain", chain_len,
             outputs=["v%d" % chain_len], profile=False, **f64),
    ]


def call_overhead_case(smoke):
    """The tutorial's graph on 3-element vectors: almost no work per call."""
    ex = os.path.join(EXAMPLES, "profiling_example.graph")
    return Case("overhead", "(x+y+z)*2, n=3", "example", ex, "example", 3,
                dtype="float64", rtol=1e-12, atol=0, outputs=["r"],
                profile=False)
