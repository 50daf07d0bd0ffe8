#!/usr/bin/env python3
"""PyMC's log-density and gradient (what a sampler calls at every step) of
four standard models, compiled by PyTensor's C VM, its Numba mode and
graphjit's GRAPHJIT mode, timed side by side in one run (issue 15, section
6): the modes in alternation, round after round, each keeping the median of
its rounds. Every mode's numbers are checked against the C VM's first.
Prints graphjit's C coverage of each model. Run in the PyMC environment:

    .venv-pymc/bin/python bench/python/pymc_logp.py [--json results.json]

bench/peers/run_peers.py runs it too and puts its table in BENCHMARKS.md.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples"))

import graphjit.pytensor as gjp  # noqa: E402  (registers GRAPHJIT)
from pymc.blocking import DictToArrayBijection  # noqa: E402
from pytensor.compile.mode import Mode  # noqa: E402

from pymc_models import MODELS  # noqa: E402

MODES = {"graphjit": lambda: "GRAPHJIT",
         "PyTensor C VM": lambda: Mode(linker="cvm", optimizer="fast_run"),
         "PyTensor Numba": lambda: "NUMBA"}


def value_grad(model, mode):
    """The sampler's function: a flat point -> (logp, gradient)."""
    f = model.logp_dlogp_function(mode=mode, ravel_inputs=True)
    f.set_extra_values({})
    return f


def per_call(f, x, n):
    start = time.perf_counter()
    for _ in range(n):
        f(x)
    return (time.perf_counter() - start) / n


def measure(name, rounds, seconds):
    model = MODELS[name]()
    fns = {k: value_grad(model, m()) for k, m in MODES.items()}
    x = DictToArrayBijection.map(model.initial_point()).data
    want = fns["PyTensor C VM"](x)
    for k, f in fns.items():
        got = f(x)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-9, err_msg=k)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-8, atol=1e-12,
                                   err_msg=k)
    calls = {k: max(1, int(seconds / per_call(f, x, 20)))
             for k, f in fns.items()}
    samples = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            samples[k].append(per_call(f, x, calls[k]))
    cov = gjp.coverage(fns["graphjit"]._pytensor_function)
    import pytensor
    return {"model": name, "pytensor": pytensor.__version__,
            "times": {k: statistics.median(v) for k, v in samples.items()},
            "c_nodes": cov["c_nodes"], "nodes": cov["nodes"],
            "py_ops": sorted(set(cov["py_ops"]))}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--round-seconds", type=float, default=0.2)
    p.add_argument("--models", nargs="*", default=sorted(MODELS))
    p.add_argument("--json", help="also write the results here")
    a = p.parse_args()
    results = [measure(name, a.rounds, a.round_seconds) for name in a.models]
    print("PyMC logp+gradient, median of %d rounds (peer's time / "
          "graphjit's in parentheses):" % a.rounds)
    for r in results:
        t = r["times"]
        g = t["graphjit"]
        print("  %-20s graphjit %8.1f us | C VM %8.1f us (%.2fx) | Numba "
              "%8.1f us (%.2fx) | C nodes %d/%d; Py: %s" % (
                  r["model"], g * 1e6, t["PyTensor C VM"] * 1e6,
                  t["PyTensor C VM"] / g, t["PyTensor Numba"] * 1e6,
                  t["PyTensor Numba"] / g, r["c_nodes"], r["nodes"],
                  ", ".join(r["py_ops"]) or "none"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
