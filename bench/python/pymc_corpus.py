#!/usr/bin/env python3
"""PyMC's log-density and gradient of every model of the corpus
(examples/pymc_corpus.py, issue 34) compiled by graphjit's GRAPHJIT mode,
PyTensor's C VM and its Numba mode, timed side by side as
bench/python/pymc_logp.py times its four models: the modes in alternation,
round after round, each keeping the median of its rounds. Every mode's
values are checked against the C VM's first; a mode that fails to compile
or to run a model, or gives other values, is reported as such and left out
of that model's timings. Prints graphjit's C coverage of each model and the
nodes that run as Py (with graphjit's reason), then how many models run
entirely in C and the median and worst time ratios. Run in the PyMC
environment, with one BLAS thread (the models' matrices are 40 x 40 at
most: BLAS threads cost more than they save there, and on a loaded machine
they make a Cholesky a hundred times slower, in every mode):

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
    .venv-pymc/bin/python bench/python/pymc_corpus.py [--quick]
        [--models a,b] [--json results.json]
"""
import argparse
import json
import os
import statistics
import sys
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples"))

import graphjit.pytensor as gjp  # noqa: E402  (registers GRAPHJIT)
from graphjit.pytensor import profile as gjp_profile  # noqa: E402
from pymc.blocking import DictToArrayBijection  # noqa: E402
from pytensor.compile.mode import Mode  # noqa: E402

from pymc_corpus import CORPUS  # noqa: E402
from pymc_logp import MODES, per_call, value_grad  # noqa: E402

REF = "PyTensor C VM"
GJ = "graphjit"
NUMBA = "PyTensor Numba"
PY_LINKER = lambda: Mode(linker="py", optimizer="fast_run")  # noqa: E731


def _error(e):
    lines = [ln for ln in str(e).strip().splitlines() if ln.strip()]
    return "%s: %s" % (type(e).__name__, lines[0][:300] if lines else "")


def _py_nodes(f):
    """graphjit's Py nodes of a compiled function: op, and reason where
    the translation kept one."""
    runner = gjp_profile._runner_of(f)
    t = runner.translation
    reasons = getattr(t, "fallback_reason", {})
    out = {}
    for node in t.nodes:
        if not t.compiled.get(node):
            op = str(node.op)
            reason = reasons.get(node)
            out.setdefault(op, reason)
    return [{"op": op, "reason": r} for op, r in sorted(out.items())]


def _check(got, want):
    np.testing.assert_allclose(got[0], want[0], rtol=1e-8)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-8, atol=1e-10)


def _mismatch(got, want):
    """Where got (logp, dlogp) is furthest from want, relatively."""
    a = np.r_[got[0], np.ravel(got[1])]
    b = np.r_[want[0], np.ravel(want[1])]
    rel = np.abs(a - b) / np.maximum(np.abs(b), 1e-300)
    i = int(np.argmax(rel))
    where = "logp" if i == 0 else "dlogp[%d]" % (i - 1)
    return "%s: %.17g vs %.17g, relative %.2g" % (where, a[i], b[i], rel[i])


def measure(name, rounds, seconds):
    r = {"model": name, "errors": {}, "times": {}}
    try:
        model = CORPUS[name]()
        x = DictToArrayBijection.map(model.initial_point()).data
    except Exception as e:
        r["errors"]["model"] = _error(e)
        return r
    r["size"] = int(x.size)
    fns = {}
    for k, mode in MODES.items():
        t0 = time.perf_counter()
        try:
            fns[k] = value_grad(model, mode())
            fns[k](x)  # the first call, with whatever it compiles lazily
        except Exception as e:
            fns.pop(k, None)
            r["errors"][k] = "compile/first call: " + _error(e)
        r.setdefault("compile_s", {})[k] = time.perf_counter() - t0
    if REF not in fns:
        return r
    compiled = dict(fns)
    want = fns[REF](x)
    py_ref = []  # PyTensor's Python linker, made when a mode disagrees
    for k in list(fns):
        if k == REF:
            continue
        try:
            got = fns[k](x)
            try:
                _check(got, want)
            except AssertionError:
                # Where the C VM's own kernels are less accurate (its Psi is
                # off by 2e-8), the mode may agree with the same graph run
                # node by node through perform (scipy's kernels) instead.
                if not py_ref:
                    py_ref.append(value_grad(model, PY_LINKER())(x))
                try:
                    _check(got, py_ref[0])
                except AssertionError:
                    raise AssertionError(_mismatch(got, want))
                r.setdefault("notes", {})[k] = (
                    "differs from the C VM (%s) but agrees with PyTensor's "
                    "py linker at rtol 1e-8" % _mismatch(got, want))
        except AssertionError as e:
            r["errors"][k] = "wrong values: " + str(e)
            fns.pop(k)
        except Exception as e:
            r["errors"][k] = "call: " + _error(e)
            fns.pop(k)
    if GJ in compiled:
        try:
            f = compiled[GJ]._pytensor_function
            cov = gjp.coverage(f)
            r["c_nodes"], r["nodes"] = cov["c_nodes"], cov["nodes"]
            r["py"] = _py_nodes(f)
        except Exception as e:
            r["errors"]["coverage"] = _error(e)
    calls = {k: max(1, int(seconds / per_call(f, x, 5)))
             for k, f in fns.items()}
    samples = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            samples[k].append(per_call(f, x, calls[k]))
    r["times"] = {k: statistics.median(v) for k, v in samples.items()}
    return r


def _us(t):
    return "%9.1f us" % (t * 1e6) if t is not None else "%12s" % "-"


def report(results, rounds):
    print("PyMC corpus, logp+gradient per call, median of %d rounds "
          "(peer's time / graphjit's in parentheses; OPENBLAS_NUM_THREADS="
          "%s):" % (rounds, os.environ.get("OPENBLAS_NUM_THREADS", "unset")))
    ratios = {REF: [], NUMBA: []}
    all_c = 0
    for r in results:
        t = r["times"]
        g = t.get(GJ)
        cols = ["%-28s" % r["model"], "graphjit " + _us(g)]
        for k, short in ((REF, "C VM"), (NUMBA, "Numba")):
            p = t.get(k)
            ratio = p / g if p is not None and g else None
            if ratio is not None:
                ratios[k].append((ratio, r["model"]))
            cols.append("%s %s%s" % (short, _us(p), " (%5.3gx)" % ratio
                                     if ratio is not None else " (  -  )"))
        if "nodes" in r:
            cols.append("C nodes %d/%d" % (r["c_nodes"], r["nodes"]))
            all_c += r["c_nodes"] == r["nodes"]
        print("  " + " | ".join(cols))
        for p in r.get("py", []):
            print("      Py: %s%s" % (p["op"], " (%s)" % p["reason"]
                                     if p["reason"] else ""))
        for k, e in r.get("notes", {}).items():
            print("      note %s: %s" % (k, e))
        for k, e in r["errors"].items():
            print("      ERROR %s: %s" % (k, e))
    print("models with every node in C: %d of %d" % (all_c, len(results)))
    for k, short in ((REF, "C VM"), (NUMBA, "Numba")):
        v = sorted(ratios[k])
        if v:
            print("%s/graphjit: median %.3gx, worst %.3gx (%s), best %.3gx "
                  "(%s), over %d models" % (
                      short, statistics.median([a for a, _ in v]), v[0][0],
                      v[0][1], v[-1][0], v[-1][1], len(v)))
    failed = [r["model"] for r in results if r["errors"]]
    if failed:
        print("models with errors: " + ", ".join(failed))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--round-seconds", type=float, default=0.2)
    p.add_argument("--quick", action="store_true",
                   help="3 rounds of 0.05 s")
    p.add_argument("--models", default=",".join(CORPUS),
                   help="comma-separated names (default: all)")
    p.add_argument("--json", help="also write the results here")
    a = p.parse_args()
    if a.quick:
        a.rounds, a.round_seconds = 3, 0.05
    names = [n for n in a.models.split(",") if n]
    unknown = [n for n in names if n not in CORPUS]
    if unknown:
        p.error("unknown models: %s (known: %s)" % (", ".join(unknown),
                                                     ", ".join(CORPUS)))
    results = []
    for name in names:
        t0 = time.perf_counter()
        try:
            r = measure(name, a.rounds, a.round_seconds)
        except Exception as e:  # a bug of this script: keep going
            traceback.print_exc()
            r = {"model": name, "errors": {"bench": _error(e)}, "times": {}}
        print("# %s: %.1f s" % (name, time.perf_counter() - t0),
              file=sys.stderr, flush=True)
        results.append(r)
    report(results, a.rounds)
    if a.json:
        import pytensor
        with open(a.json, "w") as f:
            json.dump({"pytensor": pytensor.__version__, "rounds": a.rounds,
                       "round_seconds": a.round_seconds, "results": results},
                      f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
